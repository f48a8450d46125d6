"""The state fingerprint: equal exactly for equal states, the same compiled and interpreted.

Python's ``hash()`` is not a fingerprint (``hash(-1) == hash(-2)``, ints are
hashed modulo ``2**61 - 1``, ``str`` hashes differ per process), so these
tests pin the properties the search relies on: equal values share a
fingerprint, distinct values of many shapes never do, the C and the Python
definitions agree, and what cannot be part of a state is refused.
"""

import enum
import itertools
import random
import subprocess
import sys
from typing import NamedTuple

import numpy as np
import pytest

from modelcheck.build.compiled import is_compiled
from modelcheck.model import fingerprint as fpmod
from modelcheck.model.fingerprint import (
    _fingerprint_py,
    check_canonical,
    fingerprint,
    fingerprint_array,
    fingerprints,
    is_canonical,
)
from modelcheck.errors import StateError


class Pair(NamedTuple):
    a: object
    b: object


class Other(NamedTuple):
    x: object
    y: object


class OwnEquality(tuple):
    def __eq__(self, other):  # noqa: D105 - equal to everything: no fingerprint can follow it
        return True

    __hash__ = tuple.__hash__


class Urgent(NamedTuple):
    """An order of its own (``min`` picks the most urgent) but tuple equality: a state value."""

    priority: int

    def __lt__(self, other):
        return self.priority > other.priority


class Colour(enum.IntEnum):
    RED = 1


def _random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(9 if depth < 3 else 5)
    if kind == 0:
        return rng.randint(-5, 5)
    if kind == 1:
        return rng.choice([2**61 - 1, 2**63 - 1, -2**63, 2**63, 2**64 + 3, -(2**100), 2**61 - 2])
    if kind == 2:
        return rng.choice([0.5, -0.0, 1.0, 3.25, float("inf"), 2.0**70, -1e-9])
    if kind == 3:
        return rng.choice(["", "r1", "Nil", "ünïcode", "a longer string than eight bytes", None, True, False])
    if kind == 4:
        return rng.randint(-2, 2)
    n = rng.randrange(4)
    items = [_random_value(rng, depth + 1) for _ in range(n)]
    if kind == 5:
        return tuple(items)
    if kind == 6:
        return Pair(items[0] if items else 0, tuple(items))
    return frozenset(items)


def test_the_compiled_function_is_the_python_definition():
    assert fpmod._C_AGREES == is_compiled(fpmod)
    rng = random.Random(7)
    values = [_random_value(rng) for _ in range(3000)]
    expected = [_fingerprint_py(v) for v in values]
    assert [fingerprint(v) for v in values] == expected
    assert fingerprint_array(values, len(values)).tolist() == expected
    # The batched path caches containers by identity: repeats and shared parts give the same answers.
    shared = values[:50]
    batch = [(v, w) for v in shared for w in shared[:5]] + shared
    assert fingerprint_array(batch, len(batch)).tolist() == [_fingerprint_py(v) for v in batch]


def test_the_interpreted_module_gives_the_same_fingerprints():
    """A process without the compiled modules (a Spark executor could be one) agrees with this one."""
    values = [(-1, -2), frozenset({(1, "a"), (2, None)}), 2**70, 0.5, Pair(1, frozenset({-1}))]
    code = ("import sys; from modelcheck.model.fingerprint import fingerprint, _C_AGREES; from typing import NamedTuple\n"
            "class Pair(NamedTuple):\n    a: object\n    b: object\n"
            "assert not _C_AGREES\n"
            "print([fingerprint(v) for v in [(-1, -2), frozenset({(1, 'a'), (2, None)}), 2**70, 0.5, "
            "Pair(1, frozenset({-1}))]])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"MODELCHECK_INTERPRETED": "1", "PATH": "/usr/bin:/bin",
                              "PYTHONPATH": ":".join(sys.path)})
    assert out.stdout.strip() == str([fingerprint(v) for v in values])


@pytest.mark.parametrize("a,b", [
    (1, True), (1, 1.0), (0, False), (0.0, -0.0), (0, -0.0), (2**70, 2.0**70),
    ((1, 2), Pair(1, 2)), (Pair(1, 2), Other(1, 2)),
    (frozenset({(1, 2), (3, 4)}), frozenset([(3, 4), (1, 2)])),
    (frozenset({1, 2}), frozenset({True, 2.0})), (Urgent(3), (3,)),
    (frozenset({frozenset({1}), frozenset()}), frozenset({frozenset(), frozenset([1.0])})),
])
def test_equal_values_share_a_fingerprint(a, b):
    assert a == b
    assert fingerprint(a) == fingerprint(b)


@pytest.mark.parametrize("a,b", [
    (-1, -2), ((0, -1), (0, -2)), (frozenset({-1}), frozenset({-2})), (2**61 - 1, 0), (2**64, 0),
    (2**63, -2**63), (-(2**64), 2**64), (0.5, 2**60), ((), frozenset()), ((1,), 1), ((1, (2, 3)), ((1, 2), 3)),
    ("", None), ("a", ("a",)), (float("inf"), float("-inf")), ((), ((),)), (frozenset({1, 2}), frozenset({3})),
])
def test_distinct_values_have_distinct_fingerprints(a, b):
    assert a != b
    assert fingerprint(a) != fingerprint(b)


@pytest.mark.slow
def test_no_collisions_among_many_structured_values():
    values = list(itertools.product(range(-3, 20), repeat=4))
    values += [frozenset(i for i in range(-2, 14) if m >> (i + 2) & 1) for m in range(1 << 16)]
    pairs = [(a, b) for a in range(-1, 4) for b in range(-2, 2)]
    values += [frozenset(p for i, p in enumerate(pairs) if m >> i & 1) for m in range(1 << 16)]
    fps = fingerprint_array(values, len(values))
    assert len(np.unique(fps)) == len(set(values))  # frozenset() is in two of the lists


def test_strings_are_the_same_in_every_process():
    """Unlike ``hash(str)``, salted per process: a worker or an executor must agree with the driver."""
    code = "from modelcheck.model.fingerprint import fingerprint; print(fingerprint(('Nil', 'r1', None)))"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin",
                                "PYTHONPATH": ":".join(sys.path)}).stdout for seed in ("1", "2")}
    assert runs == {f"{fingerprint(('Nil', 'r1', None))}\n"}


@pytest.mark.parametrize("bad,part", [
    ([1, 2], "a list"), ({1}, "a set"), ({1: 2}, "a dict"), (float("nan"), "NaN"), (object(), "a object"),
    (Colour.RED, "a Colour"), (OwnEquality((1,)), "a OwnEquality"), ((1, (2, [3])), "a list"),
])
def test_what_cannot_be_part_of_a_state_is_refused(bad, part):
    with pytest.raises(TypeError):
        fingerprint(bad)
    with pytest.raises(TypeError):
        fingerprint_array([(0,), bad], 2)
    assert not is_canonical(bad)
    with pytest.raises(StateError, match=part):
        check_canonical(bad, spec="s", where="init")


def test_check_canonical_names_the_path_to_the_bad_part():
    with pytest.raises(StateError, match=r"state\.b\[1\] is a list"):
        check_canonical(Pair(1, (2, [3])), spec="s", where="action A")


def test_candidates_left_out_of_the_model_are_skipped():
    ts = [(1,), None, (2,)]
    got = fingerprints(ts, 3, skip_none=True).tolist()
    assert got == [fingerprint((1,)), 0, fingerprint((2,))]
    assert fingerprints(ts, 3, fp=lambda s: 5, skip_none=True).tolist() == [5, 0, 5]


def _grown(base: frozenset, extra) -> frozenset:
    """``base | {extra}`` as a spec sends a message: CPython copies base's table slot for slot where it need not
    grow, so the batch can derive the union's fingerprint from base's."""
    return base | {extra}


def test_a_set_built_from_one_walked_before_has_the_walked_fingerprint():
    """A batch derives a frozenset's fingerprint from a set of the same slots but one (added or taken away)
    walked earlier in it; every derivation equals the definition's, for sets of every size and layout."""
    rng = random.Random(11)
    batch = []
    for n in range(0, 72):
        elems = [(rng.randrange(4), rng.randrange(100), "m") for _ in range(n)]
        base = frozenset(elems)
        fresh = [(9, k, "new") for k in range(4)]
        grown = [_grown(base, x) for x in fresh]
        batch += [base, *grown]                      # each union near the base, added
        batch += [grown[0], base]                    # the base after a union: near it, taken away
        batch += [_grown(base, next(iter(base)))] if base else []  # the same slots, another object
        batch += [_grown(grown[1], (9, 9, "again")), base | {fresh[2], fresh[3]}]  # two slots apart
        batch += [frozenset(sorted(base | {fresh[0]}, reverse=True))]  # the same elements, other slots
    assert fingerprint_array(batch, len(batch)).tolist() == [_fingerprint_py(v) for v in batch]
    for k in range(0, len(batch), 7):  # and in batches of their own, so that other sets come first
        part = batch[k:k + 7]
        assert fingerprint_array(part, len(part)).tolist() == [_fingerprint_py(v) for v in part]


def test_derived_sets_of_sets_and_of_equal_but_distinct_values():
    """The element a derivation reads may itself be a large set walked on the way (which replaces the sets the
    batch remembers), or equal to an element of another type (1 and True, 0.0 and -0.0)."""
    rng = random.Random(5)
    inner = [frozenset(rng.sample(range(40), 9)) for _ in range(12)]
    base = frozenset(inner[:10])
    batch = [base, _grown(base, inner[10]), _grown(base, frozenset(range(50, 62))), base, _grown(base, inner[11])]
    numbers = frozenset([0.0, 1, 2.5, 3, 4, 5, 6, 7, 8])
    batch += [numbers, _grown(numbers, True), _grown(numbers, -0.0), _grown(numbers, 9.0), _grown(numbers, "s")]
    batch += [_grown(numbers, (1, frozenset(range(20))))]
    assert fingerprint_array(batch, len(batch)).tolist() == [_fingerprint_py(v) for v in batch]
    kept = _grown(numbers, Colour.RED)  # equal to 1, so the set keeps its 1: nothing to refuse
    refused = _grown(numbers, object())  # refused where it is the element the derivation reads
    assert fingerprint_array([numbers, kept], 2).tolist() == [_fingerprint_py(numbers)] * 2
    with pytest.raises(TypeError, match="object"):
        fingerprint_array([numbers, refused], 2)
