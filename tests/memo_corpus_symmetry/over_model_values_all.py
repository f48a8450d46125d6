"""A lock with a FIFO queue over four model values (``Symmetry.over``, no signature: all 24 renamings).

The queue is a tuple of model values (its order matters, so a renaming
keeps it), the holder a model value or ``""``, the finished ones a
frozenset and the requests made a ``Function``.  Every value must finish,
which breaks the invariant thirteen states in.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Function, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Procs: frozenset = constant(frozenset({"a", "b", "c", "d"}), "the processes (model values)")


class State(NamedTuple):
    holder: str
    queue: tuple
    done: frozenset
    asked: Function


PROC = Domain("p", lambda c: sorted(c.Procs), str)


def init(c):
    return [State("", (), frozenset(), Function({p: False for p in c.Procs}))]


@action("Request", p=PROC)
def request(c, s, p):
    if s.asked.at(p) or p in s.done:
        return None
    return s._replace(queue=s.queue + (p,), asked=s.asked.except_(p, True))


@action("Grant")
def grant(c, s):
    if s.holder or not s.queue:
        return None
    return s._replace(holder=s.queue[0], queue=s.queue[1:])


@action("Release")
def release(c, s):
    if not s.holder:
        return None
    return s._replace(holder="", done=s.done | {s.holder})


@invariant("NotAllDone", "Some process has not finished (fails once all have).")
def not_all_done(c, s):
    return s.done != c.Procs


SPEC = Spec(name="over-model-values-all", title="a FIFO lock over four model values", constants=Config,
            init=init, actions=[request, grant, release], invariants=[not_all_done],
            symmetry=Symmetry.over(lambda c: c.Procs), deadlock_expected=True)
