"""docs/writing-specs.md runs as printed: every code block is executed, and what it prints is what the doc shows.

The blocks follow the rules of ``doc_runner``.  The numbers the
doc gives (states, depth, trace lengths) are also worked out independently
with the naive explorer (tests/naive.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import doc_runner
from conftest import ROOT
from naive import naive_explore, naive_shortest

DOC = ROOT / "docs" / "writing-specs.md"


@pytest.mark.slow
def test_every_block_of_the_tutorial_runs_as_printed(tmp_path):
    assert doc_runner.run_blocks(DOC, tmp_path) == {"python", "sh", "text"}
    assert (tmp_path / "my_protocol.py").is_file()


@pytest.fixture(scope="module")
def quorum_log(tmp_path_factory):
    """The tutorial's spec, assembled from its ``# file: quorum_log.py`` blocks and imported."""
    return doc_runner.import_assembled(DOC, "quorum_log.py", tmp_path_factory.mktemp("tutorial"),
                                       "tutorial_quorum_log")


def test_the_tutorials_numbers_by_the_naive_explorer(quorum_log):
    """1,734 distinct states, 3,349 generated, depth 15; shortest violations of 7 and 12 states, as the doc says."""
    spec, Config = quorum_log.SPEC, quorum_log.Config
    assert naive_explore(spec, Config()) == {"distinct": 1734, "generated": 3349, "depth": 15}
    assert naive_shortest(spec, Config(Clean=False), "CommittedSurvives") == 7
    assert naive_shortest(spec, Config(CommitRule="any-term", MaxTerm=4), "CommittedSurvives") == 12
    # And Raft's rule keeps the record in that configuration too (no violating state at all).
    assert naive_shortest(spec, Config(MaxTerm=4), "CommittedSurvives") == 0


def test_the_doc_shows_the_numbers_the_naive_explorer_found():
    text = DOC.read_text(encoding="utf-8")
    assert "3,349 states generated, 1,734 distinct states found" in text
    assert "(7 states)" in text and "(12 states)" in text


def test_modelcheck_new_refuses_to_overwrite(tmp_path):
    (tmp_path / "taken.py").write_text("# mine\n")
    p = subprocess.run([sys.executable, "-m", "modelcheck", "new", "taken"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip() == "error: taken.py exists; choose another name or remove it"
    assert (tmp_path / "taken.py").read_text() == "# mine\n"


@pytest.mark.parametrize("name", ["my-protocol", "1abc", "class"])
def test_modelcheck_new_wants_a_python_module_name(tmp_path, name):
    p = subprocess.run([sys.executable, "-m", "modelcheck", "new", name], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2
    assert "is not a Python module name" in p.stderr
    assert list(Path(tmp_path).iterdir()) == []
