"""Spec bugs that would make a search silently wrong are caught before it starts."""

from __future__ import annotations

import pytest

from conftest import MODELS, run_cli


def test_non_deterministic_actions_are_an_error():
    p = run_cli("check", str(MODELS / "broken" / "nondeterministic.py"))
    assert p.returncode == 2
    assert "actions are not deterministic" in p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.slow
def test_symmetry_with_an_asymmetric_invariant_warns_unsound():
    spec = str(MODELS / "broken" / "asymmetric_invariant.py")
    p = run_cli("check", spec, "--symmetry", "-q")
    assert "--symmetry is unsound for FirstNeverBumped" in p.stderr
    # Without symmetry there is nothing to warn about, and the violation is found.
    p = run_cli("check", spec, "-q")
    assert p.returncode == 1 and "unsound" not in p.stderr


def test_kafka_invariants_are_symmetric():
    p = run_cli("check", "kip320", "--const", "Replicas=2", "--symmetry", "-q",
                "--invariant", "StrongIsr", "--invariant", "WeakIsr", "--invariant", "TypeOk")
    assert p.returncode == 0
    assert "unsound" not in p.stderr


@pytest.mark.parametrize("where, what", [("constant", "the constant RM iterates"),
                                         ("state", "a frozenset iterates")])
@pytest.mark.parametrize("seed", ["1", "2", "3", "4"])
def test_an_answer_that_follows_str_hashing_is_refused_in_every_process(where, what, seed):
    """Python iterates a set of strs in an order its string hashing decides, which changes per process: a spec
    that follows it would give one answer in one run and another in the next (or in its trace's replay)."""
    p = run_cli("check", str(MODELS / "broken" / "str_set_order.py"), "--const", f"Where={where}", "-q",
                env={"PYTHONHASHSEED": seed})
    assert p.returncode == 2, p.stdout + p.stderr
    lines = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and f"depends on the order in which {what}" in lines[0], p.stderr
