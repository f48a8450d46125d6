"""The HTML page in headless Chromium: it renders steps, lanes and the graph with no console errors."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from modelcheck.counterexamples.regenerate import KNOWN_DIR

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (bin/setup installs Debian's chromium)")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--enable-logging=stderr", "--v=0"]


def chromium(url: str, tmp_path, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(os.listdir(tmp_path))}"
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, url],
                          capture_output=True, text=True, timeout=120)


def console_messages(stderr: str) -> list[str]:
    return re.findall(r":CONSOLE[:(]\d*\)?\]? (.*)", stderr)


def test_console_detection_catches_errors(tmp_path):
    """The check below can fail: a page that throws is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><script>throw new Error("boom")</script></body></html>')
    p = chromium(bad.as_uri(), tmp_path, "--dump-dom")
    assert any("boom" in m for m in console_messages(p.stderr))


def test_hw_data_loss_page_renders_without_console_errors(tmp_path):
    page = os.path.join(KNOWN_DIR, "hw-data-loss", "trace.html")
    url = "file://" + page
    p = chromium(url, tmp_path, "--dump-dom")
    assert p.returncode == 0
    assert console_messages(p.stderr) == []
    dom = p.stdout
    assert 'data-ready="yes"' in dom  # the script ran to the end
    assert "<b>State 9</b>" in dom and "StrongIsr violated" in dom  # the step view selected the last state
    assert "<b>What happens:</b> Before KIP-101: a follower re-truncates to its stale HW" in dom  # known.py's story
    assert dom.count('<li data-i="') == 9  # every step
    assert 'class="lanes"' in dom and "<th>r3</th>" in dom  # the swim lanes
    assert "<svg" in dom and "LeaderIncHighWatermark(r1)" in dom  # the graph
    # Selecting a step selects its lane column and its graph node too.
    assert re.findall(r'<th data-col="(\d+)" class="[^"]*\bsel\b', dom) == ["8"]
    assert re.findall(r'<g id="\w+" class="node sel">\s*<rect class="selbox"[^>]*>(?:</rect>)?\s*<title>(\w+)</title>',
                      dom) == ["s9"]
    assert dom.count('class="selbox"') == 1
    shot = tmp_path / "screenshot.png"
    p = chromium(url, tmp_path, "--window-size=1400,1800", f"--screenshot={shot}")
    assert p.returncode == 0 and shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_link_to_a_step_opens_that_step(tmp_path):
    """trace.html#step=5 shows state 5: its replicas table with the write highlighted, its column, its node."""
    page = os.path.join(KNOWN_DIR, "hw-data-loss", "trace.html")
    p = chromium("file://" + page + "#step=5", tmp_path, "--dump-dom")
    assert p.returncode == 0 and console_messages(p.stderr) == []
    dom = p.stdout
    assert "<b>State 5</b> after <code>LeaderWrite(r1)</code>" in dom
    assert "StrongIsr violated</b></div>" not in dom  # only the last state carries the verdict
    # r1's log and LEO changed in the replicas table of the step view.
    assert re.search(r'<tr><th>r1</th><td class="changed">\[0@e1\]</td><td class="changed">1</td><td>0</td>', dom)
    assert re.findall(r'<th data-col="(\d+)" class="[^"]*\bsel\b', dom) == ["4"]
    assert re.findall(r'<g id="\w+" class="node sel">\s*<rect class="selbox"[^>]*>(?:</rect>)?\s*<title>(\w+)</title>',
                      dom) == ["s5"]
    assert dom.count('class="selbox"') == 1
