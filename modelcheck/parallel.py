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
"""

from __future__ import annotations

import gc
import os
import pickle
import shutil
import signal
import tempfile
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from .errors import ModelCheckError, SpecRuntimeError, UsageError
from .model import BoundModel
from .progress import Progress, ProgressSink, Ticker
from .replay import replay
from .result import CheckResult, Violation
from .summary import summarize

SUCC_BITS = 20
"""Bits of a discovery key for the successor index (a state has < 2**20 successors)."""


class WorkerCrash(ModelCheckError):
    """A worker process failed outside spec code (a bug of ours); carries its traceback."""


def _wrap_error(model: BoundModel, exc: BaseException, ai: int, b: tuple) -> tuple[str, str, str, bool]:
    """An exception raised in spec code, as plain data that crosses processes."""
    if isinstance(exc, SpecRuntimeError):
        return (str(exc), exc.spec, exc.where, type(exc).__name__ == "StateError")
    act = model.actions[ai]
    return (f"spec {model.spec.name}: action {act.label(b)} raised {type(exc).__name__}: {exc}",
            model.spec.name, f"action {act.label(b)}", False)


class _Worker:
    """The state held by one worker process.

    A worker plays two roles.  As *owner* of the fingerprints ``fp % N == w``
    it keeps their visited set and decides, for each candidate fingerprint,
    which candidate (the one with the smallest discovery key) discovered it
    first.  As *generator* it keeps the successor states it produced: the
    winners among them are its next frontier, and it checks their invariants
    and keeps their parent records.  Only (key, fingerprint) pairs, 16 bytes a
    candidate, cross processes; states never do (pickling them costs more than
    generating them).
    """

    def __init__(self, model: BoundModel, index: int, count: int, tmp: str,
                 init: list[tuple[int, int, Any]], init_fps: np.ndarray) -> None:
        self.model = model
        self.w = index
        self.n = count
        self.tmp = tmp
        fps = np.array([fp for _, fp, _ in init], dtype=np.int64)
        # Owner role: the sorted fingerprints this worker owns.
        self.owned = np.sort(init_fps[init_fps % count == index])
        # Generator role: this worker's frontier, (rank, fp, state) in rank order.
        self.frontier: list[tuple[int, int, Any]] = init
        self.level_fps: list[np.ndarray] = [fps]
        self.level_pfps: list[np.ndarray] = [np.zeros(len(init), dtype=np.int64)]
        self.canonical_budget = 20000 // count + 1

    def _path(self, level: int, kind: str, src: int, dst: int) -> str:
        return os.path.join(self.tmp, f"L{level}-{kind}-{src}-{dst}.npy")

    def expand(self, level: int) -> dict:
        """Generate the successors of this worker's frontier; send (key, fp) to each fingerprint's owner."""
        model = self.model
        n = self.n
        fingerprint = model.fingerprint
        in_model = model.in_model if model.spec.state_constraint else None
        action_ok = model.action_allowed if model.spec.action_constraint else None
        cand_parent: list[int] = []  # every generated successor, for the per-action counts
        cand_ai: list[int] = []
        keys: list[int] = []  # successors inside the model: candidates for the visited set
        fps: list[int] = []
        states: list = []
        pfps: list[int] = []
        kept_ai: list[int] = []
        deadlock = None
        error = None
        expand = model.expand
        for rank, own_fp, s in self.frontier:
            j = 0
            base = rank << SUCC_BITS
            try:
                for ai, _b, r in expand(s):
                    for t in (r if type(r) is list else (r,)):
                        cand_parent.append(rank)
                        cand_ai.append(ai)
                        if (in_model is not None and not in_model(t)) or (
                            action_ok is not None and not action_ok(s, t)
                        ):
                            j += 1
                            continue
                        try:
                            fp = fingerprint(t)
                        except TypeError:
                            model.check_state(t, f"action {model.actions[ai].name}")
                            raise
                        keys.append(base + j)
                        kept_ai.append(ai)
                        fps.append(fp)
                        states.append(t)
                        pfps.append(own_fp)
                        j += 1
            except SpecRuntimeError as exc:
                error = (rank, own_fp, _wrap_error(model, exc, 0, ()))
                break
            if j == 0 and deadlock is None:
                deadlock = (rank, own_fp)
        self.cand_parent = np.array(cand_parent, dtype=np.int64)
        self.cand_ai = np.array(cand_ai, dtype=np.int16)
        self.keys = np.array(keys, dtype=np.int64)
        self.fps = np.array(fps, dtype=np.int64)
        self.states = states
        self.pfps = np.array(pfps, dtype=np.int64)
        self.kept_ai = np.array(kept_ai, dtype=np.int16)
        owner = self.fps % n
        for v in range(n):
            sel = owner == v
            np.save(self._path(level, "cand", self.w, v), np.stack((self.keys[sel], self.fps[sel])))
        return {"deadlock": deadlock, "error": error, "expanded": len(self.frontier)}

    def dedup(self, level: int) -> dict:
        """Owner role: the first discoverer of each fingerprint not seen before; winners go back to their generators."""
        parts = []
        srcs = []
        for v in range(self.n):
            path = self._path(level, "cand", v, self.w)
            arr = np.load(path)
            os.unlink(path)
            parts.append(arr)
            srcs.append(np.full(arr.shape[1], v, dtype=np.int16))
        both = np.concatenate(parts, axis=1)
        src = np.concatenate(srcs)
        keys, fps = both[0], both[1]
        order = np.argsort(keys, kind="stable")
        keys, fps, src = keys[order], fps[order], src[order]
        old = self.owned
        if len(old):
            idx = np.minimum(np.searchsorted(old, fps), len(old) - 1)
            fresh = old[idx] != fps
        else:
            fresh = np.ones(len(fps), dtype=bool)
        keys, fps, src = keys[fresh], fps[fresh], src[fresh]
        new_fps, first = np.unique(fps, return_index=True)  # first occurrence = smallest key
        self.pending_owned = new_fps
        win_keys, win_src = keys[first], src[first]
        for v in range(self.n):
            np.save(self._path(level, "win", self.w, v), np.sort(win_keys[win_src == v]))
        return {}

    def collect(self, level: int) -> dict:
        """Generator role: keep this worker's winning candidates, in key order, and check their invariants."""
        model = self.model
        parts = []
        for v in range(self.n):
            path = self._path(level, "win", v, self.w)
            parts.append(np.load(path))
            os.unlink(path)
        win = np.sort(np.concatenate(parts))
        # self.keys is increasing (parents in rank order, successors in order).
        pos = np.searchsorted(self.keys, win)
        states = self.states
        new_states = [states[i] for i in pos.tolist()]
        self.states = []
        self.new_keys = win
        self.new_fps = self.fps[pos]
        self.new_pfps = self.pfps[pos]
        cand_ai_kept = self._kept_ai()
        self.new_ai = cand_ai_kept[pos]
        self.new_states = new_states
        violations: list = []
        sometimes: set[str] = set()
        invariants = model.invariants
        error = None
        new_fps = self.new_fps.tolist()
        for k, t in enumerate(new_states):
            try:
                if self.canonical_budget > 0:
                    self.canonical_budget -= 1
                    model.check_state(t, f"action {model.actions[int(self.new_ai[k])].name}")
                for p in model.sometimes:
                    if p.name not in sometimes and model._call(f"property {p.name}", p.fn, model.c, t):
                        sometimes.add(p.name)
                if invariants:
                    failed = model.failed_invariants(t)
                    if failed:
                        violations.append((int(win[k]), new_fps[k], [inv.name for inv in failed]))
            except SpecRuntimeError as exc:
                error = (int(win[k]) >> SUCC_BITS, int(self.new_pfps[k]), _wrap_error(model, exc, 0, ()))
                break
        return {"keys": win, "violations": violations, "sometimes": sometimes, "error": error}

    def _kept_ai(self) -> np.ndarray:
        """The action of each candidate inside the model, aligned with ``self.keys``."""
        return self.kept_ai

    def stats(self, upto: int | None) -> dict:
        """Per-action generated and distinct counts, only for parents ranked <= ``upto`` if given."""
        nact = len(self.model.actions)
        if upto is None:
            gen_ai, new_ai = self.cand_ai, self.new_ai
        else:
            gen_ai = self.cand_ai[self.cand_parent <= upto]
            new_ai = self.new_ai[(self.new_keys >> SUCC_BITS) <= upto]
        return {
            "generated": np.bincount(gen_ai.astype(np.int64), minlength=nact).tolist(),
            "distinct": np.bincount(new_ai.astype(np.int64), minlength=nact).tolist(),
        }

    def advance(self, ranks: np.ndarray | None) -> dict:
        """Commit the level: owned fingerprints, parent records, and (unless stopping) the next frontier."""
        merged = np.concatenate((self.owned, self.pending_owned))
        merged.sort(kind="stable")
        self.owned = merged
        self.pending_owned = np.empty(0, np.int64)
        self.level_fps.append(self.new_fps)
        self.level_pfps.append(self.new_pfps)
        if ranks is not None:
            self.frontier = list(zip(ranks.tolist(), self.new_fps.tolist(), self.new_states))
        else:
            self.frontier = []
        self.new_states = []
        return {"visited_bytes": int(self.owned.nbytes)}

    def give(self, level: int, moves: list[tuple[int, int]]) -> dict:
        """Hand ``count`` frontier states to worker ``dst`` for each (dst, count), spread over the ranks.

        The states are taken at evenly spaced positions, so both workers keep
        a mix of low and high ranks: the first discoverer of a shared
        successor (the lowest rank) is then as likely to be one as the other,
        and the frontiers stay balanced without moving states every level.
        """
        for dst, count in moves:
            frontier = self.frontier
            stride = len(frontier) / count
            picked = {int(k * stride) for k in range(count)}
            part = [e for i, e in enumerate(frontier) if i in picked]
            self.frontier = [e for i, e in enumerate(frontier) if i not in picked]
            with open(self._path(level, "give", self.w, dst), "wb") as f:
                pickle.dump(part, f, protocol=pickle.HIGHEST_PROTOCOL)
        return {}

    def take(self, level: int, srcs: list[int]) -> dict:
        """Receive states handed over by ``srcs``; the frontier stays in rank order."""
        for src in srcs:
            path = self._path(level, "give", src, self.w)
            with open(path, "rb") as f:
                self.frontier.extend(pickle.load(f))
            os.unlink(path)
        self.frontier.sort(key=_rank)
        return {}

    def parent(self, level: int, fp: int) -> int | None:
        """The parent of ``fp`` at ``level`` if this worker generated it, else None."""
        hits = np.flatnonzero(self.level_fps[level] == fp)
        return int(self.level_pfps[level][hits[0]]) if len(hits) else None


def _rank(entry: tuple) -> int:
    return entry[0]


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


def _worker_main(conn: Connection, model: BoundModel, index: int, count: int, tmp: str,
                 init: list, init_fps: np.ndarray) -> None:
    """A worker's loop: one command in, one reply out, until "stop"."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    gc.disable()
    worker = _Worker(model, index, count, tmp, init, init_fps)
    while True:
        try:
            cmd, *args = conn.recv()
        except EOFError:
            return
        if cmd == "stop":
            conn.close()
            return
        try:
            reply = getattr(worker, cmd)(*args)
            conn.send(("ok", reply))
        except BaseException:  # noqa: BLE001 - sent back and raised by the coordinator
            conn.send(("crash", traceback.format_exc()))


class ParallelBFS:
    """The coordinator of one ``--workers N`` run; all run state lives on the instance."""

    def __init__(self, model: BoundModel, workers: int, progress: ProgressSink | None = None) -> None:
        opts = model.options
        if opts.checkpoint_dir or opts.resume or opts.max_memory_mb:
            raise UsageError("--workers above 1 does not support --checkpoint, --resume or --max-memory yet")
        self.model = model
        self.n = workers
        self.progress = progress
        nact = len(model.actions)
        self.act_generated = [0] * nact
        self.act_distinct = [0] * nact
        self.violations: list[Violation] = []
        self.violated_names: set[str] = set()
        self.sometimes_reached = {p.name: False for p in model.sometimes}
        self.generated = 0
        self.distinct = 0
        self.depth = 0
        self.stopped_by: str | None = None
        self.queue_left = 0
        self.moved_states = 0
        """Frontier states handed from one worker to another to balance the load (pickled)."""
        self.expanded_by_worker = [0] * workers
        """How many states each worker expanded: the load balance."""

    def _call_all(self, cmd: str, *args: Any, per_worker: list | None = None) -> list:
        for w, conn in enumerate(self.conns):
            conn.send((cmd, *(per_worker[w] if per_worker is not None else args)))
        replies = []
        for conn in self.conns:
            status, reply = conn.recv()
            if status != "ok":
                raise WorkerCrash(f"a worker process failed:\n{reply}")
            replies.append(reply)
        return replies

    def _call_one(self, w: int, cmd: str, *args: Any) -> Any:
        self.conns[w].send((cmd, *args))
        status, reply = self.conns[w].recv()
        if status != "ok":
            raise WorkerCrash(f"a worker process failed:\n{reply}")
        return reply

    def _path_to(self, level: int, fp: int) -> list[int]:
        path = [fp]
        for k in range(level, 0, -1):
            # Parent records live with the worker that generated the state.
            found = [p for p in (self._call_one(w, "parent", k, fp) for w in range(self.n)) if p is not None]
            fp = found[0]
            path.append(fp)
        path.reverse()
        return path

    def _trace(self, level: int, fp: int) -> tuple:
        return tuple(replay(self.model, self._path_to(level, fp)))

    def _raise(self, level: int, info: tuple) -> None:
        _rank, pfp, (message, spec, where, is_state_error) = info
        from .errors import StateError

        cls = StateError if is_state_error else SpecRuntimeError
        raise cls(message, spec=spec, where=where, trace=list(self._trace(level, pfp)))

    def run(self) -> CheckResult:
        import multiprocessing

        from .engine import LocalBFS

        model = self.model
        opts = model.options
        ticker = Ticker(opts.progress_seconds)
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
            result = LocalBFS(model, self.progress).run()
            return result
        self.generated = generated
        self.distinct = len(init)
        self.depth = 1
        for _, fp, s in init:
            for p in model.sometimes:
                if not self.sometimes_reached[p.name] and model._call(f"property {p.name}", p.fn, model.c, s):
                    self.sometimes_reached[p.name] = True
            for inv in model.failed_invariants(s):
                if inv.name not in self.violated_names:
                    self.violations.append(Violation("invariant", inv.name, inv.description,
                                                     tuple(replay(model, [fp]))))
                    self.violated_names.add(inv.name)

        ctx = multiprocessing.get_context("fork")
        tmp = tempfile.mkdtemp(prefix="modelcheck-workers-")
        self.conns = []
        procs = []
        try:
            for w in range(self.n):
                parent_conn, child_conn = ctx.Pipe()
                mine = init[w::self.n]
                init_fps = np.array([fp for _, fp, _ in init], dtype=np.int64)
                p = ctx.Process(target=_worker_main, args=(child_conn, model, w, self.n, tmp, mine, init_fps),
                                daemon=True)
                p.start()
                child_conn.close()
                self.conns.append(parent_conn)
                procs.append(p)
            try:
                self._search(ticker)
            except KeyboardInterrupt:
                self.stopped_by = "interrupt"
        finally:
            for conn in self.conns:
                try:
                    conn.send(("stop",))
                except (OSError, BrokenPipeError):
                    pass
            for p in procs:
                p.join(timeout=5)
                if p.is_alive():
                    p.terminate()
            shutil.rmtree(tmp, ignore_errors=True)
        return self._result(ticker.elapsed())

    def _search(self, ticker: Ticker) -> None:
        model = self.model
        opts = model.options
        level = 0
        frontier_size = self.distinct
        while frontier_size:
            self.queue_left = frontier_size  # what an interrupt leaves unexplored
            if opts.max_depth is not None and level + 1 >= opts.max_depth:
                self.stopped_by = "max-depth"
                self.queue_left = frontier_size
                return
            expanded = self._call_all("expand", level)
            for w, e in enumerate(expanded):
                self.expanded_by_worker[w] += e["expanded"]
            self._call_all("dedup", level)
            merged = self._call_all("collect", level)
            keys = [m["keys"] for m in merged]
            all_keys = np.concatenate(keys) if keys else np.empty(0, np.int64)
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
            for st in self._call_all("stats", upto):
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
                self._call_all("advance", per_worker=per_worker)
                self._rebalance(level + 1, [len(k) for k in keys])
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
                self.queue_left = new_count
                return
            frontier_size = new_count
            self.queue_left = frontier_size
            if self.progress is not None and ticker.due():
                self.progress(Progress(level, self.generated, self.distinct, frontier_size, ticker.elapsed()))

    def _rebalance(self, level: int, sizes: list[int]) -> None:
        """Even out the next frontiers: a worker keeps the states it generated, so one can end up with most."""
        moves = balance_moves(sizes)
        if not moves:
            return
        self._call_all("give", per_worker=[(level, moves.get(w, [])) for w in range(self.n)])
        srcs = [[src for src, ms in moves.items() for dst, _ in ms if dst == w] for w in range(self.n)]
        self._call_all("take", per_worker=[(level, srcs[w]) for w in range(self.n)])
        self.moved_states += sum(count for ms in moves.values() for _, count in ms)

    def _result(self, seconds: float) -> CheckResult:
        return summarize(
            self.model, engine="local", seconds=seconds, violations=self.violations, stopped_by=self.stopped_by,
            distinct=self.distinct, generated=self.generated, depth=self.depth, queue_left=self.queue_left,
            act_generated=self.act_generated, act_distinct=self.act_distinct,
            sometimes_reached=self.sometimes_reached,
        )


def check_parallel(model: BoundModel, workers: int, progress: ProgressSink | None = None) -> CheckResult:
    """Explore with ``workers`` processes; identical result to the one-process engine."""
    return ParallelBFS(model, workers, progress).run()
