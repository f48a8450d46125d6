"""The memo tables on a Spark executor: one set per Python worker and run, learnt where the worker meets a branch.

An executor's level task expands its shard's new states with the same tables
and C loop as the local engine (:meth:`modelcheck.memo.backend.MemoBackend.expand_rows`),
under the same rules: the spec's code is reviewed first, sampled parents are
checked against the spec's own code, and the tables stand aside where they
cannot be trusted or learn too much.  Each Python worker learns its own
tables as it meets branches (they are not shipped from the driver: learning
is a few thousand evaluations a run where the tables pay, and a worker's
tables would have to be checked again wherever they arrived).  Where the
tables stand aside, that worker runs the spec's own code for the rest of the
run, and its reports say why; the others go on.
"""

# modelcheck: compile

from __future__ import annotations

from functools import lru_cache
from typing import Any

from modelcheck.model.bound import BoundModel
from modelcheck.search.frontier_rows import plain_shape


class ExecutorTables:
    """A Python worker's tables for one run, or why it runs the spec's own code."""

    def __init__(self, model: BoundModel, verify: str, seed: int | None, may_give_up: bool, share: float) -> None:
        from modelcheck.memo.backend import MemoBackend, MemoUnsupported, build_reason

        self.backend: Any = None
        self.shape: Any = None
        self.reason: str | None = build_reason()
        self.level: int | None = None
        """The level from which this worker ran the spec's own code (None: from the start, or never)."""
        if self.reason is not None:
            return
        try:
            self.backend = MemoBackend(model, verify=verify, verify_seed=seed, may_give_up=may_give_up, share=share)
            self.shape = plain_shape(self.backend.layout.root)
        except MemoUnsupported as why:
            self.reason = why.reason
        except Exception:  # noqa: BLE001 - the spec fails in its first states: its own code reports it
            self.reason = "the spec fails in its first states"

    def stand_aside(self, reason: str, level: int | None) -> None:
        """Run the spec's own code from now on in this worker."""
        if self.backend is not None:
            self.backend.close()
        self.backend = None
        self.reason = reason
        self.level = level

    def status(self) -> tuple[bool, str | None, int | None, str | None]:
        """(on the tables, why not, from which level, why the orbit trees stood aside) for the run's report.

        The last is None where the trees took the orbits, where there is no symmetry, where they stand
        aside by design (a reason of the symmetry's kind, which the driver's own tables report), or where
        this worker is off the tables altogether."""
        trees = getattr(self.backend, "orbits", None)
        orbit_why = trees.why if trees is not None and not trees.by_design else None
        return self.backend is not None, self.reason, self.level, orbit_why


@lru_cache(maxsize=4)
def executor_tables(model: BoundModel, verify: str, seed: int | None, may_give_up: bool,
                    share: float) -> ExecutorTables:
    """The worker's tables for this model (built once per Python worker, as the model is); ``share`` is the
    part of the run's successors a worker expands (whether learning pays is judged on the run's)."""
    return ExecutorTables(model, verify, seed, may_give_up, share)
