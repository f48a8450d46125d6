"""``sorted`` with a key, ``min``/``max`` with a key and ties, ``sum`` with a start value.

Ties are broken by position: ``min(items, key=k)`` returns the first item
with the least key, ``sorted`` is stable.  The winner therefore depends on
every item's key *and* on the order of the items, not only on the least
key.  A fast path that records the comparison results it saw, but not the
order the items arrived in, reuses a winner that another order would not
pick.  The alarm fires only when the first of two tied items wins.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
SLOT = Domain("slot", lambda c: range(3), lambda i: f"s{i}")


@attrs.frozen
class Config:
    Load: int = constant(2, "the highest load of a slot", minimum=1, maximum=3)


class State(NamedTuple):
    loads: tuple
    """Per slot, its load."""
    picked: int
    total: int


def init(c):
    return [State(loads=(0, 0, 0), picked=-1, total=0)]


@action("Load", slot=SLOT)
def load(c, s, slot):
    if s.loads[slot] >= c.Load or s.picked != -1:
        return None
    loads = s.loads[:slot] + (s.loads[slot] + 1,) + s.loads[slot + 1:]
    return s._replace(loads=loads)


@action("Pick")
def pick(c, s):
    if s.picked != -1:
        return None
    order = sorted(range(3), key=lambda i: -s.loads[i])
    busiest = max(range(3), key=lambda i: s.loads[i])
    idlest = min(reversed(range(3)), key=lambda i: s.loads[i])
    total = sum((s.loads[i] for i in order), 0)
    return s._replace(picked=busiest * 10 + idlest + (order[0] != busiest) * 100, total=total)


@invariant("NoLastIdle", "The idlest slot picked is never the last one while two slots tie for busiest.")
def no_last_idle(c, s):
    return not (s.picked != -1 and s.picked % 10 == 2 and s.total == 2 * c.Load)


SPEC = Spec(name="sorting-ties", title="sorted, min and max with ties", constants=Config, init=init,
            actions=[load, pick], invariants=[no_last_idle], deadlock_expected=True)
