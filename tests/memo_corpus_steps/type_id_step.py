"""``type(s.x) is type(t.x)``, ``isinstance`` and ``is`` between the parent's and the successor's parts.

``Snapshot`` keeps the same tuple object for the log (``s._replace``),
``Reload`` builds an equal tuple anew: ``t.log is s.log`` tells them apart.
The property asks that a step which keeps the log equal keeps it
identical, and that the epoch stays an ``int`` of the same type.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "KeptLogIsTheSameObject"
VALUE = Domain("value", lambda c: (1, 2), str)


@attrs.frozen
class Config:
    Length: int = constant(2, "the longest log", minimum=1, maximum=3)


class State(NamedTuple):
    log: tuple
    epoch: int


def init(c):
    return [State(log=(), epoch=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Snapshot")
def snapshot(c, s):
    if s.epoch >= 2:
        return None
    return s._replace(epoch=s.epoch + 1)


@action("Reload")
def reload(c, s):
    if len(s.log) < c.Length or s.epoch != 1:
        return None
    return State(tuple(list(s.log)), s.epoch + 1)


@step_property("KeptLogIsTheSameObject", "A step that keeps the log keeps the same object, and an int epoch.")
def kept_log_is_the_same_object(c, s, t):
    if not isinstance(t.epoch, int) or type(s.epoch) is not type(t.epoch):
        return False
    return t.log != s.log or t.log is s.log


SPEC = Spec(name="type-id-step", title="type(), isinstance and is in a step property", constants=Config,
            init=init, actions=[append, snapshot, reload], properties=[kept_log_is_the_same_object],
            deadlock_expected=True)
