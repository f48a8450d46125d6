"""The memo tables (modelcheck.memo): the same answers as the spec's own code, on every state and every spec.

Expected values come from the readable spec (the local engine with ``--no-memo``,
and a plain breadth-first search for the per-state cross-check) and from TLC's
reference counts; nothing here is the memo engine's own output pasted back.
"""

from __future__ import annotations

import json
import textwrap

import pytest

import modelcheck
from modelcheck.memo.crosscheck import crosscheck
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec

from conftest import ROOT, json_report, needs_memo_tables, run_cli


def _model(name: str, consts: dict | None = None, **options) -> BoundModel:
    spec = load_spec(name)
    return BoundModel(spec, build_constants(spec, consts or {}), CheckOptions(**options))


@pytest.mark.slow
@pytest.mark.parametrize("name, consts", [
    ("kip320", {"Replicas": 2}),
    ("kip279", {"Replicas": 2}),
    ("kip101", {"Replicas": 2}),
    ("kip320-first-try", {"Replicas": 2}),
    ("truncate-to-hw", {"Replicas": 2}),
    ("async-isr", {}),
    ("broker-failures", {}),
    ("consumer-offsets", {}),
    ("controller-failover", {}),
    ("partition-reassignment", {}),
    ("producer-ordering", {}),
])
def test_tables_agree_with_the_spec_on_every_reachable_state(name, consts):
    model = _model(name, consts, continue_after_violation=True)
    report = crosscheck(model)
    assert report.mismatches == ()
    assert report.states == report.distinct > 20 and report.successors >= report.states - 1
    assert report.evaluations < report.states * len(model.label_action)  # the tables did save calls


@needs_memo_tables
def test_the_crosscheck_catches_a_wrong_table(monkeypatch):
    """A learner that loses every second result with successors: the comparison must say so."""
    from modelcheck.memo import backend, tries

    calls = []

    class Lossy(tries.Learner):
        def _action_leaf(self, r, s):
            code = super()._action_leaf(r, s)  # as learnt (reads logged), then every second non-empty leaf dropped
            if r is not None:
                calls.append(1)
                if len(calls) % 2:
                    return self.tries.leaf(0)
            return code

    monkeypatch.setattr(backend, "Learner", Lossy)
    report = crosscheck(_model("kip320", {"Replicas": 2}))
    assert report.mismatches and "by the spec" in report.mismatches[0]


@pytest.mark.slow
def test_tables_agree_on_kip320_three_replicas():
    """All 737,794 states of the reference configuration (TLC: 737,794 distinct)."""
    report = crosscheck(_model("kip320"))
    assert report.mismatches == ()
    assert report.states == report.distinct == 737_794
    assert report.successors == 1_967_560 - 1  # TLC counts the initial state as generated


def _summary(r) -> dict:
    return {
        "result": r.result, "distinct": r.distinct_states, "generated": r.states_generated, "depth": r.depth,
        "violations": [(v.kind, v.name, [(s.action, s.state) for s in v.trace]) for v in r.violations],
        "coverage": r.action_stats, "sometimes": r.sometimes_reached,
        "queue": r.queue_left, "stopped_by": r.stopped_by,
    }


SPECS = ["kip320", "kip279", "kip101", "kip320-first-try", "truncate-to-hw", "async-isr", "broker-failures",
         "consumer-offsets", "controller-failover", "partition-reassignment", "producer-ordering"]


@needs_memo_tables
@pytest.mark.parametrize("name", SPECS)
# Every spec to depth 6 runs in the fast tier, the whole runs in the slow one (docs/testing.md).
@pytest.mark.parametrize("options", [*(pytest.param(o, marks=pytest.mark.slow) for o in
                                       ({}, {"continue_after_violation": True}, {"max_states": 700})),
                                     {"max_depth": 6}])
def test_every_spec_gives_the_local_engines_result(name, options):
    consts = {"Replicas": 2} if name.startswith(("kip", "truncate")) else {}
    memo = modelcheck.check(name, consts, **options)
    plain = modelcheck.check(name, consts, memo=False, **options)
    assert memo.engine_report is not None and memo.engine_report["successors"] == "memo tables"
    assert plain.engine_report is None
    assert _summary(memo) == _summary(plain)


@pytest.mark.slow
def test_reference_counts_and_the_hw_data_loss_trace():
    """TLC's counts and the 9-state counterexample of KafkaTruncateToHighWatermark, on the tables."""
    r = modelcheck.check("kip320")
    assert (r.distinct_states, r.states_generated, r.depth) == (737_794, 1_967_560, 26)
    r = modelcheck.check("truncate-to-hw")
    assert r.result == "violated" and len(r.violations[0].trace) == 9
    assert r.engine_report["successors"] == "memo tables"
    r = modelcheck.check("async-isr", {"Replicas": 3})
    plain = modelcheck.check("async-isr", {"Replicas": 3}, memo=False)
    assert (r.distinct_states, r.states_generated) == (plain.distinct_states, plain.states_generated)


@pytest.mark.slow
def test_cli_json_names_the_tables_and_no_memo_turns_them_off():
    on = run_cli("check", "kip320", "--const", "Replicas=2", "--json", "-q")
    off = run_cli("check", "kip320", "--const", "Replicas=2", "--json", "-q", "--no-memo")
    assert on.returncode == off.returncode == 0
    a, b = json.loads(on.stdout), json.loads(off.stdout)
    assert a["memo"]["successors"] == "memo tables" and a["memo"]["evaluations"] > 0
    # Actions that begin with `if ...: return None` have a guard tree and an effect tree; BecomeLeader does not.
    assert "FencedFollowerFetch" in a["memo"]["split_actions"] and "BecomeLeader" not in a["memo"]["split_actions"]
    assert b["memo"] is None
    assert json_report(on, "memo") == json_report(off, "memo")


def test_memo_with_simulate_is_refused_in_one_line():
    p = run_cli("check", "kip320", "--memo", "--simulate")
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1].startswith("error: --memo applies to the exhaustive search (--simulate")
    assert "Traceback" not in p.stderr


_TAIL = '''
    @attrs.frozen
    class NoConstants:
        pass

    SPEC = Spec(name="{name}", title="{name}", constants=NoConstants, init=init, actions=[step], invariants=[small],
                deadlock_expected=True)
'''
"""The end of the two small specs below: no constants, one action, one invariant."""

SHAPE_CHANGE = '''
    """Two counters to 99; the tail, a tuple, grows when the first passes 95, after the first 4,500 states
    of the breadth-first walk (level 96).  Each action reads one counter, so the tables learn a hundred
    evaluations each and stay on until the tail changes shape."""
    from typing import NamedTuple

    import attrs

    from modelcheck import Domain, Spec, action, invariant

    AXIS = Domain("axis", lambda c: [0, 1])

    class S(NamedTuple):
        x: int
        y: int
        tail: tuple

    def init(c):
        yield S(0, 0, (0,))

    @action("Step", axis=AXIS)
    def step(c, s, axis):
        if axis == 0:
            if s.x >= 99:
                return None
            return S(s.x + 1, s.y, s.tail + (1,) if s.x == 95 else s.tail)
        if s.y >= 99:
            return None
        return S(s.x, s.y + 1, s.tail)

    @invariant("Small")
    def small(c, s):
        return s.x <= 99
''' + _TAIL.format(name="grows-late")

OPAQUE = '''
    """Branches on type() of a state part: the memo tables cannot see that read."""
    from typing import NamedTuple

    import attrs

    from modelcheck import Spec, action, invariant

    class S(NamedTuple):
        n: int

    def init(c):
        yield S(0)

    @action("Step")
    def step(c, s):
        if type(s.n) is int and s.n < 50:
            return S(s.n + 1)
        return None

    @invariant("Small")
    def small(c, s):
        return s.n <= 50
''' + _TAIL.format(name="opaque")


@pytest.mark.slow
def test_a_shape_the_first_states_did_not_show_reruns_on_the_spec_with_a_note(tmp_path):
    f = tmp_path / "grows_late.py"
    f.write_text(textwrap.dedent(SHAPE_CHANGE))
    r = modelcheck.check(str(f))
    assert (r.distinct_states, r.result) == (100 * 100, "holds")
    assert r.engine_report is None
    assert any("the memo tables stopped" in w and "tail" in w for w in r.warnings), r.warnings
    p = run_cli("check", str(f), "-q")
    assert p.returncode == 0
    assert "the memo tables stopped (a successor's tail changed shape)" in p.stderr + p.stdout


@pytest.mark.slow
def test_a_spec_that_branches_on_type_runs_on_its_own_code_with_a_note(tmp_path):
    f = tmp_path / "opaque.py"
    f.write_text(textwrap.dedent(OPAQUE))
    r = modelcheck.check(str(f))
    assert (r.distinct_states, r.result) == (51, "holds")
    assert r.engine_report is None
    line = textwrap.dedent(OPAQUE).splitlines().index("    if type(s.n) is int and s.n < 50:") + 1
    note = [w for w in r.warnings if "memo tables are not used" in w]
    assert note and f"opaque.py:{line}: the builtin `type`" in note[0], r.warnings
    p = run_cli("check", str(f), "--memo")
    assert p.returncode == 2 and f"opaque.py:{line}: the builtin `type`" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.slow
def test_spec_errors_name_the_same_state_and_line_on_the_tables():
    """An action that raises deep in the search: the same one-line error and trace as the spec's own code."""
    candidates = sorted((ROOT / "tests" / "models" / "broken").glob("*.py"))
    assert len(candidates) > 10
    for f in candidates:
        a = run_cli("check", str(f), "-q")
        b = run_cli("check", str(f), "-q", "--no-memo")
        assert (a.returncode, _untimed(a.stdout), a.stderr) == (b.returncode, _untimed(b.stdout), b.stderr), f


def _untimed(text: str) -> list[str]:
    """The output without its timing and without the line naming the successor path (the two runs differ there)."""
    return [ln for ln in text.splitlines() if not ln.startswith(("Finished in", "Successors: "))]


@pytest.mark.slow
def test_learnt_objects_leave_the_collector_frozen_only_during_the_check():
    """The backend keeps learnt objects out of the collector's passes while it runs, and gives them back."""
    import gc

    from modelcheck.memo.backend import MemoBackend
    from modelcheck.search.driver import LevelDriver

    model = _model("async-isr", {})
    b = MemoBackend(model)
    counts = []
    original = b._learn_miss

    def learn():
        r = original()
        counts.append(gc.get_freeze_count())
        return r

    b._learn_miss = learn
    assert gc.get_freeze_count() == 0
    LevelDriver(model, b).run()
    assert counts and max(counts) > 0
    assert gc.get_freeze_count() == 0

    gc.freeze()  # a process that froze its own objects: left as it is
    try:
        frozen = gc.get_freeze_count()
        model = _model("async-isr", {})
        LevelDriver(model, MemoBackend(model)).run()
        # Not frozen more (objects frozen may have been freed meanwhile), and not given back either.
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


@pytest.mark.slow
def test_a_c_loop_not_built_for_this_source_runs_the_spec_with_a_note(tmp_path):
    """No build for the current source (a checkout or upgrade since `modelcheck compile`): the same results on
    the spec's own code, and one line that says why and what to run; ``--memo`` refuses with exit 2."""
    empty = {"MODELCHECK_BUILD_DIR": str(tmp_path / "no-build")}
    p = run_cli("check", "kip320", "--const", "Replicas=2", "-q", "--json", env=empty)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert (report["distinct_states"], report["depth"], report["memo"]) == (5973, 18, None)
    assert [w for w in report["warnings"] if "memo tables are not used" in w] == [
        "the memo tables are not used: their C loop is not built for this source (run `modelcheck compile`); "
        "the spec's own code computes every successor"]
    p = run_cli("check", "kip320", "--const", "Replicas=2", env=empty)
    assert p.returncode == 0 and "Traceback" not in p.stderr
    notes = [ln for ln in p.stderr.splitlines() if "memo tables are not used" in ln]
    assert len(notes) == 1 and "not built for this source (run `modelcheck compile`)" in notes[0], p.stderr
    p = run_cli("check", "kip320", "--const", "Replicas=2", "--memo", env=empty)
    assert p.returncode == 2 and "modelcheck compile" in p.stderr and "Traceback" not in p.stderr
