"""The local breadth-first engine: exhaustive search by levels with fingerprints.

TLC's contract in Python: a visited set of 64-bit fingerprints
(``seen.add`` answers "already seen?"), a frontier per BFS level, and per level
two compact arrays of (fingerprint, parent fingerprint).  States are not kept
once expanded; a counterexample is rebuilt by walking the parent arrays back to
an initial state and replaying the spec along that path
(:mod:`modelcheck.model.replay`).  Because levels are explored in order, the first
violation found has a shortest trace.
"""

# modelcheck: compile

from __future__ import annotations

import bisect
import gc
from typing import Any

import numpy as np

from modelcheck.search.checkpoint import boundary_payload, read_boundary, write_checkpoint
from modelcheck.errors import SpecRuntimeError
from modelcheck.search.frontier import Frontier
from modelcheck.search.memory import MemoryBudgetExceeded, current_rss_bytes
from modelcheck.model.bound import BoundModel
from modelcheck.search.progress import Progress, ProgressSink, Ticker
from modelcheck.model.replay import replay
from modelcheck.options import CheckOptions
from modelcheck.output.results import CheckResult, Violation
from modelcheck.search.counters import SearchCounters, checkpoint_identity
from modelcheck.spec.declare import Spec, State
from modelcheck.model.successor_hash import successor_fingerprint_array
from modelcheck.search.visited import VisitedSet

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module (see ``_search``)
except ImportError:  # Cython is the optional ``compile`` extra; interpreted, local annotations are never evaluated
    pass


def check(
    spec: Spec,
    consts: Any,
    options: CheckOptions = CheckOptions(),
    progress: ProgressSink | None = None,
    workers: int = 1,
) -> CheckResult:
    """Explore every reachable state of ``spec`` under ``consts`` and report what holds.

    ``workers`` above 1 runs the same search in that many processes
    (:mod:`modelcheck.search.workers.coordinator`), with an identical result.
    """
    model = BoundModel(spec, consts, options)
    if workers > 1:
        from modelcheck.search.workers.coordinator import check_parallel

        return check_parallel(model, workers, progress)
    return LocalBFS(model, progress).run()


class LocalBFS(SearchCounters):
    """One run of the single-process BFS. All run state lives on the instance."""

    def __init__(self, model: BoundModel, progress: ProgressSink | None = None) -> None:
        super().__init__(model)
        self.progress = progress
        self.peak_frontier = 0
        self.spilled_chunks = 0
        self.frontier_options: dict[str, Any] = {}
        """Keyword arguments for each level's :class:`Frontier` (chunk size, states kept in memory)."""

    # -- trace helpers --------------------------------------------------------

    def trace_to(self, level: int, fp: int) -> list:
        return replay(self.model, self.parents.path_to(level, fp))

    def _record_violation(self, kind: str, name: str, description: str, level: int, fp: int) -> None:
        self.violations.append(Violation(kind, name, description, tuple(self.trace_to(level, fp))))
        self.violated_names.add(name)

    def _note_new_state(self, t: State, level: int, fp: int) -> bool:
        """Check invariants and sometimes-properties on a new state; True to stop the run."""
        self._note_sometimes(t)
        failed = self.model.failed_invariants(t) if self.model.invariants else []
        return bool(failed) and self._note_failed(failed, level, fp)

    def _note_sometimes(self, t: State) -> None:
        """Mark the sometimes-properties that ``t`` reaches."""
        model = self.model
        for p in model.sometimes:
            if not self.sometimes_reached[p.name] and model._call(f"property {p.name}", p.fn, model.c, t):
                self.sometimes_reached[p.name] = True

    def _note_failed(self, failed: list, level: int, fp: int) -> bool:
        """Keep the invariants a new state violates for their traces; True to stop the run."""
        for inv in failed:
            if inv.name not in self.violated_names:
                self._pending.append((inv, level, fp))
        return not self.model.options.continue_after_violation

    # -- the search -----------------------------------------------------------

    def _snapshot(self, level: int, frontier: Frontier, seen: VisitedSet, elapsed: float) -> dict:
        """Everything needed to continue from the start of ``level`` (a level boundary)."""
        return boundary_payload(
            level=level,
            frontier=frontier.to_list(),
            seen=seen.to_array(),
            parent_fps=self.parents.fps[: level + 1],
            parent_idx=self.parents.parent_idx[: level + 1],
            elapsed=elapsed,
            **self.counters(),
        )

    def _restore(self, snap: dict) -> tuple[int, Frontier, VisitedSet]:
        self.restore_parents(snap)
        self.restore_counters(snap)
        self.elapsed_before = snap["elapsed"]
        return snap["level"], Frontier.of(snap["frontier"]), VisitedSet(snap["seen"])

    def _write_checkpoint(self, snap: dict) -> None:
        opts = self.model.options
        if opts.checkpoint_dir:
            write_checkpoint(opts.checkpoint_dir, checkpoint_identity(self.model), snap)
            self.checkpoints_written += 1

    def run(self) -> CheckResult:
        model = self.model
        opts = model.options
        fingerprint = model.fingerprint
        ticker = Ticker(opts.progress_seconds)
        self._pending: list = []
        stop = False

        if opts.resume:
            level, frontier, seen = self._restore(read_boundary(opts.resume, checkpoint_identity(self.model)))
        else:
            # Level 1: initial states.
            level = 0
            seen = VisitedSet()
            init_frontier = []
            level_fps: list[int] = []
            for s in model.init_states():
                self.generated += 1
                if not model.in_model(s):
                    continue
                fp = fingerprint(s)
                if fp in seen.level:
                    continue
                seen.level.add(fp)
                init_frontier.append(s)
                level_fps.append(fp)
            self.parents.add_level(level_fps, [0] * len(level_fps))
            self.depth = 1 if init_frontier else 0
            for i, s in enumerate(init_frontier):
                if self._note_new_state(s, 0, level_fps[i]):
                    stop = True
            seen.end_level()
            for inv, lvl, fp in self._pending:
                self._record_violation("invariant", inv.name, inv.description, lvl, fp)
            self._pending = []
            frontier = Frontier.of(init_frontier)
        self.distinct = len(seen)
        self._seen = seen
        # States are immutable trees of tuples: the cyclic collector finds nothing
        # in them, yet rescans millions of them.  It is paused during the search.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            self._search(level, frontier, seen, stop, ticker)
        except KeyboardInterrupt:
            # Outside a level's expansion (e.g. while a checkpoint was being written):
            # the last checkpoint written stays the one to resume from.
            self.stopped_by = "interrupt"
        finally:
            if gc_was_enabled:
                gc.enable()
        self.distinct = len(self._seen)
        return self.result(self.elapsed_before + ticker.elapsed())

    def _search(self, level: int, frontier: Frontier, seen: VisitedSet, stop: bool, ticker: Ticker) -> None:
        """Expand level after level from ``frontier`` (level index ``level``) until done or stopped.

        Each level is expanded a batch of parent states at a time: first every
        successor of the batch is generated and fingerprinted (phase 1), then
        the batch's fingerprints are probed against earlier levels in one numpy
        call, and the candidates are taken in discovery order (phase 2), exactly
        as a one-state-at-a-time search would: same counts, same first
        discoverer, same first violation.
        """
        model = self.model
        opts = model.options
        fingerprint = model.fingerprint
        expand = model.expand
        expand_into = model.expand_into
        # Compiled (``modelcheck compile``), these locals are C integers and typed lists: the
        # per-candidate loop below indexes lists and counts with them, and as Python ints every
        # ``c_t[kk]`` was a generic item lookup through an int object (perf: 5 % of a check).
        # Interpreted, the annotations are inert.
        i: cython.Py_ssize_t
        j: cython.Py_ssize_t
        f: cython.Py_ssize_t
        k: cython.Py_ssize_t
        kk: cython.Py_ssize_t
        end: cython.Py_ssize_t
        n_fresh: cython.Py_ssize_t
        any_successor: cython.bint
        c_ai: list
        c_t: list
        c_fp: list
        ends: list
        fresh: list
        fresh_fp: list
        new_t: list
        new_fp: list
        new_par: list
        ai: cython.Py_ssize_t
        level_set: set
        act_generated: list
        act_distinct: list
        budget: cython.Py_ssize_t = 20000  # deep canonical checks on the first new states (see docs)
        memory_limit = opts.max_memory_mb * 1024 * 1024 if opts.max_memory_mb else None
        last_checkpoint = ticker.elapsed()
        in_model = model.in_model if model.spec.state_constraint else None
        action_ok = model.action_allowed if model.spec.action_constraint else None
        check_deadlock = model.check_deadlock
        act_generated = self.act_generated
        act_distinct = self.act_distinct
        batch = 1024
        filtering = in_model is not None or action_ok is not None
        max_states = opts.max_states
        sometimes = bool(self.sometimes_reached)
        check_invariants = bool(model.invariants)
        invariants_hold = model.invariants_test()
        failed_invariants = model.failed_invariants

        while frontier and not stop:
            if opts.max_depth is not None and level + 1 >= opts.max_depth:
                self.stopped_by = "max-depth"
                self.queue_left = len(frontier)
                break
            if opts.checkpoint_dir and ticker.elapsed() - last_checkpoint >= opts.checkpoint_every:
                self._write_checkpoint(self._snapshot(level, frontier, seen, self.elapsed_before + ticker.elapsed()))
                last_checkpoint = ticker.elapsed()
            boundary = self._snapshot(level, frontier, seen, 0.0) if opts.checkpoint_dir else None
            self.peak_frontier = max(self.peak_frontier, len(frontier))
            cur_fps = self.parents.fps[level]
            next_frontier = Frontier(**self.frontier_options)
            # The level's fingerprints and parent indices, a numpy array per batch: ``array.extend``
            # from a list converts each int through PyArg_Parse (about 600 instructions a state).
            next_fps: list = []
            next_par: list = []
            level_set = seen.level
            frontier_len = len(frontier)
            i = 0  # index of the next parent in this level
            act_generated = self.act_generated
            act_distinct = self.act_distinct
            try:
                for part in frontier.chunks():
                    for lo in range(0, len(part), batch):
                        parents = part[lo:lo + batch]
                        # Phase 1: every successor of the batch, with its fingerprint.
                        c_ai = []
                        c_t = []
                        c_fp = []
                        ends = []
                        error: BaseException | None = None
                        if filtering:
                            for s in parents:
                                try:
                                    try:
                                        for ai, _b, r in expand(s):
                                            for t in (r if type(r) is list else (r,)):
                                                c_ai.append(ai)
                                                if (in_model is not None and not in_model(t)) or (
                                                    action_ok is not None and not action_ok(s, t)
                                                ):
                                                    c_t.append(None)  # generated, but outside the model
                                                    c_fp.append(0)
                                                else:
                                                    c_t.append(t)
                                                    c_fp.append(fingerprint(t))
                                    except TypeError:
                                        # Only fingerprinting raises it here (spec code is wrapped): name the state.
                                        for ai, b, t in model.successors(s):
                                            model.check_state(t, f"action {model.actions[ai].name}")
                                        raise
                                except SpecRuntimeError as err:
                                    error = err
                                    break
                                ends.append(len(c_t))
                        else:
                            for s in parents:
                                try:
                                    expand_into(s, c_ai, c_t)
                                except SpecRuntimeError as err:
                                    error = err
                                    break
                                ends.append(len(c_t))
                            try:  # hash(t) is recombined from the parts each successor shares with its parent
                                c_fps = successor_fingerprint_array(parents, ends, c_t, fingerprint)
                            except TypeError:
                                # An unhashable successor: stop at its parent with an error naming it.
                                bad, error = model.first_bad_state(c_t, c_ai)
                                del ends[bisect.bisect_right(ends, bad):]  # from the parent that generated it
                                c_fps = successor_fingerprint_array(parents, ends, c_t, fingerprint)
                        if filtering:
                            c_fps = np.array(c_fp, dtype=np.int64)
                        # Phase 2: the candidates not seen in earlier levels (one numpy probe for
                        # the batch), taken in discovery order; the rest only count as generated.
                        # Only these become int objects (for the level's set).
                        fresh_at = seen.unseen_in_old(c_fps)
                        fresh = fresh_at.tolist()
                        fresh_fp = c_fps[fresh_at].tolist()
                        n_fresh = len(fresh)
                        # The batch's new states, fingerprints and parent indices, added to the level at its end
                        # (one call each instead of one per state).
                        new_t = []
                        new_fp = []
                        new_par = []
                        f = 0  # index into fresh
                        k = 0  # candidates [0, k) are accounted for
                        try:
                            for j in range(len(ends)):
                                end = ends[j]
                                any_successor = end > k
                                while f < n_fresh:
                                    kk = fresh[f]
                                    if kk >= end:
                                        break
                                    fp = fresh_fp[f]
                                    f += 1
                                    t = c_t[kk]
                                    if t is None or fp in level_set:
                                        continue
                                    ai = c_ai[kk]
                                    if budget > 0:
                                        budget -= 1
                                        model.check_state(t, f"action {model.actions[ai].name}")
                                    level_set.add(fp)
                                    act_distinct[ai] += 1
                                    new_t.append(t)
                                    new_fp.append(fp)
                                    new_par.append(i)
                                    if sometimes:
                                        self._note_sometimes(t)
                                    if check_invariants and not invariants_hold(t):
                                        failed = failed_invariants(t)  # which ones (or the error naming one)
                                        if failed and self._note_failed(failed, level + 1, fp):
                                            stop = True
                                k = end
                                if stop:
                                    break
                                if check_deadlock and not any_successor and "Deadlock" not in self.violated_names:
                                    self._record_violation("deadlock", "Deadlock", "a reachable state has no successor",
                                                           level, int(cur_fps[i]))
                                    if not opts.continue_after_violation:
                                        stop = True
                                        break
                                if max_states is not None and len(seen) >= max_states:
                                    self.stopped_by = "max-states"
                                    stop = True
                                    break
                                i += 1
                                if (i & 255) == 0:
                                    if memory_limit is not None and current_rss_bytes() > memory_limit:
                                        raise MemoryBudgetExceeded
                                    if self.progress is not None and ticker.due():
                                        self.progress(Progress(level + 1, self.generated + k, len(seen),
                                                               frontier_len - i + len(next_frontier) + len(new_t),
                                                               ticker.elapsed()))
                        except SpecRuntimeError as err:
                            # An invariant, or a canonical-state check, failed in spec code.
                            err.trace = self.trace_to(level, int(cur_fps[i]))
                            raise
                        finally:
                            # The batch's new states join the level; its candidates taken so far count as generated.
                            next_frontier.extend(new_t)
                            if new_fp:
                                next_fps.append(np.array(new_fp, dtype=np.int64))
                                next_par.append(np.array(new_par, dtype=np.int32))
                            self.generated += k
                            if k:  # per-action counts in one numpy pass (a Counter cost 400 instructions a candidate)
                                per_action = np.bincount(np.array(c_ai[:k] if k < len(c_ai) else c_ai, dtype=np.intp))
                                for ai, count in enumerate(per_action.tolist()):
                                    if count:
                                        act_generated[ai] += count
                        if stop:
                            break
                        if error is not None:
                            if isinstance(error, SpecRuntimeError):
                                error.trace = self.trace_to(level, int(cur_fps[i]))
                            raise error
                    if stop:
                        break
            except (KeyboardInterrupt, MemoryBudgetExceeded) as exc:
                # Roll back to the start of this level, which a resumed run repeats exactly.
                self.stopped_by = "interrupt" if isinstance(exc, KeyboardInterrupt) else "max-memory"
                seen.discard_level()
                next_frontier.close()
                self.queue_left = frontier_len
                if boundary is not None:
                    self.restore_counters(boundary)
                    boundary["elapsed"] = self.elapsed_before + ticker.elapsed()
                    self._write_checkpoint(boundary)
                break
            finally:
                frontier.close()
            self.parents.add_level(np.concatenate(next_fps) if next_fps else np.empty(0, np.int64),
                                   np.concatenate(next_par) if next_par else np.empty(0, np.int32))
            seen.end_level()
            level += 1
            if next_frontier:
                self.depth = level + 1
            self.distinct = len(seen)
            self.spilled_chunks += next_frontier.spilled_chunks
            # Violations are turned into traces once the level's arrays are stored.
            for inv, lvl, fp in self._pending:
                if inv.name not in self.violated_names:
                    self._record_violation("invariant", inv.name, inv.description, lvl, fp)
            self._pending = []
            if stop:
                self.queue_left = len(next_frontier)
                next_frontier.close()
                break
            frontier = next_frontier
