"""Shared test helpers: paths, and running the CLI as a user does (a subprocess)."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "models"


def run_cli(*args: str, timeout: float = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``modelcheck ARGS`` in a fresh interpreter, as a user would from a shell."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "modelcheck", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=full_env,
    )


@pytest.fixture
def cli():
    return run_cli


def json_report(p: subprocess.CompletedProcess, *also_drop: str) -> dict:
    """The ``--json`` report of a run without its timing, which is all two identical runs may differ in.

    ``also_drop`` names further keys to ignore (``engine`` when comparing engines).
    """
    assert p.stdout.strip(), p.stderr[-3000:]
    data = json.loads(p.stdout)
    for key in ("seconds", "states_per_second", *also_drop):
        data.pop(key, None)
    return data


def checkpoint_level(directory) -> int:
    """The level of the checkpoint in ``directory``, or -1 while there is none (or it is being written)."""
    from modelcheck.checkpoint import FILE_NAME

    try:
        with open(os.path.join(directory, FILE_NAME), "rb") as f:
            return pickle.load(f)["payload"]["level"]
    except (OSError, EOFError, pickle.UnpicklingError):
        return -1
