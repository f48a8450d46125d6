"""The README's table of the producer, controller, reassignment and consumer specs says what the commands do.

Each row's command is run exactly as printed; its exit status, violated
invariant, trace length, distinct states and depth must be the ones the row
states.  (That the numbers are right is the business of the per-spec tests,
which confirm them with the naive explorer; this keeps the README in step.)
"""

from __future__ import annotations

import shlex

import pytest

from conftest import ROOT, run_cli

pytestmark = pytest.mark.slow

SECTION = "## The rest of the seeds"


def _rows() -> list[tuple[str, str, str, str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    section = text[start:text.index("\n## ", start + 1)]
    rows = []
    for line in section.splitlines():
        if line.startswith("| `modelcheck check "):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            assert len(cells) == 5, line
            rows.append((cells[0].strip("`"), *cells[1:]))
    assert len(rows) >= 14, rows
    return rows


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r[0].removeprefix("modelcheck check "))
def test_readme_row(row):
    command, result, distinct, depth, trace = (x.strip() for x in row)
    p = run_cli(*shlex.split(command)[1:], "-q")
    if "violated" in result:
        assert p.returncode == 1, p.stdout[-2000:]
        name = result.split()[0]
        assert f"Invariant {name} is violated" in p.stdout or f"Step property {name} is violated" in p.stdout
        assert f"({trace.split()[0]} states)" in p.stdout
    else:
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        assert f"{distinct} distinct states found" in p.stdout
        assert f"search is {depth}." in p.stdout
