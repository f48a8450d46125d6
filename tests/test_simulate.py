"""``--simulate``: random walks find violations, reproducibly, with traces that replay."""

from __future__ import annotations

from conftest import MODELS
from modelcheck.spec.constants import make_constants
from modelcheck.spec.loader import load_spec
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.search.simulate import simulate


def _model(ref: str, options: CheckOptions = CheckOptions(), **consts: int) -> BoundModel:
    spec = load_spec(ref)
    return BoundModel(spec, make_constants(spec.constants_class, consts), options)


def _assert_replays(model: BoundModel, trace) -> None:
    """Every step is a real transition: the next state is among the spec's successors."""
    assert trace[0].state in model.init_states()
    for prev, step in zip(trace, trace[1:]):
        succ = [(model.step(ai, b, t).action, t) for ai, b, t in model.successors(prev.state)]
        assert (step.action, step.state) in succ


def test_die_hard_violation_found_with_a_seed_and_replayable():
    model = _model(str(MODELS / "die_hard.py"))
    r = simulate(model, seed=1, walks=2000, max_depth=30)
    assert r.result == "violated"
    (v,) = r.violations
    assert v.name == "NotSolved" and v.trace[-1].state.big == 4
    _assert_replays(model, v.trace)
    # Same seed, same walk.
    again = simulate(model, seed=1, walks=2000, max_depth=30)
    assert [(s.action, s.state) for s in again.violations[0].trace] == [(s.action, s.state) for s in v.trace]


def test_walks_respect_the_depth_and_report_incomplete_when_nothing_is_found():
    model = _model("kip320", Replicas=2)
    r = simulate(model, seed=7, walks=50, max_depth=12)
    assert r.result == "incomplete" and not r.violations
    assert r.depth <= 12
    assert 0 < r.distinct_states <= 5973


def test_simulate_finds_the_truncate_to_hw_data_loss():
    model = _model("truncate-to-hw", Replicas=2)
    r = simulate(model, seed=3, walks=20000, max_depth=20)
    assert r.result == "violated" and r.violations[0].name == "StrongIsr"
    _assert_replays(model, r.violations[0].trace)


def test_cli_simulate(cli):
    p = cli("check", str(MODELS / "die_hard.py"), "--simulate", "--seed", "1", "--walks", "500",
            "--max-depth", "30", "-q")
    assert p.returncode == 1, p.stderr
    assert "NotSolved" in p.stdout


def test_cli_simulate_summary_does_not_claim_a_complete_search(cli):
    p = cli("check", "kip320", "--const", "Replicas=2", "--simulate", "--seed", "1", "--walks", "50")
    assert p.returncode == 0, p.stderr
    assert "distinct states visited by the walks" in p.stdout
    assert "The longest walk reached depth" in p.stdout
    assert "complete state graph" not in p.stdout and "left on queue" not in p.stdout
    assert "not an exhaustive check" in p.stdout + p.stderr
