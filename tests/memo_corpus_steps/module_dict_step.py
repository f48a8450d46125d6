"""A module-level dict that memoises a helper called by a step property.

``_SPANS`` fills as the property runs (and stays filled from one search to
the next in a process); its answers are those of the plain computation.
``Widen`` moves both ends of the window at once, by a span that grows
deep in the search.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "SpanGrowsSlowly"
_SPANS = {}


@attrs.frozen
class Config:
    Top: int = constant(4, "the largest end", minimum=2, maximum=6)


class State(NamedTuple):
    low: int
    high: int


def span(low, high):
    key = (low, high)
    if key not in _SPANS:
        _SPANS[key] = high - low
    return _SPANS[key]


def init(c):
    return [State(low=0, high=0)]


@action("Grow")
def grow(c, s):
    if s.high >= c.Top:
        return None
    return s._replace(high=s.high + 1)


@action("Shrink")
def shrink(c, s):
    if s.low >= s.high:
        return None
    return s._replace(low=s.low + 1)


@action("Widen")
def widen(c, s):
    if s.low == 0 or s.high + 2 > c.Top:
        return None
    return State(s.low - 1, s.high + 2)


@step_property("SpanGrowsSlowly", "No step widens the window by more than two.")
def span_grows_slowly(c, s, t):
    return span(t.low, t.high) - span(s.low, s.high) <= 2


SPEC = Spec(name="module-dict-step", title="a module-level memo in a step property", constants=Config,
            init=init, actions=[grow, shrink, widen], properties=[span_grows_slowly], deadlock_expected=True)
