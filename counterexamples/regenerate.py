"""Regenerate the checked-in renderings of the known bugs (``modelcheck render-known``)."""

from __future__ import annotations

import os

from modelcheck.counterexamples.dot import graphviz_version
from modelcheck.counterexamples.known import KNOWN, KnownTrace
from modelcheck.counterexamples.render import write_outputs
from modelcheck.counterexamples.tracefile import document_from_violation
from modelcheck.errors import ModelCheckError

KNOWN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known")
GRAPHVIZ_STAMP = "graphviz-version.txt"
"""Which Graphviz drew the checked-in SVGs: the test compares SVG bytes only under the same one."""
FORMATS = ("json", "text", "dot", "svg", "seq-svg", "html")


def known_document(entry: KnownTrace) -> dict:
    """Run the check behind a known trace and return its trace document."""
    from modelcheck.api import check

    result = check(entry.spec, dict(entry.constants), invariants=[entry.invariant])
    if result.violation is None:
        raise ModelCheckError(f"known trace {entry.name}: {entry.spec} no longer violates {entry.invariant}")
    return document_from_violation(result.spec_object, result.constants_object, result.violation, entry.story)


def regenerate(out_dir: str = KNOWN_DIR, formats: tuple[str, ...] = FORMATS) -> list[str]:
    """Write every known trace under ``out_dir/<name>/``; returns the files written."""
    written = []
    for entry in KNOWN:
        written += write_outputs(known_document(entry), os.path.join(out_dir, entry.name), formats)
    version = graphviz_version()
    if version and "svg" in formats:
        stamp = os.path.join(out_dir, GRAPHVIZ_STAMP)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(version + "\n")
        written.append(stamp)
    return written
