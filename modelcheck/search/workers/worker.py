"""One worker process of the ``workers`` backend (see :mod:`modelcheck.search.workers.coordinator` for the protocol).

A worker owns the fingerprints ``fp % N == w`` and generates the successors of
its part of the frontier.  The coordinator drives it one command at a time
over a pipe (:func:`worker_main`); candidates travel between workers through
files in the run's temporary directory.  This module holds the per-state work
of ``--workers``, so it is one of the modules ``modelcheck compile`` builds.
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
from modelcheck.search.discovery import MAX_SUCCESSORS, SUCC_BITS, check_successor_count
from modelcheck.supervisor import die_with_parent
from modelcheck.search.frontier import StoredStates
from modelcheck.model.bound import BoundModel
from modelcheck.model.fingerprint import fingerprints
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


def _too_many(model: BoundModel, count: int) -> SpecRuntimeError:
    """The error for a state with more successors than a discovery key numbers."""
    try:
        check_successor_count(count, model.spec.name)
    except SpecRuntimeError as err:
        return err
    raise AssertionError(f"{count} successors are within the limit")


def _pick(states: list, positions: list, offset: int) -> list:
    """``[states[offset + i] for i in positions]``, with C indices when compiled (one lookup per kept state)."""
    out: list = []
    i: cython.Py_ssize_t
    off: cython.Py_ssize_t = offset
    for i in positions:
        out.append(states[off + i])
    return out


def _buffered_fps(seg_n: array, ts: list, fingerprint: Any) -> np.ndarray:
    """The fingerprints of ``ts``, the buffered successors (``seg_n[k]`` of the k-th parent), as int64."""
    return fingerprints(ts, int(sum(seg_n)), fingerprint)


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
        self.canonical_budget = 20000 // count + 1

    def _path(self, level: int, kind: str, src: int, dst: int) -> str:
        return os.path.join(self.tmp, f"L{level}-{kind}-{src}-{dst}.npy")

    def expand(self, level: int, record: bool = False, violated: frozenset = frozenset()) -> dict:
        """Generate the successors of this worker's frontier; send (key, fp) to each fingerprint's owner.

        With ``record`` (liveness), every transition out of this worker's
        parents (stuttering steps and successors outside the model left out)
        goes to the run's temporary directory as three ``.npy`` files (parent
        rank, successor fingerprint, label), for the coordinator to gather at
        the level's commit.  With step properties, each such step is checked,
        as the local backend does: the first violation of each property (not
        in ``violated``) is reported with its discovery key.
        """
        model = self.model
        n = self.n
        fingerprint = model.fingerprint
        in_model = model.in_model if model.spec.state_constraint else None
        action_ok = model.action_allowed if model.spec.action_constraint else None
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
        expand = model.expand
        filtered_upto = 0
        # Liveness and step properties (both off in a safety-only run: nothing below costs it more than a test
        # per parent or per chunk).
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
        if in_model is not None or action_ok is not None:
            label_of = model.label_of() if record else None
            tracking = record or step_check
            lab = 0
            f_src = array("i")
            f_dst = array("q")
            f_lab = array("i")
            to_check: list = []  # the parent's steps to check: (index among its successors, successor, its fp)
            for rank, own_fp, s in zip(self.f_ranks.tolist(), self.f_fps.tolist(), self.f_states):
                j = 0
                base = rank << SUCC_BITS
                if step_check:
                    to_check = []
                try:
                    for ai, _b, r in expand(s):
                        if label_of is not None:
                            lab = label_of[(ai, _b)]
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
                            if tracking and fp != own_fp:  # a stuttering step is no transition, no step to check
                                if record:
                                    f_src.append(rank)
                                    f_dst.append(fp)
                                    f_lab.append(lab)
                                if step_check:
                                    to_check.append((j, t, fp))
                            j += 1
                except SpecRuntimeError as exc:
                    error = (rank, own_fp, _wrap_error(exc))
                    break
                if j == 0 and deadlock is None:
                    deadlock = (rank, own_fp)
                if j > MAX_SUCCESSORS:
                    error = (rank, own_fp, _wrap_error(_too_many(model, j)))
                    break
                if to_check:  # once the parent is expanded whole, as the local backend checks a batch's steps
                    failed = self._check_steps(s, rank, own_fp, to_check, reported, steps)
                    if failed is not None:
                        error = failed
                        break
                if len(fps) - filtered_upto >= CHUNK_CANDIDATES:
                    filtered_upto = self._drop_losers(filtered_upto, keys, fps, states, pfps, kept_ai)
            if record:
                e_src.append(np.frombuffer(f_src, dtype=np.int32).copy())
                e_dst.append(np.frombuffer(f_dst, dtype=np.int64).copy())
                e_lab.append(np.frombuffer(f_lab, dtype=np.int32).astype(label_dtype))
        else:
            # The compiled expander fills two plain lists; the other columns are built a chunk
            # at a time with numpy from the per-parent counts.
            # With ``record``, the labelled expander appends each successor's label instead of its action.
            expand_into = model.expand_labelled_into if record else model.expand_into
            label_actions = np.array(label_action, dtype=np.int16) if record else None
            f_ranks, f_fps = self.f_ranks, self.f_fps
            seg_lo = 0  # the buffered successors are those of parents seg_lo, seg_lo + 1, ...
            seg_n = array("q")  # ... of which parent seg_lo + k generated seg_n[k]
            buf_ai: list[int] = []
            buf_t: list = []
            buf_parents: list = []  # the parents seg_lo, seg_lo + 1, ... themselves

            # flush() is the one closure here.  A closure calling another closure would put that one
            # in the scope they share, and compiled, the scope would then refer to itself: with the
            # cyclic GC off, every level's candidate states stayed reachable (5.7 GiB instead of
            # 1.7 for MaxLeaderEpoch=3), so the fingerprints come from a module-level function.
            def flush() -> tuple | None:
                """Move the buffered successors into the columns; an error for an unhashable one or a step."""
                nonlocal filtered_upto, seg_lo
                err = None
                try:
                    chunk_fps = _buffered_fps(seg_n, buf_t, fingerprint)
                except (TypeError, SpecRuntimeError):  # unhashable, or the symmetry's code failed on one
                    err = self._cut_at_unhashable(seg_lo, seg_n, buf_ai, buf_t, label_action if record else None)
                    chunk_fps = _buffered_fps(seg_n, buf_t, fingerprint)
                counts = np.array(seg_n, dtype=np.int64)  # a copy: seg_n is emptied below
                seg_hi = seg_lo + len(counts)
                ranks = np.repeat(f_ranks[seg_lo:seg_hi], counts)
                starts = np.repeat(np.cumsum(counts) - counts, counts)
                succ = np.arange(len(buf_t), dtype=np.int64) - starts
                chunk_pfps = np.repeat(f_fps[seg_lo:seg_hi], counts)
                if label_actions is not None:  # buf_ai holds labels: the counts are per action
                    chunk_lab = np.array(buf_ai, dtype=label_dtype)
                    chunk_ai = label_actions[chunk_lab]
                    moving = chunk_fps != chunk_pfps  # stuttering steps are no transitions
                    e_src.append(ranks[moving].astype(np.int32))
                    e_dst.append(chunk_fps[moving])
                    e_lab.append(chunk_lab[moving])
                else:
                    chunk_ai = np.array(buf_ai, dtype=np.int16)
                if step_check:  # before the losers are dropped: every step counts, not only first discoveries
                    failed = self._check_chunk_steps(buf_parents, f_ranks[seg_lo:seg_hi], f_fps[seg_lo:seg_hi],
                                                     counts, buf_t, chunk_fps, reported, steps)
                    if failed is not None and (err is None or failed[0] < err[0]):
                        err = failed
                cand_parent.frombytes(ranks.tobytes())
                cand_ai.frombytes(chunk_ai.tobytes())
                keys.frombytes(((ranks << SUCC_BITS) + succ).tobytes())
                kept_ai.frombytes(chunk_ai.tobytes())
                fps.frombytes(chunk_fps.tobytes())
                pfps.frombytes(chunk_pfps.tobytes())
                states.extend(buf_t)
                seg_lo = seg_hi
                del seg_n[:]
                buf_ai.clear()
                buf_t.clear()
                buf_parents.clear()
                filtered_upto = self._drop_losers(filtered_upto, keys, fps, states, pfps, kept_ai)
                return err

            for p, s in enumerate(self.f_states):
                before = len(buf_t)
                try:
                    expand_into(s, buf_ai, buf_t)
                except SpecRuntimeError as exc:
                    del buf_ai[before:]
                    del buf_t[before:]
                    error = (int(f_ranks[p]), int(f_fps[p]), _wrap_error(exc))
                    break
                m = len(buf_t) - before
                if m == 0 and deadlock is None:
                    deadlock = (int(f_ranks[p]), int(f_fps[p]))
                if m > MAX_SUCCESSORS:
                    del buf_ai[before:]
                    del buf_t[before:]
                    error = (int(f_ranks[p]), int(f_fps[p]), _wrap_error(_too_many(model, m)))
                    break
                seg_n.append(m)
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
            if error is not None and (buf_t or seg_n):
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

    def _check_steps(self, s: Any, rank: int, sfp: int, succ: list, reported: set, steps: list) -> tuple | None:
        """Check the steps ``s -> t`` for ``(j, t, fp)`` in ``succ`` (:meth:`BoundModel.step_violations`).

        The first step violating each property not yet ``reported`` is added to
        ``steps`` as (discovery key, parent fingerprint, names); a spec error is
        returned as the parent's failure (its later steps are not checked, as
        in the local backend).
        """
        try:
            found = self.model.step_violations(s, sfp, succ, reported)
        except SpecRuntimeError as exc:
            return (rank, sfp, _wrap_error(exc))
        base = rank << SUCC_BITS
        steps.extend((base + j, sfp, names) for j, names in found)
        return None

    def _check_chunk_steps(self, parents: list, ranks: np.ndarray, pfps: np.ndarray, counts: np.ndarray,
                           ts: list, fps: np.ndarray, reported: set, steps: list) -> tuple | None:
        """:meth:`_check_steps` for a chunk of parents, ``counts[k]`` successors (in ``ts``) of ``parents[k]``."""
        fp_list = fps.tolist()
        lo = 0
        for k, m in enumerate(counts.tolist()):
            sfp = int(pfps[k])
            hi = lo + m
            succ = [(kk - lo, ts[kk], fp_list[kk]) for kk in range(lo, hi) if fp_list[kk] != sfp]
            if succ:
                failed = self._check_steps(parents[k], int(ranks[k]), sfp, succ, reported, steps)
                if failed is not None:
                    return failed
            lo = hi
        return None

    def _cut_at_unhashable(self, seg_lo: int, seg_n: array, buf_ai: list, buf_t: list,
                           label_action: tuple | None = None) -> tuple:
        """Find the first parent with an unhashable successor, cut the buffers before it, and return its error.

        The buffers hold the successors of frontier parents ``seg_lo, seg_lo + 1, ...``, ``seg_n`` of each;
        ``buf_ai`` holds labels when ``label_action`` (a label's action) is given.
        """
        actions = buf_ai if label_action is None else [label_action[x] for x in buf_ai]
        bad, exc = self.model.first_bad_state(buf_t, actions)
        p = int(np.searchsorted(np.cumsum(np.array(seg_n, dtype=np.int64)), bad, side="right"))
        lo = sum(seg_n[:p])
        del seg_n[p:]
        del buf_ai[lo:]
        del buf_t[lo:]
        parent = seg_lo + p
        return (int(self.f_ranks[parent]), int(self.f_fps[parent]), _wrap_error(exc))

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
                    model.check_state(t, f"action {model.actions[int(self.new_ai[k])].name}")
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
