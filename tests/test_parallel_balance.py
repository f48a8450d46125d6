"""``--workers N`` shares the work: frontiers are rebalanced when one worker holds most of them.

A worker keeps the successors it discovered first, and a run starts from one
initial state, so without rebalancing one worker would expand everything.
"""

from __future__ import annotations

from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec
from modelcheck.model.bound import BoundModel
from conftest import run_backend
from modelcheck.search.workers.coordinator import WorkersBackend, balance_moves
from modelcheck.options import CheckOptions


def test_balance_moves_evens_out_frontiers_and_conserves_states():
    assert balance_moves([100_000, 0]) == {0: [(1, 50_000)]}
    assert balance_moves([9_000, 0, 0]) == {0: [(1, 3_000), (2, 3_000)]}
    moves = balance_moves([7_001, 2_000, 999])
    given = {w: sum(c for _, c in ms) for w, ms in moves.items()}
    taken: dict[int, int] = {}
    for ms in moves.values():
        for dst, c in ms:
            taken[dst] = taken.get(dst, 0) + c
    after = [n - given.get(w, 0) + taken.get(w, 0) for w, n in enumerate([7_001, 2_000, 999])]
    assert sum(after) == 10_000 and max(after) - min(after) <= 1


def test_balance_moves_leaves_near_balanced_or_tiny_frontiers_alone():
    assert balance_moves([10_500, 9_500]) == {}  # within 10 % of the mean
    assert balance_moves([150, 0]) == {}  # too few states to be worth pickling
    assert balance_moves([5]) == {}


def test_two_workers_each_expand_a_fair_share_with_tlc_counts():
    spec = load_spec("kip320")
    c = build_constants(spec, (("Replicas", "2"),))
    model = BoundModel(spec, c, CheckOptions())
    bfs = WorkersBackend(model, 2)
    r = run_backend(model, bfs)
    # TLC's reference figures for Kip320 with two replicas.
    assert (r.distinct_states, r.states_generated, r.depth) == (5_973, 11_839, 18)
    assert sum(bfs.expanded_by_worker) == 5_973
    assert min(bfs.expanded_by_worker) >= 0.35 * 5_973, bfs.expanded_by_worker
    assert 0 < bfs.moved_states < 5_973
