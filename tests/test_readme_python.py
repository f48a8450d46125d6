"""The README's Python example runs as printed and prints what its comments say."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


def _python_block() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## From Python"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_python_example_runs_as_printed(tmp_path):
    code = _python_block()
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    lines = p.stdout.splitlines()
    assert lines[0] == "holds 5973 11839 18"  # TLC's counts for Kip320 with two replicas
    assert lines[1] == "violated 9"  # the HW data-loss trace: 9 states
    assert re.fullmatch(r"\w+\(.*\) \{.*\}", lines[2]), lines[2]  # an action label, then its parameters
    written = eval(lines[4])  # noqa: S307 - a list of paths printed by our own example
    assert "out/trace.json" in written and (tmp_path / "out" / "trace.json").is_file()
    assert lines[5] == "StrongIsr"
