"""bench/decompose.py, the time breakdown, on a small model: it runs, and its cross-check holds.

Only behaviour is asserted (counts from the reference table, error lines); the
timings it prints are for people, not tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "decompose.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_decompose_reports_every_part_with_the_reference_counts() -> None:
    out = run("--spec", "kip320", "--const", "Replicas=2", "--rounds", "1")
    assert out.returncode == 0, out.stderr
    # Kip320 with two replicas: 5,973 distinct states, 11,839 generated (TLC, reference table);
    # the successor lists exclude the initial state, which TLC counts as generated.
    assert "5,973 reachable states, 11,838 successors" in out.stdout
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("round 1:"))
    for part in ("expand_into", "hash", "invariants", "engine only", "full"):
        assert f"{part} " in line
    assert "(5,973 distinct, 11,839 generated)" in line


def test_decompose_bad_input_is_one_line() -> None:
    out = run("--spec", "nosuch")
    assert out.returncode == 1
    assert out.stderr.strip().startswith("error: unknown spec 'nosuch'")
    assert "Traceback" not in out.stderr
    out = run("--const", "Replicas=x")
    assert out.returncode == 1 and out.stderr.strip() == "error: constant Replicas must be an integer, got 'x'"


def test_decompose_by_action_lists_every_action_with_its_calls() -> None:
    out = run("--spec", "kip320", "--const", "Replicas=2", "--rounds", "1", "--by-action")
    assert out.returncode == 0, out.stderr
    lines = {ln.split(":")[0].strip(): ln for ln in out.stdout.splitlines() if ln.startswith("  ")}
    # Kip320's nine actions; each is called once per binding on each of the 5,973 reachable states
    # (reference table): 2 bindings for one replica parameter, 4 for two, with Replicas=2.
    one = ("ControllerElectLeader", "ControllerShrinkIsr", "BecomeLeader", "LeaderWrite", "FencedLeaderIncHighWatermark")
    two = ("FencedLeaderExpandIsr", "FencedLeaderShrinkIsr", "FencedBecomeFollowerAndTruncate", "FencedFollowerFetch")
    assert set(lines) == set(one + two)
    for name in one:
        assert "(2 bindings; " in lines[name] and " of 11,946 calls returned successors)" in lines[name]
    for name in two:
        assert "(4 bindings; " in lines[name] and " of 23,892 calls returned successors)" in lines[name]
    assert "sum of the actions' costs: " in out.stdout
