"""An action constraint that memoises in a module-level dict and a helper with a mutable default argument.

``SPREADS`` keeps each log's spread from one evaluation to the next, and
``gap(log, _memo={})`` each log's largest gap; both answer as the plain
computation would, so the spec's answer does not depend on what they hold.
The violation lies past the first few hundred states.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: (0, 2, 4, 6), str)
SPREADS = {}


@attrs.frozen
class Config:
    Length: int = constant(4, "the longest log", minimum=2, maximum=5)


class State(NamedTuple):
    log: tuple


def spread(log):
    if log not in SPREADS:
        SPREADS[log] = max(log, default=0) - min(log, default=0)
    return SPREADS[log]


def gap(log, _memo={}):
    if log not in _memo:
        _memo[log] = max((abs(x - y) for x, y in zip(log, log[1:])), default=0)
    return _memo[log]


def init(c):
    return [State(log=())]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return State(s.log + (value,))


def gentle(c, s, t):
    return spread(t.log) - spread(s.log) <= 2 and gap(t.log) <= 4


@invariant("NarrowFull", "A full log spans less than 6.")
def narrow_full(c, s):
    return len(s.log) < 4 or max(s.log) - min(s.log) < 6


SPEC = Spec(name="module-cache-ac", title="module-level caches in an action constraint", constants=Config,
            init=init, actions=[append], invariants=[narrow_full], action_constraint=gentle,
            deadlock_expected=True)
