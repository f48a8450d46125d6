"""``zip(s.log, t.log)`` with ``all`` stopping at the first rewritten record.

The log is one part whose length varies.  ``zip`` stops at the shorter log,
``all`` at the first difference, so what the property looks at depends on
both lengths and on the values.  ``Rewrite`` changes the last record of a
full log that starts with 2: five appends, then the rewrite (7 states).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "PrefixKept"
VALUE = Domain("value", lambda c: range(3), str)


@attrs.frozen
class Config:
    Length: int = constant(5, "the longest log", minimum=2, maximum=6)


class State(NamedTuple):
    log: tuple
    rewrites: int


def init(c):
    return [State(log=(), rewrites=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Truncate")
def truncate(c, s):
    if not s.log:
        return None
    return s._replace(log=s.log[:-1])


@action("Rewrite")
def rewrite(c, s):
    if len(s.log) < c.Length or s.log[0] != 2 or s.rewrites:
        return None
    return State(s.log[:-1] + ((s.log[-1] + 1) % 3,), s.rewrites + 1)


@step_property("PrefixKept", "A step never changes a record that both logs hold.")
def prefix_kept(c, s, t):
    return all(a == b for a, b in zip(s.log, t.log))


SPEC = Spec(name="zip-logs", title="zip over the parent's and the successor's logs", constants=Config, init=init,
            actions=[append, truncate, rewrite], properties=[prefix_kept], deadlock_expected=True)
