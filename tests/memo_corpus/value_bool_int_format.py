"""``1`` and ``True`` in one field, told apart by ``repr``, an f-string, ``format`` and ``json.dumps``.

Equal values with equal hashes print differently: ``repr(True)`` is
``"True"``, ``f"{True:d}"`` is ``"1"`` but ``f"{True}"`` is ``"True"``, and
``json.dumps(True)`` is ``"true"``.  The spec counts the characters of a
formatted label into the state (an int, so the state stays canonical), so
the successors of the two equal states differ.  Reusing a result computed on
``1`` for ``True`` gives other successors, other counts and, here, misses
the long label the invariant forbids.
"""

import json
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Width: int = constant(9, "the longest label allowed", minimum=1, maximum=20)


class State(NamedTuple):
    ok: int
    """1 or True."""
    source: int
    width: int


def init(c):
    return [State(ok=1, source=0, width=0), State(ok=True, source=1, width=0)]


@action("Render")
def render(c, s):
    label = f"{s.ok}" + repr(s.ok) + json.dumps(s.ok) + format(s.ok, "")
    if s.width == len(label):
        return None
    return s._replace(width=len(label))


@action("Swap")
def swap(c, s):
    if s.source > 2:
        return None
    return s._replace(source=s.source + 2)


@invariant("ShortLabel", "The rendered label fits.")
def short_label(c, s):
    return s.width <= c.Width


SPEC = Spec(name="value-bool-int-format", title="1 and True through repr, f-strings and json",
            constants=Config, init=init, actions=[render, swap], invariants=[short_label], deadlock_expected=True)
