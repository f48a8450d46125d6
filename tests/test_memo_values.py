"""Component ids (modelcheck.memo.values): equal values share an id only when their types agree all the way down;
equal values whose types differ get ids of their own, noted as one class (:attr:`Interner.alias_of`), so that
no component may hold two of them (:class:`MixedWatch`, tested with whole specs in tests/test_memo_mixed.py).

The expected answer for every pair comes from :func:`typed_key` (the types and
values, read in Python); the interner's fast paths (compiled: one dict probe
and a C walk of the types, frozensets included) must agree with it.  The
checker's visited set treats equal states as one, so the tables may give two
equal values neither two ids nor, when their types differ, one.
"""

from __future__ import annotations

import math
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
    (0.0, -0.0),
    (1, 1.0),
    (2.5, 2.5),
    ((0.0, 1), (-0.0, 1)),
    (frozenset({0.0}), frozenset({-0.0})),
    ("a", "a"),
    (None, None),
    ((None, "x", 1), (None, "x", True)),
    (frozenset({"a", "b"}), frozenset({"b", "a"})),
    (frozenset({frozenset({1, 2}), frozenset({3})}), frozenset({frozenset({3}), frozenset({2, 1})})),
    (frozenset({frozenset({1, 2}), frozenset({3})}), frozenset({frozenset({True, 2}), frozenset({3})})),
    (frozenset({Req(1, frozenset({2}))}), frozenset({Req(1, frozenset({2.0}))})),
    (frozenset({(None, "x"), (1, "y")}), frozenset({(1, "y"), (None, "x")})),
    (frozenset(range(100)), frozenset(range(99, -1, -1))),
    (frozenset(range(100)), frozenset({True} | set(range(2, 100)) | {0})),
    # The same element types on different elements: one set's int is the other's float.
    (frozenset({1.0, 2}), frozenset({1, 2.0})),
    (frozenset({True, 0}), frozenset({1, False})),
    (frozenset({(1,), (2.0,)}), frozenset({(1.0,), (2,)})),
    (frozenset({Req(1, 0), Other(2, 0)}), frozenset({Other(1, 0), Req(2, 0)})),
    (frozenset({Req(True, 1), Req(1, 2)}), frozenset({Req(1, 1), Req(True, 2)})),
    (frozenset({(-0.0, 1), (0.0, 2)}), frozenset({(0.0, 1), (-0.0, 2)})),
    (frozenset({frozenset({1.0, 2}), frozenset({3})}), frozenset({frozenset({1, 2.0}), frozenset({3})})),
    ((5, frozenset({1.0, 2})), (5, frozenset({1, 2.0}))),
    (frozenset(range(99)) | {1000.0, 1001}, frozenset(range(99)) | {1000, 1001.0}),
]


def same_types_by_hand(a, b) -> bool:
    """Whether the equal values ``a`` and ``b`` have the same types all the way down, element by element: the
    oracle for the interner, independent of :func:`typed_key` (a set's element is paired with the equal one)."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_types_by_hand(x, y) for x, y in zip(a, b))
    if type(a) is frozenset:
        return all(same_types_by_hand(x, next(y for y in b if y == x)) for x in a)
    return True


def _same_or_mixed(intern, a, b):
    """The id of ``b`` after ``a``'s; an id of its own is noted in the class of ``a``'s where they are equal."""
    ia = intern.plain.get(a)
    ib = intern(b)
    assert (ib != ia) == (ib in intern.alias_of)
    if ib != ia:
        assert intern.alias_of[ib] == intern.alias_of[ia] == ia
    return ib


@pytest.mark.parametrize("a, b", PAIRS)
def test_ids_follow_the_typed_key(a, b):
    assert a == b
    intern = Interner(lambda v: True)
    ia = intern(a)
    ib = _same_or_mixed(intern, a, b)
    assert (ia == ib) == (typed_key(a) == typed_key(b)) == same_types_by_hand(a, b)
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
    ib = _same_or_mixed(intern, a, b)
    plain = frozenset(x._v if type(x) is Traced else x for x in b) if type(b) is frozenset else b
    assert (ia == ib) == (typed_key(a) == typed_key(plain))
