"""Options, results and traces of a check: frozen attrs records.

These are the engine's only outputs.  They know nothing of Kafka and nothing of
how they will be printed; the CLI, the JSON output, the Spark engine and the
renderers all read the same records.
"""

from __future__ import annotations

from typing import Any

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
    """Stop after this many distinct states."""
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

    def identity_options(self) -> tuple:
        """The options that change what a search explores; a checkpoint only resumes with equal ones."""
        return (
            ("invariants", self.invariants),
            ("check_deadlock", self.check_deadlock),
            ("max_depth", self.max_depth),
            ("continue", self.continue_after_violation),
            ("symmetry", self.symmetry),
        )


@attrs.frozen
class TraceStep:
    """One step of a trace: the action that led here (None for an initial state) and the state."""

    action: str | None
    """The action label as users read it, e.g. ``LeaderWrite(r1)``."""
    action_name: str | None
    """The bare action name, e.g. ``LeaderWrite``."""
    params: dict[str, str]
    """The action's parameters by name, as shown."""
    state: Any
    """The canonical state itself."""


@attrs.frozen
class Violation:
    """A property that failed, with the shortest trace that shows it."""

    kind: str
    """``invariant`` or ``deadlock``."""
    name: str
    """The invariant's name (``Deadlock`` for a deadlock)."""
    description: str
    """What the invariant promises, so a trace reader knows what broke."""
    trace: tuple[TraceStep, ...]
    """States from an initial state to the violating one, inclusive."""


@attrs.frozen
class ActionStats:
    """TLC-style coverage of one action."""

    name: str
    generated: int
    """Successors this action produced, duplicates included."""
    distinct: int
    """New distinct states first reached through this action."""


@attrs.frozen
class CheckResult:
    """Everything a check found, in the shape TLC reports it."""

    spec: str
    constants: dict[str, Any]
    engine: str
    result: str
    """``holds``, ``violated``, ``deadlock``, ``incomplete`` (a bound or budget stopped it) or ``interrupted``."""
    distinct_states: int
    states_generated: int
    """Successors computed, duplicates and initial states included (TLC's count)."""
    depth: int
    """BFS levels, the initial states being level 1 (TLC's depth)."""
    seconds: float
    invariants: tuple[str, ...]
    violations: tuple[Violation, ...] = ()
    action_stats: tuple[ActionStats, ...] = ()
    queue_left: int = 0
    """States still unexplored when the run stopped (0 for a complete run)."""
    symmetry: bool = False
    sometimes_reached: dict[str, bool] = attrs.field(factory=dict)
    warnings: tuple[str, ...] = ()
    stopped_by: str | None = None
    """Why an incomplete run stopped (``max-depth``, ``max-states``, ``interrupt``...)."""

    @property
    def collision_probability(self) -> float:
        from .fingerprint import collision_probability

        return collision_probability(self.distinct_states, self.states_generated)

    @property
    def states_per_second(self) -> float:
        return self.states_generated / self.seconds if self.seconds > 0 else 0.0

    @property
    def exit_code(self) -> int:
        """0 when everything checked holds, 1 for a violation or deadlock."""
        return 1 if self.result in ("violated", "deadlock") else 0
