"""The constructs under test in the invariant, not in an action: ``str`` of a part, ``sorted`` with a key, slices.

Invariants run on every state too, and a fast path may evaluate them
through the same tables.  Here the invariant prints a part, sorts a log by
a key with ties and compares a slice; its answer depends on more of the
state than a quick look suggests (the whole log).  The violation needs a
log that differs from earlier ones only in its middle.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(3), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=2, maximum=4)


class State(NamedTuple):
    log: tuple


def init(c):
    return [State(log=())]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return State(s.log + (value,))


@invariant("NotPalindromicMiddle", "No log of three reads 0 2 0 when sorted by parity.")
def not_palindromic_middle(c, s):
    by_parity = sorted(s.log, key=lambda v: v % 2)
    return "".join(str(v) for v in by_parity[:3]) != "020" or s.log[1:2] != (2,)


SPEC = Spec(name="invariant-side", title="the constructs in an invariant", constants=Config, init=init,
            actions=[append], invariants=[not_palindromic_middle], deadlock_expected=True)
