"""A bool field and an int field that take the equal values ``False``/``0`` and ``True``/``1``.

Nothing mixes types within a field here: ``done`` is always a bool and
``count`` always an int, as in most specs.  The action prints both
(``f"{s.done}{s.count}"``), so a fast path that keeps one table of values
for all fields, where ``True`` and ``1`` are one entry, would print the
wrong one.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(2, "the largest count", minimum=1, maximum=3)


class State(NamedTuple):
    done: bool
    count: int
    width: int


def init(c):
    return [State(done=False, count=0, width=0)]


@action("Count")
def count(c, s):
    if s.count >= c.Limit:
        return None
    return s._replace(count=s.count + 1)


@action("Finish")
def finish(c, s):
    if s.done:
        return None
    return s._replace(done=True)


@action("Print")
def print_state(c, s):
    width = len(f"{s.done}{s.count}")
    if width == s.width:
        return None
    return s._replace(width=width)


@invariant("NarrowWhenDone", "A finished state at the limit never prints in five characters.")
def narrow_when_done(c, s):
    return not (s.done and s.count == c.Limit and s.width == 5)


SPEC = Spec(name="bool-and-int-fields", title="a bool field and an int field", constants=Config, init=init,
            actions=[count, finish, print_state], invariants=[narrow_when_done], deadlock_expected=True)
