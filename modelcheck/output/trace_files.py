"""Writing a check's counterexamples to a directory: ``trace.json`` and its renderings, one set per violation."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:  # for annotations only: results.py imports this module (CheckResult.write_trace)
    from modelcheck.output.results import Violation

TRACE_FILE = re.compile(r"trace(-[0-9]+)?\.(json|txt|dot|svg|seq\.svg|html|png)")
"""The names ``write_traces`` gives its files: anything else in the directory is the user's."""


def write_traces(spec: Any, consts: Any, violations: Sequence[Violation], directory: str) -> list[str]:
    """``DIR/trace.*`` for the first violation, ``DIR/trace-2.*``... for the others; the paths written.

    Trace files of an earlier run that this run does not replace (a
    ``trace-3.*`` when this run found two violations) are removed, so that
    the directory never mixes two runs.
    """
    from modelcheck.counterexamples.render import write_outputs
    from modelcheck.counterexamples.tracefile import document_from_violation

    written: list[str] = []
    for i, v in enumerate(violations, start=1):
        stem = "trace" if i == 1 else f"trace-{i}"
        written += write_outputs(document_from_violation(spec, consts, v), directory, stem=stem)
    mine = {os.path.basename(p) for p in written}
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if TRACE_FILE.fullmatch(name) and name not in mine and os.path.isfile(path) and not os.path.islink(path):
            os.unlink(path)
    return written
