"""The NamedTuple API on the state: ``_asdict()``, ``_fields``, ``len(s)``, unpacking, ``s[i]``, ``_make``.

A newcomer treats the state as the tuple it is: unpacks it, indexes it,
walks ``_fields`` with ``getattr``, rebuilds it with ``State._make``.  Each
reads every field at once, under another name than ``s.field``.  A fast
path that records reads per field must see these as reads of all the
fields, or it reuses a successor computed for a state that differs in a
field it did not notice.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(2, "the largest value of a field", minimum=1, maximum=3)


class State(NamedTuple):
    a: int
    b: int
    c: int
    seen: int


def init(cfg):
    return [State(0, 0, 0, 0)]


@action("IncA")
def inc_a(cfg, s):
    a, b, c, seen = s
    if a >= cfg.Limit or seen:
        return None
    return State._make((a + 1, b, c, seen))


@action("IncB")
def inc_b(cfg, s):
    if s[1] >= cfg.Limit or s[3]:
        return None
    return State(*(v + (i == 1) for i, v in enumerate(s)))


@action("IncC")
def inc_c(cfg, s):
    d = s._asdict()
    if d["c"] >= cfg.Limit or d["seen"]:
        return None
    d["c"] += 1
    return State(**d)


@action("Look")
def look(cfg, s):
    total = sum(getattr(s, name) for name in s._fields if name != "seen")
    if s.seen or len(s) != 4 or total != 3 or tuple(s)[2] != 2:
        return None
    return s._replace(seen=1)


@invariant("NeverLooked", "No look at a state whose fields sum to 3 with c = 2.")
def never_looked(cfg, s):
    return s.seen == 0


SPEC = Spec(name="namedtuple-api", title="the NamedTuple API on the state", constants=Config, init=init,
            actions=[inc_a, inc_b, inc_c, look], invariants=[never_looked], deadlock_expected=True)
