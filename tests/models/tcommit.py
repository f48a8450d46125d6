"""Lamport's TCommit: the transaction-commit specification, over ``RM`` resource managers.

Each manager is working, prepared, committed or aborted; it may commit only if
all are prepared or committed, and abort only if none has committed.  The
reachable states can be counted by hand (see tests/test_engine.py):
``3**n + 2**n - 1`` (34 for three managers, as TLC reports for TCommit).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant, sometimes

WORKING, PREPARED, COMMITTED, ABORTED = range(4)
NAMES = ("working", "prepared", "committed", "aborted")


@attrs.frozen
class TCommitConstants:
    RM: int = constant(3, "number of resource managers", minimum=1, maximum=8)


class S(NamedTuple):
    rm_state: tuple


RM = Domain("rm", lambda c: range(c.RM), lambda r: f"rm{r + 1}")


def init(c):
    yield S((WORKING,) * c.RM)


def _set(s, rm, v):
    return S(s.rm_state[:rm] + (v,) + s.rm_state[rm + 1:])


@action("Prepare", rm=RM)
def prepare(c, s, rm):
    return _set(s, rm, PREPARED) if s.rm_state[rm] == WORKING else None


@action("Decide", rm=RM)
def decide(c, s, rm):
    st = s.rm_state
    out = []
    if st[rm] == PREPARED and all(x in (PREPARED, COMMITTED) for x in st):
        out.append(_set(s, rm, COMMITTED))
    if st[rm] in (WORKING, PREPARED) and all(x != COMMITTED for x in st):
        out.append(_set(s, rm, ABORTED))
    return out or None


@invariant("TCConsistent")
def consistent(c, s):
    """No manager commits while another aborts."""
    return not (COMMITTED in s.rm_state and ABORTED in s.rm_state)


@sometimes("AllCommitted")
def all_committed(c, s):
    """The transaction can commit everywhere."""
    return all(x == COMMITTED for x in s.rm_state)


def permute(c, s, perm):
    out = [0] * len(perm)
    for i, v in enumerate(s.rm_state):
        out[perm[i]] = v
    return S(tuple(out))


SPEC = Spec(
    name="tcommit",
    title="TCommit (transaction commit)",
    constants=TCommitConstants,
    init=init,
    actions=[prepare, decide],
    invariants=[consistent],
    sometimes=[all_committed],
    symmetry=Symmetry(size=lambda c: c.RM, permute=permute),
    deadlock_expected=True,
    view=lambda c, s: {f"rm{i + 1}": NAMES[v] for i, v in enumerate(s.rm_state)},
)
