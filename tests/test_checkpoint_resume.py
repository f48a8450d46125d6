"""SIGKILL a checkpointing run at several points, resume, and get exactly the uninterrupted result."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, checkpoint_leftovers, json_report as result_of, kill_once_checkpointed, run_cli
from modelcheck.search.checkpoint import has_checkpoint

pytestmark = pytest.mark.slow


def kill_at_level(args: list[str], directory, level: int) -> None:
    """Start a checkpointing run and SIGKILL it once a checkpoint of ``level`` is on disk."""
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", *args, "--checkpoint", str(directory),
                          "--checkpoint-every", "0", "-q", "--json"],
                         cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_once_checkpointed(p, directory, level)


CASES = [
    # A run that holds (22 levels) and one that finds the 9-state HW data-loss trace.
    (["check", "kip320", "--const", "MaxLeaderEpoch=1"], [2, 9, 15]),
    (["check", "truncate-to-hw"], [1, 4, 6]),
]


@pytest.mark.parametrize("args,levels", CASES, ids=["kip320-holds", "truncate-to-hw-violated"])
def test_resume_after_sigkill_gives_the_uninterrupted_result(tmp_path, args, levels):
    expected = result_of(run_cli(*args, "-q", "--json"))
    for level in levels:
        directory = tmp_path / f"ck{level}"
        kill_at_level(args, directory, level)
        # The kill may land in the middle of writing the next checkpoint: its temporary file may
        # be there, but the checkpoint itself is intact, and resuming removes the leftover.
        resumed = run_cli(*args, "-q", "--json", "--resume", str(directory))
        assert result_of(resumed) == expected, f"killed at level {level}"
        assert checkpoint_leftovers(directory) == [], "a temporary file was left behind"
        assert resumed.returncode == (1 if expected["result"] == "violated" else 0)


def test_interrupt_writes_a_final_checkpoint_that_resumes(tmp_path):
    # The published model (seconds): MaxLeaderEpoch=1 now ends in half a second, before the interrupt.
    args = ["check", "kip320"]
    expected = result_of(run_cli(*args, "-q", "--json"))
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", *args, "--checkpoint", str(tmp_path),
                          "--checkpoint-every", "3600", "--progress", "0.1"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while "Progress(" not in p.stderr.readline():
        pass
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert f"Checkpoint written to {tmp_path}" in err
    resumed = run_cli(*args, "-q", "--json", "--resume", str(tmp_path))
    assert result_of(resumed) == expected


def test_resume_refuses_another_spec_or_constants(tmp_path):
    kill_at_level(["check", "kip320", "--const", "MaxLeaderEpoch=1"], tmp_path, 3)
    p = run_cli("check", "kip320", "--const", "MaxLeaderEpoch=2", "--resume", str(tmp_path))
    assert p.returncode == 2
    assert "cannot resume from" in p.stderr and "constants" in p.stderr
    p = run_cli("check", "kip279", "--const", "MaxLeaderEpoch=1", "--resume", str(tmp_path))
    assert p.returncode == 2 and "the checkpoint is for spec kip320, this run has kip279" in p.stderr
    p = run_cli("check", "kip320", "--const", "MaxLeaderEpoch=1", "--symmetry", "--resume", str(tmp_path))
    assert p.returncode == 2 and "options" in p.stderr


def test_max_memory_stops_with_a_checkpoint(tmp_path):
    p = run_cli("check", "kip320", "--max-memory", "1", "--checkpoint", str(tmp_path), "-q")
    assert p.returncode == 3
    assert "--max-memory budget was reached" in p.stdout
    assert has_checkpoint(str(tmp_path))


def test_a_checkpointing_run_stays_on_the_memo_tables(tmp_path):
    p = run_cli("check", "kip320", "--const", "MaxLeaderEpoch=1", "--checkpoint", str(tmp_path),
                "--checkpoint-every", "0", "--json", "-q")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["successors"] == {"path": "memo tables", "why": None}


@pytest.mark.parametrize("written, resumed", [((), ("--no-memo",)), (("--no-memo",), ())],
                         ids=["tables-to-spec-code", "spec-code-to-tables"])
def test_a_checkpoint_resumes_on_the_other_successor_path(tmp_path, written, resumed):
    """A checkpoint holds states and their own fingerprints, whichever path computed them: one written on the
    memo tables resumes on the spec's own code, and one written there resumes on the tables."""
    args = ["check", "kip320", "--const", "MaxLeaderEpoch=1"]
    expected = result_of(run_cli(*args, "-q", "--json", "--no-memo"))
    kill_at_level([*args, *written], tmp_path, 9)
    p = run_cli(*args, *resumed, "-q", "--json", "--resume", str(tmp_path))
    assert result_of(p) == expected
    assert json.loads(p.stdout)["successors"]["path"] == ("the spec's own code" if resumed else "memo tables")
