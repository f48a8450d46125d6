"""``fmt % q`` with the format string a constant, handed to a helper as a parameter, on a tuple part.

Python formats the tuple's items, so ``(5,)`` gives ``'5'``. Nothing in the
helper's source shows that ``fmt`` is text: only that it may be.

On a stand-in for the part (not a tuple itself), ``%`` would format the
part as one value, ``'(5,)'``, and a table learnt from it would answer for
every state with another tuple there.  The tuple is met deep, after a walk
of a grid of the other parts, so that a sample of early states does not show it.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    K: int = constant(20, "steps on each side of a grid walked before the tuple is set", minimum=1, maximum=60)
    Format: str = constant("%s", "how a queue is rendered")


class S(NamedTuple):
    a: int
    b: int
    q: tuple
    out: str


def init(c):
    return [S(0, 0, (), ""), S(0, 0, (0, 0, 0), "")]


@action("WalkA")
def walk_a(c, s):
    if s.a >= c.K or s.out != "":
        return None
    return s._replace(a=s.a + 1)


@action("WalkB")
def walk_b(c, s):
    if s.b >= c.K or s.out != "":
        return None
    return s._replace(b=s.b + 1)


@action("Setup")
def setup(c, s):
    if s.b != c.K or s.a != 0 or s.q != ():
        return None
    return S(-1, -1, (5,), "")


@action("Eval")
def evaluate(c, s):
    if s.a != -1 or s.out != "":
        return None
    return s._replace(out=render(c.Format, s.q))


def render(fmt, part):
    return fmt % part


@invariant("NotFive", "the formatted part is never the plain Python answer '5'")
def not_five(c, s):
    return s.out != "5"


SPEC = Spec(name="format-from-constant", title="% formatting of a tuple part, the format a constant", constants=Config, init=init,
            actions=[walk_a, walk_b, setup, evaluate], invariants=[not_five], deadlock_expected=True)
