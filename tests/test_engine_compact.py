"""The compact structures behind the engine: visited set, parent records, spilling frontier."""

from __future__ import annotations

import numpy as np

from conftest import MODELS
from modelcheck.spec.constants import make_constants
from conftest import run_backend
from modelcheck.search.local import LocalBackend
from modelcheck.search.frontier import Frontier
from modelcheck.spec.loader import load_spec
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.search.visited import ParentRecords, VisitedSet


def test_visited_set_answers_like_a_set_across_levels():
    v = VisitedSet([5, -3, 5])
    assert len(v) == 2 and 5 in v and -3 in v and 7 not in v
    v.level.update({7, 2**62, -(2**63)})
    assert v.seen_in_old(np.array([5, 7, -3, 0], dtype=np.int64)) == [True, False, True, False]
    v.end_level()
    assert len(v) == 5 and 7 in v and -(2**63) in v
    assert list(v.old) == sorted(v.old)
    v.level.add(11)
    v.discard_level()
    assert 11 not in v and len(v) == 5


def test_parent_records_walk_back_to_an_initial_state():
    p = ParentRecords()
    p.add_level([10, 20], [0, 0])
    p.add_level([30, 40, 50], [1, 0, 1])
    p.add_level([60], [2])
    assert p.path_to(2, 60) == [20, 50, 60]
    assert p.path_to(1, 40) == [10, 40]
    assert p.nbytes() == 6 * 8 + 6 * 4


def test_frontier_spills_and_keeps_order(tmp_path):
    f = Frontier(chunk=3, memory_states=4, spill_dir=str(tmp_path))
    items = [(i, frozenset({i})) for i in range(20)]
    for x in items:
        f.append(x)
    assert len(f) == 20 and f.spilled_chunks > 0
    assert f.to_list() == items
    assert list(f) == items
    f.close()
    assert not list(tmp_path.iterdir())


def test_frontier_extend_spills_and_keeps_order(tmp_path):
    """The engine adds a batch of states at once: the queue spills and reads back as with single appends."""
    f = Frontier(chunk=3, memory_states=4, spill_dir=str(tmp_path))
    items = [(i, frozenset({i})) for i in range(20)]
    for lo in range(0, 20, 5):
        f.extend(items[lo:lo + 5])
    f.append(items[0])
    assert len(f) == 21 and f.spilled_chunks > 0 and len(list(tmp_path.iterdir())) == 1
    assert list(f) == items + [items[0]]
    f.close()
    assert not list(tmp_path.iterdir())


def test_engine_with_a_tiny_in_memory_frontier_gives_the_same_result():
    """Forcing every level through disk changes nothing a user sees."""
    spec = load_spec(str(MODELS / "counter_grid.py"))
    c = make_constants(spec.constants_class, {"Counters": 3, "Max": 7, "Limit": 15})
    model = BoundModel(spec, c, CheckOptions())
    plain = run_backend(model, LocalBackend(model))
    backend = LocalBackend(model, frontier_options={"chunk": 7, "memory_states": 10})
    spilled = run_backend(model, backend)
    assert backend.spilled_chunks > 0
    for r in (plain, spilled):
        assert r.result == "violated" and len(r.violations[0].trace) == 16
    assert (spilled.distinct_states, spilled.states_generated, spilled.depth, spilled.action_stats) == (
        plain.distinct_states, plain.states_generated, plain.depth, plain.action_stats)
    assert [s.state for s in spilled.violations[0].trace] == [s.state for s in plain.violations[0].trace]
