"""The scan behind :class:`~modelcheck.memo.values.MixedWatch`, on leaves written by hand.

The watch follows which of the noted ids (equal values of other types) each
component can hold, through the changes stored in the tries' leaves; it runs
after every evaluation the tables learn, so its scan is a C loop in the
compiled module.  Here random leaves are scanned in batches, as learning
adds them, and what the watch concludes (which noted ids each component can
hold, and whether it stops the tables) is compared with the rule computed
directly with Python sets from the same leaves.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from modelcheck.memo.kernel import LEAF
from modelcheck.memo.values import Interner, MixedTypes, MixedWatch, scan_changes


class FakeTries:
    """The three fields the watch reads: leaves (start, count), entries, and their counts."""

    def __init__(self) -> None:
        self.leaves = np.zeros(4, LEAF)
        self.n_leaves = 0
        self.entries = np.zeros(8, np.int32)
        self.n_entries = 0

    def flush(self) -> None:
        pass

    def add_leaf(self, successors: list[list[tuple[int, int]]], predicate: bool = False) -> None:
        """A leaf with these successors' changes; a predicate's leaf has a count and no entries."""
        out: list[int] = []
        if not predicate:
            for changes in successors:
                out.append(len(changes))
                for k, x in changes:
                    out += [k, x]
        if self.n_leaves == len(self.leaves):
            self.leaves = np.concatenate([self.leaves, np.zeros(len(self.leaves), LEAF)])
        while self.n_entries + len(out) > len(self.entries):
            self.entries = np.concatenate([self.entries, np.zeros(len(self.entries), np.int32)])
        self.leaves[self.n_leaves] = (self.n_entries, len(successors), 0)
        self.entries[self.n_entries:self.n_entries + len(out)] = out
        self.n_leaves += 1
        self.n_entries += len(out)


def interner_with(alias_of: dict[int, int]) -> Interner:
    """An interner of the ints 0 .. 63 whose noted ids are ``alias_of``'s (set by hand: ints have no aliases)."""
    interner = Interner(lambda v: True)
    for i in range(64):
        interner(i)
    interner.alias_of = alias_of
    return interner


def expected(width: int, leaves: list, initial: list, alias_of: dict[int, int]) -> list[set]:
    """Which noted ids each component can hold, by sets: written there, or copied from a component that can."""
    holds = [set() for _ in range(width)]
    copies = set()
    for row in initial:
        for k, x in enumerate(row):
            if x in alias_of:
                holds[k].add(x)
    for successors, predicate in leaves:
        for changes in ([] if predicate else successors):
            for k, x in changes:
                if x < 0:
                    copies.add((~x, k))
                elif x in alias_of:
                    holds[k].add(x)
    changed = True
    while changed:
        changed = False
        for j, k in copies:
            if not holds[j] <= holds[k]:
                holds[k] |= holds[j]
                changed = True
    return holds


def held_sets(watch: MixedWatch) -> list[set]:
    return [set(watch.aliases[np.flatnonzero(row)].tolist()) for row in watch.held]


@pytest.mark.parametrize("seed", range(40))
def test_the_watch_follows_noted_ids_as_sets_do(seed):
    rnd = random.Random(seed)
    width = rnd.randint(1, 7)
    noted = rnd.sample(range(40), rnd.randint(1, 6))
    # Each noted id its own class, but for one pair in half of the cases: then a component holding both stops.
    alias_of = {x: x for x in noted}
    if len(noted) > 1 and seed % 2:
        alias_of[noted[1]] = noted[0]
    initial = [[rnd.randrange(40) for _ in range(width)] for _ in range(rnd.randint(1, 2))]
    tries, watch, interner = FakeTries(), MixedWatch(width), interner_with(alias_of)
    leaves: list = []
    for _batch in range(rnd.randint(1, 4)):
        for _ in range(rnd.randint(0, 6)):
            successors = [[(k, rnd.choice([rnd.randrange(40), rnd.choice(noted), ~rnd.randrange(width)]))
                           for k in rnd.sample(range(width), rnd.randint(0, width))]
                          for _ in range(rnd.randint(0, 3))]
            predicate = rnd.random() < 0.15
            tries.add_leaf(successors, predicate)
            leaves.append((successors, predicate))
        want = expected(width, leaves, initial, alias_of)
        stops = any(len({alias_of[x] for x in h}) < len(h) for h in want)
        if stops:
            with pytest.raises(MixedTypes):
                watch.update(interner, tries, initial)
            return
        watch.update(interner, tries, initial)
        assert held_sets(watch) == want


def test_the_python_scan_marks_what_the_leaves_say():
    tries = FakeTries()
    tries.add_leaf([[(0, 5), (1, ~0)], [(2, 7)]])
    tries.add_leaf([[(1, 5)]], predicate=True)  # no entries: nothing marked
    tries.add_leaf([[(2, ~1)]])
    starts = np.ascontiguousarray(tries.leaves["start"][:tries.n_leaves])
    counts = np.ascontiguousarray(tries.leaves["count"][:tries.n_leaves])
    copies, held = np.zeros((3, 3), np.uint8), np.zeros((3, 2), np.uint8)
    aliases = np.array([5, 7], np.int64)
    assert scan_changes(tries.entries[:tries.n_entries], starts, counts, copies, aliases, held) == 1
    assert np.argwhere(copies).tolist() == [[0, 1], [1, 2]]
    assert np.argwhere(held).tolist() == [[0, 0], [2, 1]]
    assert scan_changes(tries.entries[:tries.n_entries], starts, counts, copies, aliases, held) == 0
