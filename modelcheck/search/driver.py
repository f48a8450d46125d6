"""The level driver: the one breadth-first level loop, behind every backend.

Everything that decides what a check reports lives here, once: the initial
level, the depth and state bounds, where a run stops inside a level (the
first violation, deadlock or ``--max-states`` point in discovery order) and
the exact counts up to it, the counters and per-action coverage, the parent
records that turn a fingerprint into a trace, the traces themselves (by
replay), ``sometimes`` properties, checkpoints and interrupts.  A backend
(:mod:`modelcheck.search.backend`) only expands levels and reports what it
found with discovery positions (:mod:`modelcheck.search.discovery`); so the
local engine, ``--workers`` and Spark give the same result by construction,
and a checkpoint written with one resumes with any other.

A level, as the one-process search defines it: the parents of level L are
expanded in discovery order; a candidate that is new becomes a state of
level L+1 (its first discoverer is its parent); after each parent the run
may stop: at a new state that violates an invariant (the whole parent is
expanded first), at a parent without successors (a deadlock), or once the
distinct states reach ``--max-states``; the counts are those of the parents
expanded up to the stop.  A failure of spec code at a parent ends the run
with an error unless a stop comes at an earlier parent.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import attrs
import numpy as np

from modelcheck.errors import CheckpointError, SpecRuntimeError
from modelcheck.model.bound import BoundModel
from modelcheck.model.fingerprint import FINGERPRINT_SCHEME
from modelcheck.model.replay import failing_successor, replay, violating_step
from modelcheck.output.results import CheckResult, TraceStep, Violation
from modelcheck.search import checkpoint as ck
from modelcheck.search.backend import Backend, GivesWay, LevelAbandoned, LevelCommit, LevelRequest
from modelcheck.search.graph_log import GraphLog
from modelcheck.search.liveness_check import check_liveness
from modelcheck.search.memory import collections_paused, free_bytes
from modelcheck.search.progress import Progress, ProgressSink, Ticker
from modelcheck.search.safe_pickle import load_states
from modelcheck.search.stop import StopRequests
from modelcheck.search.verdict import summarize
from modelcheck.search.visited import ParentRecords, sorted_unique
from modelcheck.spec.constants import constants_to_dict
from modelcheck.spec.sources import sources_digest, spec_files, spec_modules

DEADLOCK = "Deadlock"
DEADLOCK_DESCRIPTION = "a reachable state has no successor"


MIN_BYTES_PER_STATE = 200
"""The least memory a new state costs while it waits in the frontier (its objects, fingerprint, parent record)."""

FINGERPRINT_SAMPLE = 2000
"""Frontier states whose fingerprints are recomputed when a checkpoint is resumed (spread over the frontier)."""


def checkpoint_identity(model: BoundModel) -> ck.CheckpointIdentity:
    """What a checkpoint of this model belongs to: the same for every backend and worker count.

    The fingerprint function's own name is part of it, so a checkpoint
    written with other fingerprints is refused rather than resumed wrongly.
    """
    return ck.CheckpointIdentity(
        spec=model.spec.name,
        sources=sources_digest(model.spec, model.opened_files),
        files=tuple(spec_files(model.spec, model.opened_files)),
        constants=tuple(sorted(constants_to_dict(model.c).items())),
        options=model.options.identity_options() + (
            ("fingerprints", FINGERPRINT_SCHEME),),
    )


class LevelDriver:
    """One exhaustive run: the level loop over a backend.  All run state lives on the instance."""

    def __init__(self, model: BoundModel, backend: Backend, progress: ProgressSink | None = None,
                 notice: Callable[[str], None] | None = None,
                 fallback: Callable[[], Backend] | None = None) -> None:
        self.model = model
        self.backend = backend
        self.progress = progress
        self.notice = notice
        """Where warnings that cannot wait for the result go (a projected memory shortage)."""
        self.fallback = fallback
        """Makes the backend that goes on where this one gives way (:class:`GivesWay`), or None."""
        self._checkpoint_identity: ck.CheckpointIdentity | None = None
        self.handed_over: tuple[int, str] | None = None
        """(level, reason) where the backend gave way to the fallback, if it did."""
        n = len(model.actions)
        self.act_generated = [0] * n
        self.act_distinct = [0] * n
        self.violations: list[Violation] = []
        self.violation_points: list[ck.ViolationPoint] = []
        """Where each violation was found (its trace is rebuilt from there on resume)."""
        self.violated_names: set[str] = set()
        self.sometimes_reached = {p.name: False for p in model.sometimes}
        self.generated = 0
        self.distinct = 0
        self.depth = 0
        self.stopped_by: str | None = None
        self.queue_left = 0
        self.parents: ParentRecords | None = ParentRecords()
        """Per level: fingerprints in discovery order and the index of each one's parent in the level before.

        None once a backend that keeps the parent records itself
        (``keeps_parents``: Spark, where they stay with the executors' shards)
        has taken them over; traces then come from :meth:`Backend.path_to`."""
        self.level_sizes: list[int] = []
        """The number of states of each level found so far."""
        self.elapsed_before = 0.0
        """Seconds spent before this process took over (by the runs a resumed checkpoint came from)."""
        self.checkpoints_written = 0
        self.checkpointed_level: int | None = None
        """The boundary last written to (or resumed from): a stop there need not write it again."""
        self.checkpoint_seconds = 0.0
        self.checkpoint_note: str | None = None
        self.warnings: list[str] = []
        """Warnings the run gave while it went (also passed to ``notice`` at once)."""
        self.memory_warned = False
        self.memory_at_start = backend.memory_bytes() or 0
        """What the process held before the search: not per-state memory."""
        """Why the checkpoint a stop asked for could not be written (reported with the result)."""
        self.stops = StopRequests(model.options.max_memory_mb, backend.memory_bytes)
        self._started = False
        self.graph: GraphLog | None = GraphLog() if model.liveness_properties else None
        """The behaviour graph, recorded for the liveness properties (None when none is checked)."""
        self.exhausted = False
        """Every reachable state was expanded (liveness is decided only then)."""
        self.liveness_seconds = 0.0
        self.graph_stats: tuple[int, int, int] | None = None
        self._remote: ck.Boundary | None = None
        """A checkpoint whose shards the backend reads when it starts."""

    # -- the run ------------------------------------------------------------------------

    def run(self) -> CheckResult:
        """Explore until every state is expanded, a stop, or an interrupt; the result so far."""
        opts = self.model.options
        ticker = Ticker(opts.progress_seconds)
        lock = ck.CheckpointLock(opts.checkpoint_dir) if opts.checkpoint_dir else None
        try:
            if lock is not None:
                lock.acquire()
                self._identity()  # the sources as the run begins with them
            if opts.resume:
                level, states, visited = self._restore(opts.resume)
                stop = False
            else:
                level = 0
                states, stop = self._initial_level()
                visited = sorted_unique(self._records().fps[0])
            self._pending_start = (states, visited)
            del states, visited
            self.stops.install()
            try:
                if self._remote is not None:
                    self._start_backend(level)  # its violations' traces need the shards, whatever comes next
                self._search(level, stop, ticker)
                if self.graph is not None:
                    self._decide_liveness(ticker)
            except KeyboardInterrupt:
                # A second Ctrl-C (or one outside a level): the last checkpoint written stays the one to resume from.
                self.stopped_by = "interrupt"
            finally:
                self.stops.uninstall()
        finally:
            self._pending_start = None
            self.backend.close()
            if self.graph is not None:
                self.graph_stats = (self.graph.edges, self.graph.edge_bytes(), self.graph.nbytes())
                self.graph.close()
            if lock is not None:
                lock.release()
        return self.result(self.elapsed_before + ticker.elapsed())

    def _start_backend(self, level: int) -> None:
        if self._started:
            return
        states, visited = self._pending_start
        self._pending_start = None
        if self._remote is not None:
            # A checkpoint whose shards the backend's executors read: the violations' traces need them.
            boundary, self._remote = self._remote, None
            self.parents = None
            self.backend.resume_shards(boundary, self.stops.poll)
            self._started = True
            self._record_checkpointed(boundary, f"checkpoint in {self.model.options.resume} does not fit this spec")
            return
        parents = self._records()
        self.backend.start(states, parents.fps[level], visited, self.stops.poll, parents)
        self._started = True
        if self.backend.keeps_parents:
            self.parents = None  # the backend has them now: the driver keeps only the level sizes

    def _hand_over(self, level: int, why: GivesWay) -> None:
        """Start the fallback backend at the boundary before ``level``, where the backend gave way."""
        states = list(why.states())
        visited = sorted_unique(np.concatenate(self._records().fps[: level + 1]))
        self.backend.close()
        self.backend = self.fallback()
        self.stops.measure = self.backend.memory_bytes
        self._started = False
        self._pending_start = (states, visited)
        self.handed_over = (level, str(why))
        message = f"{why}; the spec's own code went on from level {level + 1}"
        self.warnings.append(message)
        if self.notice is not None:
            self.notice(message)

    def _initial_level(self) -> tuple[list, bool]:
        """Level 1: the initial states inside the model, each once; their invariants.  True to stop."""
        model = self.model
        states = []
        fps: list[int] = []
        seen: set[int] = set()
        for s in model.init_states():
            self.generated += 1
            if not self._on_initial(s, model.in_model, s):
                continue
            fp = model.fingerprint(s)
            if fp in seen:
                continue
            seen.add(fp)
            states.append(s)
            fps.append(fp)
        self._records().add_level(fps, [0] * len(fps))
        self.level_sizes.append(len(fps))
        if self.graph is not None:
            mask = model.state_mask()
            self.graph.add_states(np.array(fps, dtype=np.int64),
                                  np.array([self._on_initial(s, mask, s) for s in states], dtype=np.int64))
        self.distinct = len(states)
        self.depth = 1 if states else 0
        stop = False
        initial_properties = [p for p in (model.spec.property(n) for n in model.options.properties)
                              if p.kind == "initial"]
        for s, fp in zip(states, fps):
            for p in initial_properties:  # TLC's state predicate under PROPERTY: Init => P
                if p.name not in self.violated_names and not self._on_initial(s, model.property_holds, p, s):
                    self._record("initial", p.name, p.description, 0, fp)
                    stop = stop or not model.options.continue_after_violation
            for p in model.sometimes:
                if not self.sometimes_reached[p.name] and self._on_initial(s, model.property_holds, p, s):
                    self.sometimes_reached[p.name] = True
            for inv in self._on_initial(s, model.failed_invariants, s):
                if inv.name not in self.violated_names:
                    self._record("invariant", inv.name, inv.description, 0, fp)
                    stop = stop or not model.options.continue_after_violation
        return states, stop

    @staticmethod
    def _on_initial(s: Any, check: Any, *args: Any) -> Any:
        """``check(*args)`` on the initial state ``s``: a spec error's trace is that state."""
        try:
            return check(*args)
        except SpecRuntimeError as err:
            if not err.trace:
                err.trace = [TraceStep(None, None, {}, s)]
            raise

    def _search(self, level: int, stop: bool, ticker: Ticker) -> None:
        opts = self.model.options
        last_checkpoint = ticker.elapsed()
        size = self.level_sizes[level]
        self.exhausted = False
        while size and not stop:
            # A level boundary: the frontier is level ``level``, the counters are this boundary's.
            self.queue_left = size
            if opts.max_depth is not None and level + 1 >= opts.max_depth:
                self.stopped_by = "max-depth"
                return
            if opts.max_states is not None and self.distinct >= opts.max_states:
                self.stopped_by = "max-states"
                return
            self._start_backend(level)
            self._project_memory()
            try:
                self.stops.poll()
                if opts.checkpoint_dir and self.checkpointed_level != level and \
                        ticker.elapsed() - last_checkpoint >= opts.checkpoint_every:
                    self._write_checkpoint(level, ticker)
                    last_checkpoint = ticker.elapsed()
                    self.stops.poll()
                size, stop = self._level(level, ticker)
            except GivesWay as why:
                if self.fallback is None or self.handed_over is not None:
                    raise
                self._hand_over(level, why)
                continue  # the same level again, on the fallback
            except (LevelAbandoned, MemoryError) as why:
                # Back to this boundary, which a resumed run repeats exactly.
                self.stopped_by = why.reason if isinstance(why, LevelAbandoned) else "out-of-memory"
                del why  # a MemoryError's traceback holds the level's frames, and their memory
                self.backend.abandon()
                self.queue_left = size
                if opts.checkpoint_dir and self.checkpointed_level != level:
                    try:
                        self._write_checkpoint(level, ticker)
                    except (CheckpointError, MemoryError) as exc:
                        self.checkpoint_note = (str(exc) if isinstance(exc, CheckpointError)
                                                else "out of memory while writing it")
                return
            level += 1
            if self.progress is not None and (self.backend.verbose or ticker.due()):
                self._report_progress(level + 1, self.generated, self.distinct, size, ticker, self.backend.detail())
        self.exhausted = not stop

    def _level(self, level: int, ticker: Ticker) -> tuple[int, bool]:
        """Expand level ``level`` and commit what the one-process search would have: (new states, stop)."""
        model = self.model
        opts = model.options
        go_on = opts.continue_after_violation
        check_deadlock = model.check_deadlock and DEADLOCK not in self.violated_names
        request = LevelRequest(
            level=level,
            unreached=frozenset(n for n, reached in self.sometimes_reached.items() if not reached),
            violated=frozenset(self.violated_names),
            last=opts.max_depth is not None and level + 2 >= opts.max_depth,
            record=self.graph is not None,
            new_states_wanted=opts.max_states - self.distinct if opts.max_states is not None else None,
        )
        first_violation: dict[str, tuple[Any, int]] = {}  # invariant -> (position, fp), the first in the level
        first_step: dict[str, tuple[Any, int]] = {}  # step property -> (position, parent fp)
        first_deadlock: tuple[Any, int] | None = None
        reached: dict[str, Any] = {}
        stop: tuple[Any, int, str | None] | None = None  # (parent, precedence, stopped_by)
        size = self.level_sizes[level]
        reports = self.backend.expand(request)
        try:
            for report in reports:
                for pos, fp, names in report.violations:
                    for name in names:
                        if name not in self.violated_names and (
                                name not in first_violation or pos < first_violation[name][0]):
                            first_violation[name] = (pos, fp)
                for pos, fp, names in report.steps:
                    for name in names:
                        if name not in self.violated_names and (name not in first_step or pos < first_step[name][0]):
                            first_step[name] = (pos, fp)
                if check_deadlock and report.deadlocks and first_deadlock is None:
                    first_deadlock = report.deadlocks[0]
                for name, pos in report.sometimes.items():
                    if name not in reached or pos < reached[name]:
                        reached[name] = pos
                candidates = []
                if (first_violation or first_step) and not go_on:
                    candidates.append((min(pos for pos, _ in (*first_violation.values(), *first_step.values()))[0],
                                       0, None))
                if first_deadlock is not None and not go_on:
                    candidates.append((first_deadlock[0], 1, None))
                if opts.max_states is not None and self.distinct + report.new_states >= opts.max_states:
                    parent = self.backend.new_state_parent(opts.max_states - self.distinct)
                    candidates.append((parent, 2, "max-states"))
                stop = min(candidates, key=lambda c: (c[0], c[1])) if candidates else None
                if report.failures:
                    parent, parent_fp, failure = report.failures[0]
                    if stop is None or parent <= stop[0]:
                        raise failure.error(self._failure_trace(level, parent_fp, failure.where))
                if stop is not None and (report.complete_through is None or stop[0] <= report.complete_through):
                    break
                if self.progress is not None and report.complete_through is not None and ticker.due():
                    done = report.complete_through + 1
                    self._report_progress(level + 2, self.generated + report.generated,
                                          self.distinct + report.new_states, size - done + report.new_states, ticker)
        finally:
            close = getattr(reports, "close", None)
            if close is not None:
                close()
        bound = stop[0] if stop is not None else None
        commit = self.backend.commit(bound)
        self._keep(level, commit)
        # Violations in the order the one-process search records them: a parent's deadlock as it is
        # met, the new states' invariants once the level's parent records are stored.
        if first_deadlock is not None and (bound is None or first_deadlock[0] <= bound):
            self._record("deadlock", DEADLOCK, DEADLOCK_DESCRIPTION, level, first_deadlock[1])
        found = [(pos, "invariant", name, fp) for name, (pos, fp) in first_violation.items()]
        found += [(pos, "step", name, fp) for name, (pos, fp) in first_step.items()]
        for pos, kind, name, fp in sorted(found, key=lambda item: item[0]):
            if bound is None or pos[0] <= bound:
                if kind == "invariant":
                    self._record(kind, name, model.spec.invariant(name).description, level + 1, fp)
                else:
                    self._record(kind, name, model.spec.property(name).description, level, fp)
        for name, pos in reached.items():
            if bound is None or pos[0] <= bound:
                self.sometimes_reached[name] = True
        self.queue_left = commit.new_count
        if stop is not None:
            if stop[2]:
                self.stopped_by = stop[2]
            return commit.new_count, True
        return commit.new_count, False

    def _keep(self, level: int, commit: LevelCommit) -> None:
        """Add a committed level to the counters and parent records."""
        for a, (g, d) in enumerate(zip(commit.generated, commit.distinct)):
            self.act_generated[a] += int(g)
            self.act_distinct[a] += int(d)
            self.generated += int(g)
        if commit.fps is None:
            if self.parents is not None:
                raise RuntimeError(f"the {self.backend.name} backend kept no parent records")
        else:
            self._records().add_level(commit.fps, commit.parents)
        self.level_sizes.append(commit.new_count)
        self.distinct += commit.new_count
        if commit.new_count:
            self.depth = level + 2
        if self.graph is not None:
            if commit.edges is None or commit.masks is None:
                raise RuntimeError(f"the {self.backend.name} backend did not record the behaviour graph")
            self.graph.add_states(commit.fps, commit.masks)
            self.graph.add_edges(sum(self.level_sizes[:level]), commit.edges)

    def _project_memory(self) -> None:
        """Warn once, before it happens, when the next level looks set to need more memory than the machine has.

        The projection is rough on purpose (memory per state so far, times the
        next level's size if it grows as the last one did, twice over for the
        frontier and the level being built); with ``--max-memory`` the budget
        stops the run cleanly instead, so nothing is said.
        """
        if self.memory_warned or self.model.options.max_memory_mb or self.distinct < 20_000:
            return
        used = self.backend.memory_bytes()
        if not used:
            return
        sizes = self.level_sizes[-2:]
        growth = min(3.0, max(1.0, sizes[-1] / sizes[0])) if len(sizes) == 2 and sizes[0] else 1.0
        # What the run added per state so far, and at least what a frontier state and its records take.
        per_state = max(MIN_BYTES_PER_STATE, (used - self.memory_at_start) / self.distinct)
        projected = used + 2 * sizes[-1] * growth * per_state
        if projected <= used + free_bytes():
            return  # free memory alone covers it (and what the system may reclaim comes on top)
        import psutil

        available = used + psutil.virtual_memory().available
        if projected > available:
            self.memory_warned = True
            message = (f"the next level is projected to need about {projected / 2**30:.1f} GiB of memory, more "
                       f"than the {available / 2**30:.1f} GiB this machine has free; the operating system may "
                       "kill the run: --max-memory MiB stops it cleanly (with --checkpoint DIR, resumably)")
            self.warnings.append(message)
            if self.notice is not None:
                self.notice(message)

    # -- traces ---------------------------------------------------------------------------

    def _records(self) -> ParentRecords:
        """The parent records the driver holds (all of them, unless the backend keeps them)."""
        if self.parents is None:
            raise RuntimeError(f"the {self.backend.name} backend keeps the parent records")
        return self.parents

    def _trace(self, level: int, fp: int) -> list:
        path = self.parents.path_to(level, fp) if self.parents is not None else self.backend.path_to(level, fp)
        check = getattr(self.backend, "check_path", None)
        if check is not None:
            check(path)  # a backend that vouches for its steps (the memo tables) says where it is at fault
        return replay(self.model, path)

    def _failure_trace(self, level: int, fp: int, where: str) -> list:
        """The trace of a spec failure at the parent ``fp``: to the successor it failed on, if a check of one."""
        trace = self._trace(level, fp)
        step = failing_successor(self.model, trace[-1].state, where) if trace else None
        return trace + [step] if step is not None else trace

    def _step_trace(self, level: int, fp: int, name: str) -> list:
        """The trace to the parent ``fp`` and its first step that violates the step property ``name``."""
        trace = self._trace(level, fp)
        step = violating_step(self.model, trace[-1].state, name)
        if step is None:
            raise KeyError(f"no step of the recorded state violates {name}")
        return trace + [step]

    def _record(self, kind: str, name: str, description: str, level: int, fp: int) -> None:
        trace = self._step_trace(level, fp, name) if kind == "step" else self._trace(level, fp)
        self.violations.append(Violation(kind, name, description, tuple(trace)))
        self.violation_points.append(ck.ViolationPoint(kind, name, description, level, fp))
        self.violated_names.add(name)

    def _decide_liveness(self, ticker: Ticker) -> None:
        """After a complete search: each liveness property decided on the recorded graph (else a warning why not)."""
        assert self.graph is not None
        names = ", ".join(p.name for p in self.model.liveness_properties)
        if not self.exhausted or self.stopped_by:
            why = "a violation stopped the search" if not self.stopped_by else f"the search stopped ({self.stopped_by})"
            self.warnings.append(f"liveness properties {names} were not decided: {why} before every state was "
                                 "explored")
            return
        start = time.perf_counter()
        if self.progress is not None:
            self._note(f"deciding {names} on {self.distinct:,} states and {self.graph.edges:,} transitions")
        try:
            found = check_liveness(self.model, self._records(), self.graph, room=self.stops.room)
        except LevelAbandoned as why:  # the budget would not hold, or a stop was requested: nothing decided
            self.stopped_by = why.reason
            cause = ("deciding them would exceed the --max-memory budget" if why.reason == "max-memory"
                     else "the run was stopped while deciding them")
            self.warnings.append(f"liveness properties {names} were not decided: {cause}")
            found = []
        for v in found:
            self.violations.append(v)
            self.violated_names.add(v.name)
        self.liveness_seconds = time.perf_counter() - start

    def _note(self, message: str) -> None:
        if self.notice is not None:
            self.notice(message)

    def _report_progress(self, level: int, generated: int, distinct: int, queue: int, ticker: Ticker,
                         detail: str = "") -> None:
        try:
            self.progress(Progress(level, generated, distinct, queue, ticker.elapsed(), detail))
        except KeyboardInterrupt:  # e.g. raised by a library user's sink: stop at the next boundary
            self.stops.interrupted = True

    # -- checkpoints ------------------------------------------------------------------------

    def _write_checkpoint(self, level: int, ticker: Ticker) -> None:
        """The boundary before ``level`` is expanded, in the one checkpoint format every backend resumes."""
        start = time.perf_counter()
        directory = self.model.options.checkpoint_dir
        assert directory is not None

        def counters() -> dict[str, Any]:
            return dict(generated=self.generated, act_generated=list(self.act_generated),
                        act_distinct=list(self.act_distinct), sometimes_reached=dict(self.sometimes_reached),
                        violations=list(self.violation_points), depth=self.depth,
                        elapsed=self.elapsed_before + ticker.elapsed())

        def write_shards(data: str) -> tuple[ck.Boundary, list[ck.FrontierPart]]:
            shards = self.backend.write_shards(data)
            sizes = self.level_sizes[: level + 1]
            if sum(s.states for s in shards) != sum(sizes) or sum(s.frontier for s in shards) != sizes[-1]:
                raise CheckpointError(f"the shards written hold {sum(s.states for s in shards)} states and a "
                                      f"frontier of {sum(s.frontier for s in shards)}; the run has {sum(sizes)} "
                                      f"and {sizes[-1]}")
            empty = np.empty(0, np.int64)
            return ck.Boundary(level=level, level_sizes=sizes, parent_fps=empty, parent_idx=empty, visited=empty,
                               shards=shards, **counters()), []

        def write_data(data: str) -> tuple[ck.Boundary, list[ck.FrontierPart]]:
            written = self.backend.write_frontier(data)
            records = self._records()
            self._reorder_level(records, level, np.asarray(written.fps, dtype=np.int64))
            fps = records.fps[: level + 1]
            visited = getattr(self.backend, "visited", None)
            boundary = ck.Boundary(
                level=level, level_sizes=[len(a) for a in fps],
                parent_fps=np.concatenate(fps), parent_idx=np.concatenate(records.parent_idx[: level + 1]),
                visited=visited() if visited is not None else sorted_unique(np.concatenate(fps)),
                generated=self.generated, act_generated=list(self.act_generated),
                act_distinct=list(self.act_distinct), sometimes_reached=dict(self.sometimes_reached),
                violations=list(self.violation_points), depth=self.depth,
                elapsed=self.elapsed_before + ticker.elapsed(),
                graph=self.graph.arrays() if self.graph is not None else None)
            return boundary, written.parts

        ck.write_checkpoint(directory, self._identity(),
                            write_data if self.parents is not None else write_shards)
        self.checkpoints_written += 1
        self.checkpointed_level = level
        self.checkpoint_seconds += time.perf_counter() - start

    def _identity(self) -> ck.CheckpointIdentity:
        """The run's checkpoint identity, taken once: the spec's sources as they were when the run began
        (not read and digested again at every checkpoint)."""
        if self._checkpoint_identity is None:
            self._checkpoint_identity = checkpoint_identity(self.model)
        return self._checkpoint_identity

    @staticmethod
    def _reorder_level(parents: ParentRecords, level: int, fps: np.ndarray) -> None:
        """Put level ``level``'s parent records in the order of ``fps``, the frontier's (the same fingerprints)."""
        cur = parents.fps[level]
        if len(cur) != len(fps):
            raise CheckpointError(f"the frontier holds {len(fps)} states, level {level + 1} has {len(cur)}")
        if np.array_equal(cur, fps):
            return
        order = np.argsort(cur, kind="stable")
        pos = np.searchsorted(cur[order], fps)
        np.minimum(pos, len(cur) - 1, out=pos)
        perm = order[pos]
        if len(cur) and not np.array_equal(cur[perm], fps):
            raise CheckpointError(f"the frontier and the parent records of level {level + 1} disagree")
        parents.fps[level] = cur[perm]
        parents.parent_idx[level] = parents.parent_idx[level][perm]

    def _restore(self, directory: str) -> tuple[int, list, np.ndarray]:
        """Counters, parent records and violations from a verified checkpoint: its level, frontier and visited set.

        The frontier's states are read with the spec's own state classes only
        (:mod:`modelcheck.search.safe_pickle`); what the file holds must agree
        with the spec: the counters' shapes, the names of invariants and
        properties, and the fingerprints of a sample of the frontier.
        """
        model = self.model
        modules = [name for name, _ in spec_modules(model.spec)]
        with collections_paused():
            b = ck.read_checkpoint(directory, self._identity(),
                                   lambda f, count: load_states(f, modules, count),
                                   remote_shards=self.backend.keeps_parents)
        damaged = f"checkpoint in {directory} does not fit this spec"
        n = len(model.actions)
        known = {inv.name for inv in model.spec.invariants} | {DEADLOCK} | {p.name for p in model.step_properties} | {
            p.name for p in model.spec.properties if p.kind == "initial" and p.name in model.options.properties}
        if len(b.act_generated) != n or len(b.act_distinct) != n or \
                set(b.sometimes_reached) != set(self.sometimes_reached) or \
                any(v.name not in known or v.level > b.level + 1 for v in b.violations) or b.depth > b.level + 1:
            raise CheckpointError(damaged)
        self._restore_counters(b)
        if b.shards is not None:
            # Read by the backend's executors when it starts (``_start_backend``), never here.
            self._remote = b
            self.level_sizes = list(b.level_sizes)
            self.distinct = sum(b.level_sizes)
            return b.level, None, None
        parents = self._records()
        parents.fps = ck.split_levels(b.parent_fps, b.level_sizes)
        parents.parent_idx = ck.split_levels(b.parent_idx, b.level_sizes)
        self.level_sizes = list(b.level_sizes)
        frontier = b.frontier
        cur = parents.fps[b.level]
        step = max(1, len(frontier) // FINGERPRINT_SAMPLE)
        try:
            for i in range(0, len(frontier), step):
                model.check_state(frontier[i], "a checkpoint's frontier")
                if model.fingerprint(frontier[i]) != int(cur[i]):
                    raise CheckpointError(f"{damaged} (a frontier state has another fingerprint)")
        except SpecRuntimeError:
            raise CheckpointError(f"{damaged} (a frontier state is not a state of this spec)") from None
        self._record_checkpointed(b, damaged)
        self.distinct = len(b.visited)
        if self.graph is not None:
            if b.graph is None:
                raise CheckpointError(f"{damaged} (it holds no behaviour graph)")
            self.graph = GraphLog.from_arrays(b.graph)
        return b.level, frontier, b.visited

    def _restore_counters(self, b: ck.Boundary) -> None:
        self.generated = b.generated
        self.act_generated = list(b.act_generated)
        self.act_distinct = list(b.act_distinct)
        self.sometimes_reached = dict(b.sometimes_reached)
        self.depth = b.depth
        self.elapsed_before = b.elapsed
        self.checkpointed_level = b.level

    def _record_checkpointed(self, b: ck.Boundary, damaged: str) -> None:
        """The checkpoint's violations, their traces rebuilt by replay."""
        for v in b.violations:
            try:
                self._record(v.kind, v.name, v.description, v.level, v.fp)
            except (KeyError, IndexError, SpecRuntimeError):
                raise CheckpointError(f"{damaged} (a violation's trace cannot be rebuilt)") from None

    # -- the result ---------------------------------------------------------------------------

    def result(self, seconds: float) -> CheckResult:
        """The report of the run so far, with the checkpoint it leaves (only one that is on disk and whole)."""
        r = summarize(
            self.model, engine=self.backend.name, seconds=seconds, violations=self.violations,
            stopped_by=self.stopped_by, distinct=self.distinct, generated=self.generated, depth=self.depth,
            queue_left=self.queue_left, act_generated=self.act_generated, act_distinct=self.act_distinct,
            sometimes_reached=self.sometimes_reached,
        )
        if self.warnings:
            r = attrs.evolve(r, warnings=tuple(self.warnings) + r.warnings)
        report = self.backend.engine_report()
        if report is not None:
            r = attrs.evolve(r, engine_report=report)
        if self.graph is not None:
            edges, edge_bytes, nbytes = self.graph_stats or (self.graph.edges, self.graph.edge_bytes(),
                                                             self.graph.nbytes())
            r = attrs.evolve(r, liveness_seconds=self.liveness_seconds, graph_edges=edges, graph_bytes=nbytes,
                             graph_edge_bytes=edge_bytes)
        directory = self.model.options.checkpoint_dir
        if directory is None or r.result not in ("interrupted", "incomplete"):
            return r  # a finished run leaves nothing to resume
        level = ck.verified_level(directory)
        if level is not None and level != self.checkpointed_level:
            level = None  # a checkpoint of another run, or of an earlier boundary than this run reached
        return attrs.evolve(r, checkpoint=directory if level is not None else None, checkpoint_level=level,
                            checkpoint_note=self.checkpoint_note)
