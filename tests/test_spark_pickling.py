"""The shuffle's pickler writes exactly the bytes pickle writes, only faster (no Spark needed)."""

from __future__ import annotations

import collections
import copyreg
import enum
import pickle
from typing import NamedTuple

import pytest

from modelcheck.spec.constants import make_constants
from modelcheck.spec.loader import load_spec
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.spark_explore.pickling import StatePickler, is_plain_namedtuple


class Plain(NamedTuple):
    a: int
    b: tuple


class OwnArgs(collections.namedtuple("OwnArgs", "a")):
    """Pickles differently from a plain NamedTuple: the fast path must leave it alone."""

    __slots__ = ()

    def __getnewargs__(self):
        return (self.a + 1,)


class Reduced:
    def __init__(self, x):
        self.x = x

    def __reduce__(self):
        return (Reduced, (self.x,))

    def __eq__(self, other):
        return isinstance(other, Reduced) and other.x == self.x


class Colour(enum.Enum):
    """Its class has a metaclass of its own (EnumMeta), which a compiled ``cls: type`` refused."""

    RED = 1


class Registered:
    def __init__(self, x):
        self.x = x


def _registered(obj):
    return (Registered, (obj.x * 10,))


@pytest.mark.slow
def test_kafka_states_pickle_to_the_same_bytes_and_back():
    spec = load_spec("kip320")
    model = BoundModel(spec, make_constants(spec.constants_class, {}), CheckOptions())
    frontier = model.init_states()
    states = list(frontier)
    for _ in range(6):
        frontier = [t for s in frontier for _ai, _b, t in model.successors(s)][:2000]
        states += frontier
    records = [(model.fingerprint(t), b"\x00\x01", 7, 3, t) for t in states]
    fast = StatePickler().dumps(records)
    assert fast == pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL)
    back = pickle.loads(fast)
    assert back == records
    assert [type(r[4]) for r in back] == [type(r[4]) for r in records]


def test_only_plain_namedtuples_take_the_fast_path():
    assert is_plain_namedtuple(Plain)
    assert not is_plain_namedtuple(OwnArgs)
    assert not is_plain_namedtuple(tuple)
    assert not is_plain_namedtuple(Reduced)


def test_other_classes_keep_their_own_reduction():
    copyreg.pickle(Registered, _registered)
    try:
        objs = [Plain(1, (Plain(2, ()), frozenset({3}))), OwnArgs(5), Reduced([1, 2]), Registered(4),
                {"k": Plain(0, ())}, Plain(Colour.RED, (Colour.RED,))]
        fast = StatePickler().dumps(objs)
        assert fast == pickle.dumps(objs, protocol=pickle.HIGHEST_PROTOCOL)
        back = pickle.loads(fast)
        assert back[0] == objs[0] and back[2] == objs[2] and back[4] == objs[4] and back[5] == objs[5]
        assert back[1] == OwnArgs(6)  # its own __getnewargs__ ran, as with pickle
        assert back[3].x == 40  # the copyreg entry was used, as with pickle
    finally:
        del copyreg.dispatch_table[Registered]
