"""Liveness and step properties with ``--workers N``: exactly what one process finds.

Every case of tests/test_liveness.py's toy specs, and a token ring with
parameters, a list-returning action, a stuttering action, state and action
constraints and fairness (tests/models/token_ring.py), are checked with one
process and with worker processes: the same verdicts, violation kinds,
traces, loops, warnings and counts, and the same behaviour graph, edge for
edge and mask for mask, in the same order.  Checkpoints written with one
worker count resume with another; a level interrupted in the middle is
dropped whole, the graph too.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time

import numpy as np
import pytest

import modelcheck
from modelcheck import strong, weak
from modelcheck.errors import SpecRuntimeError
from modelcheck.search.checkpoint import verified_level
from modelcheck.search.graph_log import GraphLog
from modelcheck.spec.loader import load_spec
from tests.conftest import MODELS, run_cli

sys.path.insert(0, str(MODELS))
import fair_toys as ft  # noqa: E402
import token_ring as tr  # noqa: E402

WF_INC = [(weak, ft.inc)]
WF_BOTH = [(weak, ft.inc), (weak, ft.reset)]


@pytest.fixture(autouse=True)
def every_worker_works(monkeypatch):
    """Even out the workers' frontiers after every level, however small.

    A run starts from one initial state, and a worker keeps the states it
    discovered first; the coordinator moves states only when a frontier is
    hundreds of states above the mean, so on these small specs one worker
    would expand every state and the ranks of different workers would never
    interleave.  Moved states are picked evenly over the ranks.
    """
    from modelcheck.search.workers import coordinator

    balance = coordinator.balance_moves
    monkeypatch.setattr(coordinator, "balance_moves", lambda sizes: balance(sizes, slack=0.0, minimum=1))


@pytest.fixture
def graphs(monkeypatch):
    """The behaviour graph of each run, as the driver held it at the end (captured when it is closed)."""
    seen: list[dict] = []
    close = GraphLog.close

    def capture(self):
        seen.append({k: np.array(v) for k, v in self.arrays().items()})
        close(self)

    monkeypatch.setattr(GraphLog, "close", capture)
    return seen


def summary(r) -> dict:
    """Everything a user sees of a result that does not depend on time."""
    return {
        "result": r.result, "exit": r.exit_code, "stopped_by": r.stopped_by,
        "distinct": r.distinct_states, "generated": r.states_generated, "depth": r.depth,
        "queue_left": r.queue_left,
        "actions": [(a.name, a.generated, a.distinct) for a in r.action_stats],
        "violations": [(v.kind, v.name, [(s.action, s.state) for s in v.trace], v.loop_start, v.loop_action)
                       for v in r.violations],
        "warnings": r.warnings, "graph_edges": r.graph_edges,
    }


def same_graph(a: dict | None, b: dict | None) -> None:
    assert (a is None) == (b is None)
    if a is not None:
        for key in a:
            assert a[key].dtype == b[key].dtype, key
            assert np.array_equal(a[key], b[key]), key


def compare(graphs, spec, consts, properties, workers=(2,), **options) -> dict:
    """Run with one process, then with each worker count: the same summary and the same graph."""
    def run(n):
        before = len(graphs)
        r = modelcheck.check(spec, consts, properties=properties, preflight=False, workers=n, **options)
        return summary(r), (graphs[-1] if len(graphs) > before else None)

    one, graph = run(1)
    for n in workers:
        got, got_graph = run(n)
        assert got == one, f"--workers {n} differs from one process"
        same_graph(graph, got_graph)
    return one


# -- the toy specs of tests/test_liveness.py ----------------------------------------------------------

TOYS = [
    ("counter WF(Inc)", lambda: ft.counter(WF_INC), "ReachesTop", {}),
    ("counter WF(Inc)", lambda: ft.counter(WF_INC), "ZeroLeadsToOne", {}),
    ("counter", lambda: ft.counter(), "ZeroLeadsToOne", {}),
    ("counter WF(Inc)", lambda: ft.counter(WF_INC), "ZeroInfinitelyOften", {}),
    ("counter WF(Inc, Reset)", lambda: ft.counter(WF_BOTH), "ZeroInfinitelyOften", {}),
    ("counter WF(Inc, Reset)", lambda: ft.counter(WF_BOTH), "EventuallyPositiveForever", {}),
    ("counter WF(Inc, Reset)", lambda: ft.counter(WF_BOTH), "EveryValueLeadsToZero", {}),
    ("counter WF(Inc)", lambda: ft.counter(WF_INC), "EveryValueLeadsToZero", {}),
    ("toggle WF WF", lambda: ft.toggle_spec([(weak, ft.toggle), (weak, ft.exit_)]), "EventuallyDone", {}),
    ("toggle WF SF", lambda: ft.toggle_spec([(weak, ft.toggle), (strong, ft.exit_)]), "EventuallyDone", {}),
    ("pick", lambda: ft.pick_spec(each=False), "EventuallyFinished", {}),
    ("pick each", lambda: ft.pick_spec(each=True), "EventuallyFinished", {}),
    ("ending WF", lambda: ft.ending_spec(True), "ReachesTwo", {}),
    ("ending", lambda: ft.ending_spec(False), "ReachesTwo", {}),
    ("ending WF", lambda: ft.ending_spec(True), "ReachesFive", {}),
    ("counter", lambda: ft.counter(), "NoBigDrop", {}),
    ("counter N=2", lambda: ft.counter(), "NoBigDrop", {"N": 2}),
    ("counter N=12", lambda: ft.counter(WF_INC), "ReachesTop", {"N": 12}),
]


@pytest.mark.parametrize("what, build, prop, consts", TOYS, ids=[f"{t[0]}-{t[2]}" for t in TOYS])
def test_toy_specs_give_the_one_process_verdict(graphs, what, build, prop, consts):
    one = compare(graphs, build(), consts, [prop], workers=(2, 3))
    assert one["result"] in ("holds", "violated")


def test_toy_verdicts_are_those_reasoned_by_hand(graphs):
    # A few of tests/test_liveness.py's assertions again, with two workers, so a wrong agreement shows too.
    r = modelcheck.check(ft.counter(WF_INC), {}, properties=["ReachesTop"], preflight=False, workers=2)
    assert r.violation.kind == "liveness"
    assert ([s.state for s in r.violation.trace], r.violation.loop_start, r.violation.loop_action) == \
        ([ft.X(0), ft.X(1)], 0, "Reset")
    r = modelcheck.check(ft.counter(), {}, properties=["NoBigDrop"], preflight=False, workers=2)
    assert [s.action for s in r.violation.trace] == [None, "Inc", "Inc", "Inc", "Reset"]
    assert modelcheck.check(ft.pick_spec(each=True), {}, properties=["EventuallyFinished"], preflight=False,
                            workers=2).result == "holds"


def test_toy_several_properties_and_a_safety_stop(graphs):
    one = compare(graphs, ft.counter(WF_INC), {}, ["ReachesTop", "ZeroLeadsToOne", "NoBigDrop"],
                  continue_after_violation=True)
    assert {(v[0], v[1]) for v in one["violations"]} == {("liveness", "ReachesTop"), ("step", "NoBigDrop")}
    one = compare(graphs, ft.counter(WF_INC), {}, ["NoBigDrop", "ReachesTop"])
    assert [v[1] for v in one["violations"]] == ["NoBigDrop"]
    assert any("ReachesTop were not decided" in w for w in one["warnings"])


# -- the token ring ---------------------------------------------------------------------------------

FAIRNESS = {
    "none": [],
    "WF(Pass)": [(weak, tr.pass_)],
    "SF(Pass), WF(Drop)": [(strong, tr.pass_), (weak, tr.drop)],
    "WF(each Pass), SF(each Drop)": [(lambda a: weak(a, each=True), tr.pass_), (lambda a: strong(a, each=True), tr.drop)],
}
LIVENESS = ["TokenReturns", "WorkDrains", "EveryNodePasses", "ZeroHoldsOften", "QuietForever"]
STEPS = ["MovesByOne", "LeavesOnlyIdle", "NoSkipping"]


@pytest.mark.slow
@pytest.mark.parametrize("constrained", [True, False], ids=["constraints", "no-constraints"])
@pytest.mark.parametrize("prop", LIVENESS + STEPS)
def test_ring_each_property_alone(graphs, constrained, prop):
    compare(graphs, tr.ring(FAIRNESS["SF(Pass), WF(Drop)"], constrained), {}, [prop])


@pytest.mark.slow
@pytest.mark.parametrize("constrained", [True, False], ids=["constraints", "no-constraints"])
@pytest.mark.parametrize("fairness", list(FAIRNESS))
def test_ring_every_property_in_one_run(graphs, constrained, fairness):
    spec = tr.ring(FAIRNESS[fairness], constrained)
    one = compare(graphs, spec, {}, LIVENESS + STEPS, continue_after_violation=True, workers=(2, 3))
    kinds = {v[0] for v in one["violations"]}
    assert kinds == {"liveness", "step"}
    # Stopping at the first (step) violation: liveness undecided, the graph cut where the run stopped.
    one = compare(graphs, spec, {}, LIVENESS + STEPS)
    assert [v[0] for v in one["violations"]] == ["step"] and one["stopped_by"] is None
    # An invariant too, named: the invariant's stop comes first.
    one = compare(graphs, spec, {}, ["WorkDrains", "NoSkipping"], invariants=["LittleWork"])
    assert [v[1] for v in one["violations"]] == ["LittleWork"]


def test_ring_holds_and_violated_verdicts(graphs):
    # Not only agreement: with fairness of Pass the token keeps coming back to node 0 (Shift only moves it
    # forward, Pass wraps around), while a node may skip its successor by a Shift.
    one = compare(graphs, tr.ring(FAIRNESS["SF(Pass), WF(Drop)"], False), {},
                  ["TokenReturns", "ZeroHoldsOften", "EveryNodePasses", "MovesByOne"],
                  continue_after_violation=True)
    assert one["result"] == "violated" and [v[1] for v in one["violations"]] == ["EveryNodePasses"]
    assert one["graph_edges"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("constrained", [True, False], ids=["constraints", "no-constraints"])
def test_ring_larger_in_tiny_chunks(graphs, monkeypatch, constrained):
    """Many chunks a level, so that the workers' successors are fingerprinted, checked and recorded in pieces."""
    from modelcheck.search.workers import worker as parallel_worker

    monkeypatch.setattr(parallel_worker, "CHUNK_CANDIDATES", 7)
    one = compare(graphs, tr.ring(FAIRNESS["WF(Pass)"], constrained), {"N": 4, "Max": 3, "Bound": 7},
                  LIVENESS + STEPS, continue_after_violation=True, workers=(2, 3))
    assert one["distinct"] > 500


def test_ring_max_states_cuts_the_graph_inside_a_level(graphs):
    for limit in (5, 40, 123):
        one = compare(graphs, tr.ring(FAIRNESS["WF(Pass)"], False), {"N": 4, "Max": 2},
                      ["TokenReturns", "MovesByOne"], max_states=limit)
        assert one["stopped_by"] == "max-states" and any("not decided" in w for w in one["warnings"])


@pytest.mark.slow
def test_ring_spilled_and_rebalanced_workers(graphs):
    """Frontiers on disk and states handed between workers keep their ranks, so the graph is the same."""
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.search.driver import LevelDriver
    from modelcheck.search.workers.coordinator import WorkersBackend
    from modelcheck.spec.constants import build_constants

    spec = tr.ring(FAIRNESS["WF(Pass)"], False)
    c = build_constants(spec, (("N", "4"), ("Max", "3")))
    options = CheckOptions(invariants=(), properties=tuple(LIVENESS + STEPS), continue_after_violation=True)
    one = modelcheck.check(spec, {"N": 4, "Max": 3}, properties=LIVENESS + STEPS, preflight=False,
                           continue_after_violation=True)
    graph = graphs[-1]
    bfs = WorkersBackend(BoundModel(spec, c, options), 3)
    bfs.spill_states = 20
    r = LevelDriver(BoundModel(spec, c, options), bfs).run()
    assert bfs.spilled_levels > 0
    assert summary(r) == summary(one)
    same_graph(graph, graphs[-1])


@pytest.mark.slow
def test_spec_errors_in_predicates_and_step_properties_fail_where_one_process_fails():
    for prop, constrained in (("Fragile", True), ("Fragile", False), ("FragileStep", True), ("FragileStep", False)):
        errors = []
        for n in (1, 2):
            with pytest.raises(SpecRuntimeError) as info:
                modelcheck.check(tr.ring([], constrained), {}, properties=[prop], preflight=False, workers=n)
            err = info.value
            errors.append((type(err), str(err), err.where, [(s.action, s.state) for s in err.trace]))
        assert errors[0] == errors[1], prop
        assert "ZeroDivisionError" in errors[0][1] and errors[0][2] == f"property {prop}"


# -- the Kafka specs -------------------------------------------------------------------------------

KIP320_PROPERTIES = [p.name for p in load_spec("kip320").properties]


@pytest.mark.parametrize("prop", KIP320_PROPERTIES)  # none declared yet: skipped until there are
def test_kip320_properties(graphs, prop):
    compare(graphs, "kip320", {"Replicas": 2}, [prop])


# -- checkpoints -----------------------------------------------------------------------------------


def _stop_at_level(n):
    def progress(p):
        if p.level >= n:
            raise KeyboardInterrupt
    return progress


@pytest.mark.slow
@pytest.mark.parametrize("first, then", [(2, 1), (1, 2), (2, 3)])
def test_a_checkpoint_resumes_with_another_worker_count(tmp_path, first, then):
    spec = tr.ring(FAIRNESS["WF(Pass)"], True)
    consts = {"N": 4, "Max": 2, "Bound": 5}
    props = LIVENESS + STEPS
    whole = modelcheck.check(spec, consts, properties=props, preflight=False, continue_after_violation=True)
    directory = str(tmp_path / "ck")
    stopped = modelcheck.check(spec, consts, properties=props, preflight=False, continue_after_violation=True,
                               workers=first, checkpoint=directory, checkpoint_every=0,
                               progress=_stop_at_level(6), progress_seconds=0)
    # The step violations found before the stop make the result "violated"; the checkpoint is there all the same,
    # and holds them.
    assert stopped.stopped_by == "interrupt" and verified_level(directory) == 5  # levels count from 0 there
    assert stopped.violations and {v.kind for v in stopped.violations} == {"step"}
    resumed = modelcheck.check(spec, consts, properties=props, preflight=False, continue_after_violation=True,
                               workers=then, resume=directory)
    assert summary(resumed) == summary(whole)
    assert {v[0] for v in summary(whole)["violations"]} == {"liveness", "step"}
    # Liveness properties only: the interrupted run reports its checkpoint.
    directory = str(tmp_path / "ck2")
    whole = modelcheck.check(spec, consts, properties=LIVENESS, preflight=False, continue_after_violation=True)
    stopped = modelcheck.check(spec, consts, properties=LIVENESS, preflight=False, continue_after_violation=True,
                               workers=first, checkpoint=directory, checkpoint_every=0,
                               progress=_stop_at_level(6), progress_seconds=0)
    assert stopped.result == "interrupted" and stopped.checkpoint == directory
    resumed = modelcheck.check(spec, consts, properties=LIVENESS, preflight=False, continue_after_violation=True,
                               workers=then, resume=directory)
    assert summary(resumed) == summary(whole) and whole.result == "violated"


@pytest.fixture
def interrupt_mid_level(tmp_path, monkeypatch):
    """Make a worker send Ctrl-C to its coordinator at the first Work from total work 4, and hang there."""
    marker = str(tmp_path / "fired")
    main = os.getpid()

    def hook(c, s):
        if os.getpid() == main or sum(s.c) != 4:
            return
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return
        os.kill(os.getppid(), signal.SIGINT)
        time.sleep(60)  # abandoned by SIGUSR1 long before: a run that waited for it would take a minute

    monkeypatch.setattr(tr, "HOOK", hook)
    return marker


def test_a_level_interrupted_in_the_middle_is_dropped_with_its_edges(tmp_path, interrupt_mid_level):
    spec = tr.ring(FAIRNESS["WF(Pass)"], False)
    consts = {"N": 4, "Max": 2}
    props = LIVENESS + STEPS
    whole = modelcheck.check(spec, consts, properties=props, preflight=False, continue_after_violation=True)
    directory = str(tmp_path / "ck")
    t0 = time.monotonic()
    stopped = modelcheck.check(spec, consts, properties=props, preflight=False, continue_after_violation=True,
                               workers=2, checkpoint=directory, checkpoint_every=3600)
    assert time.monotonic() - t0 < 30  # not the worker's minute
    assert os.path.exists(interrupt_mid_level)
    # Rolled back to the start of the level under way (step violations found earlier make the result "violated").
    assert stopped.stopped_by == "interrupt" and verified_level(directory) >= 4
    for n in (1, 2):
        resumed = modelcheck.check(spec, consts, properties=props, preflight=False, continue_after_violation=True,
                                   workers=n, resume=directory)
        assert summary(resumed) == summary(whole)


# -- the command line --------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_checks_properties_with_workers():
    toy = str(MODELS / "counter_fair.py")
    one = run_cli("check", toy, "--property", "ReachesTop", "--property", "NoBigDrop", "--continue", "-q")
    two = run_cli("check", toy, "--property", "ReachesTop", "--property", "NoBigDrop", "--continue", "-q",
                  "--workers", "2")
    assert two.returncode == one.returncode == 1, two.stderr
    assert "Back to state 1 <Reset>: states 1 to 2 repeat forever." in two.stdout

    def body(text):  # without the timings
        return [re.sub(r"[0-9.]+ ?s\b", "", line) for line in text.splitlines()
                if not line.startswith(("Finished in", "The probability", "Successors: "))]

    assert body(two.stdout) == body(one.stdout)
