"""``canonical_sorted``: an order fixed by the values alone, the same in every process and for every way a set
was built."""

from __future__ import annotations

import subprocess
import sys
from typing import NamedTuple

import pytest

from modelcheck.spec.value_order import canonical_sorted


class Msg(NamedTuple):
    kind: str
    to: frozenset


def test_scalars_then_sets_by_size_then_tuples_by_length():
    values = [(1, 2), frozenset({3}), 2, (0,), frozenset({1, 2}), 1, frozenset()]
    assert canonical_sorted(values) == [1, 2, frozenset(), frozenset({3}), frozenset({1, 2}), (0,), (1, 2)]


def test_sets_compare_by_their_sorted_elements_and_records_item_by_item():
    a, b = frozenset({1, 5}), frozenset({2, 3})
    assert canonical_sorted([b, a]) == [a, b]  # {1, 5} before {2, 3}: 1 < 2
    m1, m2 = Msg("ack", frozenset({2})), Msg("ack", frozenset({1}))
    assert canonical_sorted({m1, m2, Msg("ask", frozenset())}) == [m2, m1, Msg("ask", frozenset())]


def test_a_number_and_a_string_do_not_compare():
    with pytest.raises(TypeError):
        canonical_sorted([1, "a"])


SCRIPT = """
from typing import NamedTuple
from modelcheck.spec.value_order import canonical_sorted
class Msg(NamedTuple):
    kind: str
    to: frozenset
names = ["r%d" % i for i in range(12)]
msgs = frozenset(Msg(k, frozenset(names[i:i + 3])) for i, k in enumerate(names))
print([(m.kind, sorted(m.to)) for m in canonical_sorted(msgs)])  # a frozenset's repr follows the hashes
print([m.kind for m in msgs])
"""


def test_the_order_does_not_follow_the_hash_seed():
    """Python iterates a frozenset of strs by their hashes, which change with ``PYTHONHASHSEED``."""
    ordered, iterated = set(), set()
    for seed in ("1", "2", "3"):
        p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed, "PATH": ""})
        first, second = p.stdout.splitlines()
        ordered.add(first)
        iterated.add(second)
    assert len(iterated) > 1  # the seeds do change the set's own order
    assert len(ordered) == 1
