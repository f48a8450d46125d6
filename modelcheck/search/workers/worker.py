"""One worker process of the ``workers`` backend (see :mod:`modelcheck.search.workers.coordinator` for the protocol).

A worker owns the fingerprints ``fp % N == w`` and generates the successors of
its part of the frontier.  The coordinator drives it one command at a time
over a pipe (:func:`worker_main`); candidates travel between workers through
files in the run's temporary directory.  This module holds the per-state work
of ``--workers``, so it is one of the modules ``modelcheck compile`` builds;
what each parent's successors become is :mod:`modelcheck.search.successor_rules`,
shared with the local backend.
"""

# modelcheck: compile

from __future__ import annotations

import gc
import os
import pickle
import shutil
import signal
import traceback
from array import array
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from modelcheck.errors import EngineSignal, SpecRuntimeError
from modelcheck.search.backend import SpecFailure
from modelcheck.search.checkpoint import write_frontier_part
from modelcheck.search.discovery import SUCC_BITS, pack
from modelcheck.supervisor import die_with_parent
from modelcheck.search.frontier import StoredStates
from modelcheck.model.bound import BoundModel
from modelcheck.search.successor_rules import (CANONICAL_CHECKS, check_new_state, check_steps, constrained,
                                               fingerprint_parents, inside_model, parent_expander, transitions)
from modelcheck.search.visited import in_sorted, merge_sorted, sorted_in_sorted

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module (see ``_pick``)
except ImportError:  # Cython is the optional ``compile`` extra; interpreted, local annotations are never evaluated
    pass

DEFAULT_SPILL_STATES = 1_000_000
"""Frontier states a worker keeps in memory; beyond, the frontier goes to disk for the level.

Higher than the local backend's 400,000 (modelcheck.search.frontier): pickling
and reading back a state costs about as much as expanding it, and the workers'
memory is already within 2 GiB at ten million Kip320 states without spilling."""

CHUNK_CANDIDATES = 4096
"""Successors a worker fingerprints and filters at a time, while they are still in the CPU caches.

A chunk's states (about three new objects each) fit in a core's L2 cache;
hashing them and freeing the losers right after they were built is what the
local backend does a batch at a time.  Chunks of 131,072 had left the caches
and made whole runs slower (docs/benchmarks.md, the workers' chunks)."""

ABANDONABLE = frozenset({"expand", "dedup", "collect", "stats"})
"""Worker commands that change nothing a level boundary needs, so they may be cut short."""


class _Abandon(EngineSignal):
    """Raised in a worker by SIGUSR1 during an abandonable command (an EngineSignal: spec wrappers let it through)."""


def _wrap_error(exc: SpecRuntimeError) -> SpecFailure:
    """An exception raised in spec code, as plain data that crosses processes."""
    return SpecFailure.of(exc)


def _pick(states: list, positions: list, offset: int) -> list:
    """``[states[offset + i] for i in positions]``, with C indices when compiled (one lookup per kept state)."""
    out: list = []
    i: cython.Py_ssize_t
    off: cython.Py_ssize_t = offset
    for i in positions:
        out.append(states[off + i])
    return out


class Worker:
    """The state held by one worker process.

    A worker plays two roles.  As *owner* of the fingerprints ``fp % N == w``
    it keeps their visited set and decides, for each candidate fingerprint,
    which candidate (the one with the smallest discovery key) discovered it
    first.  As *generator* it keeps the successor states it produced: the
    winners among them are its next frontier, and it checks their invariants.
    Only (key, fingerprint) pairs, 16 bytes a candidate, cross processes;
    states never do (pickling them costs more than generating them), except
    when a checkpoint gathers the frontier.  The parent records live with the
    coordinator.

    Only :meth:`advance` changes what a level boundary consists of (the owned
    fingerprints and the frontier); everything else may be abandoned and
    thrown away with :meth:`rollback`.
    """

    def __init__(self, model: BoundModel, index: int, count: int, tmp: str,
                 init: list[tuple[int, int, Any]], init_fps: np.ndarray,
                 spill_states: int = DEFAULT_SPILL_STATES) -> None:
        self.model = model
        self.spill_states = spill_states
        self.spilled_levels = 0
        self.w = index
        self.n = count
        self.tmp = tmp
        # Owner role: the sorted fingerprints this worker owns.
        self.owned = np.sort(init_fps[init_fps % count == index])
        self.pending_owned = np.empty(0, np.int64)
        # Generator role: this worker's frontier in rank order, as three columns (arrays for the
        # numbers: a (rank, fp, state) tuple per state cost about 110 bytes more per frontier state).
        self.f_ranks = np.array([r for r, _, _ in init], dtype=np.int64)
        self.f_fps = np.array([fp for _, fp, _ in init], dtype=np.int64)
        self.f_states: list | StoredStates = [s for _, _, s in init]
        self.states: list = []
        self.new_states: list = []
        self.canonical_budget = CANONICAL_CHECKS // count + 1

    def _path(self, level: int, kind: str, src: int, dst: int) -> str:
        return os.path.join(self.tmp, f"L{level}-{kind}-{src}-{dst}.npy")

    def expand(self, level: int, record: bool = False, violated: frozenset = frozenset()) -> dict:
        """Generate the successors of this worker's frontier; send (key, fp) to each fingerprint's owner.

        Each parent's successors follow :mod:`modelcheck.search.successor_rules`,
        as in the local backend.  With ``record`` (liveness), every transition
        out of this worker's parents goes to the run's temporary directory as
        three ``.npy`` files (parent rank, successor fingerprint, label), for
        the coordinator to gather at the level's commit.  With step properties,
        each step is checked: the first violation of each property (not in
        ``violated``) is reported with its discovery key.
        """
        model = self.model
        n = self.n
        filtering = constrained(model)
        # Compact columns (8 or 2 bytes a candidate instead of a Python int each): a wide level of a
        # ten-million-state run generates millions of candidates per worker.
        cand_parent = array("q")  # every generated successor, for the per-action counts
        cand_ai = array("h")
        keys = array("q")  # successors inside the model: candidates for the visited set
        fps = array("q")
        states: list = []
        pfps = array("q")
        kept_ai = array("h")
        deadlock = None
        error = None
        filtered_upto = 0
        # Liveness and step properties (both off in a safety-only run: nothing below costs it more than a test
        # per chunk).
        step_check = bool(model.step_properties)
        steps: list = []  # (key, parent fp, names): the first step violating each property, in key order
        reported = set(violated)
        label_action = model.label_action
        label_dtype = np.int16 if len(label_action) < 2**15 else np.int32
        e_src: list = []  # the transitions, numpy chunks of parent ranks, successor fingerprints and labels
        e_dst: list = []
        e_lab: list = []
        # The fingerprints this worker generated in this level, sorted, in two tiers (see _drop_losers).
        self.level_seen = np.empty(0, np.int64)
        self.level_recent = np.empty(0, np.int64)
        # Each parent's successors are appended to two plain lists (codes: actions, or labels with
        # ``record``); the other columns are built a chunk at a time with numpy from the parents' ends.
        expand_parent = parent_expander(model, record)
        label_actions = np.array(label_action, dtype=np.int16) if record else None
        f_ranks, f_fps = self.f_ranks, self.f_fps
        seg_lo = 0  # the buffered successors are those of parents seg_lo, seg_lo + 1, ...
        ends: list = []  # ... of which parent seg_lo + k's end at ends[k] in the buffer
        buf_code: list = []
        buf_t: list = []
        buf_parents: list = []  # the parents seg_lo, seg_lo + 1, ... themselves

        # flush() is the one closure here.  A closure calling another closure would put that one
        # in the scope they share, and compiled, the scope would then refer to itself: with the
        # cyclic GC off, every level's candidate states stayed reachable (5.7 GiB instead of
        # 1.7 for MaxLeaderEpoch=3), so the rules' steps are module-level functions.
        def flush() -> tuple | None:
            """Move the buffered successors into the columns; an error for an unhashable one or a step."""
            nonlocal filtered_upto, seg_lo
            err = None
            chunk_fps, bad = fingerprint_parents(model, buf_t, buf_code, label_action if record else None, ends,
                                                 filtering)
            if bad is not None:  # ends was cut before the parent of the successor that failed
                p = seg_lo + len(ends)
                err = (int(f_ranks[p]), int(f_fps[p]), _wrap_error(bad))
                m = ends[-1] if ends else 0
                del buf_code[m:]
                del buf_t[m:]
                del buf_parents[len(ends):]
            counts = np.diff(np.array(ends, dtype=np.int64), prepend=0)
            seg_hi = seg_lo + len(counts)
            ranks = np.repeat(f_ranks[seg_lo:seg_hi], counts)
            starts = np.repeat(np.cumsum(counts) - counts, counts)
            succ = np.arange(len(buf_t), dtype=np.int64) - starts
            chunk_pfps = np.repeat(f_fps[seg_lo:seg_hi], counts)
            inside = inside_model(buf_t, len(buf_t)) if filtering else None
            if label_actions is not None:  # buf_code holds labels: the counts are per action
                chunk_lab = np.array(buf_code, dtype=label_dtype)
                chunk_ai = label_actions[chunk_lab]
                moving = transitions(chunk_pfps, chunk_fps, inside)
                e_src.append(ranks[moving].astype(np.int32))
                e_dst.append(chunk_fps[moving])
                e_lab.append(chunk_lab[moving])
            else:
                chunk_ai = np.array(buf_code, dtype=np.int16)
            if step_check:  # before the losers are dropped: every step counts, not only first discoveries
                seg_ranks = f_ranks[seg_lo:seg_hi].tolist()
                seg_fps = f_fps[seg_lo:seg_hi].tolist()
                found, failed = check_steps(model, buf_parents, seg_fps, ends, buf_t, chunk_fps.tolist(), reported)
                for k, j, names in found:
                    steps.append((pack(seg_ranks[k], j), seg_fps[k], names))
                if failed is not None:
                    k, exc = failed
                    if err is None or seg_ranks[k] < err[0]:
                        err = (seg_ranks[k], seg_fps[k], _wrap_error(exc))
            cand_parent.frombytes(ranks.tobytes())
            cand_ai.frombytes(chunk_ai.tobytes())
            if inside is not None:  # only the candidates go on: keys keep their successor index
                ranks, succ, chunk_ai, chunk_fps, chunk_pfps = (
                    ranks[inside], succ[inside], chunk_ai[inside], chunk_fps[inside], chunk_pfps[inside])
                states.extend([t for t in buf_t if t is not None])
            else:
                states.extend(buf_t)
            keys.frombytes(((ranks << SUCC_BITS) + succ).tobytes())
            kept_ai.frombytes(chunk_ai.tobytes())
            fps.frombytes(chunk_fps.tobytes())
            pfps.frombytes(chunk_pfps.tobytes())
            seg_lo = seg_hi
            ends.clear()
            buf_code.clear()
            buf_t.clear()
            buf_parents.clear()
            filtered_upto = self._drop_losers(filtered_upto, keys, fps, states, pfps, kept_ai)
            return err

        for p, s in enumerate(self.f_states):
            before = len(buf_t)
            try:
                m = expand_parent(s, buf_code, buf_t)
            except SpecRuntimeError as exc:  # an action's error, or more successors than a key numbers
                del buf_code[before:]
                del buf_t[before:]
                error = (int(f_ranks[p]), int(f_fps[p]), _wrap_error(exc))
                break
            if m == 0 and deadlock is None:
                deadlock = (int(f_ranks[p]), int(f_fps[p]))
            ends.append(len(buf_t))
            buf_parents.append(s)
            if len(buf_t) >= CHUNK_CANDIDATES:
                unhashable = flush()
                if unhashable is not None:
                    error = unhashable
                    break
        else:
            unhashable = flush()
            if unhashable is not None:
                error = unhashable
        if error is not None and ends:
            unhashable = flush()
            if unhashable is not None and unhashable[0] < error[0]:
                error = unhashable
        self._drop_losers(filtered_upto, keys, fps, states, pfps, kept_ai)
        self.level_seen = self.level_recent = np.empty(0, np.int64)
        self.cand_parent = np.frombuffer(cand_parent, dtype=np.int64).copy()
        self.cand_ai = np.frombuffer(cand_ai, dtype=np.int16).copy()
        self.keys = np.frombuffer(keys, dtype=np.int64).copy()
        self.fps = np.frombuffer(fps, dtype=np.int64).copy()
        self.states = states
        self.pfps = np.frombuffer(pfps, dtype=np.int64).copy()
        self.kept_ai = np.frombuffer(kept_ai, dtype=np.int16).copy()
        owner = self.fps % n
        for v in range(n):
            sel = owner == v
            np.save(self._path(level, "cand", self.w, v), np.stack((self.keys[sel], self.fps[sel])))
        edges = 0
        if record:  # through the temporary directory, as the candidates: a level's transitions can be many
            for kind, chunks, dtype in (("esrc", e_src, np.int32), ("edst", e_dst, np.int64),
                                        ("elab", e_lab, label_dtype)):
                column = np.concatenate(chunks) if chunks else np.empty(0, dtype)
                chunks.clear()
                edges = len(column)
                np.save(self._path(level, kind, self.w, self.w), column)
                del column
        return {"deadlock": deadlock, "error": error, "expanded": len(self.f_states), "generated": len(self.cand_ai),
                "steps": steps, "edges": edges}

    def _drop_losers(self, start: int, keys: array, fps: array, states: list, pfps: array,
                     kept_ai: array) -> int:
        """Drop the candidates from ``start`` on that cannot be the first discoverer of their fingerprint.

        Two kinds: those this worker owns and has seen in earlier levels (their
        owner would reject them), and repeats of a fingerprint this worker
        already generated in this level (keys grow, so the earlier copy has
        the smaller key and wins over the later one wherever the owner is).
        Dropping them a chunk at a time keeps their states out of memory and
        out of the owners' files; the per-action "generated" counts are kept
        separately and are unaffected.  Returns the new length.

        The level's fingerprints so far are two sorted arrays: each chunk's
        new ones are merged into the small ``level_recent``, which is merged
        into ``level_seen`` once it holds about sqrt(level x chunk) of them.
        One array merged every chunk would move L**2 / (2 x chunk) items for a
        level of L; the two tiers move about 2 x L x sqrt(L / chunk).
        """
        if len(fps) == start:
            return start
        chunk = np.frombuffer(fps, dtype=np.int64)[start:]
        # Everything below works on the chunk in sorted order (probes of a big sorted array in
        # sorted order hit the CPU caches, see visited.in_sorted); ``order`` maps back.
        order = np.argsort(chunk, kind="stable")
        sfps = chunk[order]
        keep_sorted = np.ones(len(sfps), dtype=bool)
        keep_sorted[1:] = sfps[1:] != sfps[:-1]  # stable: the first of equal keys is the earliest candidate
        for seen in (self.level_seen, self.level_recent):
            if len(seen):
                keep_sorted &= ~sorted_in_sorted(seen, sfps)
        if len(self.owned):  # only the fingerprints this worker owns can be in its visited set
            mine = np.flatnonzero(sfps % self.n == self.w)
            keep_sorted[mine] &= ~sorted_in_sorted(self.owned, sfps[mine])
        keep = np.empty(len(chunk), dtype=bool)
        keep[order] = keep_sorted
        kept_sorted = sfps[keep_sorted]  # already sorted
        del chunk  # the buffer of ``fps`` is resized below
        recent = merge_sorted(self.level_recent, kept_sorted)
        if len(recent) * len(recent) >= CHUNK_CANDIDATES * max(len(self.level_seen), CHUNK_CANDIDATES):
            self.level_seen = merge_sorted(self.level_seen, recent)
            recent = np.empty(0, np.int64)
        self.level_recent = recent
        if keep.all():
            return len(fps)
        idx_keep = np.flatnonzero(keep)
        for col in (keys, fps, pfps, kept_ai):
            tail = np.frombuffer(col, dtype=np.int64 if col.typecode == "q" else np.int16)[start:][idx_keep]
            del col[start:]
            col.frombytes(tail.tobytes())
        states[start:] = _pick(states, idx_keep.tolist(), start)
        return len(fps)

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
        fresh = ~in_sorted(self.owned, fps)
        keys, fps, src = keys[fresh], fps[fresh], src[fresh]
        new_fps, first = np.unique(fps, return_index=True)  # first occurrence = smallest key
        self.pending_owned = new_fps
        win_keys, win_src = keys[first], src[first]
        for v in range(self.n):
            np.save(self._path(level, "win", self.w, v), np.sort(win_keys[win_src == v]))
        return {}

    def collect(self, level: int, unreached: frozenset, violated: frozenset, record: bool = False) -> dict:
        """Generator role: keep this worker's winning candidates, in key order, and check them.

        Reported: per invariant not in ``violated``, the first violating state;
        per property in ``unreached``, the key of the first state reaching it;
        with ``record``, each new state's liveness predicate bits (``masks``,
        in the order of ``keys``; computed before its other checks, as the
        local backend does, so a failing predicate fails at its parent).
        """
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
        new_states = _pick(states, pos.tolist(), 0)
        self.states = []
        self.new_keys = win
        self.new_fps = self.fps[pos]
        self.new_pfps = self.pfps[pos]
        self.new_ai = self.kept_ai[pos]
        self.new_states = new_states
        violations: list = []
        sometimes: dict[str, int] = {}
        properties = [p for p in model.sometimes if p.name in unreached]
        reported = set(violated)
        check_invariants = bool(model.invariants)
        invariants_hold = model.invariants_test()
        error = None
        new_fps = self.new_fps.tolist()
        mask = model.state_mask() if record else None
        masks = np.zeros(len(new_states), dtype=np.int64) if record else None
        for k, t in enumerate(new_states):
            try:
                if self.canonical_budget > 0:
                    self.canonical_budget -= 1
                    check_new_state(model, t, int(self.new_ai[k]))
                if mask is not None:
                    masks[k] = mask(t)
                for p in properties:
                    if p.name not in sometimes and model.property_holds(p, t):
                        sometimes[p.name] = int(win[k])  # keys ascend: the first is the smallest
                if check_invariants and not invariants_hold(t):
                    # Which ones (or the error naming one); each is reported at its first state only.
                    names = [inv.name for inv in model.failed_invariants(t) if inv.name not in reported]
                    if names:
                        violations.append((int(win[k]), new_fps[k], names))
                        reported.update(names)
            except SpecRuntimeError as exc:
                error = (int(win[k]) >> SUCC_BITS, int(self.new_pfps[k]), _wrap_error(exc))
                break
        return {"keys": win, "fps": self.new_fps, "violations": violations, "sometimes": sometimes,
                "error": error, "masks": masks}

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
        """Commit the level: owned fingerprints and (unless stopping) the next frontier."""
        self.owned = merge_sorted(self.owned, self.pending_owned)
        self.pending_owned = np.empty(0, np.int64)
        self._drop_stored()
        if ranks is not None:
            self.f_ranks, self.f_fps = ranks, self.new_fps
            self._set_frontier(self.new_states)
        else:
            self.f_ranks, self.f_fps, self.f_states = np.empty(0, np.int64), np.empty(0, np.int64), []
        self.new_states = []
        return {"visited_bytes": int(self.owned.nbytes), "spilled_levels": self.spilled_levels}

    def _set_frontier(self, states: list) -> None:
        """Keep the frontier in memory, or on disk when large (read back a chunk at a time by ``expand``).

        The next level's candidates are the other big thing a worker holds while
        it expands; with the frontier on disk only they are in memory then.
        """
        if len(states) > self.spill_states:
            self.f_states = StoredStates(states, self.tmp)
            self.spilled_levels += 1
        else:
            self.f_states = states

    def _frontier_list(self) -> list:
        """The frontier as a list (read back from disk if it was spilled), for rebalancing and checkpoints."""
        return self.f_states.to_list() if isinstance(self.f_states, StoredStates) else self.f_states

    def _drop_stored(self) -> None:
        if isinstance(self.f_states, StoredStates):
            self.f_states.close()

    def give(self, level: int, moves: list[tuple[int, int]]) -> dict:
        """Hand ``count`` frontier states to worker ``dst`` for each (dst, count), spread over the ranks.

        The states are taken at evenly spaced positions, so both workers keep
        a mix of low and high ranks: the first discoverer of a shared
        successor (the lowest rank) is then as likely to be one as the other,
        and the frontiers stay balanced without moving states every level.
        """
        states = self._frontier_list()
        for dst, count in moves:
            n = len(states)
            picked = np.zeros(n, dtype=bool)
            picked[(np.arange(count) * (n / count)).astype(np.int64)] = True
            flags = picked.tolist()
            part = (self.f_ranks[picked], self.f_fps[picked], [s for s, f in zip(states, flags) if f])
            states = [s for s, f in zip(states, flags) if not f]
            self.f_ranks, self.f_fps = self.f_ranks[~picked], self.f_fps[~picked]
            with open(self._path(level, "give", self.w, dst), "wb") as f:
                pickle.dump(part, f, protocol=pickle.HIGHEST_PROTOCOL)
        self._drop_stored()
        self._set_frontier(states)
        return {}

    def take(self, level: int, srcs: list[int]) -> dict:
        """Receive states handed over by ``srcs``; the frontier stays in rank order."""
        ranks, fps, states = [self.f_ranks], [self.f_fps], self._frontier_list()
        self._drop_stored()
        for src in srcs:
            path = self._path(level, "give", src, self.w)
            with open(path, "rb") as f:
                r, fp, s = pickle.load(f)
            ranks.append(r)
            fps.append(fp)
            states.extend(s)
            os.unlink(path)
        all_ranks = np.concatenate(ranks)
        order = np.argsort(all_ranks, kind="stable")
        self.f_ranks, self.f_fps = all_ranks[order], np.concatenate(fps)[order]
        self._set_frontier([states[i] for i in order.tolist()])
        return {}

    def rollback(self) -> dict:
        """Forget an abandoned level: back to the last boundary (which ``advance`` alone changes)."""
        self.pending_owned = np.empty(0, np.int64)
        self.states = []
        self.new_states = []
        for name in ("cand_parent", "cand_ai", "keys", "fps", "pfps", "kept_ai",
                     "new_keys", "new_fps", "new_pfps", "new_ai"):
            self.__dict__.pop(name, None)
        return {}

    def write_frontier(self, directory: str) -> tuple[np.ndarray, np.ndarray, Any]:
        """Write this worker's part of the frontier into a checkpoint's data directory.

        Returns the global ranks, the fingerprints and the part written; the
        workers write their parts in parallel, and no state crosses a pipe.
        """
        part = write_frontier_part(directory, self.w, iter(self.f_states), self.f_ranks)
        return self.f_ranks.copy(), self.f_fps.copy(), part


def worker_main(conn: Connection, model: BoundModel, index: int, count: int, tmp: str,
                 init: list, init_fps: np.ndarray, coordinator: int, spill_states: int) -> None:
    """A worker's loop: one command in, one reply out, until "stop" or the coordinator is gone."""
    flags = {"busy": False, "abandon": False}

    def on_abandon(signum: int, frame: Any) -> None:
        # Sent by the coordinator to drop the level under way; ignored between commands.
        flags["abandon"] = True
        if flags["busy"]:
            flags["busy"] = False
            raise _Abandon

    def on_term(signum: int, frame: Any) -> None:
        # SIGTERM while the coordinator lives is its business (it stops us cleanly);
        # after it died (PR_SET_PDEATHSIG), clean up and go.
        if os.getppid() != coordinator:
            shutil.rmtree(tmp, ignore_errors=True)
            os._exit(1)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGUSR1, on_abandon)
    die_with_parent(signal.SIGTERM)
    if os.getppid() != coordinator:  # it died before the request took effect
        on_term(signal.SIGTERM, None)
    gc.disable()
    worker = Worker(model, index, count, tmp, init, init_fps, spill_states)
    del init, init_fps
    while True:
        try:
            cmd, *args = conn.recv()
        except EOFError:
            # The coordinator's end closed without a "stop": it is dying.  The kernel closes
            # a dying process's files before it reparents its children and sends them
            # PR_SET_PDEATHSIG, so getppid() may still name it here, and a worker that exits
            # now never runs its SIGTERM handler.  Clean up unconditionally: a live
            # coordinator closes our end only after "stop", and removes the directory itself.
            shutil.rmtree(tmp, ignore_errors=True)
            return
        if cmd == "stop":
            conn.close()
            return
        try:
            if cmd in ABANDONABLE:
                if flags["abandon"]:
                    raise _Abandon
                flags["busy"] = True
            elif cmd == "rollback":
                flags["abandon"] = False
            result = getattr(worker, cmd)(*args)
            flags["busy"] = False
            reply = ("ok", result)
        except _Abandon:
            flags["busy"] = False
            reply = ("abandoned", None)
        except BaseException:  # noqa: BLE001 - sent back and raised by the coordinator
            flags["busy"] = False
            # The abandon signal's exception can surface as another one: raised inside C code
            # (numpy's tofile turns it into a TypeError), it is caught and replaced there.  The
            # level is thrown away either way, so whatever broke it is not a crash.
            reply = ("abandoned", None) if flags["abandon"] else ("crash", traceback.format_exc())
        conn.send(reply)
