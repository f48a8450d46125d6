"""Ctrl-C and SIGTERM stop a long run cleanly: statistics so far and exit 128+signal-style status."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_with_statistics(sig):
    p = subprocess.Popen(
        [sys.executable, "-m", "modelcheck", "check", "kip320", "--progress", "0.2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    # Wait until the search is really under way (a progress line), then interrupt it.
    deadline = time.time() + 60
    seen_progress = False
    while time.time() < deadline:
        line = p.stderr.readline()
        if "Progress(" in line:
            seen_progress = True
            break
    assert seen_progress
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert "Model checking interrupted; statistics so far:" in out
    assert "distinct states found" in out
    assert "Traceback" not in err
