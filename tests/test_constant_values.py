"""Constants as a TLC model gives them: model values, sets, sets of sets, sequences, ranges.

The values are read from TLC's notation (``--const 'RM={r1, r2}'``), from
Python (a ``set``, ``frozenset``, ``list`` or ``tuple``) and from the text a
header, ``--json`` or a checkpoint holds; each path must give the same value,
and the counts of a spec over a set constant must be those of the naive
explorer over the same constants.
"""

from __future__ import annotations

import json
import random

import attrs
import pytest

import modelcheck
from conftest import ROOT, run_cli
from modelcheck.errors import ConstantError
from modelcheck.spec import tla_values
from modelcheck.spec.constants import build_constants, constant, constants_to_dict
from modelcheck.spec.loader import load_spec
from naive import naive_explore

TWOPHASE = "bench/published/twophase.py"


@pytest.mark.parametrize("text, value", [
    ("{r1, r2, r3}", frozenset({"r1", "r2", "r3"})),
    ("0..2", frozenset({0, 1, 2})),
    ("{{a1, a2}, {a1, a3}, {a2, a3}}", frozenset({frozenset({"a1", "a2"}), frozenset({"a1", "a3"}),
                                                  frozenset({"a2", "a3"})})),
    ('<<1, "two words", TRUE, {}>>', (1, "two words", True, frozenset())),
    ("{}", frozenset()),
    ("-3", -3),
    ("<<>>", ()),
    ('"TRUE"', "TRUE"),
    ('"say \\"hi\\""', 'say "hi"'),
    ("{ -1..1 , 7 }", frozenset({frozenset({-1, 0, 1}), 7})),
])
def test_tlc_notation_reads_as_python_values(text, value):
    got = tla_values.parse(text)
    assert got == value and type(got) is type(value)
    assert tla_values.parse(tla_values.text(got)) == value


def _random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(6 if depth < 3 else 3)
    if kind == 0:
        return rng.randrange(-20, 20)
    if kind == 1:
        return rng.choice(["r1", "a_2", "x y", "TRUE", 'q"uote', "", "back\\slash"])
    if kind == 2:
        return rng.choice(["b", "c"])
    if kind == 3:
        return tuple(_random_value(rng, depth + 1) for _ in range(rng.randrange(4)))
    items = [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    return frozenset(x for x in items if not isinstance(x, bool))


def test_text_and_parse_round_trip_on_random_values():
    rng = random.Random(20261129)
    for _ in range(2000):
        v = _random_value(rng)
        t = tla_values.text(v)
        assert tla_values.parse(t) == v, t
        # One text per value, whatever order the set was built in (the same in every process).
        if isinstance(v, frozenset):
            assert tla_values.text(frozenset(reversed(list(v)))) == t


@pytest.mark.parametrize("text, says", [
    ("{r1, r2", "expected '}', found the end"),
    ("<<1 2>>", "expected '>>', found '2'"),
    ("1..", "expected an integer after '..'"),
    ("{a}}", "unexpected '}' after a whole value"),
    ("@", "unexpected '@'"),
    ("", "expected a value, found the end"),
    ("{1, TRUE}", "both TRUE/FALSE and integers"),
    ("0..10000000", "more than"),
])
def test_bad_text_is_one_error_naming_the_constant(text, says):
    with pytest.raises(ConstantError) as e:
        tla_values.parse(text, name="RM")
    assert str(e.value).startswith("constant RM") and says in str(e.value)


def test_declaring_a_set_constant():
    @attrs.frozen
    class Config:
        RM: frozenset = constant({"r1", "r2"}, "resource managers")
        Order: tuple = constant(["a", "b"], "an order")

    c = Config()
    assert c.RM == frozenset({"r1", "r2"}) and type(c.RM) is frozenset
    assert c.Order == ("a", "b")
    assert Config(RM="{x}").RM == frozenset({"x"})
    assert Config(RM={"y"}).RM == frozenset({"y"})
    assert constants_to_dict(Config()) == {"RM": "{r1, r2}", "Order": "<<a, b>>"}
    with pytest.raises(ConstantError, match="constant RM must be a set"):
        Config(RM=3)
    with pytest.raises(ConstantError, match="constant Order must be a sequence"):
        Config(Order="{a}")
    with pytest.raises(ConstantError, match="not a constant value"):
        Config(RM={1.5})
    with pytest.raises(TypeError, match="bound an int or str"):
        constant(frozenset(), "x", minimum=1)


def test_every_way_of_giving_a_set_is_the_same_model():
    spec = load_spec(str(ROOT / TWOPHASE))
    ways = [{"RM": "{r1, r2, r3}"}, {"RM": {"r3", "r2", "r1"}}, {"RM": frozenset({"r1", "r2", "r3"})},
            {"RM": "{r3, r1, r2}"}]
    results = [modelcheck.check(spec, w) for w in ways]
    assert {(r.distinct_states, r.states_generated, r.depth) for r in results} == {(288, 1146, 11)}
    assert {r.constants["RM"] for r in results} == {"{r1, r2, r3}"}


@pytest.mark.parametrize("rm", ["{r1}", "{r1, r2}", "{a, b, c, d}"])
def test_counts_over_a_set_constant_match_the_naive_explorer(rm):
    spec = load_spec(str(ROOT / TWOPHASE))
    c = build_constants(spec, {"RM": rm})
    naive = naive_explore(spec, c)
    r = modelcheck.check(spec, {"RM": rm})
    assert (r.distinct_states, r.states_generated, r.depth) == (naive["distinct"], naive["generated"], naive["depth"])


@pytest.mark.slow
def test_cli_reads_shows_and_refuses_set_constants(tmp_path):
    p = run_cli("check", TWOPHASE, "--const", "RM={r2, r1}", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["constants"] == {"RM": "{r1, r2}"}
    spec = load_spec(str(ROOT / TWOPHASE))
    assert doc["distinct_states"] == naive_explore(spec, build_constants(spec, {"RM": "{r1, r2}"}))["distinct"]
    p = run_cli("check", TWOPHASE, "--const", "RM={r1, r2")
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "error: constant RM: expected '}', found the end in '{r1, r2'"]
    p = run_cli("show", TWOPHASE)
    assert "RM = {r1, r2, r3}  [set]" in p.stdout


@pytest.mark.slow
def test_a_checkpoint_knows_its_set_constant(tmp_path):
    ck = tmp_path / "ck"
    p = run_cli("check", TWOPHASE, "--const", "RM={r1, r2, r3, r4}", "--checkpoint", str(ck),
                "--checkpoint-every", "0", "--max-states", "600")
    assert p.returncode == 4 and (ck / "checkpoint.json").exists(), p.stderr  # 4: stopped by --max-states
    other = run_cli("check", TWOPHASE, "--const", "RM={r1, r2, r3, r5}", "--resume", str(ck))
    assert other.returncode == 2 and "the checkpoint is for constants RM={r1, r2, r3, r4}" in other.stderr
    same = run_cli("check", TWOPHASE, "--const", "RM={r4, r3, r2, r1}", "--resume", str(ck), "--json")
    assert same.returncode == 0, same.stderr
    doc = json.loads(same.stdout)
    spec = load_spec(str(ROOT / TWOPHASE))
    naive = naive_explore(spec, build_constants(spec, {"RM": "{r1, r2, r3, r4}"}))
    assert (doc["distinct_states"], doc["states_generated"]) == (naive["distinct"], naive["generated"])
