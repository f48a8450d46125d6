"""Defence in depth: a check on the memo tables compares a sample of their answers with the spec's own code as
it runs (modelcheck.memo.verify), and a difference stops the tables and finishes the check on the spec's own code.

The tables are broken on purpose here (a learner that drops results, leaves kept past a change they read), the
way a bug in them would break them; the check must still give TLC's counts, say in one line what differed, and
never blame the spec.  Kip320 with two replicas: TLC gives 5,973 distinct states, 11,839 generated, depth 18.
"""

from __future__ import annotations

import json

import pytest

import modelcheck
from modelcheck.memo import backend as backend_mod
from modelcheck.memo import tries as tries_mod
from modelcheck.memo.backend import MemoBackend, MemoUnsupported
from modelcheck.memo.verify import FIRST, Sampler
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.search.driver import LevelDriver
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec
from conftest import MODELS, needs_memo_tables, run_cli

pytestmark = needs_memo_tables

TLC_KIP320_R2 = (5_973, 11_839, 18)


class Lossy(tries_mod.Learner):
    """Drops every third result that has successors (as a table bug that loses a branch would)."""

    calls = 0

    def _action_leaf(self, r, s):
        code = super()._action_leaf(r, s)
        if r is not None:
            Lossy.calls += 1
            if Lossy.calls % 3 == 0:
                return self.tries.leaf(0)
        return code


class Careless(tries_mod.Tries):
    """Leaves whose masks leave out the first component they read: kept where a step changed it."""

    def set_mask(self, code, path, holds_in=-1):
        super().set_mask(code, path[1:], holds_in)


def _model(name, consts):
    spec = load_spec(name)
    return BoundModel(spec, build_constants(spec, consts), CheckOptions())


@pytest.mark.parametrize("broken", ["learner", "masks"])
def test_broken_tables_are_caught_and_the_check_finishes_right(monkeypatch, broken):
    if broken == "learner":
        monkeypatch.setattr(backend_mod, "Learner", Lossy)
    else:
        monkeypatch.setattr(backend_mod, "Tries", Careless)
    r = modelcheck.check("kip320", {"Replicas": 2})
    assert (r.distinct_states, r.states_generated, r.depth) == TLC_KIP320_R2
    assert r.result == "holds"
    stopped = [w for w in r.warnings if "the memo tables stopped (the tables differ from the spec's own code" in w]
    assert len(stopped) == 1, r.warnings
    assert "action " in stopped[0] or "invariant " in stopped[0]


def test_the_same_breakage_unchecked_gives_wrong_counts(monkeypatch):
    """Without the comparison the broken tables answer wrongly: the test above can fail."""
    monkeypatch.setattr(backend_mod, "Learner", Lossy)
    model = _model("kip320", {"Replicas": 2})
    wrong = LevelDriver(model, MemoBackend(model, verify="off")).run()
    assert (wrong.distinct_states, wrong.states_generated, wrong.depth) != TLC_KIP320_R2


def test_a_trace_the_spec_does_not_take_is_the_tables_fault(monkeypatch):
    """A violation reached through a step the tables made up is reported as the tables' difference (and the
    check runs again on the spec's own code), never as the spec being "not deterministic"."""
    monkeypatch.setattr(backend_mod, "Learner", Lossy)
    model = _model("truncate-to-hw", {})
    with pytest.raises(MemoUnsupported, match="differ from the spec's own code"):
        LevelDriver(model, MemoBackend(model, verify="off")).run()
    r = modelcheck.check("truncate-to-hw")
    assert r.result == "violated" and len(r.violations[0].trace) == 9
    assert not any("not deterministic" in w for w in r.warnings)
    assert any("the memo tables stopped (the tables differ from the spec's own code" in w for w in r.warnings)


def test_the_sample_is_seeded_and_reported():
    a, b = Sampler("sample", 7), Sampler("sample", 7)
    sizes = [10, FIRST, 5_000, 80_000]
    assert [a.pick(n) for n in sizes] == [b.pick(n) for n in sizes]
    assert a.report() == {"mode": "sample", "seed": 7, "parents": a.checked}
    assert a.checked < 10 + FIRST + 5_000 + 80_000
    r1 = modelcheck.check("kip320", {"Replicas": 2}, memo_seed=11)
    r2 = modelcheck.check("kip320", {"Replicas": 2}, memo_seed=11)
    assert r1.engine_report["verified"] == r2.engine_report["verified"]
    assert r1.engine_report["verified"]["seed"] == 11


@pytest.mark.slow
def test_memo_verify_compares_every_state():
    p = run_cli("check", "kip320", "--const", "Replicas=2", "--memo-verify", "--json", "-q")
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert report["memo"]["verified"] == {"mode": "every", "seed": report["memo"]["verified"]["seed"],
                                          "parents": TLC_KIP320_R2[0]}
    bad = run_cli("check", "kip320", "--memo-verify", "--no-memo")
    assert bad.returncode == 2 and "--memo-verify" in bad.stderr and "Traceback" not in bad.stderr


def test_tables_that_learn_too_much_give_way_to_the_spec_s_own_code(monkeypatch):
    """Past the probation, a run that learns more than the limit of evaluations per successor stops the tables
    once and finishes on the spec's own code, saying why in the result and in --json."""
    monkeypatch.setattr(backend_mod, "PROBATION", 1_000)
    monkeypatch.setattr(backend_mod, "LEARN_LIMIT", 0.0001)
    r = modelcheck.check("kip320", {"Replicas": 2})
    assert (r.distinct_states, r.states_generated, r.depth) == TLC_KIP320_R2
    assert r.successors == "the spec's own code" and "learnt" in r.successors_why
    assert any("the memo tables stopped (they learnt" in w for w in r.warnings)
    forced = modelcheck.check("kip320", {"Replicas": 2}, memo=True)  # asked for: they do not give way
    assert forced.successors == "memo tables" and forced.distinct_states == TLC_KIP320_R2[0]
    monkeypatch.setattr(backend_mod, "LEARN_LIMIT", 10.0)
    r = modelcheck.check("kip320", {"Replicas": 2})
    assert r.successors == "memo tables" and r.successors_why is None and r.warnings == ()


def test_tables_give_way_early_when_they_learn_more_than_they_serve(monkeypatch):
    """Past the early probation, more evaluations than the early limit per successor stop the tables at a
    level's end, long before the probation's end."""
    monkeypatch.setattr(backend_mod, "EARLY_PROBATION", 100)
    monkeypatch.setattr(backend_mod, "EARLY_LIMIT", 0.0001)
    r = modelcheck.check("kip320", {"Replicas": 2})
    assert (r.distinct_states, r.states_generated, r.depth) == TLC_KIP320_R2
    assert r.successors == "the spec's own code" and "more than one in 10000" in r.successors_why
    monkeypatch.setattr(backend_mod, "EARLY_LIMIT", 10.0)
    assert modelcheck.check("kip320", {"Replicas": 2}).successors == "memo tables"


@pytest.mark.slow
def test_json_names_the_successor_path():
    on = json.loads(run_cli("check", "kip320", "--const", "Replicas=2", "--json", "-q").stdout)
    off = json.loads(run_cli("check", "kip320", "--const", "Replicas=2", "--json", "-q", "--no-memo").stdout)
    assert on["successors"] == {"path": "memo tables", "why": None}
    assert off["successors"] == {"path": "the spec's own code", "why": "--no-memo"}


@pytest.mark.slow
def test_a_view_in_force_runs_on_the_tables():
    """The KRaft view (TLC's VIEW: every variable but the auxiliary ones) is a tuple of the state's parts, so
    the tables fingerprint it (modelcheck/memo/view.py); with the view turned off they serve the whole
    states.  TLC's counts for the published KRaft 3.5 configuration without fencing or unclean shutdowns:
    1,163 / 3,372 / 25 with its VIEW, 5,531 / 14,267 / 31 without (tests/test_kraft_replication.py)."""
    base = {"UncleanShutdownLimit": 0, "FenceBrokerLimit": 0}
    viewed = modelcheck.check("kraft-replication", base)
    assert (viewed.distinct_states, viewed.states_generated, viewed.depth) == (1_163, 3_372, 25)
    assert viewed.successors == "memo tables"
    whole = modelcheck.check("kraft-replication", {**base, "View": False})
    assert (whole.distinct_states, whole.states_generated, whole.depth) == (5_531, 14_267, 31)
    assert whole.successors == "memo tables"


def _comparable(r) -> dict:
    """A result without what depends on the path that computed it (timing, the path, the tables' report)."""
    data = r.to_json()
    for key in ("seconds", "states_per_second", "memo", "successors", "parallelism", "spec_code", "warnings"):
        data.pop(key, None)
    return data


@pytest.mark.slow
@pytest.mark.parametrize("name, consts", [("truncate-to-hw", {}), ("kip320", {"Replicas": 2}),
                                          ("kip320-first-try", {"Replicas": 2})])
def test_tables_that_give_way_hand_the_level_s_boundary_to_the_spec_s_own_code(monkeypatch, name, consts):
    """Where the tables give way, the spec's own code goes on from that level's boundary, not from the start:
    what it finds (counts, coverage, violations and their traces) is what the spec's own code finds alone."""
    monkeypatch.setattr(backend_mod, "EARLY_PROBATION", 100)
    monkeypatch.setattr(backend_mod, "EARLY_LIMIT", 0.0001)
    alone = modelcheck.check(name, consts, memo=False, continue_after_violation=True)
    handed = modelcheck.check(name, consts, continue_after_violation=True)
    notes = [w for w in handed.warnings if "the spec's own code went on from level" in w]
    assert len(notes) == 1 and handed.successors == "the spec's own code"
    level = int(notes[0].rsplit(" ", 1)[1])
    assert level > 1, "the tables gave way only after a level of their own"
    assert _comparable(handed) == _comparable(alone)


@needs_memo_tables
def test_a_module_level_dict_changed_to_an_equal_value_of_another_type_stops_the_tables(monkeypatch):
    """``FLAGS["on"]`` goes from ``1`` to ``True`` through ``operator.setitem`` once the search is deep: equal,
    so only a watch that compares types too sees it.  The review refuses ``operator.setitem`` itself; let
    through here, the watch behind it must catch the change.  ``FLAGS`` is reset before each run, as a fresh
    process would find it."""
    import operator
    import sys

    from modelcheck.memo import allowlist
    from modelcheck.spec.loader import user_module_name

    path = str(MODELS / "module_dict_alike_change.py")
    assert "`operator.setitem` is not among" in (modelcheck.check(path).successors_why or "")
    monkeypatch.setattr(allowlist, "LIBRARY", allowlist.LIBRARY | {operator.setitem})
    flags = sys.modules[user_module_name(path)].FLAGS
    runs = []
    for options in ({}, {"memo": False}):
        flags["on"] = 1
        runs.append(modelcheck.check(path, **options))
    default, own = runs
    assert own.result == "violated" and own.depth == 37
    assert (default.result, default.distinct_states, default.states_generated, default.depth) == \
        (own.result, own.distinct_states, own.states_generated, own.depth)
    assert "a module-level dict changed" in (default.successors_why or ""), default.successors_why
