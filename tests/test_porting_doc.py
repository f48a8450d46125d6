"""docs/porting-from-tla.md runs as printed, and its port gives TLC's counts.

The blocks follow the rules of ``doc_runner``.  The figures the page quotes
(34 distinct states, 94 generated, depth 7 for ``RM = {r1, r2, r3}``) are
those tlaplus/Examples records for TLC on TCommit.cfg; the naive explorer
gives them for the assembled port too, and agrees on other sets of
managers.
"""

from __future__ import annotations

import pytest

import doc_runner
from conftest import ROOT
from modelcheck.spec.constants import build_constants
from naive import naive_explore

DOC = ROOT / "docs" / "porting-from-tla.md"


@pytest.mark.slow
def test_every_block_of_the_porting_page_runs_as_printed(tmp_path):
    assert doc_runner.run_blocks(DOC, tmp_path) == {"python", "sh", "text"}


@pytest.fixture(scope="module")
def tcommit(tmp_path_factory):
    return doc_runner.import_assembled(DOC, "tcommit.py", tmp_path_factory.mktemp("porting"), "porting_tcommit")


def test_the_port_has_the_manifests_counts_by_the_naive_explorer(tcommit):
    c = build_constants(tcommit.SPEC, {"RM": "{r1, r2, r3}"})
    assert naive_explore(tcommit.SPEC, c) == {"distinct": 34, "generated": 94, "depth": 7}


@pytest.mark.parametrize("rm", ["{r1}", "{a, b}", "{r1, r2, r3, r4}"])
def test_the_port_agrees_with_the_published_suites_tcommit(tcommit, rm):
    """The suite's own TCommit port (managers as ints) over as many managers: the same graph's counts."""
    import modelcheck

    n = rm.count(",") + 1
    ours = modelcheck.check(tcommit.SPEC, {"RM": rm})
    theirs = modelcheck.check(str(ROOT / "bench/published/tcommit_examples.py"), {"RM": n})
    assert (ours.distinct_states, ours.states_generated, ours.depth) == (
        theirs.distinct_states, theirs.states_generated, theirs.depth)


def test_the_page_quotes_the_manifests_figures():
    text = DOC.read_text(encoding="utf-8")
    assert "94 states generated, 34 distinct states found" in text and "depth of the complete state graph search is 7" in text
