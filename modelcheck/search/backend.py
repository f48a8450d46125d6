"""The contract between the level driver and the backends that expand levels.

The driver (:mod:`modelcheck.search.driver`) owns everything that decides a
result: the initial level, bounds, where a run stops inside a level, the
counters, parent records, traces, ``sometimes`` properties, checkpoints and
interrupts.  A backend owns the states of one level and the visited set, and
expands a level as fast as it can: in this process (:mod:`.local`), in
worker processes (:mod:`.workers`) or on Spark
(:mod:`modelcheck.spark_explore`).  In the spirit of TLC's ``FPSet`` and
``StateQueue``, the contract is small:

``start(level)``
    take the first frontier (the initial states, or a checkpoint's frontier),
    the fingerprints seen so far and the parent records so far;
``expand(request)``
    expand the frontier, yielding :class:`LevelReport` s in discovery order of
    the parents (one for the whole level, or one per batch); every event
    carries its discovery position (:mod:`.discovery`);
``new_state_parent(n)``
    the parent after whose expansion the level holds ``n`` new states (for
    ``--max-states``);
``commit(bound)``
    keep the level, or only what the parents up to ``bound`` found when the
    run stops there: per-action counts and the new states' parent records
    (:class:`LevelCommit`), and, unless stopping, the next frontier;
``abandon()``
    drop the level under way (an interrupt): the frontier and visited set are
    those of the boundary again;
``write_frontier(directory)``
    write the frontier's states into a checkpoint's data directory (part
    files of states and their ranks) and give the fingerprints in discovery
    order;
``close()``.

A backend whose ``keeps_parents`` is true keeps the parent records itself
(Spark: with the executors' shards, so that the driver's memory does not grow
with the state count).  Its commits carry no fingerprints, and the driver
asks it for ``path_to(level, fp)`` (the fingerprints from an initial state to
``fp``, for a trace); its checkpoints are written by ``write_shards(directory)``
(the ``shards`` layout of :mod:`.checkpoint`: the parent records and the
frontier, shard by shard, never gathered in the driver), not ``write_frontier``;
and it resumes such a checkpoint with ``resume_shards(boundary, poll)``
instead of ``start``: its executors check and read the shards.

A backend never decides counts, stops or traces on its own: it reports, and
the driver decides, so every backend gives the same result by construction.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

import attrs
import numpy as np

from modelcheck.errors import SpecResultError, SpecRuntimeError, StateError
from modelcheck.search.checkpoint import FrontierPart, ShardFiles
from modelcheck.search.visited import ParentRecords

Position = tuple[Any, int]
"""A candidate's discovery position: (its parent's rank or path key, its index among the parent's successors)."""


_FAILURE_KINDS = {k.__name__: k for k in (SpecRuntimeError, SpecResultError, StateError)}


@attrs.frozen
class SpecFailure:
    """An exception raised by spec code in a backend, as plain data that crosses processes."""

    message: str
    spec: str
    where: str
    kind: str = "SpecRuntimeError"
    """The error's class (:class:`StateError` for a non-canonical state, :class:`SpecResultError` for a wrong
    return value), so the driver raises what the one-process search raises."""

    @classmethod
    def of(cls, err: SpecRuntimeError) -> "SpecFailure":
        return cls(str(err), err.spec, err.where, kind_of(err))

    def error(self, trace: list) -> SpecRuntimeError:
        """The exception to raise, with the trace that leads to the parent that failed."""
        return _FAILURE_KINDS.get(self.kind, SpecRuntimeError)(self.message, spec=self.spec, where=self.where,
                                                                trace=trace)


def kind_of(err: SpecRuntimeError) -> str:
    """The name :class:`SpecFailure` records for ``err``'s class."""
    for k in (StateError, SpecResultError):
        if isinstance(err, k):
            return k.__name__
    return SpecRuntimeError.__name__


@attrs.define
class LevelReport:
    """What a backend found while expanding a level: one report per piece, in discovery order of the parents.

    Events are only those the driver may need: per invariant, the first
    violating new state of the piece; the first parent without successors;
    per property, the first new state that satisfies it; the first failure
    of spec code.  Counts are cumulative over the level so far.
    """

    complete_through: Any = None
    """The last parent (rank or path) whose expansion this and the earlier reports cover, None for the whole level."""
    generated: int = 0
    """Successors generated so far in this level (duplicates included)."""
    new_states: int = 0
    """New states found so far in this level."""
    violations: list[tuple[Position, int, tuple[str, ...]]] = attrs.Factory(list)
    """(position, fingerprint, violated invariants) of violating new states, in position order."""
    deadlocks: list[tuple[Any, int]] = attrs.Factory(list)
    """(parent, its fingerprint) of parents with no successor at all, in order."""
    sometimes: dict[str, Position] = attrs.Factory(dict)
    """The first position at which each property was reached."""
    failures: list[tuple[Any, int, SpecFailure]] = attrs.Factory(list)
    """(parent, its fingerprint, failure) where spec code failed while expanding or checking, in order."""
    steps: list[tuple[Position, int, tuple[str, ...]]] = attrs.Factory(list)
    """(position, the parent's fingerprint, violated step properties) of steps that violate one, in order."""


@attrs.frozen
class LevelRequest:
    """What the driver asks of a level's expansion."""

    level: int
    """The index of the level being expanded (0: the initial states)."""
    unreached: frozenset[str]
    """The ``sometimes`` properties not yet reached: only these are evaluated on new states."""
    violated: frozenset[str]
    """Invariants already violated (reported once): their further failures need not be reported."""
    last: bool = False
    """No level will be expanded after this one (``--max-depth``): its new states need no expansion."""
    record: bool = False
    """Record the level's transitions and its new states' predicate masks (liveness needs the whole graph)."""
    new_states_wanted: int | None = None
    """The driver stops inside this level once this many new states are found (``--max-states``), or None.
    A backend may report more often as that nears, so that fewer parents are expanded past the stop."""


@attrs.define
class LevelCommit:
    """A level as kept: its counts and the parent records of its new states."""

    generated: Sequence[int]
    """Per action: successors generated by the parents kept."""
    distinct: Sequence[int]
    """Per action: new states first reached by it."""
    new_count: int
    """New states kept (the next frontier's size when the run goes on)."""
    fps: np.ndarray | None
    """The new states' fingerprints (None from a backend that ``keeps_parents``)."""
    parents: np.ndarray | None
    """Each one's parent: its index in the level before (None from a backend that ``keeps_parents``)."""
    edges: "EdgeBlock | None" = None
    """With ``record``: the transitions out of the level's parents kept (stuttering steps left out)."""
    masks: np.ndarray | None = None
    """With ``record``: each new state's liveness predicate bits, in the order of ``fps``."""


@attrs.frozen
class EdgeBlock:
    """Transitions of the state graph: 14 bytes each while the search runs.

    ``src`` is the source's rank in its level (the driver knows which level),
    ``dst`` the target's fingerprint (its index is known only once the search
    is over) and ``label`` the action instance (:attr:`BoundModel.label_action`).
    """

    src: np.ndarray
    """int32."""
    dst: np.ndarray
    """int64."""
    label: np.ndarray
    """int16, or int32 for specs with more than 32,767 action instances."""

    def __len__(self) -> int:
        return len(self.src)

    @classmethod
    def empty(cls) -> "EdgeBlock":
        return cls(np.empty(0, np.int32), np.empty(0, np.int64), np.empty(0, np.int16))

    @classmethod
    def concat(cls, blocks: Sequence["EdgeBlock"]) -> "EdgeBlock":
        if not blocks:
            return cls.empty()
        return cls(np.concatenate([b.src for b in blocks]), np.concatenate([b.dst for b in blocks]),
                   np.concatenate([b.label for b in blocks]))

    def where(self, keep: np.ndarray) -> "EdgeBlock":
        return EdgeBlock(self.src[keep], self.dst[keep], self.label[keep])


@attrs.frozen
class FrontierWrite:
    """What a backend wrote of a level boundary's frontier into a checkpoint's data directory."""

    fps: np.ndarray
    """The frontier's fingerprints in discovery order."""
    parts: list[FrontierPart]
    """The part files: states (safe_pickle.dump_states) and their ranks in the level (.npy)."""


class GivesWay(Exception):
    """A backend stepping aside during a level, its work up to the level's boundary sound (not a fault).

    Given a fallback, the driver starts it at that boundary (the level's
    states, from ``states()``; the parent records and the visited set are the
    driver's own) and expands the level again; without one, the run ends
    with this exception.  Its message says why, as a clause ("the memo
    tables stopped (...)").
    """

    def __init__(self, reason: str, states: Callable[[], Iterable[Any]]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.states = states


class LevelAbandoned(Exception):
    """A level was cut short (Ctrl-C, SIGTERM, the memory budget): ``reason`` is the run's ``stopped_by``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Backend(Protocol):
    """What the level driver needs of a backend (see the module docstring)."""

    name: str
    """The engine's name in reports (``local``, ``spark``)."""
    verbose: bool
    """Report progress after every level, with :meth:`detail`."""
    keeps_parents: bool
    """The backend keeps the parent records (see the module docstring)."""

    def start(self, states: Any, fps: np.ndarray, visited: np.ndarray, poll: Callable[[], None],
              parents: ParentRecords) -> None: ...

    def expand(self, request: LevelRequest) -> Iterator[LevelReport]: ...

    def new_state_parent(self, n: int) -> Any: ...

    def commit(self, bound: Any) -> LevelCommit: ...

    def abandon(self) -> None: ...

    def write_frontier(self, directory: str) -> FrontierWrite:
        """Unless ``keeps_parents``: write the frontier's part files into a checkpoint's data directory."""

    def memory_bytes(self) -> int | None: ...

    def detail(self) -> str: ...

    def engine_report(self) -> dict | None:
        """What the engine reports about itself in the result (after ``close``), or None."""

    def close(self) -> None: ...

    def path_to(self, level: int, fp: int) -> list[int]:
        """Only if ``keeps_parents``: the fingerprints from an initial state to ``fp``, found at ``level``."""

    def check_path(self, path: list[int]) -> None:
        """Optional: raise if a step of ``path`` (fingerprints, before a trace is replayed) is one the backend
        took but the spec's own code does not, naming the backend's fault rather than the spec's."""

    def resume_shards(self, boundary: Any, poll: Callable[[], None]) -> None:
        """Only if ``keeps_parents``: start from a ``shards`` checkpoint (:class:`checkpoint.Boundary` naming
        its files), read where the shards are kept; a damaged one raises :class:`CheckpointError`."""

    def write_shards(self, directory: str) -> list[ShardFiles]:
        """Only if ``keeps_parents``: write the boundary's shards (records and frontier) into ``directory``."""
