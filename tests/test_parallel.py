"""``--workers N`` gives exactly the one-process result: counts, depth, per-action stats, traces.

Counts are pinned independently: by formula for the synthetic counter grid,
by the TLC reference table for the Kafka specs, and by the naive explorer
(tests/naive.py, full states in a dict) on small configurations.
"""

from __future__ import annotations

import pytest

from conftest import MODELS
from modelcheck.spec.constants import make_constants
from conftest import check
from modelcheck.spec.loader import load_spec
from modelcheck.options import CheckOptions
from naive import naive_explore


def _setup(ref: str, **consts: int):
    spec = load_spec(ref)
    return spec, make_constants(spec.constants_class, consts)


def _summary(r) -> dict:
    """Everything a user can observe in a result, traces included (states compared by value)."""
    return {
        "result": r.result,
        "distinct": r.distinct_states,
        "generated": r.states_generated,
        "depth": r.depth,
        "queue_left": r.queue_left,
        "stopped_by": r.stopped_by,
        "actions": [(a.name, a.generated, a.distinct) for a in r.action_stats],
        "sometimes": r.sometimes_reached,
        "violations": [
            (v.kind, v.name, [(step.action, step.state) for step in v.trace]) for v in r.violations
        ],
    }


def _same_for_all_workers(spec, c, options=CheckOptions(), workers=(2, 3)) -> dict:
    """Worker processes on the spec's own code, and (where the tables serve the run) two threads on them."""
    one = _summary(check(spec, c, options))
    for n in workers:
        assert _summary(check(spec, c, options, workers=n)) == one, f"--workers {n} differs from one process"
    assert _summary(check(spec, c, options, workers=2, memo=None)) == one, "--workers 2 on the tables differs"
    return one


GRID = str(MODELS / "counter_grid.py")
DIE_HARD = str(MODELS / "die_hard.py")


@pytest.mark.slow
@pytest.mark.parametrize("counters,top", [(1, 5), (2, 7), (3, 9), (4, 4)])
def test_counter_grid_counts_by_formula(counters, top):
    spec, c = _setup(GRID, Counters=counters, Max=top)
    r = _same_for_all_workers(spec, c)
    assert r["result"] == "holds"
    assert r["distinct"] == (top + 1) ** counters
    assert r["generated"] == counters * (top + 1) ** counters + counters * (top - 1) * (top + 1) ** (counters - 1) + 1
    assert r["depth"] == top * counters + 1


@pytest.mark.slow
def test_counter_grid_violation_is_the_shortest_and_the_same():
    spec, c = _setup(GRID, Counters=3, Max=9, Limit=12)
    r = _same_for_all_workers(spec, c)
    (v,) = r["violations"]
    assert v[1] == "BelowLimit" and len(v[2]) == 13
    assert sum(v[2][-1][1].values) == 12


@pytest.mark.slow
def test_die_hard_violation_and_holds():
    spec, c = _setup(DIE_HARD)
    r = _same_for_all_workers(spec, c)
    assert r["result"] == "violated" and len(r["violations"][0][2]) == 7
    r = _same_for_all_workers(spec, c, CheckOptions(invariants=("TypeOk",)))
    assert r["distinct"] == 16 and r["generated"] == 16 * 6 + 1


@pytest.mark.slow
def test_continue_max_states_and_max_depth_stop_at_the_same_place():
    spec, c = _setup(GRID, Counters=3, Max=6, Limit=5)
    r = _same_for_all_workers(spec, c, CheckOptions(continue_after_violation=True))
    assert r["distinct"] == 7 ** 3 and [v[1] for v in r["violations"]] == ["BelowLimit"]
    r = _same_for_all_workers(spec, c, CheckOptions(invariants=(), max_states=100))
    assert r["stopped_by"] == "max-states" and r["distinct"] >= 100
    r = _same_for_all_workers(spec, c, CheckOptions(invariants=(), max_depth=4))
    assert r["stopped_by"] == "max-depth" and r["depth"] == 4


def test_deadlock_is_reported_identically():
    spec, c = _setup(GRID, Counters=2, Max=3)
    # Without resets the all-Max state has no successor.
    from modelcheck import Spec

    no_reset = Spec(name="grid-no-reset", title="grid", constants=spec.constants_class, init=spec.init,
                    actions=[spec.actions[0].fn], invariants=[])
    r = _same_for_all_workers(no_reset, c)
    assert r["result"] == "deadlock"
    assert r["violations"][0][2][-1][1].values == (3, 3)


@pytest.mark.parametrize("ref,consts", [(GRID, {"Counters": 3, "Max": 4}), (DIE_HARD, {}),
                                        ("kip320", {"Replicas": 2})])
def test_engine_agrees_with_the_naive_explorer(ref, consts):
    spec, c = _setup(ref, **consts)
    r = check(spec, c, CheckOptions(invariants=()))
    naive = naive_explore(spec, c)
    assert (r.distinct_states, r.states_generated, r.depth) == (naive["distinct"], naive["generated"], naive["depth"])


@pytest.mark.slow
def test_kip320_two_replicas_reference_counts():
    """TLC reference table: Kip320, Replicas=2: 5,973 distinct, 11,839 generated, depth 18."""
    spec, c = _setup("kip320", Replicas=2)
    r = _same_for_all_workers(spec, c)
    assert (r["result"], r["distinct"], r["generated"], r["depth"]) == ("holds", 5973, 11839, 18)
    _same_for_all_workers(spec, c, CheckOptions(symmetry=True), workers=(2,))


@pytest.mark.slow
def test_tiny_worker_chunks_give_the_same_result(monkeypatch):
    """A level in many chunks: a repeat in a later chunk, and a fingerprint seen in an earlier level,
    are dropped early by the generator, exactly as the owner would have rejected them.

    The models in these tests generate fewer than ``CHUNK_CANDIDATES`` successors per level; with
    chunks of 7 every level of Kip320 with two replicas is split (the workers are forked, so they
    see the patched value).
    """
    from modelcheck.search.workers import worker as parallel_worker

    monkeypatch.setattr(parallel_worker, "CHUNK_CANDIDATES", 7)
    spec, c = _setup("kip320", Replicas=2)
    r = _same_for_all_workers(spec, c)
    assert (r["distinct"], r["generated"], r["depth"]) == (5973, 11839, 18)
    spec, c = _setup(GRID, Counters=3, Max=9, Limit=12)
    (v,) = _same_for_all_workers(spec, c)["violations"]
    assert len(v[2]) == 13


@pytest.mark.slow
@pytest.mark.parametrize("ref,length", [("truncate-to-hw", 9), ("kip101", 11), ("kip279", 11)])
def test_strong_isr_violations_with_three_replicas(ref, length):
    """TLC reference table: StrongIsr fails with traces of 9 (truncate-to-hw) and 11 states."""
    spec, c = _setup(ref, Replicas=3)
    r = _same_for_all_workers(spec, c, workers=(2,))
    (v,) = r["violations"]
    assert v[1] == "StrongIsr" and len(v[2]) == length


def test_cli_workers(cli):
    p = cli("check", "kip320", "--const", "Replicas=2", "--workers", "2", "-q")
    assert p.returncode == 0, p.stderr
    assert "11,839 states generated, 5,973 distinct states found" in p.stdout
    # Checkpoints, resume and --max-memory: tests/test_parallel_checkpoint.py.


def test_interrupt_stops_workers_with_statistics_of_the_last_level():
    """Ctrl-C (here raised by the progress sink) ends a --workers run as "interrupted", workers reaped."""
    import multiprocessing

    spec, c = _setup(GRID, Counters=3, Max=9)

    def sink(progress):
        raise KeyboardInterrupt

    r = check(spec, c, CheckOptions(progress_seconds=0.0), progress=sink, workers=2)
    assert r.result == "interrupted" and r.stopped_by == "interrupt"
    assert 0 < r.distinct_states < 1000 and r.queue_left > 0
    assert not multiprocessing.active_children()
