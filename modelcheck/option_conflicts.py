"""Which ``check`` options make no sense together, so that none is silently ignored.

``check`` runs one of three searches: the local exhaustive BFS (one process or
``--workers``), the same BFS on Spark, or ``--simulate``'s random walks.  Each
reads only some options; an option the chosen search would ignore is almost
always a mistake in the command (``--workers 4 --engine spark`` believing it
sets Spark's parallelism, ``--seed 7`` without ``--simulate`` believing the
check is randomised), so it is refused with a line that says what to do.
"""

from __future__ import annotations

from typing import Mapping

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
