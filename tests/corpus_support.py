"""What the corpus tests share: which path a run took, its note, and the summary two paths must agree on.

Each corpus (``tests/memo_corpus*/``) holds small specs written as a user
would write them, to bait one fast path; its test module runs each spec on
the default path and on the spec's own code and compares both with an
independent oracle.  The oracles differ per corpus; how a run is read does
not, and lives here.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from conftest import INTERPRETED
from modelcheck.errors import UsageError

NOTE_PREFIXES = ("the memo tables are not used:", "the memo tables stopped")
"""How the one line that says why a run left the memo tables begins."""


def on_tables(r: Any) -> bool:
    """Whether a run computed its successors through the memo tables (its ``--json`` "memo" report says so)."""
    return (r.engine_report or {}).get("successors") == "memo tables"


def summary(r: Any, sometimes: bool = False) -> dict:
    """What two paths must agree on: verdict, counts, depth, the violated name and its trace's length."""
    v = r.violation
    out = {"result": r.result, "distinct": r.distinct_states, "generated": r.states_generated,
           "depth": r.depth, "violated": v.name if v else None, "trace": len(v.trace) if v else 0}
    if sometimes:
        out["sometimes"] = dict(r.sometimes_reached)
    return out


def path_notes(r: Any) -> list[str]:
    """The lines saying why a run left the memo tables."""
    return [w for w in r.warnings if w.startswith(NOTE_PREFIXES)]


def path_note(r: Any) -> str:
    """Which path a default run took, as the report's one line (for a test's recorded properties)."""
    if on_tables(r):
        return "fast path (memo tables)"
    notes = path_notes(r)
    return "spec's own code: " + (notes[0] if notes else r.successors_why or "NO NOTE")


def check_path_note(r: Any, insist: Callable[[], Any] | None = None, refused_always: bool = False) -> None:
    """A default run that did not use the tables says why in exactly one note (none where the user asked for
    the interpreted build).  ``insist`` reruns the check with ``memo=True``, which must be refused where the
    tables were never used (``refused_always``: wherever the default run left them)."""
    if on_tables(r):
        return
    notes = path_notes(r)
    if INTERPRETED:  # MODELCHECK_INTERPRETED: the tables stand aside as the user asked, and the check says nothing
        assert notes == [], r.warnings
        return
    assert len(notes) == 1 and "\n" not in notes[0], (
        f"the default run did not use the memo tables but says why in {len(notes)} notes: {r.warnings}")
    if insist is not None and (refused_always or notes[0].startswith("the memo tables are not used:")):
        with pytest.raises(UsageError):
            insisted = insist()
            print(f"memo=True ran {path_note(insisted)}")


def expect_disagreement(request: Any, disagreements: dict[str, str]) -> None:
    """Mark a corpus spec on which the default run is known to answer otherwise than the spec's own code as
    a strict expected failure: the test fails once the disagreement is gone.  Not where the tables stand aside
    for the interpreted build: there the default run is the spec's own code, and agrees."""
    if request.param.stem in disagreements and not INTERPRETED:
        request.applymarker(pytest.mark.xfail(strict=True, reason=disagreements[request.param.stem]))
