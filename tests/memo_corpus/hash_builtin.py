"""``hash()`` of a part used as data: a bucket chosen by ``hash(log) % 3``.

Hashes of ints and tuples of ints are deterministic in CPython, so this is
deterministic (and legal) spec code, if unusual.  A stand-in for the part
must hash exactly as the value does, and the hash reads every item.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(2), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    bucket: int


def init(c):
    return [State(log=(), bucket=-1)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Place")
def place(c, s):
    bucket = hash(s.log) % 5
    if bucket == s.bucket:
        return None
    return s._replace(bucket=bucket)


@invariant("NotLastBucket", "No log of three lands in the last bucket.")
def not_last_bucket(c, s):
    return not (len(s.log) == 3 and s.bucket == 4)


SPEC = Spec(name="hash-builtin", title="hash() of a part", constants=Config, init=init,
            actions=[append, place], invariants=[not_last_bucket], deadlock_expected=True)
