"""Writing a check's counterexamples to a directory: ``trace.json`` and its renderings, one set per violation."""

from __future__ import annotations

from typing import Any, Sequence

from modelcheck.output.results import Violation


def write_traces(spec: Any, consts: Any, violations: Sequence[Violation], directory: str) -> list[str]:
    """``DIR/trace.*`` for the first violation, ``DIR/trace-2.*``... for the others; the paths written."""
    from modelcheck.counterexamples.render import write_outputs
    from modelcheck.counterexamples.tracefile import document_from_violation

    written: list[str] = []
    for i, v in enumerate(violations, start=1):
        stem = "trace" if i == 1 else f"trace-{i}"
        written += write_outputs(document_from_violation(spec, consts, v), directory, stem=stem)
    return written
