"""The NamedTuple API without ``getattr``: ``_asdict()``, ``_fields``, unpacking, ``s[i]``, ``len(s)``, ``State._make``.

``namedtuple_api`` also walks ``_fields`` with ``getattr``, which a fast
path may refuse outright; this module keeps to the methods and protocols
of the tuple itself, each of which reads every field (or one by position,
not by name).
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
    if s[1] >= cfg.Limit or s[-1]:
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
    d = s._asdict()
    total = sum(d[name] for name in s._fields[:3])
    if s.seen or len(s) != 4 or total != 3 or tuple(s)[2] != 2:
        return None
    return s._replace(seen=1)


@invariant("NeverLooked", "No look at a state whose fields sum to 3 with c = 2.")
def never_looked(cfg, s):
    return s.seen == 0


SPEC = Spec(name="namedtuple-asdict", title="the NamedTuple API without getattr", constants=Config, init=init,
            actions=[inc_a, inc_b, inc_c, look], invariants=[never_looked], deadlock_expected=True)
