"""Identity between state parts: ``a is b``, ``id(a) == id(b)``, ``x is True`` and ``callable``.

Two equal tuples in a state may be one object (copied by reference) or two
(built separately); small ints are shared.  Spec code that asks ``is``
gets the object's answer, and a newcomer may well write ``left is right``
meaning "the same log".  A stand-in per part is never the same object as
another stand-in, so a fast path that runs the code on stand-ins sees two
objects where the spec's code sees one.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Length: int = constant(2, "the longest log", minimum=1, maximum=3)


class State(NamedTuple):
    left: tuple
    right: tuple
    shared: bool


def init(c):
    return [State(left=(), right=(), shared=False)]


@action("AppendLeft")
def append_left(c, s):
    if len(s.left) >= c.Length:
        return None
    return s._replace(left=s.left + (len(s.left),))


@action("CopyToRight")
def copy_to_right(c, s):
    """Share the left log: the same tuple object in both fields."""
    if s.right == s.left:
        return None
    return s._replace(right=s.left)


@action("RebuildRight")
def rebuild_right(c, s):
    """An equal log, built anew."""
    if len(s.right) >= c.Length:
        return None
    return s._replace(right=tuple(range(len(s.right) + 1)))


@action("Notice")
def notice(c, s):
    if s.shared or not s.left:
        return None
    same = s.left is s.right or id(s.left) == id(s.right)
    if same and callable(len):
        return s._replace(shared=True)
    return None


@invariant("NeverShared", "The two logs are never one object.")
def never_shared(c, s):
    return not s.shared


SPEC = Spec(name="identity", title="is and id() between parts", constants=Config, init=init,
            actions=[append_left, copy_to_right, rebuild_right, notice], invariants=[never_shared],
            deadlock_expected=True)
