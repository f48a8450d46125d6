"""In one level, a raising step from an earlier state and a violating step from a later one.

As ``raise_after_violation``, with the kinds in the other order: breadth-first
order meets the step into an audit (``KeyError``: ``BUDGET`` has no entry
for it) before the over-budget step, so the spec's own code stops with the
error.  A fast path must report the same error, not the violation it may
meet first.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "error"
PROPERTY = "WithinBudget"
KIND = Domain("kind", lambda c: ("audit", "small", "tiny", "mini", "bulk"), str)
BUDGET = {"bulk": 3, "small": 2, "tiny": 1, "mini": 1}
COST = {"bulk": 4, "small": 2, "tiny": 1, "mini": 1, "audit": 1}


@attrs.frozen
class Config:
    Rounds: int = constant(2, "rounds of work", minimum=1, maximum=3)


class State(NamedTuple):
    kind: str
    spent: int
    rounds: int


def init(c):
    return [State(kind="", spent=0, rounds=0)]


@action("Start", kind=KIND)
def start(c, s, kind):
    if s.kind:
        return None
    return s._replace(kind=kind)


@action("Work")
def work(c, s):
    if not s.kind or s.rounds >= c.Rounds:
        return None
    return State(s.kind, s.spent + COST[s.kind], s.rounds + 1)


@step_property("WithinBudget", "No step spends more than the budget of the kind of work it is in.")
def within_budget(c, s, t):
    if t.spent == s.spent:
        return True
    return t.spent - s.spent <= BUDGET[t.kind]


SPEC = Spec(name="raise-before-violation", title="an error before a violation in one level", constants=Config,
            init=init, actions=[start, work], properties=[within_budget], deadlock_expected=True)
