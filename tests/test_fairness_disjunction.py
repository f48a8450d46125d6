"""Fairness of a disjunction of actions (``weak(a, b)`` is ``WF_vars(A \\/ B)``) and ``--fairness none``.

TLA+ specs write ``WF_vars(System)`` with ``System == InitiateProbe \\/ \\E i: PassToken(i)``: if
*some* disjunct is continuously enabled, *some* disjunct step eventually occurs.  That is not weak
fairness of each disjunct, in either direction:

* the disjunction can be continuously enabled while each disjunct is enabled only now and then, so
  ``WF(A \\/ B)`` forces progress where ``WF(A) /\\ WF(B)`` does not (the relay spec below);
* one disjunct may be taken forever while the other, continuously enabled, waits: ``WF(A) /\\ WF(B)``
  forbids that and ``WF(A \\/ B)`` allows it (the spin spec below).

Every verdict is worked out by hand next to its assertions, and cross-checked with the independent
oracle (tests/naive_liveness.py), to which the disjunction is one fairness class: the union of the
labels of every instance of every listed action.
"""

from __future__ import annotations

import json
import random
import sys
from typing import NamedTuple

import attrs
import pytest

import modelcheck
from modelcheck import Domain, Spec, action, constant, eventually, liveness, strong, weak
from modelcheck.errors import SpecDefinitionError, UsageError
from modelcheck.options import CheckOptions
from modelcheck.spec.constants import build_constants
from modelcheck.spec.temporal import all_of, always_eventually, any_of, eventually_always, leads_to
from tests.conftest import MODELS, ROOT, run_cli

sys.path.insert(0, str(MODELS))
sys.path.insert(0, str(ROOT / "tests"))
import fair_toys as ft  # noqa: E402
import naive_liveness as nl  # noqa: E402


@attrs.frozen
class NoConsts:
    K: int = constant(1, "unused", minimum=1, maximum=1)


# -- the relay: Flip walks phase 0 -> 1 -> 2 -> 0; Initiate is enabled at phase 0 only, Pass(0) at
#    phase 1 only, Pass(1) at phase 2 only; either of them ends the run (done) ------------------------


class R(NamedTuple):
    phase: int
    done: bool


@action("Flip")
def flip(c, s):
    return None if s.done else R((s.phase + 1) % 3, False)


@action("Initiate")
def initiate(c, s):
    return R(0, True) if s.phase == 0 and not s.done else None


@action("Pass", i=Domain("instance", lambda c: range(2)))
def pass_(c, s, i):
    return R(s.phase, True) if s.phase == i + 1 and not s.done else None


@liveness("EventuallyDone", "Initiate or some Pass eventually happens")
def eventually_done(c):
    return eventually(lambda c, s: s.done)


def relay(fairness=()) -> Spec:
    return Spec(name="relay", title="Disjuncts enabled in turn", constants=NoConsts, init=lambda c: [R(0, False)],
                actions=[flip, initiate, pass_], invariants=[], properties=[eventually_done],
                fairness=list(fairness), deadlock_expected=True)


# -- the spin: Spin flips a bit forever, Stop (enabled whenever Spin is) ends the run -------------------


class S(NamedTuple):
    bit: int
    done: bool


@action("Spin")
def spin(c, s):
    return None if s.done else S(1 - s.bit, False)


@action("Stop")
def stop(c, s):
    return None if s.done else S(s.bit, True)


@liveness("EventuallyStopped", "Stop eventually happens")
def eventually_stopped(c):
    return eventually(lambda c, s: s.done)


def spin_spec(fairness=()) -> Spec:
    return Spec(name="spin", title="One disjunct starves the other", constants=NoConsts,
                init=lambda c: [S(0, False)], actions=[spin, stop], invariants=[], properties=[eventually_stopped],
                fairness=list(fairness), deadlock_expected=True)


def check(spec, prop, **options):
    return modelcheck.check(spec, {}, properties=[prop], preflight=False, **options)


def lasso(result):
    v = result.violation
    return [s.state for s in v.trace], v.loop_start, v.loop_action


def oracle_classes(spec, c, classes):
    """The oracle's fairness classes for (kind, action names): one class over every instance of every action."""
    return [(kind, frozenset((a.name, tuple(b)) for a in spec.actions if a.name in names for b in a.bindings(c)))
            for kind, names in classes]


def oracle(spec, prop, classes):
    """The oracle's verdict under ``classes``: None when the property holds, else its lasso as (states, loop start)."""
    c = build_constants(spec, {})
    g = nl.build_graph(spec, c)
    found = nl.check_formula(g, oracle_classes(spec, c, classes), spec.property(prop).fn(c), c)
    return None if found is None else ([g.states[i] for i in found.states], found.loop_start)


CYCLE = [R(0, False), R(1, False), R(2, False)]


def test_weak_fairness_of_each_disjunct_does_not_force_the_relay():
    # WF(Initiate) /\ WF(Pass): on Flip's cycle 0 -> 1 -> 2 -> 0, Initiate is disabled at phases 1 and 2 and
    # Pass at phase 0, so neither is *continuously* enabled: the cycle is fair and never done.  Stuttering
    # anywhere is not fair (each non-done state enables Initiate or Pass).  The only violation is the cycle.
    for fairness in ([weak(initiate), weak(pass_)], [weak(initiate), weak(pass_, each=True)]):
        r = check(relay(fairness), "EventuallyDone")
        assert r.result == "violated"
        assert lasso(r) == (CYCLE, 0, "Flip")
    assert oracle(relay(), "EventuallyDone", [("weak", {"Initiate"}), ("weak", {"Pass"})]) == (CYCLE, 0)


def test_weak_fairness_of_the_disjunction_forces_the_relay():
    # WF(Initiate \/ Pass): every non-done state enables Initiate or some Pass, so the disjunction is
    # continuously enabled on the Flip cycle and never taken there (unfair), and stuttering in a non-done
    # state is unfair too.  Every fair behaviour therefore takes Initiate or Pass: done.  SF of it is stronger.
    assert check(relay([weak(initiate, pass_)]), "EventuallyDone").result == "holds"
    assert check(relay([strong(initiate, pass_)]), "EventuallyDone").result == "holds"
    assert check(relay([weak(pass_, initiate)]), "EventuallyDone").result == "holds"  # the order is immaterial
    assert oracle(relay(), "EventuallyDone", [("weak", {"Initiate", "Pass"})]) is None


def test_the_disjunction_is_the_one_listed():
    # WF(Initiate) /\ WF(Flip \/ Pass): the Flip cycle takes Flip, a disjunct of the second condition, and
    # Initiate is not continuously enabled on it (phases 1 and 2), so the cycle is fair and never done.
    # Without any fairness the run may stutter in its initial state.
    r = check(relay([weak(initiate), weak(flip, pass_)]), "EventuallyDone")
    assert lasso(r) == (CYCLE, 0, "Flip")
    r = check(relay(), "EventuallyDone")
    assert lasso(r) == ([R(0, False)], None, None)


def test_the_disjunction_lets_one_disjunct_starve_the_other():
    # WF(Spin) /\ WF(Stop): Stop is enabled in every non-done state, so a cycle of Spins never taking it is
    # unfair and so is stuttering: every fair behaviour stops.  WF(Spin \/ Stop) is met by Spin forever:
    # (0) -> (1) -> (0) ..., taking a disjunct all along, never done.
    assert check(spin_spec([weak(spin), weak(stop)]), "EventuallyStopped").result == "holds"
    r = check(spin_spec([weak(spin, stop)]), "EventuallyStopped")
    assert lasso(r) == ([S(0, False), S(1, False)], 0, "Spin")
    # SF(Spin \/ Stop) likewise: the disjunction is taken infinitely often.
    assert lasso(check(spin_spec([strong(spin, stop)]), "EventuallyStopped")) == ([S(0, False), S(1, False)], 0, "Spin")
    assert oracle(spin_spec(), "EventuallyStopped", [("weak", {"Spin"}), ("weak", {"Stop"})]) is None
    assert oracle(spin_spec(), "EventuallyStopped", [("weak", {"Spin", "Stop"})]) == ([S(0, False), S(1, False)], 0)


def test_the_fairness_classes_are_the_union_of_the_labels():
    from modelcheck.model.bound import BoundModel

    spec = relay([weak(initiate, pass_), strong(pass_, each=True), weak(flip)])
    model = BoundModel(spec, build_constants(spec, {}), CheckOptions(invariants=()))
    # labels: Flip 0, Initiate 1, Pass(i=0) 2, Pass(i=1) 3
    assert model.fairness_classes() == [
        ("weak", "WF_vars(Initiate \\/ Pass)", (1, 2, 3)),
        ("strong", "SF_vars(Pass(i=0))", (2,)),
        ("strong", "SF_vars(Pass(i=1))", (3,)),
        ("weak", "WF_vars(Flip)", (0,)),
    ]
    assert BoundModel(spec, model.c, CheckOptions(invariants=(), fairness="none")).fairness_classes() == []


# -- refusals ---------------------------------------------------------------------------------------------


def test_each_with_several_actions_is_refused_in_one_line():
    for f in (weak, strong):
        with pytest.raises(SpecDefinitionError, match=r"each=True\) takes a single action, got 2") as e:
            f(initiate, pass_, each=True)
        assert "\n" not in str(e.value)
    with pytest.raises(SpecDefinitionError, match="each= by keyword"):
        weak(initiate, True)


def test_each_with_several_actions_is_refused_on_the_command_line(tmp_path):
    path = tmp_path / "bad_fairness.py"
    path.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(MODELS)!r})\n"
        "from fair_toys import counter, inc, reset\n"
        "from modelcheck import weak\n"
        "SPEC = counter()\n"
        "FAIR = weak(inc, reset, each=True)\n")
    r = run_cli("check", str(path), "-q")
    assert r.returncode == 2
    assert "weak(..., each=True) takes a single action, got 2" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_further_action_that_is_not_the_specs_is_refused():
    @action("Elsewhere")
    def elsewhere(c, s):
        return None

    with pytest.raises(SpecDefinitionError, match="fairness names .*elsewhere.*not one of the spec's actions"):
        check(relay([weak(initiate, elsewhere)]), "EventuallyDone")


def test_an_unknown_fairness_choice_is_refused():
    with pytest.raises(UsageError, match="fairness must be one of: spec, none; got 'weak'"):
        check(relay(), "EventuallyDone", fairness="weak")


# -- describe ---------------------------------------------------------------------------------------------


def test_describe_says_it_as_tla_does():
    assert weak(initiate, pass_).describe() == "WF_vars(Initiate \\/ Pass)"
    assert strong(initiate, pass_, flip).describe("Initiate") == "SF_vars(Initiate \\/ Pass \\/ Flip)"
    assert weak(initiate, pass_).describe("InitiateProbe", "PassToken") == "WF_vars(InitiateProbe \\/ PassToken)"
    assert weak(initiate).describe("Initiate") == "WF_vars(Initiate)"  # one action: as before
    assert weak(pass_, each=True).describe("Pass") == "\\A b: WF_vars(Pass(b))"
    assert weak(initiate, pass_).actions == (initiate, pass_) and weak(initiate).actions == (initiate,)


# -- --fairness none -------------------------------------------------------------------------------------


def test_fairness_none_in_the_api_shows_the_lasso_fairness_hid():
    # The relay under WF(Initiate \/ Pass) holds (above); without fairness it may stutter in its initial state.
    assert check(relay([weak(initiate, pass_)]), "EventuallyDone").result == "holds"
    r = check(relay([weak(initiate, pass_)]), "EventuallyDone", fairness="none")
    assert r.result == "violated" and r.violation.kind == "liveness"
    assert lasso(r) == ([R(0, False)], None, None)
    # The counter under WF(Inc): 0 ~> 1 holds; with fairness="none" the behaviour may stay at 0 forever.
    assert check(ft.counter([(weak, ft.inc)]), "ZeroLeadsToOne", fairness="spec").result == "holds"
    assert lasso(check(ft.counter([(weak, ft.inc)]), "ZeroLeadsToOne", fairness="none")) == ([ft.X(0)], None, None)
    # A spec without fairness: "none" changes nothing and says nothing.
    r = check(ft.counter(), "ZeroLeadsToOne", fairness="none")
    assert lasso(r) == ([ft.X(0)], None, None) and not any("fairness" in w.lower() for w in r.warnings)


def test_fairness_is_part_of_a_checkpoints_identity(tmp_path):
    assert CheckOptions().identity_options() == CheckOptions(fairness="spec").identity_options()
    assert ("fairness", "none") in CheckOptions(fairness="none").identity_options()
    spec = ft.counter([(weak, ft.inc)])

    def stop_at_level_2(p):
        if p.level >= 2:
            raise KeyboardInterrupt

    first = modelcheck.check(spec, {"N": 8}, properties=["ZeroLeadsToOne"], preflight=False,
                             checkpoint=str(tmp_path / "ck"), checkpoint_every=0, progress=stop_at_level_2,
                             progress_seconds=0)
    assert first.result == "interrupted" and first.checkpoint is not None
    from modelcheck.errors import CheckpointError

    with pytest.raises(CheckpointError, match="fairness"):
        modelcheck.check(spec, {"N": 8}, properties=["ZeroLeadsToOne"], preflight=False, resume=str(tmp_path / "ck"),
                         fairness="none")
    resumed = modelcheck.check(spec, {"N": 8}, properties=["ZeroLeadsToOne"], preflight=False,
                               resume=str(tmp_path / "ck"))
    assert resumed.result == "holds"


TOY = str(MODELS / "counter_fair.py")  # the counter with WF(Inc)


@pytest.mark.slow
def test_cli_fairness_none_turns_a_holding_property_into_a_lasso():
    r = run_cli("check", TOY, "--property", "ZeroLeadsToOne", "-q")
    assert r.returncode == 0, r.stderr
    assert "Fairness: WF_vars(Inc)" in r.stdout and "No error has been found" in r.stdout
    r = run_cli("check", TOY, "--property", "ZeroLeadsToOne", "-q", "--fairness", "none")
    assert r.returncode == 1, r.stderr
    assert "Fairness: none (--fairness none, instead of the spec's WF_vars(Inc))" in r.stdout
    assert "Error: Temporal property ZeroLeadsToOne is violated." in r.stdout
    assert "Stuttering: the behavior stays in state 1 forever." in r.stdout
    r = run_cli("check", TOY, "--property", "ZeroLeadsToOne", "-q", "--fairness", "none", "--json")
    assert r.returncode == 1, r.stderr
    v = json.loads(r.stdout)["violation"]
    assert v["kind"] == "liveness" and v["stuttering"] is True and len(v["trace"]) == 1
    r = run_cli("check", TOY, "--property", "ZeroLeadsToOne", "-q", "--fairness", "weak")
    assert r.returncode == 2 and "Traceback" not in r.stderr


@pytest.mark.slow
def test_cli_shows_a_disjunction_and_a_spec_without_fairness_is_silent(tmp_path):
    path = tmp_path / "relay_spec.py"
    path.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.test_fairness_disjunction import initiate, pass_, relay\n"
        "from modelcheck import weak\n"
        "SPEC = relay([weak(initiate, pass_)])\n"
        "BARE = relay()\n")
    r = run_cli("check", f"{path}:SPEC", "--property", "EventuallyDone", "-q")
    assert r.returncode == 0, r.stderr
    assert "Fairness: WF_vars(Initiate \\/ Pass)" in r.stdout
    r = run_cli("show", f"{path}:SPEC")
    assert r.returncode == 0 and "Fairness: WF_vars(Initiate \\/ Pass)" in r.stdout
    r = run_cli("check", f"{path}:BARE", "--property", "EventuallyDone", "-q", "--fairness", "none")
    assert r.returncode == 1 and "Fairness: none\n" in r.stdout and "fairness" not in r.stderr.lower(), r.stderr


# -- random graphs: the engine against the oracle, under disjunctive fairness --------------------------


class V(NamedTuple):
    v: int


def random_spec(rng: random.Random):
    """2 to 4 states, three actions (one with two instances) of random edges, one or two fairness conditions
    over random sets of them, a random formula; with its fairness as (kind, action names) classes."""
    n = rng.randint(2, 4)
    tables = {name: [{s: [rng.randrange(n) for _ in range(rng.randint(1, 2))] for s in range(n) if rng.random() < 0.7}
                     for _x in range(xs)] for name, xs in (("a", 1), ("b", 2), ("c", 1))}

    def make(name, per_x):
        def fn(c, s, x):
            return [V(t) for t in per_x[x].get(s.v, [])] or None
        fn.__name__ = f"act_{name}"
        return action(name, x=Domain("x", lambda c: range(len(per_x))))(fn)

    fns = {name: make(name, per_x) for name, per_x in tables.items()}
    fair, classes = [], []
    for _ in range(rng.randint(1, 2)):
        names = rng.sample(sorted(fns), rng.randint(1, 3))
        kind = rng.choice(["weak", "strong"])
        fair.append((weak if kind == "weak" else strong)(*(fns[x] for x in names)))
        classes.append((kind, set(names)))
    sets = [frozenset(s for s in range(n) if rng.random() < 0.5) for _ in range(2)]
    p, q = [lambda c, s, _S=S: s.v in _S for S in sets]
    formula = rng.choice([eventually(p), always_eventually(p), eventually_always(p), leads_to(p, q),
                          all_of([leads_to(p, q), always_eventually(q)]), any_of([eventually(p), eventually_always(q)])])

    def prop(c):
        return formula

    spec = Spec(name="rand", title="random", constants=NoConsts, init=lambda c: [V(0)], actions=list(fns.values()),
                invariants=[], properties=[liveness("P")(prop)], fairness=fair, deadlock_expected=True)
    return spec, classes


@pytest.mark.slow
def test_random_disjunctive_fairness_agrees_with_the_oracle():
    # The engine's verdict must be the oracle's under the same classes (a disjunction: one class over the
    # labels of all its actions), and its lassos real, fair and violating by the oracle's definitions.  Some
    # cases must be ones where the disjunction matters: fairness of each listed action apart decides otherwise.
    verdicts, discriminating = set(), 0
    for seed in range(3):
        rng = random.Random(seed)
        for _ in range(60):
            spec, classes = random_spec(rng)
            expected = oracle(spec, "P", classes)
            apart = oracle(spec, "P", [(kind, {name}) for kind, names in classes for name in names])
            discriminating += (expected is None) != (apart is None)
            r = check(spec, "P")
            assert (r.result == "holds") == (expected is None), (seed, classes, r.result, expected)
            verdicts.add(r.result)
            if expected is not None:
                c = build_constants(spec, {})
                g = nl.build_graph(spec, c)
                found = nl.Lasso(tuple(g.index[s.state] for s in r.violation.trace), r.violation.loop_start)
                assert nl.is_behaviour(g, found), (found, g.succ)
                assert nl.is_fair(g, oracle_classes(spec, c, classes), found), (found, classes, g.succ)
                assert nl.violates(spec.property("P").fn(c), c, g, found)
    assert verdicts == {"holds", "violated"} and discriminating > 0
