"""The ``workers`` backend (``--workers N``): each level expanded by N forked processes, states owned by fingerprint.

Worker ``w`` owns the fingerprints ``fp % N == w``: it keeps their visited set,
checks invariants on the new ones and expands them.  A level is two rounds,
driven by the coordinator (this process, the backend the level driver talks to):

1. *expand*: every worker generates the successors of its frontier and writes
   each one, with a discovery key, to a file for the successor's owner;
2. *merge*: every worker reads the candidates addressed to it, sorts them by
   key, drops those already seen and checks invariants on the rest.

Candidates carry their discovery keys (:mod:`modelcheck.search.discovery`,
ranked form), so sorting by key is exactly the order in which one process
meets them: the smallest key wins a fingerprint, and the level driver finds
where a run stops in the level from the keys of the events reported.  After
a level, the coordinator ranks the new states of all workers by key, which
gives the next level's parent ranks.

Candidates travel through files in a temporary directory rather than pipes:
no worker blocks on a full pipe, and large levels sit in the page cache or on
disk rather than in memory.

Liveness and step properties (:class:`LevelRequest` ``record``, step
properties of the model): in round 1 each worker also writes the
transitions out of its own parents (parent rank, successor fingerprint,
label) to files, which the coordinator gathers at the level's commit into
one :class:`EdgeBlock` in rank order, and checks each step against the step
properties, reporting the first violation of each with its discovery key; in
round 2 the worker that keeps a new state computes its predicate mask, which
the coordinator puts in the order of the committed fingerprints.

Worker state changes only in ``advance`` (a level's commit), so a level can
be abandoned at any other moment: the coordinator signals the busy workers
(SIGUSR1), waits for them to drop the level, and the last level boundary is
intact.  While it waits for its workers, the coordinator polls the driver's
stop requests (Ctrl-C, SIGTERM, the memory budget, measured over the
coordinator and every worker, pages shared after the fork counted once).
Workers die with the coordinator (``PR_SET_PDEATHSIG``), removing the
candidate directory.  For a checkpoint, the workers write their parts of
the frontier into its data directory themselves, in parallel.

This module is the coordinator; a worker's side of each command is
:mod:`modelcheck.search.workers.worker`.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Iterator

import numpy as np

from modelcheck.errors import CheckpointError, ModelCheckError
from modelcheck.model.bound import BoundModel
from modelcheck.search.backend import (EdgeBlock, FrontierWrite, LevelAbandoned, LevelCommit, LevelReport,
                                      LevelRequest)
from modelcheck.search.discovery import SUCC_BITS, unpack
from modelcheck.search.memory import processes_memory_bytes
from modelcheck.search.workers.worker import DEFAULT_SPILL_STATES, worker_main


POLL_SECONDS = 0.05
"""How often the coordinator, waiting for its workers, polls the stop requests."""

STALL_SECONDS = 120.0
"""A worker busy with a command that has used no CPU for this long is stuck (stopped, or blocked): the run ends.

A working worker uses CPU all the time (it never waits for another worker
inside a command), so this is generous; ``--worker-timeout`` changes it."""

ABANDON_SECONDS = 2.0
"""How long an interrupted level waits for its workers to drop it before stopping the ones that do not answer."""

_STATES = {"T": "stopped", "t": "stopped by a tracer", "D": "waiting on a disk", "Z": "a zombie", "S": "asleep"}


class WorkerCrash(ModelCheckError):
    """A worker process failed outside spec code (a bug of ours) or died; carries its traceback or fate."""


TMP_PREFIX = "modelcheck-workers-"
"""A run's candidate directory is ``TMP_PREFIX<coordinator pid>-XXXX`` in the temporary directory."""


def _remove_orphans(tmp: str) -> None:
    """Remove the candidate directories of runs whose coordinator is gone (killed with its whole group)."""
    try:
        names = os.listdir(tmp)
    except OSError:
        return
    for name in names:
        if not name.startswith(TMP_PREFIX):
            continue
        pid_text = name[len(TMP_PREFIX):].partition("-")[0]
        if not pid_text.isdigit():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)
        except OSError:
            pass  # alive (another user's): not ours to remove


def _cpu_of(pid: int) -> tuple[str, int] | None:
    """A process's scheduler state and CPU ticks so far (Linux /proc), or None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return fields[0].decode(), int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


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


class WorkersBackend:
    """The coordinator of one ``--workers N`` run; all run state lives on the instance."""

    name = "local"
    """Reported as the local engine: the same search, the same result."""

    def __init__(self, model: BoundModel, workers: int) -> None:
        self.model = model
        self.n = workers
        self.poll: Callable[[], None] = lambda: None
        self.moved_states = 0
        """Frontier states handed from one worker to another to balance the load (pickled)."""
        self.expanded_by_worker = [0] * workers
        """How many states each worker expanded: the load balance."""
        self.conns: list[Connection] = []
        self.procs: list = []
        self.outstanding: set[int] = set()
        self.memory_limit = model.options.max_memory_mb * 1024 * 1024 if model.options.max_memory_mb else None
        self.spill_states = DEFAULT_SPILL_STATES
        """A worker whose frontier holds more states than this keeps it on disk (see worker.Worker._set_frontier)."""
        self.spilled_levels = 0
        """Levels whose frontier some worker kept on disk (summed over the workers)."""
        self.tmp: str | None = None
        self.stall_seconds = STALL_SECONDS
        self.broken: str | None = None
        """Why the workers no longer hold the last boundary (stopped after an interrupt), if they do not."""
        self._cpu: dict[int, tuple[int, float]] = {}
        self.level: int | None = None
        """The level under way (expanded, not yet committed or abandoned)."""
        self._merged: Any = None
        self.recording = False
        """The level under way records the behaviour graph (liveness)."""
        self._masks: np.ndarray | None = None
        """With ``recording``: the new states' predicate masks, in the order of the merged keys."""

    # -- the backend protocol ---------------------------------------------------------------

    def start(self, states: Any, fps: np.ndarray, visited: np.ndarray, poll: Callable[[], None],
              parents: Any = None) -> None:
        import multiprocessing

        self.poll = poll
        init = [(r, fp, s) for r, (fp, s) in enumerate(zip(np.asarray(fps).tolist(), states))]
        visited = np.asarray(visited, dtype=np.int64)
        ctx = multiprocessing.get_context("fork")
        _remove_orphans(tempfile.gettempdir())
        self.tmp = tmp = tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-")
        for w in range(self.n):
            parent_conn, child_conn = ctx.Pipe()
            p = ctx.Process(target=worker_main,
                            args=(child_conn, self.model, w, self.n, tmp, init[w::self.n], visited, os.getpid(),
                                  self.spill_states),
                            daemon=True)
            p.start()
            child_conn.close()
            self.conns.append(parent_conn)
            self.procs.append(p)

    verbose = False
    keeps_parents = False

    def detail(self) -> str:
        return ""

    def engine_report(self) -> dict | None:
        return None

    def memory_bytes(self) -> int | None:
        return processes_memory_bytes([os.getpid()] + [p.pid for p in self.procs], self.memory_limit)

    def expand(self, request: LevelRequest) -> Iterator[LevelReport]:
        """One report for the whole level: the workers expand, pick the first discoverers, and check them."""
        level = request.level
        self.level = level
        self.recording = record = request.record
        expanded = self._call_all("expand", level, record, request.violated, abandonable=True)
        self._call_all("dedup", level, abandonable=True)
        merged = self._call_all("collect", level, request.unreached, request.violated, record, abandonable=True)
        for w, e in enumerate(expanded):
            self.expanded_by_worker[w] += e["expanded"]
        keys = [m["keys"] for m in merged]
        all_keys = np.concatenate(keys) if keys else np.empty(0, np.int64)
        all_fps = np.concatenate([m["fps"] for m in merged]) if keys else np.empty(0, np.int64)
        order = np.argsort(all_keys, kind="stable")
        self._merged = (keys, all_keys, all_fps, order, all_keys[order])
        self._masks = (np.concatenate([m["masks"] for m in merged]) if keys else np.empty(0, np.int64)) \
            if record else None
        deadlocks = sorted(e["deadlock"] for e in expanded if e["deadlock"] is not None)
        violations = sorted(v for m in merged for v in m["violations"])
        sometimes: dict[str, Any] = {}
        for m in merged:
            for name, key in m["sometimes"].items():
                if name not in sometimes or key < sometimes[name]:
                    sometimes[name] = key
        failures = sorted((e["error"] for e in expanded + merged if e["error"] is not None), key=lambda e: e[0])
        steps = sorted(st for e in expanded for st in e["steps"])
        yield LevelReport(
            complete_through=None,
            generated=sum(e["generated"] for e in expanded),
            new_states=len(all_keys),
            violations=[(unpack(key), fp, tuple(names)) for key, fp, names in violations],
            deadlocks=deadlocks[:1],
            sometimes={name: unpack(key) for name, key in sometimes.items()},
            failures=failures,
            steps=[(unpack(key), fp, tuple(names)) for key, fp, names in steps],
        )

    def new_state_parent(self, n: int) -> Any:
        sorted_keys = self._merged[4]
        return int(sorted_keys[n - 1]) >> SUCC_BITS

    def commit(self, bound: Any) -> LevelCommit:
        keys, all_keys, all_fps, order, sorted_keys = self._merged
        stats = self._call_all("stats", bound, abandonable=True)
        edges = self._gather_edges(self.level, bound) if self.recording else None
        # From here on the level is kept: the workers advance (nothing below may be abandoned).
        if bound is not None:
            self._call_all("advance", None)
            new_count = int(np.searchsorted(sorted_keys, (bound + 1) << SUCC_BITS, side="left"))
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
            self._rebalance(self.level + 1, [len(k) for k in keys])
            new_count = len(all_keys)
        n = len(self.model.actions)
        generated = [sum(st["generated"][a] for st in stats) for a in range(n)]
        distinct = [sum(st["distinct"][a] for st in stats) for a in range(n)]
        fps = all_fps[order][:new_count]
        parents = (sorted_keys[:new_count] >> SUCC_BITS).astype(np.int32)
        masks = self._masks[order][:new_count] if self.recording else None
        self._merged = self._masks = None
        self.level = None
        return LevelCommit(generated, distinct, new_count, fps, parents, edges=edges, masks=masks)

    def _gather_edges(self, level: int, bound: int | None) -> EdgeBlock:
        """The level's transitions, from the workers' files, in the local backend's order (by parent rank).

        Each worker wrote those of its own parents, in rank order; the ranks of
        different workers are disjoint, so a stable sort by rank interleaves
        them exactly as one process generates them.  Stopping inside the level,
        only the parents ranked up to ``bound`` are kept.
        """
        columns = []
        for kind in ("esrc", "edst", "elab"):
            parts = []
            for w in range(self.n):
                path = os.path.join(self.tmp, f"L{level}-{kind}-{w}-{w}.npy")
                parts.append(np.load(path))
                os.unlink(path)
            columns.append(np.concatenate(parts))
        block = EdgeBlock(*columns)
        if bound is not None:
            block = block.where(block.src <= bound)
        if self.n > 1 and len(block):
            block = block.where(np.argsort(block.src, kind="stable"))
        return block

    def abandon(self) -> None:
        """Cut the level under way short and bring every worker back to the last boundary (if they still hold it).

        A worker that does not drop its command within :data:`ABANDON_SECONDS`
        (stopped, or stuck in spec code) is killed, so that one Ctrl-C always
        ends the run quickly; the workers' boundary is then lost, and the last
        checkpoint on disk is the one to resume from.
        """
        if not self.procs or self.broken:
            return
        for w in self.outstanding:
            try:
                os.kill(self.procs[w].pid, signal.SIGUSR1)
            except OSError:
                pass
        # "abandoned", or "ok" from those that had finished
        self._gather(abandonable=False, deadline=time.monotonic() + ABANDON_SECONDS)
        if self.outstanding:
            stuck = sorted(self.outstanding)
            for w in stuck:
                self.procs[w].kill()
            self.broken = f"worker process {stuck[0]} (pid {self.procs[stuck[0]].pid}) did not answer and was stopped"
            self._merged = self._masks = None
            self.level = None
            return
        for name in os.listdir(self.tmp):
            try:
                os.unlink(os.path.join(self.tmp, name))
            except OSError:
                pass
        self._call_all("rollback")
        self._merged = self._masks = None
        self.level = None

    def write_frontier(self, directory: str) -> FrontierWrite:
        if self.broken:
            raise CheckpointError(f"{self.broken}, so the level boundary it held is gone")
        parts = self._call_all("write_frontier", directory)
        total = sum(len(ranks) for ranks, _, _ in parts)
        fps = np.empty(total, dtype=np.int64)
        for ranks, part_fps, _ in parts:
            fps[ranks] = part_fps
        return FrontierWrite(fps, [part for _, _, part in parts])

    def close(self) -> None:
        self._stop_workers()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    # -- talking to the workers -------------------------------------------------

    def _send(self, w: int, cmd: str, *args: Any) -> None:
        self._cpu.pop(w, None)  # a new command: its CPU use is watched afresh
        try:
            self.conns[w].send((cmd, *args))
        except OSError:  # a broken pipe: the worker died (click would turn EPIPE into a silent exit 1)
            raise self._died(w) from None
        self.outstanding.add(w)

    def _gather(self, abandonable: bool, deadline: float | None = None) -> list:
        """The replies to the commands sent; while abandonable, a stop request raises :class:`LevelAbandoned`.

        With a ``deadline``, returns then with the workers that did not answer
        still in ``outstanding``.  A worker that uses no CPU for
        ``stall_seconds`` while it owes a reply ends the run (:class:`WorkerCrash`).
        """
        replies: list = [None] * self.n
        next_watch = time.monotonic() + 1.0
        stopping: LevelAbandoned | None = None
        stop_seen = 0.0
        while self.outstanding:
            now = time.monotonic()
            if deadline is None:
                try:
                    self.poll()
                except LevelAbandoned as request:
                    if abandonable:
                        raise
                    if stopping is None:  # a step that must not be cut short: give it a moment
                        stopping, stop_seen = request, now
                if stopping is not None and now - stop_seen >= ABANDON_SECONDS:
                    stuck = sorted(self.outstanding)
                    for w in stuck:
                        self.procs[w].kill()
                    self.broken = (f"worker process {stuck[0]} (pid {self.procs[stuck[0]].pid}) did not answer "
                                   "and was stopped")
                    self.outstanding = set()
                    raise stopping
            elif now >= deadline:
                break
            if now >= next_watch:
                next_watch = now + 1.0
                self._watch(now)
            ready = wait([self.conns[w] for w in self.outstanding], timeout=POLL_SECONDS)
            for conn in ready:
                w = self.conns.index(conn)
                status, reply = self._recv(w)
                self.outstanding.discard(w)
                if status == "crash":
                    raise WorkerCrash(f"a worker process failed:\n{reply}")
                replies[w] = reply
        return replies

    def _watch(self, now: float) -> None:
        """End the run if a worker that owes a reply has used no CPU for ``stall_seconds``."""
        for w in self.outstanding:
            seen = _cpu_of(self.procs[w].pid)
            if seen is None:
                continue
            state, ticks = seen
            last = self._cpu.get(w)
            if last is None or last[0] != ticks:
                self._cpu[w] = (ticks, now)
            elif now - last[1] >= self.stall_seconds:
                hint = ""
                if self.model.options.checkpoint_dir:
                    hint = f"; the last checkpoint in {self.model.options.checkpoint_dir}, if any, resumes the run"
                raise WorkerCrash(f"worker process {w} (pid {self.procs[w].pid}) has not run for "
                                  f"{now - last[1]:.0f} s ({_STATES.get(state, 'state ' + state)}){hint}")

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
        self.conns = []
        self.procs = []
        self.outstanding = set()

    def _rebalance(self, level: int, sizes: list[int]) -> None:
        """Even out the next frontiers: a worker keeps the states it generated, so one can end up with most."""
        moves = balance_moves(sizes)
        if not moves:
            return
        self._call_all("give", per_worker=[(level, moves.get(w, [])) for w in range(self.n)])
        srcs = [[src for src, ms in moves.items() for dst, _ in ms if dst == w] for w in range(self.n)]
        self._call_all("take", per_worker=[(level, srcs[w]) for w in range(self.n)])
        self.moved_states += sum(count for ms in moves.values() for _, count in ms)
