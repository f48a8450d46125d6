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
from typing import Any

import numpy as np

from modelcheck.errors import CheckpointError, SpecRuntimeError
from modelcheck.model.bound import BoundModel
from modelcheck.model.replay import failing_successor, replay
from modelcheck.output.results import CheckResult, TraceStep, Violation
from modelcheck.search.backend import Backend, LevelAbandoned, LevelCommit, LevelRequest
from modelcheck.search.checkpoint import CheckpointIdentity, boundary_payload, read_boundary, write_checkpoint
from modelcheck.search.progress import Progress, ProgressSink, Ticker
from modelcheck.search.stop import StopRequests
from modelcheck.search.verdict import summarize
from modelcheck.spec.constants import constants_to_dict
from modelcheck.search.visited import ParentRecords

DEADLOCK = "Deadlock"
DEADLOCK_DESCRIPTION = "a reachable state has no successor"


def checkpoint_identity(model: BoundModel) -> CheckpointIdentity:
    """What a checkpoint of this model belongs to: the same for every backend and worker count."""
    return CheckpointIdentity(
        spec=model.spec.name,
        constants=tuple(sorted(constants_to_dict(model.c).items())),
        options=model.options.identity_options(),
    )


class LevelDriver:
    """One exhaustive run: the level loop over a backend.  All run state lives on the instance."""

    def __init__(self, model: BoundModel, backend: Backend, progress: ProgressSink | None = None) -> None:
        self.model = model
        self.backend = backend
        self.progress = progress
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
        self.checkpointed_level: int | None = None
        """The boundary last written to (or resumed from): a stop there need not write it again."""
        self.checkpoint_seconds = 0.0
        self.stops = StopRequests(model.options.max_memory_mb, backend.memory_bytes)
        self._started = False

    # -- the run ------------------------------------------------------------------------

    def run(self) -> CheckResult:
        """Explore until every state is expanded, a stop, or an interrupt; the result so far."""
        opts = self.model.options
        ticker = Ticker(opts.progress_seconds)
        if opts.resume:
            level, states, visited = self._restore(read_boundary(opts.resume, checkpoint_identity(self.model)))
            stop = False
        else:
            level = 0
            states, stop = self._initial_level()
            visited = np.unique(self.parents.fps[0])
        self._pending_start = (states, visited)
        del states, visited
        self.stops.install()
        try:
            self._search(level, stop, ticker)
        except KeyboardInterrupt:
            # A second Ctrl-C (or one outside a level): the last checkpoint written stays the one to resume from.
            self.stopped_by = "interrupt"
        finally:
            self.stops.uninstall()
            self._pending_start = None
            self.backend.close()
        return self.result(self.elapsed_before + ticker.elapsed())

    def _start_backend(self, level: int) -> None:
        if not self._started:
            states, visited = self._pending_start
            self._pending_start = None
            self.backend.start(states, self.parents.fps[level], visited, self.stops.poll)
            self._started = True

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
        self.parents.add_level(fps, [0] * len(fps))
        self.distinct = len(states)
        self.depth = 1 if states else 0
        stop = False
        for s, fp in zip(states, fps):
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
        size = len(self.parents.fps[level])
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
            try:
                self.stops.poll()
                if opts.checkpoint_dir and self.checkpointed_level != level and \
                        ticker.elapsed() - last_checkpoint >= opts.checkpoint_every:
                    self._write_checkpoint(level, ticker)
                    last_checkpoint = ticker.elapsed()
                    self.stops.poll()
                size, stop = self._level(level, ticker)
            except LevelAbandoned as why:
                # Back to this boundary, which a resumed run repeats exactly.
                self.backend.abandon()
                self.stopped_by = why.reason
                self.queue_left = size
                if opts.checkpoint_dir and self.checkpointed_level != level:
                    self._write_checkpoint(level, ticker)
                return
            level += 1
            if self.progress is not None and (self.backend.verbose or ticker.due()):
                self._report_progress(level + 1, self.generated, self.distinct, size, ticker, self.backend.detail())

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
        )
        first_violation: dict[str, tuple[Any, int]] = {}  # invariant -> (position, fp), the first in the level
        first_deadlock: tuple[Any, int] | None = None
        reached: dict[str, Any] = {}
        stop: tuple[Any, int, str | None] | None = None  # (parent, precedence, stopped_by)
        size = len(self.parents.fps[level])
        reports = self.backend.expand(request)
        try:
            for report in reports:
                for pos, fp, names in report.violations:
                    for name in names:
                        if name not in self.violated_names and (
                                name not in first_violation or pos < first_violation[name][0]):
                            first_violation[name] = (pos, fp)
                if check_deadlock and report.deadlocks and first_deadlock is None:
                    first_deadlock = report.deadlocks[0]
                for name, pos in report.sometimes.items():
                    if name not in reached or pos < reached[name]:
                        reached[name] = pos
                candidates = []
                if first_violation and not go_on:
                    candidates.append((min(pos for pos, _ in first_violation.values())[0], 0, None))
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
        for name, (pos, fp) in sorted(first_violation.items(), key=lambda item: item[1][0]):
            if bound is None or pos[0] <= bound:
                self._record("invariant", name, model.spec.invariant(name).description, level + 1, fp)
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
        if commit.by_fingerprint:
            prev = self.parents.fps[level]
            order = np.argsort(prev, kind="stable")
            pos = np.searchsorted(prev[order], commit.parents)
            if len(commit.parents):
                np.minimum(pos, len(prev) - 1, out=pos)
                idx = order[pos]
                if not np.array_equal(prev[idx], commit.parents):
                    raise RuntimeError(f"a parent of level {level + 2} is not in level {level + 1}")
            else:
                idx = np.empty(0, dtype=np.int64)
            self.parents.add_level(commit.fps, idx)
        else:
            self.parents.add_level(commit.fps, commit.parents)
        self.distinct += commit.new_count
        if commit.new_count:
            self.depth = level + 2

    # -- traces ---------------------------------------------------------------------------

    def _trace(self, level: int, fp: int) -> list:
        return replay(self.model, self.parents.path_to(level, fp))

    def _failure_trace(self, level: int, fp: int, where: str) -> list:
        """The trace of a spec failure at the parent ``fp``: to the successor it failed on, if a check of one."""
        trace = self._trace(level, fp)
        step = failing_successor(self.model, trace[-1].state, where) if trace else None
        return trace + [step] if step is not None else trace

    def _record(self, kind: str, name: str, description: str, level: int, fp: int) -> None:
        self.violations.append(Violation(kind, name, description, tuple(self._trace(level, fp))))
        self.violated_names.add(name)

    def _report_progress(self, level: int, generated: int, distinct: int, queue: int, ticker: Ticker,
                         detail: str = "") -> None:
        try:
            self.progress(Progress(level, generated, distinct, queue, ticker.elapsed(), detail))
        except KeyboardInterrupt:  # e.g. raised by a library user's sink: stop at the next boundary
            self.stops.interrupted = True

    # -- checkpoints ------------------------------------------------------------------------

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

    def _write_checkpoint(self, level: int, ticker: Ticker) -> None:
        """The boundary before ``level`` is expanded, in the one checkpoint format every backend resumes."""
        start = time.perf_counter()
        snap = self.backend.frontier_states()
        self._reorder_level(level, np.asarray(snap.fps, dtype=np.int64))
        payload = boundary_payload(
            level=level,
            frontier=snap.states,
            seen=np.unique(np.concatenate(self.parents.fps[: level + 1])),
            parent_fps=list(self.parents.fps[: level + 1]),
            parent_idx=list(self.parents.parent_idx[: level + 1]),
            elapsed=self.elapsed_before + ticker.elapsed(),
            **self.counters(),
        )
        write_checkpoint(self.model.options.checkpoint_dir, checkpoint_identity(self.model), payload)
        self.checkpoints_written += 1
        self.checkpointed_level = level
        self.checkpoint_seconds += time.perf_counter() - start

    def _reorder_level(self, level: int, fps: np.ndarray) -> None:
        """Put level ``level``'s parent records in the order of ``fps``, the frontier's (the same fingerprints)."""
        cur = self.parents.fps[level]
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
        self.parents.fps[level] = cur[perm]
        self.parents.parent_idx[level] = self.parents.parent_idx[level][perm]

    def _restore(self, snap: dict) -> tuple[int, list, np.ndarray]:
        """Counters and parent records from a checkpoint; returns the level, its frontier and the visited set."""
        level = snap["level"]
        self.parents.fps = [np.asarray(a, dtype=np.int64) for a in snap["parent_fps"]]
        self.parents.parent_idx = [np.asarray(a, dtype=np.int32) for a in snap["parent_idx"]]
        frontier = snap["frontier"]
        if len(self.parents.fps) != level + 1 or len(self.parents.fps[level]) != len(frontier):
            raise CheckpointError(f"checkpoint in {self.model.options.resume} is inconsistent; start the run again")
        self.generated = snap["generated"]
        self.act_generated = list(snap["act_generated"])
        self.act_distinct = list(snap["act_distinct"])
        self.sometimes_reached = dict(snap["sometimes_reached"])
        self.violations = list(snap["violations"])
        self.violated_names = {v.name for v in self.violations}
        self.depth = snap["depth"]
        self.elapsed_before = snap["elapsed"]
        visited = np.asarray(snap["seen"], dtype=np.int64)
        self.distinct = len(visited)
        self.checkpointed_level = level
        return level, frontier, visited

    # -- the result ---------------------------------------------------------------------------

    def result(self, seconds: float) -> CheckResult:
        """The report of the run so far."""
        return summarize(
            self.model, engine=self.backend.name, seconds=seconds, violations=self.violations,
            stopped_by=self.stopped_by, distinct=self.distinct, generated=self.generated, depth=self.depth,
            queue_left=self.queue_left, act_generated=self.act_generated, act_distinct=self.act_distinct,
            sometimes_reached=self.sometimes_reached,
        )
