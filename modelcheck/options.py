"""How to run one check, and which options make no sense together.

:class:`CheckOptions` is the engine-independent part of a check's settings
(what the command line and :func:`modelcheck.check` pass to every search).

``check`` runs one of three searches: the local exhaustive BFS (one process or
``--workers``), the same BFS on Spark, or ``--simulate``'s random walks.  Each
reads only some options; an option the chosen search would ignore is almost
always a mistake in the command (``--workers 4 --engine spark`` believing it
sets Spark's parallelism, ``--seed 7`` without ``--simulate`` believing the
check is randomised), so it is refused with a line that says what to do.
"""

from __future__ import annotations

from typing import Mapping

import attrs


@attrs.frozen
class CheckOptions:
    """How to run one check (the engine-independent part of the command line)."""

    invariants: tuple[str, ...] | None = None
    """Invariants to check; None means the spec's defaults."""
    check_deadlock: bool | None = None
    """Report states without successors; None means the spec's choice (TLC: on)."""
    max_depth: int | None = None
    """Stop exploring beyond this many BFS levels (initial states are level 1)."""
    max_states: int | None = None
    """Stop once this many distinct states are found (the parent that reaches it keeps all its successors)."""
    continue_after_violation: bool = False
    """Keep exploring after a violation and report every violated invariant."""
    symmetry: bool = False
    """Reduce by the spec's symmetry (off by default, as in TLC)."""
    progress_seconds: float = 5.0
    """How often a progress line is printed on long runs."""
    checkpoint_dir: str | None = None
    """Write checkpoints to this directory (at BFS level boundaries)."""
    checkpoint_every: float = 600.0
    """Seconds between checkpoints; one is also written when the run is interrupted."""
    resume: str | None = None
    """Continue from the checkpoint in this directory."""
    max_memory_mb: int | None = None
    """Stop (with a checkpoint, if configured) before the process's memory exceeds this."""
    properties: tuple[str, ...] = ()
    """Liveness and step properties to check (by name); liveness needs the whole behaviour graph."""
    fairness: str = "spec"
    """The fairness liveness properties are checked under: ``spec`` (the spec's own) or ``none`` (no
    fairness at all, so that a property that holds only thanks to fairness shows its lasso)."""

    def identity_options(self) -> tuple:
        """The options that change what a search explores or decides; a checkpoint only resumes with equal ones.

        ``fairness`` is listed only when it is not the spec's, so checkpoints written before that option
        existed (all under the spec's fairness) still resume.
        """
        return (
            ("invariants", self.invariants),
            ("check_deadlock", self.check_deadlock),
            ("max_depth", self.max_depth),
            ("continue", self.continue_after_violation),
            ("symmetry", self.symmetry),
            ("properties", self.properties),
        ) + ((("fairness", self.fairness),) if self.fairness != "spec" else ())


EXHAUSTIVE_ONLY = {
    "max_states": "--max-states",
    "checkpoint_dir": "--checkpoint",
    "checkpoint_every": "--checkpoint-every",
    "resume": "--resume",
    "max_memory_mb": "--max-memory",
    "partitions": "--partitions",
    "master": "--master",
}
"""Options of the exhaustive search (either engine) that random walks have no use for."""

SIMULATE_ONLY = {"seed": "--seed", "walks": "--walks", "walk_seconds": "--walk-seconds"}
"""Options that only steer ``--simulate``."""


def option_conflict(given: Mapping[str, object], *, simulate: bool, engine: str) -> str | None:
    """The message for the first option the chosen search would ignore, or None.

    ``given`` maps the parameter names the user set explicitly (not left at
    their defaults) to their values; ``engine`` is ``"spark"`` also when only
    ``--master`` was given.
    """
    if simulate:
        if engine == "spark" and "master" not in given:
            return "--engine spark does not apply to --simulate: random walks run in this process"
        if given.get("workers", 1) != 1:
            return "--workers does not apply to --simulate: random walks run in this process"
        for name, flag in EXHAUSTIVE_ONLY.items():
            if name in given:
                return f"{flag} does not apply to --simulate (it steers the exhaustive search)"
        return None
    for name, flag in SIMULATE_ONLY.items():
        if name in given:
            return f"{flag} applies only with --simulate"
    if engine == "spark":
        if given.get("workers", 1) != 1:
            return ("--workers is for the local engine; on Spark, parallelism comes from --master "
                    "(e.g. local[2] or spark://host:7077) and --partitions")
        if "max_memory_mb" in given:
            return "--max-memory is supported by the local engine only (Spark executors have their own limits)"
    elif "partitions" in given:
        return "--partitions applies to the Spark engine only (add --engine spark or --master URL)"
    return None
