"""The leaves a state keeps for its successors (modelcheck.memo): each is the leaf a walk of its tree gives.

The C loop does not walk a tree for a state when the step from its parent
changed none of the components the parent's walk read (the leaf's mask):
it takes the parent's leaf.  These tests compare every leaf a state of the
frontier holds with a walk of the tree in Python, and show that a wrong
mask gives wrong counts (so the comparison with the spec's own code, in
test_memo.py, would catch one).
"""

from __future__ import annotations

import numpy as np
import pytest

from modelcheck.memo import backend as backend_mod
from modelcheck.memo import kernel as kn
from modelcheck.memo import tries as tries_mod
from modelcheck.memo.backend import MemoBackend
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.search.driver import LevelDriver
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec

pytestmark = pytest.mark.skipif(not kn.COMPILED, reason="the memo tables run compiled only")


def _model(name: str, consts: dict) -> BoundModel:
    spec = load_spec(name)
    return BoundModel(spec, build_constants(spec, consts), CheckOptions(continue_after_violation=True))


def _mask(reads: list[int]) -> int:
    m = 0
    for k in reads:
        m |= 1 << (k & 63)
    return m


def _check_level(b: MemoBackend) -> int:
    """Compare the kept leaves of every state of the level about to be expanded with walks; how many."""
    t = b.tries
    t.flush()
    checked = 0

    def walked(f: int, row: tuple) -> int:
        code, _last, reads = t.walk(f, row)
        assert code != tries_mod.MISSING
        assert int(t.leaf_mask[-2 - code]) == _mask(reads)
        return -2 - code

    own = ([b.constraint_fn] if b.constraint_fn >= 0 else []) + [b.first_check + k for k in range(len(b.checks))]
    assert b.slots == b.n_bindings + len(own)
    for row, kept in zip(map(tuple, b.rows.tolist()), b.row_leaf.tolist()):
        for j, value in enumerate(kept):
            if value < 0:
                continue
            if j >= b.n_bindings:
                assert value == walked(own[j - b.n_bindings], row)
            else:
                g = int(b.guard_of[j])
                if g >= 0 and not int(t.leaf_count[walked(g, row)]):
                    assert value == 4 * walked(g, row), (j, row)
                else:
                    leaf = walked(j, row)
                    assert value == 4 * leaf + (1 if int(t.leaf_count[leaf]) else 3), (j, row)
            checked += 1
    return checked


@pytest.mark.slow
@pytest.mark.parametrize("simd, threads", [(True, 1), (False, 1), (True, 2)], ids=["simd", "portable", "helpers"])
@pytest.mark.parametrize("name, consts", [
    ("kip320", {"Replicas": 2}),
    ("kip101", {"Replicas": 2}),
    ("async-isr", {}),
    ("controller-failover", {}),
    ("partition-reassignment", {}),
])
def test_every_kept_leaf_is_the_walked_leaf(name, consts, simd, threads, monkeypatch):
    """Both codes of the C loop's leaf keeping: AVX2 (where the CPU has it) and the portable one; and with
    every parent's walks made by a helper thread (``--workers``)."""
    checked = []
    original = MemoBackend.expand

    def expand(self, request):
        checked.append(_check_level(self))
        yield from original(self, request)

    monkeypatch.setattr(MemoBackend, "expand", expand)
    model = _model(name, consts)
    b = MemoBackend(model, simd=simd, threads=threads, only_helpers=threads > 1)
    result = LevelDriver(model, b).run()
    assert result.distinct_states > 100
    assert sum(checked) > result.distinct_states  # most states keep several leaves


@pytest.mark.slow
def test_portable_and_simd_leaf_keeping_agree_on_kip320_three_replicas():
    """The whole search, both ways: the reference counts (TLC's for this model), and equal per-action stats."""
    runs = []
    for simd in (True, False):
        model = _model("kip320", {"Replicas": 3})
        runs.append(LevelDriver(model, MemoBackend(model, simd=simd)).run())
    for r in runs:
        assert (r.distinct_states, r.states_generated, r.depth) == (737_794, 1_967_560, 26)
    assert runs[0].action_stats == runs[1].action_stats


def test_a_mask_that_misses_a_component_gives_wrong_counts(monkeypatch):
    """Masks without the path's first read: leaves are kept where the step changed what they read."""
    model = _model("kip320", {"Replicas": 2})
    right = LevelDriver(model, MemoBackend(model)).run()

    class Careless(tries_mod.Tries):
        def set_mask(self, code, path, holds_in=-1):
            super().set_mask(code, path[1:], holds_in)

    monkeypatch.setattr(backend_mod, "Tries", Careless)
    model = _model("kip320", {"Replicas": 2})
    wrong = LevelDriver(model, MemoBackend(model, verify="off")).run()
    assert (wrong.distinct_states, wrong.states_generated) != (right.distinct_states, right.states_generated)


def test_empty_leaf_is_never_kept():
    """The shared leaf of the walks made in Python has every component in its mask."""
    t = tries_mod.Tries(1, 3)
    e = t.empty_leaf()
    t.set_mask(e, [0])
    t.flush()
    assert int(t.leaf_mask[-2 - e]) == tries_mod.MASK_ALL
    assert np.uint64(t.leaf_mask[-2 - e]) == np.uint64(2**64 - 1)


@pytest.mark.parametrize("threads", [1, 2], ids=["one", "helpers"])
def test_states_past_the_leaf_bank_walk_every_tree(threads, monkeypatch):
    """With room for the leaves of 5 states a level, the rest walk: the same counts as with room for all
    (with helpers: their walks of those states are kept in their rings)."""
    model = _model("async-isr", {})
    whole = LevelDriver(model, MemoBackend(model)).run()
    checked = []
    original = MemoBackend.expand

    def expand(self, request):
        assert len(self.row_leaf) <= 5
        checked.append(_check_level(self))
        yield from original(self, request)

    monkeypatch.setattr(MemoBackend, "expand", expand)
    probe = MemoBackend(_model("async-isr", {}))
    monkeypatch.setattr(backend_mod, "LEAF_BANK_BYTES", 5 * 4 * probe.slots)
    model = _model("async-isr", {})
    small = LevelDriver(model, MemoBackend(model, threads=threads, only_helpers=threads > 1)).run()
    assert (small.distinct_states, small.states_generated, small.depth) == (
        whole.distinct_states, whole.states_generated, whole.depth)
    assert small.action_stats == whole.action_stats
    assert sum(checked) > 0
