"""Extending a spec without copying it: ``Spec.extend`` and ``modelcheck check SPEC --extend FILE``; and a
spec's default properties, as a TLC model's PROPERTY lines.

The extension adds to Die Hard (``tests/models/die_hard.py``, 16 states) an
invariant ``BigBelowFive`` (violated: filling the big jug is one step, so a
shortest trace has 2 states), a step property ``NoSpill`` (the jugs never lose
water... except that emptying one does: violated in 3 states, fill then
empty), and a liveness property under fairness.  Every verdict and length is
also found by the naive explorer.
"""

from __future__ import annotations

import json
import textwrap

import pytest

import modelcheck
from modelcheck.api import prepare
from conftest import MODELS, run_cli
from modelcheck.errors import SpecDefinitionError
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import extend_from_file, load_spec
from naive import naive_explore, naive_shortest

DIE_HARD = str(MODELS / "die_hard.py")

EXTRA = textwrap.dedent('''
    from modelcheck import eventually, invariant, liveness, step_property, weak


    @invariant("BigBelowFive", "the big jug never holds five gallons")
    def big_below_five(c, s):
        return s.big < 5


    @step_property("NoSpill", "no step loses water")
    def no_spill(c, s, t):
        return t.small + t.big >= s.small + s.big


    @liveness("BigFills", "the big jug is eventually full")
    def big_fills(c):
        return eventually(lambda c, s: s.big == c.Big)


    FAIRNESS = [weak("FillBig")]  # an action of the spec extended, by name
''')


@pytest.fixture()
def extra(tmp_path, monkeypatch, request):
    """The extension file, beside a copy of Die Hard, named after the test (one process refuses two different
    files of one name)."""
    name = request.node.name.replace('[', '_').replace(']', '').replace('-', '_')
    (tmp_path / "die_hard.py").write_text((MODELS / "die_hard.py").read_text())
    (tmp_path / f"jugs_{name}.py").write_text((MODELS / "die_hard.py").read_text())  # importable by that name
    path = tmp_path / f"extra_{name}.py"
    path.write_text(EXTRA)
    monkeypatch.syspath_prepend(str(tmp_path))
    return path


def _spec(extra):
    return extend_from_file(load_spec(str(extra.parent / "die_hard.py")), str(extra))


def test_fairness_may_name_an_action_by_its_function_imported_again(extra):
    """An extension that imports the spec's module by its own name gets other function objects than the
    spec's (the spec file was loaded under another module name): they are the same definitions."""
    jugs = extra.stem.replace("extra_", "jugs_", 1)
    extra.write_text(EXTRA.replace('weak("FillBig")', "weak(fill_big)").replace(
        "from modelcheck import", f"from {jugs} import fill_big\nfrom modelcheck import"))
    spec = extend_from_file(load_spec(str(extra.parent / f"{jugs}.py")), str(extra))
    assert [f.describe() for f, _ in spec.fairness] == ["WF_vars(FillBig)"]


def test_an_extension_adds_invariants_to_the_defaults_and_properties_by_name(extra):
    spec = _spec(extra)
    assert spec.name == "die-hard"
    assert spec.default_invariants == ("TypeOk", "NotSolved", "BigBelowFive")
    assert [p.name for p in spec.properties] == ["NoSpill", "BigFills"]
    assert [f.describe() for f, _ in spec.fairness] == ["WF_vars(FillBig)"]
    c = build_constants(spec, {})
    assert naive_explore(spec, c)["distinct"] == 16
    r = modelcheck.check(spec, invariants=["BigBelowFive"])
    assert r.result == "violated" and len(r.violation.trace) == naive_shortest(spec, c, "BigBelowFive") == 2


@pytest.mark.slow
def test_check_extend_on_the_command_line(extra):
    p = run_cli("check", str(extra.parent / "die_hard.py"), "--extend", str(extra), "--invariant", "BigBelowFive",
                "--json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    assert doc["violation"]["invariant"] == "BigBelowFive" and doc["violation"]["length"] == 2
    p = run_cli("check", str(extra.parent / "die_hard.py"), "--extend", str(extra), "--property", "NoSpill", "--json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    # A fill, then emptying that jug: the first steps that lose water are at depth 3.
    assert doc["violation"]["kind"] == "step" and doc["violation"]["length"] == 3
    # Under the extension's FAIRNESS (WF of FillBig) the big jug fills; without fairness it need not.
    assert run_cli("check", str(extra.parent / "die_hard.py"), "--extend", str(extra), "--property",
                   "BigFills").returncode == 0
    assert run_cli("check", str(extra.parent / "die_hard.py"), "--extend", str(extra), "--property", "BigFills",
                   "--fairness", "none").returncode == 1


def test_the_python_api_takes_extensions_too(extra):
    r = modelcheck.check(str(extra.parent / "die_hard.py"), extend=[str(extra)], invariants=["BigBelowFive"])
    assert r.result == "violated"
    base = load_spec(str(extra.parent / "die_hard.py"))
    import importlib

    module = importlib.import_module(extra.stem)  # the extension as a module: its functions extend a spec

    spec = base.extend(invariants=[module.big_below_five], default_invariants=["TypeOk"])
    assert spec.default_invariants == ("TypeOk",)
    assert modelcheck.check(spec).result == "holds"


@pytest.mark.slow
@pytest.mark.parametrize("text, says", [
    ("X = 1\n", "declares no invariant, sometimes or property"),
    ("import nonexistent_module_xyz\n", "nonexistent_module_xyz"),
])
def test_a_bad_extension_is_one_line_and_exit_2(tmp_path, text, says):
    path = tmp_path / "bad.py"
    path.write_text(text)
    p = run_cli("check", DIE_HARD, "--extend", str(path))
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and says in p.stderr, p.stderr
    p = run_cli("check", DIE_HARD, "--extend", str(tmp_path / "missing.py"))
    assert p.returncode == 2 and "missing.py" in p.stderr


@pytest.mark.slow
def test_a_checkpoint_knows_the_extension(extra, tmp_path):
    ck = tmp_path / "ck"
    args = ("check", str(extra.parent / "die_hard.py"), "--extend", str(extra), "--invariant", "TypeOk")
    p = run_cli(*args, "--checkpoint", str(ck), "--checkpoint-every", "0", "--max-states", "5")
    assert p.returncode == 4 and (ck / "checkpoint.json").exists(), p.stderr
    extra.write_text(EXTRA.replace("s.big < 5", "s.big < 6"))
    p = run_cli(*args, "--resume", str(ck))
    assert p.returncode == 2 and "changed" in p.stderr and extra.stem in p.stderr, p.stderr


@pytest.mark.spark
def test_spark_executors_load_the_extension(extra, sc):
    r = modelcheck.check(str(extra.parent / "die_hard.py"), extend=[str(extra)], invariants=["BigBelowFive"],
                         engine="spark", spark_context=sc)
    assert r.result == "violated" and len(r.violation.trace) == 2


# -- default properties --------------------------------------------------------------------------------


def _with_defaults(extra, **kw):
    return _spec(extra).extend(default_properties=["NoSpill"], **kw)


def test_default_properties_run_when_nothing_is_named(extra):
    spec = _with_defaults(extra, default_invariants=["TypeOk", "NotSolved"])
    r = modelcheck.check(spec)
    # NotSolved (a default invariant) and NoSpill (a default property) are both checked; NotSolved's
    # violation needs 7 states, NoSpill's 3: the search meets NoSpill's first.
    assert r.properties == ("NoSpill",) and "NotSolved" in r.invariants
    assert r.violation.name == "NoSpill"


def test_naming_invariants_or_properties_replaces_the_defaults(extra):
    spec = _with_defaults(extra)
    r = modelcheck.check(spec, invariants=["NotSolved"])
    assert r.properties == () and r.violation.name == "NotSolved"
    r = modelcheck.check(spec, properties=["BigFills"])
    assert r.properties == ("BigFills",) and r.invariants == ()


def test_a_default_property_must_be_declared():
    spec = load_spec(DIE_HARD)
    with pytest.raises(SpecDefinitionError, match="default property 'Nope' is not declared"):
        spec.extend(default_properties=["Nope"])


def test_default_properties_stand_aside_where_properties_cannot_run(extra):
    spec = _with_defaults(extra)
    plan = prepare(spec, simulate=True, seed=1, walks=5)
    assert plan.properties == () and any("default properties (NoSpill) are not checked with --simulate" in n
                                          for n in plan.notes)
