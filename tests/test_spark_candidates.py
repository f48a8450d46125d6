"""The candidates Spark's executors ship: the rows form, read by any process, and the merge that picks winners.

No Spark here: the pieces a level task is made of, run in this process.  A
second set of memo tables (a fresh interner, so other ids) stands for
another executor: the rows form must not depend on either's interning.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from conftest import INTERPRETED
from modelcheck.options import CheckOptions
from modelcheck.model.bound import BoundModel
from modelcheck.search.discovery import digit
from modelcheck.search.frontier_rows import plain_shape
from modelcheck.spark_explore.candidates import Winners, pack_rows, states_batch, unpack_rows
from modelcheck.spec.constants import make_constants
from modelcheck.spec.loader import load_spec

pytestmark = pytest.mark.skipif(INTERPRETED, reason="the memo tables run compiled only")


def _tables(model):
    from modelcheck.memo.backend import MemoBackend

    return MemoBackend(model)


@pytest.fixture(scope="module")
def kip320():
    spec = load_spec("kip320")
    return BoundModel(spec, make_constants(spec.constants_class, {"Replicas": 3}), CheckOptions())


def _expand_levels(model, tables, levels: int):
    """A few levels expanded with ``tables`` (rows, fps and keys of the last frontier, and its expansion)."""
    init = list(model.init_states())
    rows = np.array([tables.row_of(s) for s in init], np.int32)
    fps = np.array([model.fingerprint(s) for s in init], np.int64)
    keys = [digit(i) for i in range(len(init))]
    seen = set(fps.tolist())
    shape = plain_shape(tables.layout.root)
    for _ in range(levels):
        exp = tables.expand_rows(rows, fps, frozenset(), frozenset())
        sub = np.arange(len(exp.fp)) - np.searchsorted(exp.parent, exp.parent)
        blob = pack_rows(pickle.dumps, shape, tables.interner.values, exp.fp, exp.parent, sub, exp.action,
                         exp.checks, exp.rows, keys, fps)
        win = Winners([unpack_rows(blob)], np.array(sorted(seen), np.int64))
        seen |= set(win.fps.tolist())
        rows, fps, keys = win.rows(shape, tables.interned_parts, tables.row_of), win.fps, win.keys
    return rows, fps, keys, shape


def test_the_tables_expansion_is_the_specs_own(kip320):
    """Successors new to a batch, in the spec's order, their fingerprints the states' own; keys in that order."""
    tables = _tables(kip320)
    rows, fps, keys, _shape = _expand_levels(kip320, tables, 4)
    states = [tables.layout.state(tuple(r), tables.interner.values) for r in rows.tolist()]
    assert [kip320.fingerprint(s) for s in states] == fps.tolist()
    exp = tables.expand_rows(rows, fps, frozenset(), frozenset())
    want, seen = [], set(fps.tolist())
    generated = 0
    for s in states:
        for _ai, _b, t in kip320.successors(s):
            generated += 1
            fp = kip320.fingerprint(t)
            if fp not in seen:
                seen.add(fp)
                want.append(fp)
    assert exp.fp.tolist() == want
    assert int(exp.generated.sum()) == generated
    assert keys == sorted(keys)


def test_rows_read_by_another_process_tables_and_without_tables(kip320):
    """The rows form rebuilt by other tables (other ids) and by the shape alone gives the same states."""
    mine = _tables(kip320)
    rows, fps, keys, shape = _expand_levels(kip320, mine, 5)
    exp = mine.expand_rows(rows, fps, frozenset(), frozenset())
    sub = np.arange(len(exp.fp)) - np.searchsorted(exp.parent, exp.parent)
    blob = pack_rows(pickle.dumps, shape, mine.interner.values, exp.fp, exp.parent, sub, exp.action, exp.checks,
                     exp.rows, keys, fps)
    batch = unpack_rows(blob)
    assert batch.fps.tolist() == exp.fp.tolist()
    assert batch.pfps.tolist() == fps[exp.parent].tolist()
    assert batch.keys == [keys[p] + digit(s) for p, s in zip(exp.parent.tolist(), sub.tolist())]
    win = Winners([batch], np.zeros(0, np.int64))
    states = win.states()
    assert [kip320.fingerprint(s) for s in states] == exp.fp.tolist()
    other = _tables(kip320)
    other.interned_parts(list(reversed(mine.interner.values)))  # other ids for the same parts
    theirs = win.rows(shape, other.interned_parts, other.row_of)
    assert theirs.tolist() != exp.rows.tolist()
    assert [other.layout.state(tuple(r), other.interner.values) for r in theirs.tolist()] == states
    assert len(blob) < 64 * len(exp.fp)


def test_winners_smallest_key_across_forms_in_key_order():
    """A fingerprint's candidate with the smallest key wins, from either form; a visited one never does."""
    a = states_batch([(7, b"\x01\x05", 1, 0, "s7 late"), (9, b"\x01\x06", 1, 1, "s9"),
                      (4, b"\x02\x00", 2, 0, "s4 visited")])
    b = states_batch([(7, b"\x01\x02", 3, 2, "s7 early"), (5, b"\x00\x80\x80", 3, 0, "s5")])
    win = Winners([a, b], np.array([4], np.int64))
    assert win.keys == [b"\x00\x80\x80", b"\x01\x02", b"\x01\x06"]
    assert win.fps.tolist() == [5, 7, 9]
    assert win.states() == ["s5", "s7 early", "s9"]
    assert win.pfps.tolist() == [3, 3, 1]
    assert win.actions.tolist() == [0, 2, 1]
    assert win.checks() is None  # a sender on the spec's own code: the receiver checks with it
    assert win.states([2, 0]) == ["s9", "s5"]


def test_two_byte_digits_sort_after_one_byte_ones():
    """Keys compare as the successor indices do, past 127 (two-byte digits) too."""
    keys = [b"\x03" + digit(i) for i in (0, 127, 128, 300, 5)]
    batch = states_batch([(i + 1, k, 0, 0, i) for i, k in enumerate(keys)])
    assert Winners([batch], np.zeros(0, np.int64)).states() == [0, 4, 1, 2, 3]


@pytest.mark.parametrize("seed", range(5))
def test_winners_are_the_smallest_unseen_key_of_each_fingerprint(seed):
    """Across several chunks of either form, a shard keeps, for each fingerprint it has not seen, the
    candidate with the smallest key, in key order: checked against a dictionary."""
    from modelcheck.spark_explore.candidates import Batch

    rng = np.random.default_rng(seed)
    parent_keys = sorted({digit(int(a)) + digit(int(b)) for a, b in rng.integers(0, 300, (40, 2))})
    batches, every = [], []
    for form in ("rows", "states", "rows"):
        n = int(rng.integers(0, 60))
        fps = rng.integers(1, 40, n).astype(np.int64)
        pidx = np.sort(rng.integers(0, len(parent_keys), n))
        sub = rng.integers(0, 200, n)
        keys = [parent_keys[p] + digit(int(s)) for p, s in zip(pidx.tolist(), sub.tolist())]
        zeros = np.zeros(n, np.int64)
        if form == "rows":
            batches.append(Batch(fps, None, zeros, zeros, zeros, parent_keys=parent_keys, pidx=pidx, sub=sub))
        else:
            batches.append(states_batch([(int(f), k, 0, 0, None) for f, k in zip(fps.tolist(), keys)]))
        every += list(zip(fps.tolist(), keys))
    visited = np.array(sorted(set(rng.integers(1, 40, 15).tolist())), np.int64)
    best: dict = {}
    for fp, key in every:
        if fp not in set(visited.tolist()) and (fp not in best or key < best[fp]):
            best[fp] = key
    want = sorted(best.items(), key=lambda item: item[1])
    win = Winners(batches, visited)
    assert list(zip(win.fps.tolist(), win.keys)) == want
    assert [every[i] for i in win.where.tolist()] == want
