"""``--workers N`` with frontiers on disk: the same results, from the same states read back."""

from __future__ import annotations

import os

import pytest

from conftest import check
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.search.driver import LevelDriver
from modelcheck.search.frontier import StoredStates
from modelcheck.search.workers.coordinator import WorkersBackend
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec


def _run(name: str, consts: tuple, workers: int, spill_states: int | None = None):
    spec = load_spec(name)
    c = build_constants(spec, consts)
    if workers == 1:
        return None, check(spec, c, CheckOptions())
    model = BoundModel(spec, c, CheckOptions())
    bfs = WorkersBackend(model, workers)
    if spill_states is not None:
        bfs.spill_states = spill_states
    return bfs, LevelDriver(model, bfs).run()


def test_stored_states_read_back_in_order_as_often_as_asked(tmp_path):
    states = [(i, frozenset({i % 3})) for i in range(25)]
    stored = StoredStates(states, str(tmp_path), chunk=4)
    assert len(stored) == 25
    assert list(stored) == states and stored.to_list() == states  # reading does not consume
    stored.close()
    assert os.listdir(tmp_path) == []


def test_spilled_worker_frontiers_give_the_reference_counts():
    bfs, r = _run("kip320", (("Replicas", "2"),), 2, spill_states=50)
    assert bfs.spilled_levels > 0  # the wide levels went to disk
    # TLC's reference figures for Kip320 with two replicas.
    assert (r.distinct_states, r.states_generated, r.depth) == (5_973, 11_839, 18)
    assert 0 < bfs.moved_states  # rebalancing read spilled frontiers back too


@pytest.mark.slow
def test_spilled_worker_frontiers_find_the_same_shortest_trace():
    _, one = _run("truncate-to-hw", (), 1)
    bfs, two = _run("truncate-to-hw", (), 2, spill_states=20)
    assert bfs.spilled_levels > 0
    assert len(one.violations) == len(two.violations) == 1
    assert [s.state for s in two.violations[0].trace] == [s.state for s in one.violations[0].trace]
    assert len(two.violations[0].trace) == 9
    assert (two.distinct_states, two.states_generated) == (one.distinct_states, one.states_generated)


@pytest.mark.slow
def test_checkpoints_gather_spilled_frontiers_and_resume(tmp_path):
    spec = load_spec("kip320")
    c = build_constants(spec, (("Replicas", "2"),))
    # A checkpoint at every level boundary, each gathering the workers' (spilled) frontiers.
    model = BoundModel(spec, c, CheckOptions(checkpoint_dir=str(tmp_path), checkpoint_every=0.0, max_depth=12))
    bfs = WorkersBackend(model, 2)
    bfs.spill_states = 50
    driver = LevelDriver(model, bfs)
    stopped = driver.run()
    assert bfs.spilled_levels > 0 and driver.checkpoints_written > 0
    assert stopped.stopped_by == "max-depth"
    expected = check(spec, c, CheckOptions(max_depth=12))
    assert (stopped.distinct_states, stopped.states_generated) == (expected.distinct_states,
                                                                   expected.states_generated)
    # The last checkpoint (a spilled frontier gathered from both workers) resumes in one process.
    resumed = check(spec, c, CheckOptions(checkpoint_dir=str(tmp_path), resume=str(tmp_path), max_depth=12))
    assert (resumed.distinct_states, resumed.states_generated, resumed.depth) == (
        expected.distinct_states, expected.states_generated, expected.depth)
