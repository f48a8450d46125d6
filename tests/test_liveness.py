"""Liveness and step properties on small specs whose verdicts are worked out by hand (tests/models/fair_toys.py).

Each expected verdict and lasso is reasoned in a comment from the spec's
transitions and its fairness; the CLI, JSON, trace files and checkpoints are
checked on the same specs.
"""

from __future__ import annotations

import json
import sys

import pytest

import modelcheck
from modelcheck import strong, weak
from modelcheck.errors import UsageError
from tests.conftest import MODELS, run_cli

sys.path.insert(0, str(MODELS))
import fair_toys as ft  # noqa: E402


def check(spec, prop, **options):
    return modelcheck.check(spec, {}, properties=[prop], preflight=False, **options)


def lasso(result):
    v = result.violation
    return [s.state for s in v.trace], v.loop_start, v.loop_action


WF_INC = [(weak, ft.inc)]
WF_BOTH = [(weak, ft.inc), (weak, ft.reset)]


def test_eventually_is_violated_by_a_fair_cycle():
    # WF(Inc) is met by 0 -> 1 -> 0 -> ... (Inc is taken in the cycle), and x never reaches 3 on it.
    r = check(ft.counter(WF_INC), "ReachesTop")
    assert r.result == "violated" and r.exit_code == 1
    assert r.violation.kind == "liveness"
    assert lasso(r) == ([ft.X(0), ft.X(1)], 0, "Reset")


def test_leads_to_holds_when_weak_fairness_forbids_stuttering():
    # At 0 only Inc is enabled, and WF(Inc) forbids stuttering there: 0 is always followed by 1.
    r = check(ft.counter(WF_INC), "ZeroLeadsToOne")
    assert r.result == "holds" and r.violations == ()


def test_without_fairness_a_behaviour_may_stutter_in_the_initial_state():
    # No fairness: the behaviour that stays in x = 0 forever is allowed (TLA+ stuttering).
    r = check(ft.counter(), "ZeroLeadsToOne")
    assert r.result == "violated"
    assert lasso(r) == ([ft.X(0)], None, None)


def test_always_eventually_violated_by_stuttering_where_no_fair_action_is_enabled():
    # WF(Inc) only: at x = 3 Inc is disabled and Reset is not fair, so 0,1,2,3 then 3 forever is fair.
    r = check(ft.counter(WF_INC), "ZeroInfinitelyOften")
    assert lasso(r) == ([ft.X(0), ft.X(1), ft.X(2), ft.X(3)], None, None)
    # WF(Reset) as well: Reset is enabled in every state above 0, so every fair behaviour comes back to 0.
    assert check(ft.counter(WF_BOTH), "ZeroInfinitelyOften").result == "holds"


def test_eventually_always_violated_by_a_cycle_through_the_bad_state():
    # Every cycle of the counter passes through 0 (Reset goes there), so x > 0 is never true forever.
    r = check(ft.counter(WF_BOTH), "EventuallyPositiveForever")
    states, loop_start, back = lasso(r)
    assert loop_start is not None and ft.X(0) in states[loop_start:]


def test_a_quantified_leads_to_is_a_conjunction():
    # 1 ~> 0, 2 ~> 0, 3 ~> 0: with WF(Reset) every positive value is reset; with WF(Inc) alone the
    # behaviour may climb to 3 and stay there (Reset not fair), breaking 1 ~> 0 (and 2 and 3).
    assert check(ft.counter(WF_BOTH), "EveryValueLeadsToZero").result == "holds"
    r = check(ft.counter(WF_INC), "EveryValueLeadsToZero")
    assert lasso(r) == ([ft.X(0), ft.X(1), ft.X(2), ft.X(3)], None, None)


def test_strong_fairness_differs_from_weak_fairness():
    # Exit is enabled on side 0 only, so Toggle forever enables it infinitely often but never continuously:
    # weak fairness of Exit allows 0 -> 1 -> 0 ... forever, strong fairness does not.
    r = check(ft.toggle_spec([(weak, ft.toggle), (weak, ft.exit_)]), "EventuallyDone")
    assert lasso(r) == ([ft.T(0, False), ft.T(1, False)], 0, "Toggle")
    assert check(ft.toggle_spec([(weak, ft.toggle), (strong, ft.exit_)]), "EventuallyDone").result == "holds"


def test_fairness_of_the_whole_action_and_of_each_instance():
    # weak(pick): one condition for \E i: Pick(i), met by taking Pick(0) forever, so Pick(1) may never happen.
    r = check(ft.pick_spec(each=False), "EventuallyFinished")
    assert lasso(r) == ([ft.P(0, False), ft.P(1, False)], 0, "Pick(i=0)")
    # weak(pick, each=True): Pick(1) is continuously enabled until taken, so it is taken.
    assert check(ft.pick_spec(each=True), "EventuallyFinished").result == "holds"


def test_a_final_state_stutters_forever():
    # 0 -> 1 -> 2 and then nothing is enabled: with WF(Step) every behaviour reaches 2; without, the
    # behaviour may stutter at 0; and 5 is never reached, the behaviour ending in 2 forever.
    assert check(ft.ending_spec(True), "ReachesTwo").result == "holds"
    assert lasso(check(ft.ending_spec(False), "ReachesTwo")) == ([ft.X(0)], None, None)
    assert lasso(check(ft.ending_spec(True), "ReachesFive")) == ([ft.X(0), ft.X(1), ft.X(2)], None, None)


def test_a_step_property_gives_the_shortest_trace_ending_in_the_step():
    # The only step that drops x by more than 2 is Reset from 3; 3 is three Incs away.
    r = check(ft.counter(), "NoBigDrop")
    assert r.result == "violated" and r.violation.kind == "step"
    assert [s.action for s in r.violation.trace] == [None, "Inc", "Inc", "Inc", "Reset"]
    assert [s.state.x for s in r.violation.trace] == [0, 1, 2, 3, 0]
    # With N = 2 no reset drops by more than 2.
    assert modelcheck.check(ft.counter(), {"N": 2}, properties=["NoBigDrop"], preflight=False).result == "holds"


def test_several_properties_in_one_run():
    r = modelcheck.check(ft.counter(WF_INC), {}, properties=["ReachesTop", "ZeroLeadsToOne", "NoBigDrop"],
                         preflight=False, continue_after_violation=True)
    assert {(v.kind, v.name) for v in r.violations} == {("liveness", "ReachesTop"), ("step", "NoBigDrop")}
    assert r.properties == ("ReachesTop", "ZeroLeadsToOne", "NoBigDrop")


def test_a_safety_stop_leaves_liveness_undecided_and_says_so():
    r = modelcheck.check(ft.counter(WF_INC), {}, properties=["NoBigDrop", "ReachesTop"], preflight=False)
    assert [v.name for v in r.violations] == ["NoBigDrop"]
    assert any("ReachesTop were not decided" in w for w in r.warnings)


def test_checkpoint_and_resume_keep_the_behaviour_graph(tmp_path):
    # Interrupted at a level boundary (the progress sink raises, as a Ctrl-C would), then resumed:
    # the same lasso as one uninterrupted run, which needs every level's edges.
    spec = ft.counter(WF_INC)
    whole = modelcheck.check(spec, {"N": 12}, properties=["ReachesTop"], preflight=False)

    def stop_at_level_5(p):
        if p.level >= 5:
            raise KeyboardInterrupt

    first = modelcheck.check(spec, {"N": 12}, properties=["ReachesTop"], preflight=False,
                             checkpoint=str(tmp_path / "ck"), checkpoint_every=0, progress=stop_at_level_5,
                             progress_seconds=0)
    assert first.result == "interrupted" and first.checkpoint is not None
    resumed = modelcheck.check(spec, {"N": 12}, properties=["ReachesTop"], preflight=False,
                               resume=str(tmp_path / "ck"))
    assert resumed.result == whole.result == "violated"
    assert lasso(resumed) == lasso(whole)
    assert resumed.graph_edges == whole.graph_edges == 24  # 12 Incs and 12 Resets


def test_workers_check_properties_too():
    # Once refused; tests/test_liveness_workers.py compares them with one process in detail.
    r = modelcheck.check(ft.counter(WF_INC), {}, properties=["ReachesTop"], workers=2, preflight=False)
    assert lasso(r) == ([ft.X(0), ft.X(1)], 0, "Reset")


def test_the_api_refuses_what_it_cannot_check():
    with pytest.raises(UsageError, match="unknown property 'Nope'"):
        modelcheck.check(ft.counter(), {}, properties=["Nope"])
    with pytest.raises(UsageError, match="spark"):
        modelcheck.check(ft.counter(), {}, properties=["ReachesTop"], engine="spark")
    with pytest.raises(UsageError, match="simulate"):
        modelcheck.check(ft.counter(), {}, properties=["ReachesTop"], simulate=True)


# -- the command line -------------------------------------------------------------------------------

TOY = str(MODELS / "counter_fair.py")


@pytest.mark.slow
def test_cli_prints_a_lasso_as_tlc_does_and_writes_it(tmp_path):
    out = tmp_path / "out"
    r = run_cli("check", TOY, "--property", "ReachesTop", "-q", "--out", str(out))
    assert r.returncode == 1, r.stderr
    assert "Error: Temporal property ReachesTop is violated." in r.stdout
    assert "Back to state 1 <Reset>: states 1 to 2 repeat forever." in r.stdout
    doc = json.loads((out / "trace.json").read_text())
    assert doc["violation"]["kind"] == "liveness" and doc["violation"]["loop_start"] == 1
    assert doc["violation"]["loop_action"] == "Reset" and doc["violation"]["stuttering"] is False
    dot = (out / "trace.dot").read_text()
    assert "constraint=false" in dot  # the loop's edge, drawn dashed
    assert "State 2: back to state 1, forever" in dot and "deadlock" not in dot
    assert "Back to state 1" in (out / "trace.txt").read_text()
    assert "repeat forever" in (out / "trace.html").read_text()
    again = run_cli("render", str(out / "trace.json"), "--format", "text")
    assert again.returncode == 0 and "Back to state 1 <Reset>" in again.stdout


@pytest.mark.slow
def test_cli_json_reports_the_kind_and_the_loop():
    r = run_cli("check", TOY, "--property", "ReachesTop", "--property", "NoBigDrop", "--continue", "--json", "-q")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    kinds = {v["property"]: v for v in doc["violations"]}
    assert kinds["ReachesTop"]["kind"] == "liveness" and kinds["ReachesTop"]["loop_start"] == 0
    assert kinds["NoBigDrop"]["kind"] == "step" and kinds["NoBigDrop"]["length"] == 5
    assert doc["properties"] == ["ReachesTop", "NoBigDrop"] and doc["liveness"]["transitions"] == 6


@pytest.mark.slow
def test_cli_stuttering_and_holds():
    r = run_cli("check", TOY, "--property", "ZeroInfinitelyOften", "-q")
    assert r.returncode == 1 and "Stuttering: the behavior stays in state 4 forever." in r.stdout
    r = run_cli("check", TOY, "--property", "ZeroLeadsToOne", "-q")
    assert r.returncode == 0 and "No error has been found" in r.stdout


@pytest.mark.parametrize("extra, message", [
    (["--property", "Nope"], "unknown property 'Nope' for spec counter"),
    (["--property", "ReachesTop", "--engine", "spark"], "--property cannot be checked with --engine spark"),
])
def test_cli_refuses_with_one_line(extra, message):
    r = run_cli("check", TOY, "-q", *extra)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_show_and_list_name_the_properties():
    r = run_cli("show", TOY)
    assert r.returncode == 0
    assert "ReachesTop  [liveness]  x eventually reaches N" in r.stdout
    assert "NoBigDrop  [step]" in r.stdout and "Fairness: WF_vars(Inc)" in r.stdout


@pytest.mark.slow
def test_cli_json_gives_the_action_that_closes_the_loop():
    """``loop_action`` is the action of the step from the trace's last state back to ``trace[loop_start]``:
    replaying it from the last step's state gives that state."""
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions

    r = run_cli("check", TOY, "--property", "ReachesTop", "--json", "-q")
    assert r.returncode == 1, r.stderr
    v = json.loads(r.stdout)["violation"]
    assert v["kind"] == "liveness" and v["stuttering"] is False and v["loop_action"] == "Reset"
    trace, start = v["trace"], v["loop_start"]
    assert trace[-1]["state"] == {"x": 1} and trace[start]["state"] == {"x": 0}
    api = check(ft.counter(WF_INC), "ReachesTop").violation
    assert [s.state for s in api.trace] == [ft.X(0), ft.X(1)]
    spec = ft.counter(WF_INC)
    model = BoundModel(spec, check(spec, "ReachesTop").constants_object, CheckOptions(invariants=()))
    closing = [model.step(ai, b, t) for ai, b, t in model.successors(api.trace[-1].state)
               if t == api.trace[start].state]
    assert [s.action for s in closing] == [v["loop_action"]]
    assert spec.describe_state(model.c, closing[0].state) == trace[start]["state"]


@pytest.mark.slow
def test_cli_json_gives_no_loop_action_for_a_stuttering_lasso():
    r = run_cli("check", TOY, "--property", "ZeroInfinitelyOften", "--json", "-q")
    assert r.returncode == 1, r.stderr
    v = json.loads(r.stdout)["violation"]
    assert v["stuttering"] is True and v["loop_start"] is None
    assert "loop_action" in v and v["loop_action"] is None
