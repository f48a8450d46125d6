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
