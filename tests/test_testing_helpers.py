"""modelcheck.testing: assert_holds and assert_violates, as a user's test suite calls them.

The expected counts and trace lengths come from the naive explorer
(tests/naive.py) or from the models' known results (TCommit's 3**n + 2**n - 1
states, Die Hard's 7-state shortest solution), never from the checker; the
temporal properties' verdicts and lassos from the naive liveness oracle
(tests/naive_liveness.py) on tests/models/lasso_toys.py.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import MODELS
from modelcheck.errors import SpecRuntimeError, UsageError
from modelcheck.spec.loader import load_spec
from modelcheck.testing import assert_holds, assert_violates
from naive import naive_explore, naive_shortest, naive_terminal_states
from naive_liveness import Lasso, build_graph, check_property

DIE_HARD = str(MODELS / "die_hard.py")
TCOMMIT = str(MODELS / "tcommit.py")
LASSO = str(MODELS / "lasso_toys.py")


def test_assert_holds_returns_the_result():
    r = assert_holds(TCOMMIT)
    assert r.result == "holds" and r.distinct_states == 3 ** 3 + 2 ** 3 - 1
    assert assert_holds(TCOMMIT, {"RM": 2}, symmetry=True).result == "holds"


def test_assert_holds_fails_with_the_counterexample():
    spec = load_spec(DIE_HARD)
    length = naive_shortest(spec, spec.constants_class(), "NotSolved")
    assert length == 7  # Die Hard's known shortest solution
    with pytest.raises(AssertionError) as err:
        assert_holds(DIE_HARD)
    lines = str(err.value).splitlines()
    assert lines[0] == ("spec die-hard (Small=3, Big=5, Goal=4): expected every checked invariant to hold, "
                        f"but NotSolved is violated, by this trace of {length} states:")
    assert lines[1] == "State 1: <Initial predicate>"
    assert f"State {length}: <BigToSmall>" in lines and "  big = 4" in lines


def test_assert_violates_checks_the_invariant_and_the_length():
    r = assert_violates(DIE_HARD, "NotSolved", length=7)
    assert r.violation.name == "NotSolved" and r.invariants == ("NotSolved",)
    with pytest.raises(AssertionError) as err:
        assert_violates(DIE_HARD, "NotSolved", length=6)
    assert str(err.value).splitlines()[0] == (
        "spec die-hard (Small=3, Big=5, Goal=4): expected a trace of 6 states, but NotSolved is violated, "
        "by this trace of 7 states:")
    # TypeOk holds in Die Hard: asking for its violation fails, with what the check found instead.
    spec = load_spec(DIE_HARD)
    found = naive_explore(spec, spec.constants_class())
    with pytest.raises(AssertionError) as err:
        assert_violates(DIE_HARD, "TypeOk")
    assert str(err.value) == (
        "spec die-hard (Small=3, Big=5, Goal=4): expected TypeOk to be violated, but every checked invariant "
        f"holds ({found['distinct']} distinct states, depth {found['depth']})")


def test_assert_violates_a_deadlock():
    spec = load_spec(TCOMMIT)
    assert naive_terminal_states(spec, spec.constants_class())  # TCommit's final states have no successor
    r = assert_violates(TCOMMIT, "Deadlock")
    assert r.result == "deadlock" and r.violation.kind == "deadlock"


def test_a_bounded_run_proves_nothing():
    with pytest.raises(AssertionError) as err:
        assert_holds(TCOMMIT, max_states=10)
    m = re.fullmatch(r"spec tcommit \(RM=3\): expected every checked invariant to hold, but the check stopped "
                     r"early \(max-states\) after (\d+) distinct states", str(err.value))
    assert m and 10 <= int(m.group(1)) < 34, str(err.value)  # stops after the parent that reaches the bound


def test_a_spec_error_is_raised_with_its_trace_as_a_note():
    with pytest.raises(SpecRuntimeError) as err:
        assert_holds(str(MODELS / "broken" / "raises_in_action.py"))
    assert str(err.value).startswith("spec raises: action Step raised KeyError: 'missing' (at ")
    assert err.value.__notes__ == ["The behavior up to the failing state (3 states):\n"
                                   "  State 1: <Initial predicate> 0\n  State 2: <Step> 1\n  State 3: <Step> 2"]


@pytest.mark.slow
def test_pytest_shows_the_trace_of_a_failing_assertion(tmp_path):
    (tmp_path / "test_user.py").write_text(
        "from modelcheck.testing import assert_holds\n\n\n"
        f"def test_jugs():\n    assert_holds({DIE_HARD!r})\n")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert p.returncode == 1, p.stdout[-3000:]
    assert "AssertionError: spec die-hard (Small=3, Big=5, Goal=4): expected every checked invariant to hold" \
        in p.stdout
    assert "State 7: <BigToSmall>" in p.stdout
    assert "1 failed" in p.stdout


# -- temporal properties: tests/models/lasso_toys.py, a counter 0..3 with Reset from 2 and a dead end at 3 ----------


def oracle(name):
    """The naive oracle's counterexample to ``name`` in the lasso toy: (states, loop_start) or a step, or None."""
    spec = load_spec(LASSO)
    c = spec.constants_class()
    g = build_graph(spec, c)
    found = check_property(spec, c, name, g)
    if isinstance(found, Lasso):
        return [g.states[i] for i in found.states], found.loop_start
    return found if found is None else (g.states[found[0]], g.states[found[1]])


def test_assert_violates_names_a_liveness_property_and_nothing_masks_it():
    states, loop_start = oracle("ReachesThree")  # the loop 0 -> 1 -> 2 -> 0, Inc taken: fair
    assert [s.x for s in states] == [0, 1, 2] and loop_start == 0
    r = assert_violates(LASSO, "ReachesThree", length=len(states))
    v = r.violation
    assert (v.kind, v.name, v.loop_start, v.loop_action) == ("liveness", "ReachesThree", 0, "Reset")
    assert [t.state for t in v.trace] == states  # the shortest lasso here: the loop is the only counterexample
    assert r.invariants == () and r.properties == ("ReachesThree",)
    # The spec's invariant BelowThree and its dead end at 3 are found by the search, before any property is
    # decided: checked with the property, either would hide it. assert_violates checks the property alone.
    with pytest.raises(AssertionError, match=r"but BelowThree is violated, by this trace of 4 states"):
        assert_violates(LASSO, "ReachesThree", invariants=["BelowThree"])
    with pytest.raises(AssertionError, match=r"but a deadlock was reached, by this trace of 4 states"):
        assert_violates(LASSO, "ReachesThree", deadlock=True)
    # A Spec object as well as a file; and a property that holds fails the assertion, saying so.
    assert assert_violates(load_spec(LASSO), "ReachesThree").violation.name == "ReachesThree"
    assert oracle("ZeroLeadsToOne") is None
    with pytest.raises(AssertionError) as err:
        assert_violates(LASSO, "ZeroLeadsToOne")
    assert str(err.value) == ("spec lasso-toy (Top=3): expected ZeroLeadsToOne to be violated, but every checked "
                              "invariant and property holds (4 distinct states, depth 4)")
    assert assert_holds(LASSO, properties=["ZeroLeadsToOne"], deadlock=False).result == "holds"


@pytest.mark.slow
@pytest.mark.parametrize("name, ending, last_line", [
    ("ReachesThree", "it loops back to state 1 forever", "Back to state 1 <Reset>: states 1 to 3 repeat forever."),
    ("ZeroInfinitelyOften", "it stutters forever in its last state",
     "Stuttering: the behavior stays in state 4 forever."),
])
def test_a_failing_assert_holds_prints_the_lasso_as_the_cli_does(name, ending, last_line):
    states, loop_start = oracle(name)
    assert (loop_start is None) == last_line.startswith("Stuttering")  # one toy of each kind
    with pytest.raises(AssertionError) as err:
        assert_holds(LASSO, properties=[name], deadlock=False)
    message = str(err.value)
    head, _, body = message.partition("\n")
    assert head == (f"spec lasso-toy (Top=3): expected every checked invariant and property to hold, but temporal "
                    f"property {name} is violated, by this lasso of {len(states)} states ({ending}):")
    assert message.rstrip().splitlines()[-1] == last_line
    assert [int(n) for n in re.findall(r"^State (\d+):", body, re.M)] == list(range(1, len(states) + 1))
    assert re.findall(r"^  x = (\d+)$", body, re.M) == [str(s.x) for s in states]
    # The same lasso, character for character, as modelcheck check prints it.
    cli = subprocess.run([sys.executable, "-m", "modelcheck", "check", LASSO, "--property", name, "--no-deadlock"],
                         capture_output=True, text=True, timeout=600)
    assert cli.returncode == 1, cli.stderr[-3000:]
    assert body in cli.stdout


def test_assert_violates_names_a_step_property():
    s, t = oracle("NoBigDrop")
    assert (s.x, t.x) == (2, 0)  # Reset from 2: 0, 1, 2 then the step, 4 states
    r = assert_violates(LASSO, "NoBigDrop", length=4)
    assert (r.violation.kind, r.violation.trace[-1].action) == ("step", "Reset")
    assert r.invariants == () and r.properties == ("NoBigDrop",)
    with pytest.raises(AssertionError) as err:
        assert_violates(LASSO, "NoBigDrop", length=3)
    assert str(err.value).splitlines()[0] == (
        "spec lasso-toy (Top=3): expected a trace of 3 states, but step property NoBigDrop is violated by the last "
        "step of this trace of 4 states:")
    assert str(err.value).splitlines()[-2:] == ["State 4: <Reset>", "  x = 0"]


def test_an_unknown_name_lists_the_spec_invariants_and_properties():
    with pytest.raises(UsageError) as err:
        assert_violates(LASSO, "ReachesFour")
    assert str(err.value) == (
        "spec lasso-toy has no invariant or property named 'ReachesFour'; it declares invariants: BelowThree; "
        "liveness properties: ReachesThree, ZeroInfinitelyOften, ZeroLeadsToOne; step properties: NoBigDrop "
        "(and 'Deadlock' asserts a deadlock)")
    with pytest.raises(UsageError) as err:
        assert_violates(DIE_HARD, "Solved")
    assert str(err.value) == (
        "spec die-hard has no invariant or property named 'Solved'; it declares invariants: TypeOk, NotSolved; "
        "liveness properties: none; step properties: none (and 'Deadlock' asserts a deadlock)")


def test_the_old_keyword_invariant_still_works():
    assert assert_violates(DIE_HARD, invariant="NotSolved", length=7).violation.name == "NotSolved"
    assert assert_violates(LASSO, invariant="ReachesThree").violation.kind == "liveness"
    with pytest.raises(UsageError, match="not both"):
        assert_violates(DIE_HARD, "NotSolved", invariant="NotSolved")
