"""``--workers N``: the BFS in N forked processes, states hash-partitioned by fingerprint.

Worker ``w`` owns the fingerprints ``fp % N == w``: it keeps their visited set
and parent records, checks invariants on the new ones and expands them.  A BFS
level is two rounds, driven by the coordinator (this process):

1. *expand*: every worker generates the successors of its frontier and writes
   each one, with a discovery key, to a file for the successor's owner;
2. *merge*: every worker reads the candidates addressed to it, sorts them by
   key, drops those already seen and checks invariants on the rest.

The discovery key of a candidate is (rank of its parent in the level, index of
the successor among its parent's), so sorting by key is exactly the order in
which the one-process engine meets the candidates.  After each level the
coordinator ranks the new states of all workers by key, which gives the next
level's parent ranks.  Hence the result is identical to ``--workers 1``: the
same counts (truncated at the same parent when the search stops early), the
same first discoverer of every state, the same first violation and trace.

Candidates travel through files in a temporary directory rather than pipes:
no worker blocks on a full pipe, and large levels sit in the page cache or on
disk rather than in memory.

Checkpoints (``--checkpoint``/``--resume``), interrupts and ``--max-memory``
keep the local engine's contract, and the checkpoint file is the local
engine's own (format 2), so either engine, with any worker count, resumes it.
That works because the coordinator keeps the parent records in the local
engine's shape (per level: fingerprints in discovery order, the index of each
one's parent in the level before), ranks being exactly those indices; the
visited set is the union of those levels, and when a checkpoint is written
the workers pickle their parts of the frontier, which load as one list in
rank order.  Worker state changes
only in ``advance`` (the level's commit), and the coordinator's counters only
after it, so a level can be abandoned at any other moment: the coordinator
signals the busy workers (SIGUSR1), waits for them to drop the level, and the
last level boundary is intact.  Ctrl-C/SIGTERM only set a flag that the
coordinator polls while it waits for its workers; the memory budget (the
proportional set size of the coordinator and every worker, so pages shared
after the fork count once) is polled there too.  Workers die with the
coordinator (``PR_SET_PDEATHSIG``), removing the candidate directory.

This module is the coordinator; a worker's side of each command is
:mod:`modelcheck.search.workers.worker`.
"""

# modelcheck: compile

from __future__ import annotations

import os
import pickle
import shutil
import signal
import tempfile
import threading
import time
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np

from modelcheck.search.checkpoint import boundary_payload, read_boundary, write_checkpoint
from modelcheck.errors import CheckpointError, ModelCheckError, SpecRuntimeError
from modelcheck.search.memory import processes_memory_bytes
from modelcheck.model.bound import BoundModel
from modelcheck.search.workers.worker import DEFAULT_SPILL_STATES, SUCC_BITS, worker_main
from modelcheck.search.progress import Progress, ProgressSink, Ticker
from modelcheck.model.replay import replay
from modelcheck.output.results import CheckResult, Violation
from modelcheck.search.counters import SearchCounters, checkpoint_identity


POLL_SECONDS = 0.05
"""How often the coordinator, waiting for its workers, looks at the interrupt flag."""

MEMORY_POLL_SECONDS = 0.2
"""How often it measures the memory of all its processes against ``--max-memory``."""


class WorkerCrash(ModelCheckError):
    """A worker process failed outside spec code (a bug of ours) or died; carries its traceback or fate."""


class _Stop(Exception):
    """Raised in the coordinator at a point where the run may stop: ``reason`` is its ``stopped_by``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _merge_frontier(parts: list[tuple[np.ndarray, bytes]]) -> list:
    """The frontier in rank order from the workers' pickled parts (called when a checkpoint is loaded)."""
    out: list = [None] * sum(len(ranks) for ranks, _ in parts)
    for ranks, blob in parts:
        for r, s in zip(ranks.tolist(), pickle.loads(blob)):
            out[r] = s
    return out


class _FrontierParts:
    """Pickles as a call of :func:`_merge_frontier`, so a checkpoint's frontier loads as a plain list.

    The workers pickle their parts of the frontier themselves, in parallel, and
    the coordinator copies the bytes into the checkpoint without ever
    unpickling the states: half the cost of gathering them as objects, and a
    few bytes per state in the coordinator's memory instead of a few hundred.
    """

    def __init__(self, parts: list[tuple[np.ndarray, bytes]]) -> None:
        self.parts = parts

    def __reduce__(self) -> tuple:
        return (_merge_frontier, (self.parts,))


def balance_moves(sizes: list[int], slack: float = 0.1, minimum: int = 200) -> dict[int, list[tuple[int, int]]]:
    """Which worker hands how many frontier states to which, so that every frontier is near the mean.

    Moving a state costs about as much as expanding it (pickling), so
    nothing moves unless some worker is more than ``slack`` of the mean (and
    ``minimum`` states) away from it.
    """
    n = len(sizes)
    mean = sum(sizes) / n if n else 0
    if n < 2 or max(sizes) - mean <= max(slack * mean, minimum / 2):
        return {}
    target = [int(mean)] * n
    for i in range(sum(sizes) - sum(target)):
        target[i] += 1
    surplus = [(w, sizes[w] - target[w]) for w in range(n) if sizes[w] > target[w]]
    deficit = [[w, target[w] - sizes[w]] for w in range(n) if sizes[w] < target[w]]
    moves: dict[int, list[tuple[int, int]]] = {}
    d = 0
    for w, extra in surplus:
        while extra > 0 and d < len(deficit):
            count = min(extra, deficit[d][1])
            moves.setdefault(w, []).append((deficit[d][0], count))
            extra -= count
            deficit[d][1] -= count
            if deficit[d][1] == 0:
                d += 1
    return moves


class ParallelBFS(SearchCounters):
    """The coordinator of one ``--workers N`` run; all run state lives on the instance.

    Its parent records are in rank order, which is discovery order: the local engine's.
    """

    def __init__(self, model: BoundModel, workers: int, progress: ProgressSink | None = None) -> None:
        super().__init__(model)
        self.n = workers
        self.progress = progress
        self.moved_states = 0
        """Frontier states handed from one worker to another to balance the load (pickled)."""
        self.expanded_by_worker = [0] * workers
        """How many states each worker expanded: the load balance."""
        self.level = 0
        """The level whose frontier the workers hold (the last boundary passed)."""
        self.checkpointed_level: int | None = None
        """The boundary this run last wrote a checkpoint of (a stop there need not write it again)."""
        self.checkpoint_seconds = 0.0
        """Time spent gathering and writing checkpoints (for measurements)."""
        self.interrupted = False
        self.conns: list[Connection] = []
        self.procs: list = []
        self.outstanding: set[int] = set()
        self.memory_limit = model.options.max_memory_mb * 1024 * 1024 if model.options.max_memory_mb else None
        self.spill_states = DEFAULT_SPILL_STATES
        """A worker whose frontier holds more states than this keeps it on disk (see parallel_worker.Worker._set_frontier)."""
        self.spilled_levels = 0
        """Levels whose frontier some worker kept on disk (summed over the workers)."""
        self.next_memory_check = 0.0

    # -- talking to the workers -------------------------------------------------

    def _send(self, w: int, cmd: str, *args: Any) -> None:
        try:
            self.conns[w].send((cmd, *args))
        except OSError:  # a broken pipe: the worker died (click would turn EPIPE into a silent exit 1)
            raise self._died(w) from None
        self.outstanding.add(w)

    def _gather(self, abandonable: bool) -> list:
        """The replies to the commands sent; while abandonable, a stop request raises :class:`_Stop`."""
        replies: list = [None] * self.n
        while self.outstanding:
            if abandonable:
                self._poll_stop()
            ready = wait([self.conns[w] for w in self.outstanding], timeout=POLL_SECONDS)
            for conn in ready:
                w = self.conns.index(conn)
                status, reply = self._recv(w)
                self.outstanding.discard(w)
                if status == "crash":
                    raise WorkerCrash(f"a worker process failed:\n{reply}")
                replies[w] = reply
        return replies

    def _recv(self, w: int) -> tuple[str, Any]:
        try:
            return self.conns[w].recv()
        except (EOFError, OSError):
            raise self._died(w) from None

    def _died(self, w: int) -> WorkerCrash:
        """The error for worker ``w`` found dead (e.g. by the OOM killer), with how it died."""
        p = self.procs[w]
        p.join(timeout=1)
        code = p.exitcode
        fate = (f"was killed by signal {-code}" if code is not None and code < 0
                else f"exited with status {code}" if code is not None else "closed its pipe")
        hint = ""
        if self.model.options.checkpoint_dir:
            hint = f"; the last checkpoint in {self.model.options.checkpoint_dir}, if any, resumes the run"
        return WorkerCrash(f"worker process {w} (pid {p.pid}) {fate}{hint}")

    def _call_all(self, cmd: str, *args: Any, per_worker: list | None = None, abandonable: bool = False) -> list:
        for w in range(self.n):
            self._send(w, cmd, *(per_worker[w] if per_worker is not None else args))
        return self._gather(abandonable)

    def _poll_stop(self) -> None:
        """Raise :class:`_Stop` if Ctrl-C/SIGTERM came or the processes are over the memory budget."""
        if self.interrupted:
            raise _Stop("interrupt")
        if self.memory_limit is not None:
            now = time.monotonic()
            if now >= self.next_memory_check:
                used = processes_memory_bytes([os.getpid()] + [p.pid for p in self.procs], self.memory_limit)
                # Measuring large processes takes a while: spend at most ~5% of this process on it.
                spent = time.monotonic() - now
                self.next_memory_check = now + max(MEMORY_POLL_SECONDS, 20 * spent)
                if used > self.memory_limit:
                    raise _Stop("max-memory")

    def _abandon(self) -> None:
        """Cut the level under way short and bring every worker back to the last boundary."""
        for w in self.outstanding:
            try:
                os.kill(self.procs[w].pid, signal.SIGUSR1)
            except OSError:
                pass
        self._gather(abandonable=False)  # "abandoned", or "ok" from those that had finished
        for name in os.listdir(self.tmp):
            try:
                os.unlink(os.path.join(self.tmp, name))
            except OSError:
                pass
        self._call_all("rollback")

    def _on_signal(self, signum: int, frame: Any) -> None:
        if self.interrupted:  # a second Ctrl-C: stop now; the last checkpoint written stays valid
            raise KeyboardInterrupt
        self.interrupted = True

    # -- traces -----------------------------------------------------------------

    def _trace(self, level: int, fp: int) -> tuple:
        return tuple(replay(self.model, self.parents.path_to(level, fp)))

    def _raise(self, level: int, info: tuple) -> None:
        _rank, pfp, (message, spec, where, is_state_error) = info
        from modelcheck.errors import StateError

        cls = StateError if is_state_error else SpecRuntimeError
        raise cls(message, spec=spec, where=where, trace=list(self._trace(level, pfp)))

    # -- checkpoints ------------------------------------------------------------

    def _write_checkpoint(self, ticker: Ticker) -> None:
        """The last level boundary, in the local engine's checkpoint format (2)."""
        start = time.perf_counter()
        level = self.level
        fps = self.parents.fps[: level + 1]
        parts = self._call_all("frontier_states")
        if sum(len(ranks) for ranks, _ in parts) != len(fps[level]):
            raise WorkerCrash(f"the workers hold {sum(len(r) for r, _ in parts)} frontier states, "
                              f"level {level} has {len(fps[level])}")
        snap = boundary_payload(
            level=level,
            frontier=_FrontierParts(parts),  # loads as the list of states in rank order
            seen=np.sort(np.concatenate(fps)),
            parent_fps=fps,
            parent_idx=self.parents.parent_idx[: level + 1],
            elapsed=self.elapsed_before + ticker.elapsed(),
            **self.counters(),
        )
        # The local engine's identity and format: its checkpoints and ours are interchangeable.
        write_checkpoint(self.model.options.checkpoint_dir, checkpoint_identity(self.model), snap)
        self.checkpoints_written += 1
        self.checkpointed_level = level
        self.checkpoint_seconds += time.perf_counter() - start

    def _restore(self) -> tuple[list[tuple[int, int, Any]], np.ndarray]:
        """Counters and parent records from a checkpoint; the frontier as (rank, fp, state) and the visited set."""
        snap = read_boundary(self.model.options.resume, checkpoint_identity(self.model))
        level = snap["level"]
        self.restore_parents(snap)
        self.restore_counters(snap)
        self.elapsed_before = snap["elapsed"]
        self.level = level
        cur = self.parents.fps[level].tolist()
        frontier = snap["frontier"]
        if len(cur) != len(frontier) or len(self.parents.fps) != level + 1:
            raise CheckpointError(f"checkpoint in {self.model.options.resume} is inconsistent; start the run again")
        seen = np.asarray(snap["seen"], dtype=np.int64)
        self.distinct = len(seen)
        return [(r, fp, s) for r, (fp, s) in enumerate(zip(cur, frontier))], seen

    # -- the run ----------------------------------------------------------------

    def run(self) -> CheckResult:
        import multiprocessing

        from modelcheck.search.local import LocalBFS

        model = self.model
        opts = model.options
        ticker = Ticker(opts.progress_seconds)
        if opts.resume:
            init, init_fps = self._restore()
        else:
            # Level 1 in this process, exactly as the one-process engine does it; a run that
            # ends there (a violation in an initial state) is left to that engine.
            init = []
            seen: set[int] = set()
            generated = 0
            stop_at_init = False
            for s in model.init_states():
                generated += 1
                if not model.in_model(s):
                    continue
                fp = model.fingerprint(s)
                if fp in seen:
                    continue
                seen.add(fp)
                init.append((len(init), fp, s))
                if model.failed_invariants(s) and not opts.continue_after_violation:
                    stop_at_init = True
            if stop_at_init or not init or (opts.max_depth is not None and opts.max_depth <= 1):
                return LocalBFS(model, self.progress).run()
            self.generated = generated
            self.distinct = len(init)
            self.depth = 1
            init_fps = np.array([fp for _, fp, _ in init], dtype=np.int64)
            self.parents.add_level(init_fps, np.zeros(len(init), dtype=np.int32))
            for _, fp, s in init:
                for p in model.sometimes:
                    if not self.sometimes_reached[p.name] and model._call(f"property {p.name}", p.fn, model.c, s):
                        self.sometimes_reached[p.name] = True
                for inv in model.failed_invariants(s):
                    if inv.name not in self.violated_names:
                        self.violations.append(Violation("invariant", inv.name, inv.description,
                                                         tuple(replay(model, [fp]))))
                        self.violated_names.add(inv.name)

        previous = {}
        if threading.current_thread() is threading.main_thread():
            # Ctrl-C and SIGTERM only set a flag: the coordinator stops where it can leave a
            # consistent boundary behind (the workers ignore both; they follow the coordinator).
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, self._on_signal)
        ctx = multiprocessing.get_context("fork")
        self.tmp = tmp = tempfile.mkdtemp(prefix="modelcheck-workers-")
        try:
            for w in range(self.n):
                parent_conn, child_conn = ctx.Pipe()
                p = ctx.Process(target=worker_main,
                                args=(child_conn, model, w, self.n, tmp, init[w::self.n], init_fps, os.getpid(),
                                      self.spill_states),
                                daemon=True)
                p.start()
                child_conn.close()
                self.conns.append(parent_conn)
                self.procs.append(p)
            del init, init_fps
            try:
                self._search(ticker)
            except _Stop as stop:
                self.stopped_by = stop.reason
                if opts.checkpoint_dir and self.checkpointed_level != self.level:
                    self._write_checkpoint(ticker)
            except KeyboardInterrupt:
                # A second Ctrl-C: the last checkpoint written stays the one to resume from.
                self.stopped_by = "interrupt"
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._stop_workers()
            shutil.rmtree(tmp, ignore_errors=True)
        return self.result(self.elapsed_before + ticker.elapsed())

    def _stop_workers(self) -> None:
        for conn in self.conns:
            try:
                conn.send(("stop",))
            except (OSError, BrokenPipeError):
                pass
        deadline = time.monotonic() + 5
        for p in self.procs:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
            if p.is_alive():  # busy with an abandoned command, or stuck: it holds nothing we need
                p.kill()
                p.join(timeout=5)
        for conn in self.conns:
            conn.close()

    def _search(self, ticker: Ticker) -> None:
        model = self.model
        opts = model.options
        level = self.level
        frontier_size = len(self.parents.fps[level])
        last_checkpoint = ticker.elapsed()
        while frontier_size:
            # A level boundary: the workers hold the frontier of ``level``, the counters are its.
            self.level = level
            self.queue_left = frontier_size  # what a stop here leaves unexplored
            if opts.max_depth is not None and level + 1 >= opts.max_depth:
                self.stopped_by = "max-depth"
                return
            self._poll_stop()
            if opts.checkpoint_dir and ticker.elapsed() - last_checkpoint >= opts.checkpoint_every:
                self._write_checkpoint(ticker)
                last_checkpoint = ticker.elapsed()
                self._poll_stop()
            # Until "advance", the workers' boundary state is untouched: a stop abandons the level.
            try:
                expanded = self._call_all("expand", level, abandonable=True)
                self._call_all("dedup", level, abandonable=True)
                merged = self._call_all("collect", level, abandonable=True)
                for w, e in enumerate(expanded):
                    self.expanded_by_worker[w] += e["expanded"]
            except _Stop:
                self._abandon()
                raise
            keys = [m["keys"] for m in merged]
            all_keys = np.concatenate(keys) if keys else np.empty(0, np.int64)
            all_fps = np.concatenate([m["fps"] for m in merged]) if keys else np.empty(0, np.int64)
            order = np.argsort(all_keys, kind="stable")
            sorted_keys = all_keys[order]
            # Where would the one-process search stop in this level?  (parent ranks)
            inf = 1 << 62
            deadlocks = [e["deadlock"] for e in expanded if e["deadlock"] is not None]
            first_deadlock = min(deadlocks) if deadlocks else None
            check_dl = model.check_deadlock and "Deadlock" not in self.violated_names and first_deadlock is not None
            violations = sorted(v for m in merged for v in m["violations"])
            pending = [(key, fp, name) for key, fp, names in violations for name in names
                       if name not in self.violated_names]
            stop_parent = inf
            stop_reason = None
            if pending and not opts.continue_after_violation:
                stop_parent, stop_reason = pending[0][0] >> SUCC_BITS, "violation"
            if check_dl and not opts.continue_after_violation and first_deadlock[0] < stop_parent:
                stop_parent, stop_reason = first_deadlock[0], "deadlock"
            if opts.max_states is not None:
                need = opts.max_states - self.distinct
                if 1 <= need <= len(sorted_keys):
                    p_m = int(sorted_keys[need - 1]) >> SUCC_BITS
                    if p_m < stop_parent:
                        stop_parent, stop_reason = p_m, "max-states"
            errors = [e["error"] for e in expanded + merged if e["error"] is not None]
            if errors:
                first_error = min(errors, key=lambda e: e[0])
                if first_error[0] <= stop_parent:
                    self._raise(level, first_error)
            upto = stop_parent if stop_reason else None
            try:
                stats = self._call_all("stats", upto, abandonable=True)
            except _Stop:
                self._abandon()
                raise
            # The level's commit: workers first, then this process's counters and parent records.
            if stop_reason:
                self._call_all("advance", None)
            else:
                ranks = np.empty(len(all_keys), dtype=np.int64)
                ranks[order] = np.arange(len(all_keys), dtype=np.int64)
                per_worker = []
                lo = 0
                for k in keys:
                    per_worker.append((ranks[lo:lo + len(k)],))
                    lo += len(k)
                committed = self._call_all("advance", per_worker=per_worker)
                self.spilled_levels = sum(r["spilled_levels"] for r in committed)
                self._rebalance(level + 1, [len(k) for k in keys])
            self.parents.add_level(all_fps[order], (sorted_keys >> SUCC_BITS).astype(np.int32))
            for st in stats:
                for a, (g, d) in enumerate(zip(st["generated"], st["distinct"])):
                    self.act_generated[a] += g
                    self.act_distinct[a] += d
                    self.generated += g
            new_count = len(sorted_keys) if upto is None else int(
                np.searchsorted(sorted_keys, ((upto + 1) << SUCC_BITS), side="left"))
            self.distinct += new_count
            for m in merged:
                for name in m["sometimes"]:
                    self.sometimes_reached[name] = True
            if check_dl and first_deadlock[0] <= stop_parent:
                self.violations.append(Violation("deadlock", "Deadlock", "a reachable state has no successor",
                                                 self._trace(level, first_deadlock[1])))
                self.violated_names.add("Deadlock")
            for key, fp, name in pending:
                if (key >> SUCC_BITS) <= stop_parent and name not in self.violated_names:
                    inv = model.spec.invariant(name)
                    self.violations.append(Violation("invariant", name, inv.description,
                                                     self._trace(level + 1, fp)))
                    self.violated_names.add(name)
            level += 1
            if new_count:
                self.depth = level + 1
            if stop_reason:
                if stop_reason == "max-states":
                    self.stopped_by = "max-states"
                self.level = level
                self.queue_left = new_count
                return
            frontier_size = new_count
            self.level = level
            self.queue_left = frontier_size
            if self.progress is not None and ticker.due():
                try:
                    self.progress(Progress(level, self.generated, self.distinct, frontier_size, ticker.elapsed()))
                except KeyboardInterrupt:  # e.g. raised by a library user's sink: stop at this boundary
                    self.interrupted = True

    def _rebalance(self, level: int, sizes: list[int]) -> None:
        """Even out the next frontiers: a worker keeps the states it generated, so one can end up with most."""
        moves = balance_moves(sizes)
        if not moves:
            return
        self._call_all("give", per_worker=[(level, moves.get(w, [])) for w in range(self.n)])
        srcs = [[src for src, ms in moves.items() for dst, _ in ms if dst == w] for w in range(self.n)]
        self._call_all("take", per_worker=[(level, srcs[w]) for w in range(self.n)])
        self.moved_states += sum(count for ms in moves.values() for _, count in ms)


def check_parallel(model: BoundModel, workers: int, progress: ProgressSink | None = None) -> CheckResult:
    """Explore with ``workers`` processes; identical result to the one-process engine."""
    return ParallelBFS(model, workers, progress).run()
