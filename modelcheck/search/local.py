"""The local backend: levels expanded in this process, a batch of parents at a time.

TLC's contract in Python: a visited set of 64-bit fingerprints, a frontier
per level (spilled to disk when large), and nothing else per state: states
are dropped once expanded, and the driver keeps the parent records that
turn a fingerprint into a trace.  A level is expanded in batches of parent
states: first every successor of the batch is generated and fingerprinted
(phase 1; compiled, fingerprints are recombined from what a successor shares
with its parent), then the batch's fingerprints are probed against earlier
levels in one numpy call, and the candidates are taken in discovery order
(phase 2).  After each batch the driver reads a :class:`LevelReport` and
decides whether the run stops inside it; only the batch it stops in is cut
(:meth:`LocalBackend.commit`).  What each parent's successors become
(constraints, deadlock, the successor limit, canonical checks, step
properties, liveness transitions) is :mod:`modelcheck.search.successor_rules`,
shared with the worker processes.
"""

# modelcheck: compile

from __future__ import annotations

import gc
from typing import Any, Callable, Iterator

import numpy as np

from modelcheck.errors import SpecRuntimeError
from modelcheck.model.bound import BoundModel
from modelcheck.search.backend import EdgeBlock, FrontierWrite, LevelCommit, LevelReport, LevelRequest, SpecFailure
from modelcheck.search.checkpoint import write_frontier_part
from modelcheck.search.frontier import Frontier
from modelcheck.search.memory import current_rss_bytes
from modelcheck.search.successor_rules import (CANONICAL_CHECKS, check_new_state, check_steps, constrained,
                                               fingerprint_parents, inside_model, parent_expander, transitions)
from modelcheck.search.visited import VisitedSet

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module (see ``expand``)
except ImportError:  # Cython is the optional ``compile`` extra; interpreted, local annotations are never evaluated
    pass

BATCH = 1024
"""Parents expanded together: their successors are fingerprinted and probed in one call each."""

class LocalBackend:
    """Expands levels in this process.  All run state lives on the instance."""

    name = "local"

    def __init__(self, model: BoundModel, frontier_options: dict[str, Any] | None = None) -> None:
        self.model = model
        self.frontier_options = dict(frontier_options or {})
        """Keyword arguments for each level's :class:`Frontier` (chunk size, states kept in memory)."""
        self.frontier: Frontier | None = None
        self.cur_fps = np.empty(0, np.int64)
        self.seen = VisitedSet()
        self.poll: Callable[[], None] = lambda: None
        self.canonical_budget = CANONICAL_CHECKS
        self.peak_frontier = 0
        self.spilled_chunks = 0
        self._gc_was_enabled: bool | None = None
        self._forget_level()

    # -- the backend protocol -----------------------------------------------------------

    def start(self, states: Any, fps: np.ndarray, visited: np.ndarray, poll: Callable[[], None],
              parents: Any = None) -> None:
        self.frontier = Frontier.of(states, **self.frontier_options)
        self.cur_fps = np.asarray(fps, dtype=np.int64)
        self.seen = VisitedSet(visited)
        self.poll = poll
        # States are immutable trees of tuples: the cyclic collector finds nothing
        # in them, yet rescans millions of them.  It is paused while this backend runs.
        self._gc_was_enabled = gc.isenabled()
        gc.disable()

    verbose = False
    keeps_parents = False

    def detail(self) -> str:
        return ""

    def engine_report(self) -> dict | None:
        return None

    def memory_bytes(self) -> int | None:
        return current_rss_bytes()

    def new_state_parent(self, n: int) -> Any:
        """The parent of the level's ``n``-th new state (1-based) in discovery order."""
        for par in self.next_par:
            if n <= len(par):
                return int(par[n - 1])
            n -= len(par)
        raise IndexError("fewer new states in the level than asked for")

    def commit(self, bound: Any) -> LevelCommit:
        """Keep the level (``bound`` None), or only what its parents up to rank ``bound`` found (the run stops)."""
        n = len(self.model.actions)
        generated = self.level_generated
        distinct = self.level_distinct
        fps = np.concatenate(self.next_fps) if self.next_fps else np.empty(0, np.int64)
        par = np.concatenate(self.next_par) if self.next_par else np.empty(0, np.int32)
        edges = EdgeBlock.concat(self.next_edges) if self.recording else None
        masks = (np.concatenate(self.next_masks) if self.next_masks else np.empty(0, np.int64)) \
            if self.recording else None
        if bound is None:
            self.seen.end_level()
            assert self.frontier is not None and self.next_frontier is not None
            self.frontier.close()
            self.spilled_chunks += self.next_frontier.spilled_chunks
            self.frontier = self.next_frontier
            self.next_frontier = None
            self.cur_fps = fps
        else:
            # The driver stops inside the batch it read last: cut that batch after parent ``bound``.
            first, ends, c_ai = self.last_batch
            if not first <= bound < first + len(ends):
                raise AssertionError(f"stop at parent {bound} outside the last batch ({first}, {len(ends)} parents)")
            cut = ends[bound - first]
            generated = self.level_generated_before_last + np.bincount(
                np.array(c_ai[:cut], dtype=np.intp), minlength=n)
            keep = par <= bound
            ai = np.concatenate(self.next_ai) if self.next_ai else np.empty(0, np.int16)
            distinct = np.bincount(ai[keep].astype(np.intp), minlength=n)
            fps, par = fps[keep], par[keep]
            if edges is not None:
                edges = edges.where(edges.src <= bound)
                masks = masks[keep]
            if self.next_frontier is not None:
                self.next_frontier.close()
            self.next_frontier = None
            self.seen.discard_level()
        commit = LevelCommit([int(g) for g in generated[:n]], [int(d) for d in distinct[:n]], len(fps), fps, par,
                             edges=edges, masks=masks)
        self._forget_level()
        return commit

    def abandon(self) -> None:
        self.seen.discard_level()
        if self.next_frontier is not None:
            self.next_frontier.close()
        self._forget_level()

    def write_frontier(self, directory: str) -> FrontierWrite:
        """The frontier, streamed a chunk at a time (a spilled frontier is never all in memory)."""
        assert self.frontier is not None
        part = write_frontier_part(directory, 0, self.frontier, np.arange(len(self.cur_fps), dtype=np.int64))
        return FrontierWrite(self.cur_fps, [part])

    def visited(self) -> np.ndarray:
        """Every fingerprint seen, sorted (at a level boundary)."""
        self.seen.end_level()
        return self.seen.old

    def close(self) -> None:
        if self.frontier is not None:
            self.frontier.close()
            self.frontier = None
        if self.next_frontier is not None:
            self.next_frontier.close()
            self.next_frontier = None
        if self._gc_was_enabled:
            gc.enable()
        self._gc_was_enabled = None

    # -- one level ------------------------------------------------------------------------

    def _forget_level(self) -> None:
        """No level under way: the boundary is the whole state."""
        n = len(self.model.actions)
        self.next_frontier: Frontier | None = None
        # The level's fingerprints, parent ranks and actions, a numpy array per batch: ``array.extend``
        # from a list converts each int through PyArg_Parse (about 600 instructions a state).
        self.next_fps: list = []
        self.next_par: list = []
        self.next_ai: list = []
        self.next_edges: list[EdgeBlock] = []
        self.next_masks: list = []
        self.recording = False
        self.level_generated = np.zeros(n, dtype=np.int64)
        self.level_distinct = np.zeros(n, dtype=np.int64)
        self.level_generated_before_last = self.level_generated
        self.last_batch: tuple[int, list, list] = (0, [], [])

    def expand(self, request: LevelRequest) -> Iterator[LevelReport]:
        """Expand the frontier a batch at a time, yielding a cumulative report after each batch."""
        model = self.model
        assert self.frontier is not None
        frontier = self.frontier
        seen = self.seen
        poll = self.poll
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
        n_succ: cython.Py_ssize_t
        c_ai: list
        c_code: list
        c_t: list
        ends: list
        fresh: list
        fresh_fp: list
        new_t: list
        new_fp: list
        new_par: list
        new_ai: list
        ai: cython.Py_ssize_t
        level_set: set
        budget: cython.Py_ssize_t = self.canonical_budget
        filtering = constrained(model)
        check_deadlock = model.check_deadlock
        check_invariants = bool(model.invariants)
        invariants_hold = model.invariants_test()
        failed_invariants = model.failed_invariants
        properties = [p for p in model.sometimes if p.name in request.unreached]
        reported = set(request.violated)  # invariants whose first violation in this level is reported
        deadlock_found = False
        n_actions = len(model.actions)
        # Liveness: every transition (by label, an action instance) and each new state's predicate bits.
        record = request.record
        self.recording = record
        mask = model.state_mask() if record else None
        label_action = model.label_action
        label_dtype = np.int16 if len(label_action) < 2**15 else np.int32
        expand_parent = parent_expander(model, record)
        c_lab: list = []
        step_check = bool(model.step_properties)
        steps_reported = set(request.violated)
        new_mask: list
        cur_fps = self.cur_fps
        self.peak_frontier = max(self.peak_frontier, len(frontier))
        self.next_frontier = next_frontier = Frontier(**self.frontier_options)
        level_set = seen.level
        generated_total = 0
        new_total = 0
        i = 0  # rank of the next parent in this level
        for part in frontier.chunks():
            for lo in range(0, len(part), BATCH):
                parents = part[lo:lo + BATCH]
                first = i
                # Phase 1: every successor of the batch, with its fingerprint (modelcheck.search.successor_rules).
                c_code = []
                c_t = []
                ends = []
                deadlocks: list = []
                error: SpecRuntimeError | None = None
                for s in parents:
                    try:
                        n_succ = expand_parent(s, c_code, c_t)
                    except SpecRuntimeError as err:
                        error = err
                        break
                    if n_succ == 0 and check_deadlock and not deadlock_found:
                        deadlocks.append((i + len(ends), int(cur_fps[i + len(ends)])))
                        deadlock_found = True
                    ends.append(len(c_t))
                if record:  # the codes are labels: the counts are per action
                    c_lab = c_code
                    c_ai = [label_action[x] for x in c_lab]
                else:
                    c_ai = c_code
                # One walk of each part the batch's successors share (modelcheck.model.fingerprint).
                c_fps, bad = fingerprint_parents(model, c_t, c_ai, None, ends, filtering)
                if bad is not None:
                    error = bad
                failures: list = []
                steps: list = []
                if record:
                    self.next_edges.append(self._edges(first, ends, c_fps, c_lab, c_t if filtering else None,
                                                       label_dtype))
                if step_check:
                    self._check_steps(parents, first, ends, c_t, c_fps, steps_reported, steps, failures)
                # Phase 2: the candidates not seen in earlier levels (one numpy probe for
                # the batch), taken in discovery order; the rest only count as generated.
                # Only these become int objects (for the level's set).
                fresh_at = seen.unseen_in_old(c_fps)
                fresh = fresh_at.tolist()
                fresh_fp = c_fps[fresh_at].tolist()
                n_fresh = len(fresh)
                # The batch's new states, fingerprints, parent ranks and actions, added to the
                # level at its end (one call each instead of one per state).
                new_t = []
                new_fp = []
                new_par = []
                new_ai = []
                new_mask = []
                violations: list = []
                reached: dict = {}
                f = 0  # index into fresh
                k = 0  # candidates [0, k) are accounted for
                try:
                    for j in range(len(ends)):
                        end = ends[j]
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
                                check_new_state(model, t, ai)
                            if record:  # before the state joins the level: a failing predicate leaves no trace
                                new_mask.append(mask(t))
                            level_set.add(fp)
                            new_t.append(t)
                            new_fp.append(fp)
                            new_par.append(i)
                            new_ai.append(ai)
                            if properties:
                                for p in list(properties):
                                    if model.property_holds(p, t):
                                        reached[p.name] = (i, kk - k)
                                        properties.remove(p)
                            if check_invariants and not invariants_hold(t):
                                names = tuple(inv.name for inv in failed_invariants(t) if inv.name not in reported)
                                if names:
                                    violations.append(((i, kk - k), fp, names))
                                    reported.update(names)
                        k = end
                        i += 1
                        if (i & 255) == 0:
                            poll()
                except SpecRuntimeError as err:
                    # An invariant, a property or a canonical-state check failed in spec code at parent i.
                    failures.append((i, int(cur_fps[i]), SpecFailure.of(err)))
                # The batch joins the level.
                next_frontier.extend(new_t)
                self.level_generated_before_last = self.level_generated
                if k:  # per-action counts in one numpy pass (a Counter cost 400 instructions a candidate)
                    self.level_generated = self.level_generated + np.bincount(
                        np.array(c_ai[:k] if k < len(c_ai) else c_ai, dtype=np.intp), minlength=n_actions)
                if new_fp:
                    self.next_fps.append(np.array(new_fp, dtype=np.int64))
                    self.next_par.append(np.array(new_par, dtype=np.int32))
                    ai_arr = np.array(new_ai, dtype=np.int16)
                    self.next_ai.append(ai_arr)
                    if record:
                        self.next_masks.append(np.array(new_mask, dtype=np.int64))
                    self.level_distinct = self.level_distinct + np.bincount(ai_arr.astype(np.intp),
                                                                            minlength=n_actions)
                self.last_batch = (first, ends, c_ai)
                generated_total += k
                new_total += len(new_fp)
                if error is not None:
                    failures.append((i, int(cur_fps[i]), SpecFailure.of(error)))
                failures.sort(key=lambda f: f[0])
                self.canonical_budget = budget
                yield LevelReport(i - 1, generated_total, new_total, violations, deadlocks, reached, failures, steps)
                if failures:
                    return

    # -- liveness and step properties -------------------------------------------------------

    def _edges(self, first: int, ends: list, c_fps: np.ndarray, c_lab: list, c_t: list | None,
               label_dtype: Any) -> EdgeBlock:
        """The batch's transitions (``successor_rules.transitions``): parent rank, target fingerprint, label."""
        m = ends[-1] if ends else 0
        counts = np.diff(np.array([0] + ends, dtype=np.int64))
        src = np.repeat(np.arange(first, first + len(ends), dtype=np.int32), counts)
        dst = c_fps[:m]
        keep = transitions(self.cur_fps[src], dst, inside_model(c_t, m) if c_t is not None else None)
        return EdgeBlock(src[keep], dst[keep], np.array(c_lab[:m], dtype=label_dtype)[keep])

    def _check_steps(self, parents: list, first: int, ends: list, c_t: list, c_fps: np.ndarray,
                     reported: set, steps: list, failures: list) -> None:
        """Each step of the batch against the step properties (``successor_rules.check_steps``)."""
        sfps = self.cur_fps[first:first + len(ends)].tolist()
        found, failed = check_steps(self.model, parents, sfps, ends, c_t, c_fps.tolist(), reported)
        steps.extend(((first + k, j), sfps[k], names) for k, j, names in found)
        if failed is not None:
            k, err = failed
            failures.append((first + k, sfps[k], SpecFailure.of(err)))
