"""Code that runs on Spark executors: expanding a frontier partition and merging a shard.

Executors receive the spec's *reference and constants*, never closures, and
rebuild the model once per Python worker (a small memo of immutable models,
keyed by everything that defines them).  Every function here is deterministic
in its input, so a task that is retried, or recomputed after an executor died,
produces exactly the same records: a level is idempotent.

Discovery keys reproduce the local engine's order: a state's key is its
parent's key plus its position among the parent's successors, as big-endian
16-bit digits, so comparing keys as bytes is comparing discovery order (local
BFS expands a level in the order its states were discovered).
"""

from __future__ import annotations

import struct
from functools import lru_cache
from typing import Any, Iterable, Iterator

import numpy as np

from modelcheck.constants import make_constants
from modelcheck.loader import load_spec
from modelcheck.model import BoundModel
from modelcheck.result import CheckOptions

SEQ = struct.Struct(">H")

# Record tags (the first element of every record an executor emits).
CANDIDATE = 0  # (CANDIDATE, fp, key, parent_fp, action, state or None when outside the constraints)
GEN_STATS = 1  # (GEN_STATS, partition, generated per action, [(key, fp) of deadlocked states])
SHARD = 2  # (SHARD, sorted int64 numpy array of visited fingerprints)
NEW = 3  # (NEW, fp, key, state, action)
LEVEL_STATS = 4  # (LEVEL_STATS, fps, parent fps, distinct per action, violations, {property: min key},
#                 generated per action, deadlocked) -- the last two gathered from GEN_STATS records


@lru_cache(maxsize=8)
def bound_model(ref: str, constants: tuple, options: CheckOptions) -> BoundModel:
    """The model for (spec reference, constants, options), built once per Python worker."""
    spec = load_spec(ref)
    return BoundModel(spec, make_constants(spec.constants_class, dict(constants)), options)


def owner(fp: int, partitions: int) -> int:
    """The shard that owns a fingerprint."""
    return fp % partitions


def expand_partition(job: tuple, index: int, records: Iterable[tuple]) -> Iterator[tuple]:
    """Expand one frontier partition: every successor as a candidate, then this partition's counts."""
    ref, constants, options = job
    model = bound_model(ref, constants, options)
    n_actions = len(model.actions)
    generated = [0] * n_actions
    deadlocked = []
    check_deadlock = model.check_deadlock
    constrained = model.spec.state_constraint is not None or model.spec.action_constraint is not None
    fingerprint = model.fingerprint
    canonical_budget = 200  # deep canonical checks (40 µs each) on the first successors of each task
    # Map-side dedup: a fingerprint already emitted by this task came with a smaller key (parents
    # arrive in ascending key order), so a repeat can never win; it is sent without its state and
    # stays behind, like a constrained-out successor, still counted as generated.
    emitted: set[int] = set()
    last_key = b""
    for pfp, key, s in records:
        if key < last_key:  # not in discovery order: dedup would be unsound, so stop doing it
            emitted = _NoSet()
        last_key = key
        seq = 0
        for ai, _b, t in model.successors(s):
            generated[ai] += 1
            child = key + SEQ.pack(seq)
            seq += 1
            if constrained and not (model.in_model(t) and model.action_allowed(s, t)):
                yield (CANDIDATE, 0, child, pfp, ai, None)
                continue
            if canonical_budget > 0:
                canonical_budget -= 1
                model.check_state(t, f"action {model.actions[ai].name}")
            fp = fingerprint(t)
            if fp in emitted:
                yield (CANDIDATE, fp, child, pfp, ai, None)
                continue
            emitted.add(fp)
            yield (CANDIDATE, fp, child, pfp, ai, t)
        if seq == 0 and check_deadlock:
            deadlocked.append((key, pfp))
    # Keyed by the partition's index, so the shuffle brings it to merge task ``index`` (owner(i) = i).
    yield (GEN_STATS, index, generated, deadlocked)


class _NoSet(set):
    """A set that never holds anything (map-side dedup switched off)."""

    def add(self, _item: Any) -> None:
        return None


def to_owner_pairs(records: Iterable[tuple]) -> Iterator[tuple]:
    """Expansion records as (owner key, value) pairs for the shuffle; constrained-out successors stay behind."""
    for rec in records:
        if rec[0] == CANDIDATE:
            if rec[5] is not None:
                yield rec[1], (rec[2], rec[3], rec[4], rec[5])
        else:
            yield rec[1], rec


def merge_shard(job: tuple, records: Iterable[Any]) -> Iterator[tuple]:
    """Deduplicate one shard's candidates against its visited set; check invariants on what is new."""
    ref, constants, options = job
    model = bound_model(ref, constants, options)
    visited = np.empty(0, dtype=np.int64)
    best: dict[int, tuple] = {}
    generated = [0] * len(model.actions)
    deadlocked: list = []
    for rec in records:
        if rec[0] == SHARD:
            visited = rec[1]
            continue
        fp, value = rec
        if value[0] == GEN_STATS:
            generated = [a + b for a, b in zip(generated, value[2])]
            deadlocked += value[3]
            continue
        key, pfp, ai, t = value
        cur = best.get(fp)
        if cur is None or key < cur[0]:
            best[fp] = (key, pfp, ai, t)
    fps = np.fromiter(best.keys(), dtype=np.int64, count=len(best))
    if len(visited) and len(fps):
        pos = np.searchsorted(visited, fps)
        pos[pos == len(visited)] = 0
        fresh = fps[visited[pos] != fps]
    else:
        fresh = fps
    new_keys = sorted((best[int(fp)][0], int(fp)) for fp in fresh)
    distinct = [0] * len(model.actions)
    violations = []
    sometimes: dict[str, bytes] = {}
    par_fp = np.empty(len(new_keys), dtype=np.int64)
    par_parent = np.empty(len(new_keys), dtype=np.int64)
    for i, (key, fp) in enumerate(new_keys):
        _, pfp, ai, t = best[fp]
        distinct[ai] += 1
        par_fp[i] = fp
        par_parent[i] = pfp
        failed = [inv.name for inv in model.failed_invariants(t)] if model.invariants else []
        if failed:
            violations.append((key, fp, failed))
        for p in model.sometimes:
            if p.name not in sometimes and model._call(f"property {p.name}", p.fn, model.c, t):
                sometimes[p.name] = key  # keys ascend here, so the first is the smallest
        yield (NEW, fp, key, t, ai)
    yield (SHARD, np.union1d(visited, fresh))
    yield (LEVEL_STATS, par_fp, par_parent, distinct, violations, sometimes, generated, deadlocked)
