"""Component ids (modelcheck.memo.values): equal values share an id only when their types agree all the way down.

The expected answer for every pair comes from :func:`typed_key` (the types and
values, read in Python); the interner's fast paths (compiled: one dict probe
and a C walk of the types, frozensets included) must agree with it.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from modelcheck.memo.traced import Traced
from modelcheck.memo.values import Interner, typed_key


class Req(NamedTuple):
    src: int
    epoch: int


class Other(NamedTuple):
    src: int
    epoch: int


def _traced(v, k=0):
    return Traced(v, k, [])


PAIRS = [
    (1, True),
    (frozenset({Req(1, 2), Req(2, 3)}), frozenset({Req(2, 3), Req(1, 2)})),
    (frozenset({Req(1, 2), Req(2, 3)}), frozenset({(1, 2), (2, 3)})),
    (frozenset({Req(1, 2), Req(2, 3)}), frozenset({Req(1, 2), Other(2, 3)})),
    (frozenset({Req(1, 1)}), frozenset({Req(1, True)})),
    (frozenset({Req(1, 1), Req(2, True)}), frozenset({Req(1, True), Req(2, 1)})),
    (frozenset({Req(1, 1), Req(2, True)}), frozenset({Req(1, 1), Req(2, True)})),
    (frozenset(), frozenset()),
    (frozenset({1, 2}), frozenset({True, 2})),
    (frozenset({(1, frozenset({Req(1, 2)}))}), frozenset({(1, frozenset({(1, 2)}))})),
    (frozenset({(1, frozenset({Req(1, 2)}))}), frozenset({(1, frozenset({Req(1, 2)}))})),
    ((frozenset({Req(1, 2)}), 3), (frozenset({Req(1, 2)}), 3)),
    ((frozenset({Req(1, 2)}), 3), (frozenset({Req(1, 2.0)}), 3)),
    (Req(1, 2), (1, 2)),
]


@pytest.mark.parametrize("a, b", PAIRS)
def test_ids_follow_the_typed_key(a, b):
    assert a == b
    intern = Interner(lambda v: True)
    ia = intern(a)
    ib = intern(b)
    assert (ia == ib) == (typed_key(a) == typed_key(b))
    assert intern.values[ia] == a and typed_key(intern.values[ib]) == typed_key(b)


@pytest.mark.parametrize("a, b", PAIRS)
def test_traced_parts_count_as_their_values(a, b):
    """A successor's set built from a parent's traced parts: its elements' types are those of their values."""
    if type(b) is frozenset:
        b = frozenset(_traced(x) if type(x) is not frozenset else x for x in b)
    elif type(b) is tuple and not hasattr(type(b), "_fields"):
        b = tuple(_traced(x) for x in b)
    intern = Interner(lambda v: True)
    ia = intern(a)
    ib = intern(b)
    plain = frozenset(x._v if type(x) is Traced else x for x in b) if type(b) is frozenset else b
    assert (ia == ib) == (typed_key(a) == typed_key(plain))
