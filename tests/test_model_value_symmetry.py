"""SYMMETRY over model values without a permute function: ``Function`` and ``Symmetry.over``.

TLC's figures below are TLC 2.20's (the jar at hand; rev 96056d9), on
tlaplus/Examples' TwoPhase.tla with ``RM = {r1, r2, r3}``, ``INVARIANT TPTypeOK``,
``SPECIFICATION TPSpec`` and ``SYMMETRY Perms`` where ``Perms ==
Permutations(RM)`` (a model module ``EXTENDS TwoPhase, TLC``), one worker:
80 distinct states, 318 generated, depth 11; with four RMs 166 / 869 / 14.
Without the symmetry, TwoPhase.cfg's 288 / 1,146 / 11.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import NamedTuple

import pytest

import modelcheck
from conftest import ROOT
from modelcheck import Function, Spec, Symmetry
from modelcheck.errors import SpecDefinitionError, SpecRuntimeError
from modelcheck.model.fingerprint import fingerprint
from modelcheck.search.safe_pickle import dump_states, load_states
from modelcheck.spec.loader import load_spec
from modelcheck.spec.renaming import ModelValueRenaming, rename

TWOPHASE = str(ROOT / "bench" / "published" / "twophase.py")
SWAP = {"r1": "r2", "r2": "r1"}


class Msg(NamedTuple):
    type: str
    rm: str


class Outer(NamedTuple):
    f: Function
    seq: tuple
    msgs: frozenset
    n: int


def counts(r) -> tuple[int, int, int]:
    return r.distinct_states, r.states_generated, r.depth


# --- Function ------------------------------------------------------------------------------

def test_a_function_is_one_value_however_it_is_built():
    a = Function({"r2": "b", "r1": "a"})
    b = Function([("r1", "a"), ("r2", "b")])
    assert a == b and a.pairs == (("r1", "a"), ("r2", "b")) and fingerprint(a) == fingerprint(b)
    assert a.at("r2") == "b" and a.domain() == frozenset({"r1", "r2"}) and a.values() == ("a", "b")
    assert a.except_("r1", "z") == Function({"r1": "z", "r2": "b"})
    assert a._replace(pairs=(("r2", "b"), ("r1", "a"))) == a
    with pytest.raises(KeyError):
        a.at("r3")
    with pytest.raises(KeyError):
        a.except_("r3", "x")
    with pytest.raises(ValueError, match="twice"):
        Function([("r1", 1), ("r1", 2)])


def test_keys_of_mixed_kinds_have_one_order():
    keys = [frozenset({2}), frozenset({1}), frozenset({1, 2}), (1, "a"), "x", 3, None]
    a = Function({k: i for i, k in enumerate(keys)})
    b = Function({k: i for i, k in reversed(list(enumerate(keys)))})
    assert a.pairs == b.pairs


# --- the renamer on hand-built states ----------------------------------------------------------

def test_functions_are_sorted_again_sequences_are_not():
    f = Function({"r1": "working", "r2": "prepared"})
    assert rename(f, SWAP).pairs == (("r1", "prepared"), ("r2", "working"))
    pairs = (("r1", "working"), ("r2", "prepared"))  # a sequence of pairs: its order is its value
    assert rename(pairs, SWAP) == (("r2", "working"), ("r1", "prepared"))
    assert rename(("r1", "r2", "r1"), SWAP) == ("r2", "r1", "r2")


def test_sets_records_and_nested_values():
    s = Outer(f=Function({"r1": frozenset({"r2"}), "r2": frozenset()}),
              seq=(Msg("Prepared", "r1"), "working"),
              msgs=frozenset({Msg("Prepared", "r1"), Msg("Commit", "none")}),
              n=1)
    t = rename(s, SWAP)
    assert type(t) is Outer and type(t.seq[0]) is Msg
    assert t.f == Function({"r2": frozenset({"r1"}), "r1": frozenset()})
    assert t.seq == (Msg("Prepared", "r2"), "working")
    assert t.msgs == frozenset({Msg("Prepared", "r2"), Msg("Commit", "none")})
    assert rename(t, SWAP) == s
    assert rename(Function({("r1", 0): "a", ("r2", 0): "b"}), SWAP).pairs == ((("r1", 0), "b"), (("r2", 0), "a"))


def test_parts_without_model_values_are_kept_as_they_are():
    part = (Msg("Commit", "none"), 3, None, 2.5, True)
    assert rename(part, SWAP) is part
    f = Function({"r3": "a"})
    assert rename(f, SWAP) is f


def test_the_renaming_numbers_the_sorted_model_values():
    renaming = ModelValueRenaming(lambda c: c)
    c = frozenset({"r2", "r1", "r3"})
    assert renaming.size(c) == 3
    assert renaming(c, ("r1", "r2", "r3"), (1, 2, 0)) == ("r2", "r3", "r1")


# --- what it refuses ---------------------------------------------------------------------

class Pair(tuple):
    """A tuple subclass that is not a NamedTuple: the renamer cannot know what its order means."""


@pytest.mark.parametrize("value,where", [
    (Outer(Function({"r1": {"r1": 1}}), (), frozenset(), 0), r"state\.f\['r1'\], a dict"),
    ((1, Pair(("r1", "r2"))), r"state\[1\], a Pair"),
    (frozenset({("r1", Pair())}), r"an element.*a Pair"),
])
def test_what_cannot_be_renamed_safely_is_refused_with_its_path(value, where):
    with pytest.raises(SpecDefinitionError, match=where):
        rename(value, SWAP)


@pytest.mark.parametrize("values", [3, frozenset({0, 1}), frozenset(), ("r1", "r2")])
def test_values_must_be_a_set_of_model_values(values):
    with pytest.raises(SpecRuntimeError, match="Symmetry.over.* needs a non-empty set of model values"):
        Symmetry.over(lambda c: values).size(None)


SPEC_SOURCE = '''
from typing import NamedTuple
import attrs
from modelcheck import Function, Spec, Symmetry, action, constant


class Pair(tuple):
    pass


@attrs.frozen
class Config:
    RM: frozenset = constant(frozenset({"r1", "r2"}), "model values")
    N: int = constant(2, "a count")
    Bad: bool = constant(False, "hold a tuple subclass")


class S(NamedTuple):
    f: Function
    x: object


@action("Step")
def step(c, s):
    return None


SPEC = Spec(name="over-WHICH", title="t", constants=Config,
            init=lambda c: [S(Function({r: 0 for r in c.RM}), Pair(("r1",)) if c.Bad else ())],
            actions=[step], deadlock_expected=True, symmetry=Symmetry.over(lambda c: c.WHICH))
'''


@pytest.mark.parametrize("which,args,message", [
    ("N", [], "Symmetry.over (its set of values at over_n.py:30) needs a non-empty set of model values (strs"),
    ("RM", ["--const", "Bad=true"], "Symmetry.over cannot rename model values in state.x, a Pair"),
])
def test_the_command_line_refuses_in_one_line(tmp_path, which, args, message):
    path = tmp_path / f"over_{which.lower()}.py"
    path.write_text(SPEC_SOURCE.replace("WHICH", which))
    p = subprocess.run([sys.executable, "-m", "modelcheck", "check", str(path), "--symmetry", "-q", *args],
                       capture_output=True, text=True, cwd=tmp_path, env={"MODELCHECK_USER_BUILD": "off",
                                                                          "PATH": "/usr/bin:/bin"})
    assert p.returncode == 2, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], p.stderr


# --- TwoPhase: TLC's counts -----------------------------------------------------------------

def test_twophase_without_symmetry_keeps_tlcs_counts():
    assert counts(modelcheck.check(TWOPHASE)) == (288, 1146, 11)
    assert counts(modelcheck.check(TWOPHASE, memo=False)) == (288, 1146, 11)


def test_twophase_with_symmetry_counts_tlcs_orbits():
    """TLC 2.20, TwoPhase.tla with SYMMETRY Permutations(RM), RM = {r1, r2, r3}: 80 / 318 / 11."""
    r = modelcheck.check(TWOPHASE, symmetry=True)
    assert r.result == "holds" and not r.to_json()["warnings"], r.to_json()["warnings"]
    assert counts(r) == (80, 318, 11)


@pytest.mark.slow
def test_twophase_with_symmetry_and_four_rms():
    """TLC 2.20, the same model with RM = {r1, r2, r3, r4}: 166 / 869 / 14."""
    assert counts(modelcheck.check(TWOPHASE, {"RM": "{r1, r2, r3, r4}"}, symmetry=True)) == (166, 869, 14)


def _hand_written(spec: Spec) -> Spec:
    """TwoPhase with the permute a spec author would write for this state, field by field."""
    mod = sys.modules[spec.init.__module__]

    def permute(c, s, perm):
        rms = sorted(c.RM)
        m = {rms[i]: rms[p] for i, p in enumerate(perm)}
        return mod.State(Function({m[k]: v for k, v in s.rmState.pairs}), s.tmState,
                         frozenset(m[r] for r in s.tmPrepared),
                         frozenset(mod.Prepared("Prepared", m[x.rm]) if x.type == "Prepared" else x for x in s.msgs))

    args = dict(spec._arguments)
    args["symmetry"] = Symmetry(lambda c: len(c.RM), permute)
    args["reference"] = None
    return Spec(**args)


@pytest.mark.parametrize("rm", ["{r1, r2}", "{r1, r2, r3}"])
def test_a_hand_written_permute_gives_the_same_counts(rm):
    spec = load_spec(TWOPHASE)
    generic = modelcheck.check(spec, {"RM": rm}, symmetry=True)
    hand = modelcheck.check(_hand_written(spec), {"RM": rm}, symmetry=True)
    assert counts(generic) == counts(hand)


# --- checkpoints, rendering, --json ------------------------------------------------------------

def test_checkpoints_hold_functions(tmp_path):
    """The checkpoint reader admits modelcheck's Function (it is no class of the spec's modules)."""
    buf = io.BytesIO()
    state = (Function({"r2": 1, "r1": 0}), frozenset({Function({})}))
    dump_states(buf, [state])
    buf.seek(0)
    assert load_states(buf, [], 1) == [state]
    ck = tmp_path / "ck"
    r = modelcheck.check(TWOPHASE, checkpoint=str(ck), checkpoint_every=0, max_states=100, memo=False)
    assert r.stopped_by == "max-states" and r.checkpoint is not None
    assert counts(modelcheck.check(TWOPHASE, resume=str(ck), memo=False)) == (288, 1146, 11)


def test_a_function_is_shown_as_an_object():
    spec = load_spec(TWOPHASE)
    args = dict(spec._arguments)
    args["view"] = None
    args["reference"] = None
    plain = Spec(**args)
    c = spec.constants_class()
    shown = plain.describe_state(c, spec.init(c)[0])
    assert shown["rmState"] == {"r1": "working", "r2": "working", "r3": "working"}
    json.dumps(shown)
