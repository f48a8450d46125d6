"""What a search counts, kept the same way by the local, ``--workers`` and Spark engines.

The three engines report the same figures (states generated and distinct, per
action, depth, violations, which ``sometimes`` properties were reached) and
save them in the same checkpoint format, so that any engine resumes any
other's checkpoint and a resumed run reports exactly what an uninterrupted one
would.  That only holds while they read and write those figures identically;
this base class is the one place where they do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcheck.search.checkpoint import CheckpointIdentity
from modelcheck.spec.constants import constants_to_dict
from modelcheck.model.bound import BoundModel
from modelcheck.output.results import CheckResult, Violation
from modelcheck.search.verdict import summarize
from modelcheck.search.visited import ParentRecords

COUNTER_FIELDS = ("generated", "act_generated", "act_distinct", "sometimes_reached", "violations", "depth")
"""The counters a checkpoint boundary holds (a subset of ``checkpoint.BOUNDARY_FIELDS``)."""


def checkpoint_identity(model: BoundModel) -> CheckpointIdentity:
    """What a checkpoint of this model belongs to: the same for every engine and worker count."""
    return CheckpointIdentity(
        spec=model.spec.name,
        constants=tuple(sorted(constants_to_dict(model.c).items())),
        options=model.options.identity_options(),
    )


class SearchCounters:
    """The counters of one run and the parent records that turn a fingerprint into a trace."""

    engine = "local"
    """The engine's name in reports (``--workers`` reports as the local engine: same search, same result)."""

    def __init__(self, model: BoundModel) -> None:
        self.model = model
        n = len(model.actions)
        self.act_generated = [0] * n
        self.act_distinct = [0] * n
        self.violations: list[Violation] = []
        self.violated_names: set[str] = set()
        self.sometimes_reached = {p.name: False for p in model.sometimes}
        self.generated = 0
        self.distinct = 0
        self.depth = 0
        self.stopped_by: str | None = None
        self.queue_left = 0
        self.parents = ParentRecords()
        """Per level: fingerprints in discovery order and the index of each one's parent in the level before."""
        self.elapsed_before = 0.0
        """Seconds spent before this process took over (by the runs a resumed checkpoint came from)."""
        self.checkpoints_written = 0

    def counters(self) -> dict[str, Any]:
        """The counters as a checkpoint boundary stores them (copies: the search goes on changing its own)."""
        return {
            "generated": self.generated,
            "act_generated": list(self.act_generated),
            "act_distinct": list(self.act_distinct),
            "sometimes_reached": dict(self.sometimes_reached),
            "violations": list(self.violations),
            "depth": self.depth,
        }

    def restore_counters(self, snap: dict[str, Any]) -> None:
        """Take the counters of a boundary (a checkpoint's, or one kept to roll a level back)."""
        self.generated = snap["generated"]
        self.act_generated = list(snap["act_generated"])
        self.act_distinct = list(snap["act_distinct"])
        self.sometimes_reached = dict(snap["sometimes_reached"])
        self.violations = list(snap["violations"])
        self.violated_names = {v.name for v in self.violations}
        self.depth = snap["depth"]

    def restore_parents(self, snap: dict[str, Any]) -> None:
        """Take a checkpoint's parent records, as the arrays :class:`ParentRecords` keeps."""
        self.parents.fps = [np.asarray(a, dtype=np.int64) for a in snap["parent_fps"]]
        self.parents.parent_idx = [np.asarray(a, dtype=np.int32) for a in snap["parent_idx"]]

    def result(self, seconds: float) -> CheckResult:
        """The report of the run so far."""
        return summarize(
            self.model, engine=self.engine, seconds=seconds, violations=self.violations, stopped_by=self.stopped_by,
            distinct=self.distinct, generated=self.generated, depth=self.depth, queue_left=self.queue_left,
            act_generated=self.act_generated, act_distinct=self.act_distinct,
            sometimes_reached=self.sometimes_reached,
        )
