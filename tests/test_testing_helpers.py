"""modelcheck.testing: assert_holds and assert_violates, as a user's test suite calls them.

The expected counts and trace lengths come from the naive explorer
(tests/naive.py) or from the models' known results (TCommit's 3**n + 2**n - 1
states, Die Hard's 7-state shortest solution), never from the checker.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import MODELS
from modelcheck.errors import SpecRuntimeError
from modelcheck.spec.loader import load_spec
from modelcheck.testing import assert_holds, assert_violates
from naive import naive_explore, naive_shortest, naive_terminal_states

DIE_HARD = str(MODELS / "die_hard.py")
TCOMMIT = str(MODELS / "tcommit.py")


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
