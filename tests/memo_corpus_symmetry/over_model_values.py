"""TwoPhase commit over model values (``Symmetry.over``), with a signature over the sorted numbering.

The state holds strs, a ``Function`` from RM to its state, frozensets and
NamedTuple messages naming RMs, which the generic renaming renames (the
Function's pairs sorted again); the signature reads an RM's state, whether
the TM counted it and whether it sent ``Prepared``.  The invariant fails
when every RM has committed, eleven states in.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Function, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"


class Prepared(NamedTuple):
    type: str
    rm: str


class Decision(NamedTuple):
    type: str


COMMIT = Decision("Commit")
ABORT = Decision("Abort")


@attrs.frozen
class Config:
    RM: frozenset = constant(frozenset({"r1", "r2", "r3"}), "the resource managers (model values)")


class State(NamedTuple):
    rmState: Function
    tmState: str
    tmPrepared: frozenset
    msgs: frozenset


RM = Domain("rm", lambda c: sorted(c.RM), str)


def init(c):
    return [State(Function({rm: "working" for rm in c.RM}), "init", frozenset(), frozenset())]


@action("TMRcvPrepared", rm=RM)
def tm_rcv_prepared(c, s, rm):
    if s.tmState != "init" or Prepared("Prepared", rm) not in s.msgs:
        return None
    return s._replace(tmPrepared=s.tmPrepared | {rm})


@action("TMCommit")
def tm_commit(c, s):
    if s.tmState != "init" or s.tmPrepared != c.RM:
        return None
    return s._replace(tmState="committed", msgs=s.msgs | {COMMIT})


@action("TMAbort")
def tm_abort(c, s):
    if s.tmState != "init":
        return None
    return s._replace(tmState="aborted", msgs=s.msgs | {ABORT})


@action("RMPrepare", rm=RM)
def rm_prepare(c, s, rm):
    if s.rmState.at(rm) != "working":
        return None
    return s._replace(rmState=s.rmState.except_(rm, "prepared"), msgs=s.msgs | {Prepared("Prepared", rm)})


@action("RMChooseToAbort", rm=RM)
def rm_choose_to_abort(c, s, rm):
    if s.rmState.at(rm) != "working":
        return None
    return s._replace(rmState=s.rmState.except_(rm, "aborted"))


@action("RMRcvCommitMsg", rm=RM)
def rm_rcv_commit_msg(c, s, rm):
    if COMMIT not in s.msgs:
        return None
    return s._replace(rmState=s.rmState.except_(rm, "committed"))


@action("RMRcvAbortMsg", rm=RM)
def rm_rcv_abort_msg(c, s, rm):
    if ABORT not in s.msgs:
        return None
    return s._replace(rmState=s.rmState.except_(rm, "aborted"))


@invariant("NotAllCommitted", "Some RM has not committed (fails once the protocol commits).")
def not_all_committed(c, s):
    return any(s.rmState.at(rm) != "committed" for rm in c.RM)


def signature(c, s, i):
    rm = sorted(c.RM)[i]
    return (s.rmState.at(rm), rm in s.tmPrepared, Prepared("Prepared", rm) in s.msgs)


SPEC = Spec(name="over-model-values", title="TwoPhase over model values, with a signature", constants=Config,
            init=init, actions=[tm_rcv_prepared, tm_commit, tm_abort, rm_prepare, rm_choose_to_abort,
                                rm_rcv_commit_msg, rm_rcv_abort_msg],
            invariants=[not_all_committed], symmetry=Symmetry.over(lambda c: c.RM, signature),
            deadlock_expected=True)
