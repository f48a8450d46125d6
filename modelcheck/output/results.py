"""Results and traces of a check: frozen attrs records.

These are the search's only outputs.  They know nothing of Kafka and nothing of
how they will be printed; the CLI, the JSON output, the Spark engine and the
renderers all read the same records.
"""

from __future__ import annotations

from typing import Any

import attrs

from modelcheck.model.trace import TraceStep  # noqa: F401 - part of the results' vocabulary


@attrs.frozen
class Violation:
    """A property that failed, with the shortest trace that shows it."""

    kind: str
    """``invariant``, ``deadlock``, ``step`` (a step property) or ``liveness``."""
    name: str
    """The property's name (``Deadlock`` for a deadlock)."""
    description: str
    """What the property promises, so a trace reader knows what broke."""
    trace: tuple[TraceStep, ...]
    """States from an initial state to the violating one, inclusive (for ``step``: the offending step is the
    last; for ``liveness``: the stem and one round of the loop)."""
    loop_start: int | None = None
    """``liveness`` only: the index in ``trace`` of the state the last state steps back to (the loop repeats
    forever); None when the behaviour ends stuttering forever in its last state."""
    loop_action: str | None = None
    """``liveness`` with a loop: the action instance of the step from the last state back to ``loop_start``."""


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
    fairness: str = "spec"
    """The fairness liveness properties were checked under: the spec's, or ``none`` (``--fairness``)."""
    sometimes_reached: dict[str, bool] = attrs.field(factory=dict)
    warnings: tuple[str, ...] = ()
    stopped_by: str | None = None
    """Why an incomplete run stopped (``max-depth``, ``max-states``, ``interrupt``...)."""
    checkpoint: str | None = None
    """The directory holding a checkpoint this run can be resumed from (written or resumed by it), if any."""
    checkpoint_level: int | None = None
    """The level boundary that checkpoint holds."""
    checkpoint_note: str | None = None
    """Why a checkpoint asked for could not be written, when it could not."""
    properties: tuple[str, ...] = ()
    """The liveness and step properties checked (``--property``)."""
    liveness_seconds: float = 0.0
    """Of ``seconds``, the time spent deciding the liveness properties after the search."""
    graph_edges: int = 0
    """Transitions recorded for liveness (stuttering steps left out)."""
    graph_bytes: int = 0
    """Bytes the recorded transitions and the states' predicate masks took (memory and disk)."""
    graph_edge_bytes: int = 0
    """Of ``graph_bytes``, the transitions'."""
    engine_report: dict[str, Any] | None = None
    """What the engine reports about itself (Spark: the executors' shards, the driver's peak memory)."""
    successors: str = "the spec's own code"
    """What computed the successors: ``memo tables`` or ``the spec's own code``."""
    successors_why: str | None = None
    """Why the spec's own code did, where the memo tables could not or were not asked to (None: they did)."""
    parallelism: str = "threads"
    """How the search ran side by side: ``threads`` (of this process), ``processes`` or ``spark executors``."""
    parallel_count: int | None = 1
    """How many threads or processes (None for Spark executors, whose number Spark decides)."""
    spec_code: str | None = None
    """How the spec's module ran: ``compiled`` or ``interpreted (why)``; None when that is not known."""
    spec_object: Any = attrs.field(default=None, eq=False, repr=False)
    """The :class:`~modelcheck.spec.declare.Spec` checked, for :meth:`to_json` and :meth:`write_trace`."""
    constants_object: Any = attrs.field(default=None, eq=False, repr=False)
    """The constants as the spec declares them."""

    @property
    def run_path(self) -> str:
        """What computed the successors and how many ran side by side, as the check's header says it."""
        return run_path(self.successors, self.successors_why, self.parallelism, self.parallel_count,
                        self.spec_code)

    @property
    def violation(self) -> Violation | None:
        """The first violation found (the one with the shortest trace), or None."""
        return self.violations[0] if self.violations else None

    def to_json(self) -> dict[str, Any]:
        """The object ``modelcheck check --json`` prints (field names are only ever added)."""
        from modelcheck.output.json_form import result_to_json

        return result_to_json(self._spec(), self.constants_object, self)

    def write_trace(self, directory: str) -> list[str]:
        """Write each violation's trace file and renderings to ``directory``, as ``check --out`` does.

        ``trace.json`` (with ``.txt``, ``.dot``, ``.svg``, ``.html``) for the
        first violation, ``trace-2.*``... for the others; returns the paths.
        """
        # A thin delegate, kept because the README's Python API shows r.write_trace(); the writing is trace_files'.
        from modelcheck.output.trace_files import write_traces

        return write_traces(self._spec(), self.constants_object, self.violations, directory)

    def _spec(self) -> Any:
        if self.spec_object is None:
            raise ValueError("this result carries no spec (it was not made by modelcheck.check)")
        return self.spec_object

    @property
    def collision_probability(self) -> float:
        from modelcheck.model.fingerprint import collision_probability

        return collision_probability(self.distinct_states, self.states_generated)

    @property
    def states_per_second(self) -> float:
        return self.states_generated / self.seconds if self.seconds > 0 else 0.0

    @property
    def exit_code(self) -> int:
        """The command line's exit status: 0 holds, 1 a violation or deadlock, 3 stopped by the memory limit,
        4 a bound (``--max-states``, ``--max-depth``) stopped an exhaustive search, 130 interrupted."""
        if self.result in ("violated", "deadlock"):
            return 1
        if self.result == "interrupted":
            return 3 if self.stopped_by in ("max-memory", "out-of-memory") else 130
        if self.result == "incomplete" and self.stopped_by in ("max-states", "max-depth"):
            return 4
        return 0


def parallelism_text(kind: str, count: int | None) -> str:
    """``one thread``, ``2 threads``, ``2 processes``, ``Spark executors``."""
    if kind == "spark executors":
        return "Spark executors"
    if count == 1:
        return "one process" if kind == "processes" else "one thread"
    return f"{count} {kind}"


def run_path(successors: str, why: str | None, kind: str, count: int | None, spec_code: str | None) -> str:
    """The line naming the successor path, compiled or interpreted, the parallelism and why not the memo tables.

    ``Successors: memo tables (C loop; spec compiled); one thread`` or
    ``Successors: the spec's own code (interpreted (MODELCHECK_INTERPRETED is set)); 2 processes; not on
    the memo tables: --no-memo``.
    """
    if successors == "memo tables":
        how = "C loop" + (f"; spec {spec_code}" if spec_code else "")
    else:
        how = spec_code or ""
    line = f"Successors: {successors}{f' ({how})' if how else ''}; {parallelism_text(kind, count)}"
    return line + (f"; not on the memo tables: {why}" if why else "")
