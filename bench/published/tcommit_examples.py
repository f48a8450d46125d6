"""TCommit: Lamport's specification of transaction commit, ported from TLA+.

Source: github.com/tlaplus/Examples, specifications/transaction_commit/TCommit.tla
(Jim Gray and Leslie Lamport, "Consensus on Transaction Commit"; the repository is
MIT-licensed).  Model: TCommit.cfg, ``RM = {r1, r2, r3}``, ``INVARIANTS TCTypeOK
TCConsistent``, ``CHECK_DEADLOCK FALSE``; its manifest records 34 distinct states,
94 states generated, depth 7.

How the TLA+ is mapped:

* ``CONSTANT RM`` (a set of model values) is a count; ``r1`` .. ``rN`` are 0 .. N-1.
* ``VARIABLE rmState`` is a tuple indexed by resource manager; the strings
  "working", "prepared", "committed", "aborted" are the ints 0..3 (``RM_STATES``
  names them back).
* ``TCNext == \\E rm \\in RM : Prepare(rm) \\/ Decide(rm)``: two actions with an ``rm``
  parameter.  ``Decide(rm)`` has two disjuncts; when both hold (a prepared manager
  with every manager prepared and none committed) it returns both successors, as
  TLC generates one state per satisfied disjunct.
* ``TCTypeOK`` and ``TCConsistent`` are invariants; the ``THEOREM`` is not a model check.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

WORKING, PREPARED, COMMITTED, ABORTED = range(4)
RM_STATES = ("working", "prepared", "committed", "aborted")


@attrs.frozen
class Config:
    RM: int = constant(3, "number of resource managers (TLA+: RM = {r1, ..., rN})", minimum=1, maximum=8)


class State(NamedTuple):
    rmState: tuple[int, ...]
    """rmState[rm] is the state of resource manager rm."""


RM = Domain("rm", lambda c: range(c.RM), lambda r: f"r{r + 1}")


def tc_init(c: Config) -> list[State]:
    """TCInit == rmState = [rm \\in RM |-> "working"]"""
    return [State((WORKING,) * c.RM)]


def _set(s: State, rm: int, v: int) -> State:
    st = list(s.rmState)
    st[rm] = v
    return State(tuple(st))


@action("Prepare", rm=RM)
def prepare(c: Config, s: State, rm: int) -> State | None:
    """Prepare(rm) == rmState[rm] = "working" /\\ rmState' = [rmState EXCEPT ![rm] = "prepared"]"""
    if s.rmState[rm] != WORKING:
        return None
    return _set(s, rm, PREPARED)


@action("Decide", rm=RM)
def decide(c: Config, s: State, rm: int) -> list[State] | None:
    """Decide(rm): commit when every manager is prepared or committed; abort when none has committed."""
    st = s.rmState
    out = []
    # \/ /\ rmState[rm] = "prepared" /\ canCommit /\ rmState' = [rmState EXCEPT ![rm] = "committed"]
    if st[rm] == PREPARED and all(x in (PREPARED, COMMITTED) for x in st):
        out.append(_set(s, rm, COMMITTED))
    # \/ /\ rmState[rm] \in {"working", "prepared"} /\ notCommitted /\ rmState' = [... "aborted"]
    if st[rm] in (WORKING, PREPARED) and all(x != COMMITTED for x in st):
        out.append(_set(s, rm, ABORTED))
    return out or None


@invariant("TCTypeOK", "rmState \\in [RM -> {\"working\", \"prepared\", \"committed\", \"aborted\"}]")
def tc_type_ok(c: Config, s: State) -> bool:
    return len(s.rmState) == c.RM and all(0 <= x <= 3 for x in s.rmState)


@invariant("TCConsistent", "No resource manager has aborted while another has committed.")
def tc_consistent(c: Config, s: State) -> bool:
    return not (ABORTED in s.rmState and COMMITTED in s.rmState)


SPEC = Spec(
    name="published-tcommit",
    title="TCommit (tlaplus/Examples transaction_commit)",
    description="Lamport's transaction-commit specification: resource managers prepare, then all commit or all abort.",
    constants=Config,
    init=tc_init,
    actions=[prepare, decide],
    invariants=[tc_type_ok, tc_consistent],
    deadlock_expected=True,  # TCommit.cfg: CHECK_DEADLOCK FALSE
    view=lambda c, s: {"rmState": {f"r{i + 1}": RM_STATES[v] for i, v in enumerate(s.rmState)}},
)
