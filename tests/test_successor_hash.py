"""Successor fingerprints recombined from the parent's parts (modelcheck/model/successor_hash.py) are hash(t) exactly."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from modelcheck.model import successor_hash
from modelcheck.build.compiled import is_compiled
from modelcheck.spec.loader import load_spec
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.model.successor_hash import successor_fingerprints


def test_it_recombines_wherever_it_runs_compiled():
    """The self-check passes on this interpreter, so the tests below exercise the C, not the fallback."""
    assert successor_hash._RECOMBINES == is_compiled(successor_hash)


def batches(model, size=64):
    """(parents, ends, successors) over every reachable state, a batch of parents at a time, in BFS order."""
    frontier, seen = list(model.init_states()), set()
    while frontier:
        nxt = []
        for lo in range(0, len(frontier), size):
            parents, ends, ts, ais = frontier[lo:lo + size], [], [], []
            for s in parents:
                model.expand_into(s, ais, ts)
                ends.append(len(ts))
            yield parents, ends, ts
            for t in ts:
                if t not in seen and model.in_model(t):
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt


@pytest.mark.parametrize("name", ["kip320", "kip101", "truncate-to-hw", "async-isr", "broker-failures"])
def test_every_successor_of_a_spec_has_its_hash(name):
    spec = load_spec(name)
    model = BoundModel(spec, spec.constants_class(Replicas=2), CheckOptions())
    n = 0
    for parents, ends, ts in batches(model):
        assert successor_fingerprints(parents, ends, ts) == [hash(t) for t in ts]
        n += len(ts)
    assert n > 500


class Rec(NamedTuple):
    a: int
    b: tuple


class Pair(NamedTuple):
    x: int
    y: int


class OwnHash(tuple):
    def __hash__(self) -> int:
        return 1234


def test_every_kind_of_item_change():
    """Shared items, replaced items of the same type and length, other lengths, other types, own hashes."""
    inner = (Pair(1, 2), Pair(3, 4), (5,))
    p = Rec(7, inner)
    ts = [
        p,
        Rec(8, inner),  # a changed int, a shared tuple
        Rec(7, (Pair(1, 2), Pair(3, 5), (5,))),  # one element replaced, one level down
        Rec(7, (Pair(1, 2), Pair(3, 4))),  # a shorter tuple
        Rec(7, OwnHash(inner)),  # a tuple type with its own hash
        Rec(7, [1, 2][0]),  # not a tuple at all
        (7, inner),  # a plain tuple: not the parent's type
        OwnHash(p),
        -1,  # hash(-1) is -2: the C must not take -1 for an error
        frozenset({p}),
    ]
    q = (1, (2, 3), frozenset({4}))
    us = [(1, (2, 3), frozenset({5})), (2, (2, 3), frozenset({4})), (1, (2, 4), frozenset({4}))]
    assert successor_fingerprints([p, q], [len(ts), len(ts) + len(us)], ts + us) == [hash(t) for t in ts + us]


def test_parents_without_successors_and_non_tuple_parents():
    ts = [(1, 2), 3, (4, 5)]
    assert successor_fingerprints([(0, 0), 5, (4, 4), (9,)], [0, 1, 2, 3], ts) == [hash(t) for t in ts]
    assert successor_fingerprints([], [], []) == []
    assert successor_fingerprints([(1,)], [1], [(1,), (2,)]) == [hash((1,))]  # only ts[:ends[-1]]


def test_an_unhashable_successor_raises_what_hash_raises():
    p = (1, (2, 3))
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        successor_fingerprints([p], [2], [(1, (2, 4)), (1, [2, 3])])
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        successor_fingerprints([p], [1], [(1, ([2], 3))])  # one level down


def test_a_hash_that_empties_the_lists_is_an_error_not_a_crash():
    """Objects of a non-canonical state may run Python in __hash__; the C must not read freed items."""
    ts: list = []

    class Evil:
        def __hash__(self) -> int:
            ts.clear()
            return 1

    p = (1, (2, 3))
    items = [(1, (2, Evil())), (1, (2, 4)), (1, (2, 5))]
    ts.extend(items)
    if successor_hash._RECOMBINES:
        with pytest.raises(RuntimeError, match="the lists changed"):
            successor_fingerprints([p], [3], ts)
    else:  # map(hash) over a copy of the list: unaffected
        assert successor_fingerprints([p], [3], ts) == [hash(t) for t in items]
