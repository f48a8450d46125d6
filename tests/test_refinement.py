"""Refinement checking (``refines``): EWD840 implements SyncTerminationDetection, as TLC checks ``PROPERTY TDSpec``.

TLC 2.18's verdicts on the same models (EWD840.tla and SyncTerminationDetection.tla
from tlaplus/Examples, ``N = 3``, ``PROPERTIES TDSpec``, ``CHECK_DEADLOCK FALSE``):

* the published modules: no error, 302 distinct states, 2,001 generated, depth 9;
* ``terminationDetected`` without ``tcolor = "white"`` (a broken mapping): the
  property ``TD!Init`` is violated by an initial state;
* ``PassToken`` that never stains the token (``tcolor' = tcolor``): the action
  property ``[][TD!Next]_TD!vars`` is violated by a 4-state trace, with 254 distinct
  states found;
* ``InitiateProbe`` that sends a black token: the temporal property is violated
  by a lasso of 3 states back to state 1 (192 distinct states);
* ``SPECIFICATION Init /\\ [][Next]_vars`` (no fairness): the temporal property is
  violated, the behaviour ending in stuttering.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

import attrs
import pytest

import modelcheck
from modelcheck import (Spec, action, always_eventually_step, constant, initial_property, liveness, refines, strong,
                        weak, weakly_fair)
from modelcheck.errors import SpecDefinitionError, UsageError
from modelcheck.spec.loader import load_spec, user_module_name
from modelcheck.testing import assert_holds, assert_violates

PUBLISHED = Path(__file__).resolve().parent.parent / "bench" / "published"
EWD840 = str(PUBLISHED / "ewd840.py")
SYNC_TD = str(PUBLISHED / "sync_termination_detection.py")


def ewd840_module():
    load_spec(EWD840)
    return sys.modules[user_module_name(EWD840)]


def variant(spec: Spec, replace: dict, fairness: list) -> Spec:
    """``spec`` with some actions replaced (by name) and other fairness: a mutant of the same model."""
    args = dict(spec._arguments)
    args["actions"] = [replace.get(a.name, a.fn) for a in spec.actions]
    args["fairness"] = fairness
    args["reference"] = None
    return Spec(**args)


# -- the published models ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_sync_termination_detection_gives_the_manifest_counts():
    r = assert_holds(SYNC_TD)  # N = 7: TypeOK, TDCorrect, Quiescence, Liveness
    assert (r.distinct_states, r.states_generated, r.depth) == (129, 3722, 1)
    assert set(r.properties) == {"Quiescence", "Liveness"}


def test_ewd840_refines_sync_termination_detection_on_the_manifest_model():
    r = assert_holds(EWD840, {"N": 3}, properties=["TDSpec"])
    assert r.properties == ("TDSpec.Init", "TDSpec.Next", "TDSpec.Fairness")
    assert (r.distinct_states, r.states_generated, r.depth) == (302, 2001, 9)  # TLC's, with TDSpec


def test_ewd840_refinement_with_its_invariants_and_liveness():
    r = assert_holds(EWD840, {"N": 3}, invariants=["TypeOK", "TerminationDetection", "Inv"],
                     properties=["Liveness", "TDSpec"])
    assert r.distinct_states == 302


def test_the_parts_can_be_checked_one_by_one():
    for part in ("TDSpec.Init", "TDSpec.Next", "TDSpec.Fairness"):
        assert_holds(EWD840, {"N": 3}, properties=[part])


# -- counterexamples ----------------------------------------------------------------------------------------


def test_a_broken_mapping_violates_the_abstract_init():
    m = ewd840_module()

    def ignores_the_token(c, s):  # terminationDetected without tcolor = "white"
        return m.TDState(s.active, s.tpos == 0 and s.color[0] == m.WHITE and not s.active[0])

    broken = refines(m.TD_SPEC.abstract, ignores_the_token, constants=lambda c: {"N": c.N}, name="Broken")
    r = assert_violates(m.SPEC.extend(properties=[broken]), "Broken", {"N": 3}, length=1)
    v = r.violation
    assert (v.kind, v.name) == ("initial", "Broken.Init")
    why = r.to_json()["violation"]["explanation"]
    assert "terminationDetected |-> TRUE" in why and "not an initial state of SyncTerminationDetection" in why


def test_a_token_that_is_never_stained_breaks_a_step_and_both_vocabularies_are_shown():
    m = ewd840_module()

    @action("PassToken", i=m.NODE_NOT_0)
    def pass_token(c, s, i):
        if s.tpos != i:
            return None
        times = (not s.active[i]) + (s.color[i] == m.BLACK) + (s.tcolor == m.BLACK)
        if not times:
            return None
        return [m.State(s.active, m._at(s.color, i, m.WHITE), i - 1, s.tcolor)] * times  # tcolor' = tcolor

    mutant = variant(m.SPEC, {"PassToken": pass_token}, [weak(m.initiate_probe), weak(pass_token)])
    r = assert_violates(mutant, "TDSpec", {"N": 3}, length=4)  # TLC: 4 states
    v = r.violation
    assert (v.kind, v.name) == ("step", "TDSpec.Next")
    assert r.distinct_states == 254  # TLC stops at the same point
    assert [s.action for s in v.trace[1:]] == ["InitiateProbe", "PassToken(i=2)", "PassToken(i=1)"]
    why = r.to_json()["violation"]["explanation"]
    assert why.startswith("step 3 -> 4 maps [active |-> <<FALSE, FALSE, TRUE>>, terminationDetected |-> FALSE] "
                          "to [active |-> <<FALSE, FALSE, TRUE>>, terminationDetected |-> TRUE]")
    assert "Terminate(i=2) leads to" in why
    assert "State 4: <no step of SyncTerminationDetection>" in why
    assert "State 2: <stuttering>" in why


def test_the_text_output_shows_the_abstract_trace(capsys):
    from modelcheck.cli import _print_result

    m = ewd840_module()
    r = modelcheck.check(m.SPEC, {"N": 3}, properties=["TDSpec"], fairness="none")
    _print_result(r.spec_object, r.constants_object, r, full_trace=False, coverage=False)
    out = capsys.readouterr().out
    assert "Error: Temporal property TDSpec.Fairness is violated." in out
    assert ("  Why: WF_vars(DetectTermination) is violated: it is enabled in the last state's image, where the "
            "behaviour stutters forever, and never taken") in out
    assert "    State 1: <Initial predicate> [active |-> <<FALSE, FALSE, FALSE>>, terminationDetected |-> FALSE]" in out
    assert out.index("Why:") < out.index("State 1: <Initial predicate>\n")


def test_without_fairness_the_abstract_fairness_fails():
    r = assert_violates(EWD840, "TDSpec", {"N": 3}, fairness="none")  # TLC: violated, ending in stuttering
    assert (r.violation.kind, r.violation.name, r.violation.loop_start) == ("liveness", "TDSpec.Fairness", None)


def test_a_token_that_stays_black_never_detects_termination_a_lasso():
    m = ewd840_module()

    @action("InitiateProbe")
    def initiate_probe(c, s):
        if s.tpos != 0:
            return None
        times = (s.tcolor == m.BLACK) + (s.color[0] == m.BLACK)
        if not times:
            return None
        return [m.State(s.active, m._at(s.color, 0, m.WHITE), c.N - 1, m.BLACK)] * times  # tcolor' = "black"

    mutant = variant(m.SPEC, {"InitiateProbe": initiate_probe}, [weak(initiate_probe), weak(m.pass_token)])
    r = assert_violates(mutant, "TDSpec", {"N": 3}, length=3)  # TLC: 3 states, back to state 1
    v = r.violation
    assert (v.kind, v.name, v.loop_start) == ("liveness", "TDSpec.Fairness", 0)
    assert r.distinct_states == 192
    why = r.to_json()["violation"]["explanation"]
    assert "enabled in every mapped state of the loop (states 1 to 3), and never taken" in why
    assert "Back to state 1 <stuttering>" in why


# -- the machinery on small specs --------------------------------------------------------------------------


@attrs.frozen
class Mod:
    M: int = constant(4, "the counter's modulus", minimum=2, maximum=8)


class Counter(NamedTuple):
    x: int
    y: int


@action("Inc")
def inc(c, s):
    return s._replace(x=(s.x + 1) % c.M)


@action("Spin")
def spin(c, s):
    return s._replace(y=1 - s.y)


class Bit(NamedTuple):
    b: int


@attrs.frozen
class NoConstants:
    pass


@action("Flip")
def flip(c, s):
    return Bit(1 - s.b)


def parity(fairness) -> Spec:
    """A one-bit abstract spec whose Flip must happen (with ``fairness``)."""
    return Spec(name="parity", title="Parity", constants=NoConstants, init=lambda c: [Bit(0)], actions=[flip],
                fairness=fairness)


def counter(fairness, *properties) -> Spec:
    return Spec(name="counter", title="Counter", constants=Mod, init=lambda c: [Counter(0, 0)], actions=[inc, spin],
                properties=list(properties), fairness=fairness)


def by_parity(c, s):
    return Bit(s.x % 2)


def test_a_refinement_whose_fairness_needs_the_steps_bits():
    """The only fair cycles take Inc, which flips the image's bit: WF(Flip) holds only if those steps count."""
    td = refines(parity([weak(flip)]), by_parity, name="P")
    r = assert_holds(counter([weak(inc)], td), properties=["P"])
    assert r.distinct_states == 8
    r = assert_violates(counter([weak(spin)], td), "P")  # Spin forever: Flip enabled, never taken
    assert r.violation.name == "P.Fairness" and r.violation.loop_start is not None
    assert_holds(counter([weak(inc)], refines(parity([strong(flip)]), by_parity, name="P")), properties=["P"])


@action("Set")
def set_bit(c, s):
    return Bit(1) if s.b == 0 else None


def test_a_step_the_abstract_spec_does_not_allow():
    one_way = Spec(name="one-way", title="OneWay", constants=NoConstants, init=lambda c: [Bit(0)], actions=[set_bit])
    td = refines(one_way, by_parity, name="P")  # no fairness: no P.Fairness
    assert len(td.members) == 2
    r = assert_violates(counter([], td), "P", length=3)
    assert r.violation.name == "P.Next"
    assert [s.state.x for s in r.violation.trace] == [0, 1, 2]
    why = r.to_json()["violation"]["explanation"]
    assert why.startswith("step 2 -> 3 maps [b |-> 1] to [b |-> 0], which is neither a step of OneWay nor stuttering")
    assert "no action of OneWay is enabled" in why and "State 2: <Set> [b |-> 1]" in why


def test_always_eventually_step():
    @liveness("IncForever")
    def inc_forever(c):
        return always_eventually_step(lambda c, s, t: t.x == (s.x + 1) % c.M)

    @liveness("WrapsForever")
    def wraps(c):
        return weakly_fair(lambda c, s: True, lambda c, s, t: t.x == 0 and s.x != 0)

    assert_holds(counter([weak(inc)], inc_forever, wraps), properties=["IncForever", "WrapsForever"])
    r = assert_violates(counter([weak(spin)], inc_forever, wraps), "IncForever")
    assert r.violation.loop_start is not None
    assert_violates(counter([weak(spin)], inc_forever, wraps), "WrapsForever")


def test_initial_state_properties():
    @initial_property("StartsAtZero")
    def starts_at_zero(c, s):
        return s.x == 0

    @initial_property("StartsAtOne", explain=lambda c, states, loop: f"x is {states[0].x}")
    def starts_at_one(c, s):
        return s.x == 1

    spec = counter([], starts_at_zero, starts_at_one)
    r = assert_holds(spec, properties=["StartsAtZero"])
    assert r.distinct_states == 8  # the whole state space: TLC checks the rest of the model too
    r = assert_violates(spec, "StartsAtOne", length=1)
    assert r.violation.kind == "initial" and r.result == "violated"
    assert r.to_json()["violation"]["explanation"] == "x is 0"
    with pytest.raises(SpecDefinitionError, match="must take 2 positional"):
        counter([], initial_property("Bad")(lambda c: True))


def test_groups_by_name_and_by_default():
    td = refines(parity([weak(flip)]), by_parity, name="P")
    spec = Spec(name="counter", title="Counter", constants=Mod, init=lambda c: [Counter(0, 0)], actions=[inc, spin],
                properties=[td], fairness=[weak(inc)], default_properties=["P"])
    assert spec.property_groups == {"P": ("P.Init", "P.Next", "P.Fairness")}
    assert spec.default_properties == ("P.Init", "P.Next", "P.Fairness")
    assert modelcheck.check(spec).properties == ("P.Init", "P.Next", "P.Fairness")
    with pytest.raises(UsageError, match="it declares: P.Init, P.Next, P.Fairness, P"):
        modelcheck.check(spec, properties=["Q"])
    with pytest.raises(SpecDefinitionError, match="declared twice"):
        counter([], td, refines(parity([]), by_parity, name="P"))
    with pytest.raises(SpecDefinitionError, match="abstract Spec first"):
        refines(by_parity, by_parity)
