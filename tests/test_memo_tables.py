"""The memo kernel's open-addressing tables: the C functions against their Python statements.

The C loop reads the edge table as pairs (key, code) and each leaf as a
16-byte record; a wrong stride or layout would make it read another slot's
code or another leaf's count.  These compare the C inserts and rehashes
with the Python versions written beside them (kernel.py), slot by slot, and
the leaf record's layout with the C struct's.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from modelcheck.memo import kernel as kn
from modelcheck.memo.tries import MISSING, Tries

pytestmark = pytest.mark.skipif(not kn.COMPILED, reason="compares the compiled kernel with its Python statements")


def _edge_keys(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    keys = sorted({((rng.randrange(1 << 20) << 32) | rng.randrange(1 << 16)) + 1 for _ in range(n)})
    rng.shuffle(keys)
    codes = [rng.choice((rng.randrange(1 << 20), -2 - rng.randrange(1 << 20))) for _ in keys]
    return np.array(keys, np.int64), np.array(codes, np.int64)


def _both(monkeypatch, fn, *args_of) -> tuple:
    """``fn`` run compiled and as Python on fresh copies of the same arguments."""
    out = []
    for compiled in (True, False):
        args = [a.copy() if hasattr(a, "copy") else a for a in args_of]
        monkeypatch.setattr(kn, "COMPILED", compiled)
        fn(*args)
        out.append(args)
    monkeypatch.setattr(kn, "COMPILED", True)
    return tuple(out)


def test_pair_insert_and_rehash_fill_the_same_slots_as_their_python(monkeypatch):
    keys, codes = _edge_keys(700, 1)
    size = kn.grown_size(16, len(keys))
    c, p = _both(monkeypatch, kn.pair_insert, np.zeros(2 * size, np.int64), keys, codes)
    assert np.array_equal(c[0], p[0])
    table = c[0]
    assert np.count_nonzero(table[0::2]) == len(keys)
    for key, code in zip(keys.tolist(), codes.tolist()):  # each key findable from its slot, its code beside it
        h = kn.slot(key, size)
        while table[2 * h] != key:
            assert table[2 * h] != 0
            h = (h + 1) % size
        assert table[2 * h + 1] == code
    bigger = kn.grown_size(size, 2 * len(keys))
    c, p = _both(monkeypatch, kn.pair_rehash, table, np.zeros(2 * bigger, np.int64))
    assert np.array_equal(c[1], p[1])
    assert sorted(zip(c[1][0::2].tolist(), c[1][1::2].tolist()))[-len(keys):] == sorted(zip(keys.tolist(), codes.tolist()))


def test_the_visited_rehash_keeps_every_key_as_its_python(monkeypatch):
    rng = random.Random(2)
    old = np.zeros(1000, np.uint64)
    for key in rng.sample(range(1, 1 << 62), 600):
        h = kn.slot(key, len(old))
        while old[h]:
            h = (h + 1) % len(old)
        old[h] = key
    c, p = _both(monkeypatch, kn.rehash, old, np.zeros(1500, np.uint64))
    assert np.array_equal(c[1], p[1])
    assert sorted(c[1][c[1] != 0].tolist()) == sorted(old[old != 0].tolist())


def test_the_tries_find_every_learnt_edge_through_the_c_table_after_growing():
    t = Tries(1, 3)
    keys, codes = _edge_keys(5000, 3)  # enough to grow the table several times
    for _ in range(1 << 20):  # every inner code the keys lead to is a node, reading component 0, 1 or 2
        t.node(len(t.comps) % 3)
    for key, code in zip(keys.tolist(), codes.tolist()):
        t.set_edge((key - 1) >> 32, (key - 1) & 0xFFFFFFFF, code)
    t.flush()
    assert t.n_edges == len(keys) and not t._pending
    for key, code in zip(keys.tolist(), codes.tolist()):
        assert t.edge((key - 1) >> 32, (key - 1) & 0xFFFFFFFF) == code
    assert t.edge(1 << 21, 5) == MISSING
    # The C loop reads an inner child's component from the edge itself, 32 bits above its code.
    values = dict(zip(t.edges[0::2].tolist(), t.edges[1::2].tolist()))
    for key, code in zip(keys.tolist(), codes.tolist()):
        assert values[key] == (code if code < 0 else (code % 3) << 32 | code)


def test_a_leaf_record_is_the_c_struct():
    """``mc_leaf`` is {int32 start; int32 count; uint64 mask}: 16 bytes, in that order."""
    assert kn.LEAF.itemsize == 16
    assert [kn.LEAF.fields[f][1] for f in ("start", "count", "mask")] == [0, 4, 8]
    t = Tries(1, 2)
    code = t.leaf(2, (1, 2, 3, 4))
    t.set_mask(code, [0, 1, 65])
    t.flush()
    raw = t.leaves[: t.n_leaves].view(np.uint64)
    assert int(raw[0]) == 0 | (2 << 32) and int(raw[1]) == 0b11
    assert int(t.leaf_count[0]) == 2 and int(t.leaf_mask[0]) == 0b11
    assert t.leaf_entries(code)[1].tolist() == [1, 2, 3, 4]


def test_a_leaf_keeps_its_successors_as_their_changes():
    """Each successor is stored as (how many changes, then component and entry each); the entries the
    parent's own component at the same place (``~k`` at ``k``) are left out, and given back."""
    t = Tries(2, 3)
    a = t.leaf(2, (~0, 7, ~2, 5, ~0, ~2))  # the second successor also copies component 0 into place 1
    b = t.leaf(1)  # a predicate's leaf: a count, no entries
    c = t.leaf(1, (~0, ~1, ~2))  # a successor equal to its parent
    t.flush()
    assert t.entries[: t.n_entries].tolist() == [1, 1, 7, 2, 0, 5, 1, ~0, 0]
    assert t.leaf_entries(a)[0] == 2 and t.leaf_entries(a)[1].tolist() == [~0, 7, ~2, 5, ~0, ~2]
    assert t.leaf_entries(b)[0] == 1 and t.leaf_entries(b)[1].tolist() == []
    assert t.leaf_entries(c)[1].tolist() == [~0, ~1, ~2]


@pytest.mark.slow
@pytest.mark.parametrize("name, consts", [("kip320", {"Replicas": 2}), ("async-isr", {})])
def test_the_c_loop_fingerprints_are_the_states_own(name, consts, monkeypatch):
    """The C loop recomputes the nodes above each changed component; _row_fp fingerprints the state anew; both are
    the fingerprint of the state the row stands for, as every other engine computes it."""
    from modelcheck.memo.backend import MemoBackend
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.search.driver import LevelDriver
    from modelcheck.spec.constants import build_constants
    from modelcheck.spec.loader import load_spec

    spec = load_spec(name)
    model = BoundModel(spec, build_constants(spec, consts), CheckOptions(max_states=20_000))
    checked = []
    original = MemoBackend.commit

    def commit(self, bound):
        rows, fps = self.out_rows[: self.n_out], self.out_fp[: self.n_out]
        assert [self._row_fp(r) for r in rows] == fps.tolist()
        states = [self.layout.state(tuple(r.tolist()), self.interner.values) for r in rows]
        assert [model.fingerprint(t) & (2**64 - 1) for t in states] == fps.tolist()
        checked.append(len(rows))
        return original(self, bound)

    monkeypatch.setattr(MemoBackend, "commit", commit)
    LevelDriver(model, MemoBackend(model)).run()
    assert sum(checked) > 1000


def test_put_list_writes_as_its_python_and_refuses_what_does_not_fit(monkeypatch):
    rng = random.Random(4)
    ints = [rng.randrange(-(1 << 31), 1 << 31) for _ in range(300)]
    c, p = _both(monkeypatch, kn.put_list, np.zeros(400, np.int32), 50, ints, 20)
    assert np.array_equal(c[0], p[0]) and c[0][50:330].tolist() == ints[20:]
    words = [rng.randrange(1 << 64) for _ in range(100)]
    c, p = _both(monkeypatch, kn.put_list, np.zeros(100, np.uint64), 0, words, 0)
    assert np.array_equal(c[0], p[0]) and c[0].tolist() == words
    for compiled in (True, False):
        monkeypatch.setattr(kn, "COMPILED", compiled)
        with pytest.raises(ValueError):
            kn.put_list(np.zeros(10, np.int32), 5, list(range(6)))
    monkeypatch.setattr(kn, "COMPILED", True)
    with pytest.raises(OverflowError):
        kn.put_list(np.zeros(10, np.int32), 0, [1 << 31])


def test_put_leaves_writes_the_c_records_as_its_python(monkeypatch):
    rng = random.Random(5)
    n = 200
    starts = [rng.randrange(1 << 30) for _ in range(n)]
    counts = [rng.randrange(1 << 20) for _ in range(n)]
    masks = [rng.randrange(1 << 64) for _ in range(n)]
    c, p = _both(monkeypatch, kn.put_leaves, np.zeros(n + 10, kn.LEAF), 10, starts, counts, masks)
    assert np.array_equal(c[0], p[0])
    assert c[0]["start"][10:].tolist() == starts and c[0]["count"][10:].tolist() == counts
    assert c[0]["mask"][10:].tolist() == masks and not c[0][:10]["mask"].any()


def test_pair_insert_codes_puts_each_inner_childs_component_above_its_code(monkeypatch):
    keys, codes = _edge_keys(3000, 6)
    comps = [rng_k % 21 for rng_k in range(1 << 20)]
    pending = dict(zip(keys.tolist(), codes.tolist()))
    size = 8192
    c, p = _both(monkeypatch, kn.pair_insert_codes, np.zeros(2 * size, np.int64), pending, comps)
    assert np.array_equal(c[0], p[0])
    table = dict(zip(c[0][0::2].tolist(), c[0][1::2].tolist()))
    for key, code in pending.items():
        assert table[key] == (code if code < 0 else (code % 21) << 32 | code)
    with pytest.raises(ValueError, match="node not made"):
        kn.pair_insert_codes(np.zeros(2 * size, np.int64), {5: 1 << 21}, comps[:10])
