"""State fields named ``count`` and ``index``, which shadow the tuple methods of the same names.

A NamedTuple may have fields called ``count`` and ``index`` (only names
starting with an underscore are refused), and newcomers use them: ``s.count``
is then the field, not ``tuple.count``.  A fast path whose stand-in for the
state forwards ``count``/``index`` to the tuple methods, or treats them as
method calls, reads something else.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest count", minimum=1, maximum=5)


class State(NamedTuple):
    count: int
    index: int


def init(c):
    return [State(count=0, index=0)]


@action("Count")
def count_up(c, s):
    if s.count >= c.Limit:
        return None
    return s._replace(count=s.count + 1)


@action("Index")
def index_up(c, s):
    if s.index >= s.count:
        return None
    return State(s.count, s.index + 1)


@invariant("IndexBehind", "The index never catches up with a full count.")
def index_behind(c, s):
    return not (s.index == s.count == c.Limit)


SPEC = Spec(name="field-named-count", title="fields named count and index", constants=Config, init=init,
            actions=[count_up, index_up], invariants=[index_behind], deadlock_expected=True)
