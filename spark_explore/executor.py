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
from modelcheck.errors import SpecRuntimeError
from modelcheck.loader import load_spec
from modelcheck.model import BoundModel
from modelcheck.result import CheckOptions

SEQ = struct.Struct(">H")

# Record tags (the first element of every record an executor emits).
CANDIDATE = 0  # (CANDIDATE, fp, key, parent_fp, action, state or None when outside the constraints)
GEN_STATS = 1  # (GEN_STATS, partition, generated per action, [(key, fp) of deadlocked states])
# A string, not an int: the merge reads shard records mixed with (fingerprint, candidate) pairs, and
# an int tag would be mistaken for a candidate whose fingerprint happens to equal it (or vice versa).
SHARD = "shard"  # (SHARD, sorted int64 numpy array of visited fingerprints)
NEW = 3  # (NEW, fp, key, state, action)
SPEC_ERROR = 5  # (SPEC_ERROR, partition, parent key, parent fp, message, where) -- spec code raised
LEVEL_STATS = 4  # (LEVEL_STATS, fps, parent fps, distinct per action, violations, {property: min key},
#                 generated per action, deadlocked, spec errors) -- the last three gathered from
#                 GEN_STATS and SPEC_ERROR records


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
    budget = [200, 0]  # deep canonical checks (40 µs each) on the first successors of each task
    # Map-side dedup: a fingerprint already emitted by this task came with a smaller key (parents
    # arrive in ascending key order), so a repeat can never win; it is sent without its state and
    # stays behind, like a constrained-out successor, still counted as generated.
    emitted: set[int] = set()
    last_key = b""
    for pfp, key, s in records:
        if key < last_key:  # not in discovery order: dedup would be unsound, so stop doing it
            emitted = _NoSet()
        last_key = key
        try:
            yield from _expand_one(model, key, pfp, s, generated, emitted, constrained, budget)
        except SpecRuntimeError as err:
            # Reported by the driver, with the trace to this parent, as the local engine does.
            yield (SPEC_ERROR, index, key, pfp, str(err), err.where)
            break
        if not budget[1] and check_deadlock:
            deadlocked.append((key, pfp))
    # Keyed by the partition's index, so the shuffle brings it to merge task ``index`` (owner(i) = i).
    yield (GEN_STATS, index, generated, deadlocked)


def _expand_one(model: BoundModel, key: bytes, pfp: int, s: Any, generated: list, emitted: set,
                constrained: bool, budget: list) -> Iterator[tuple]:
    """The candidates of one parent; ``budget`` is [canonical checks left, successors of this parent]."""
    fingerprint = model.fingerprint
    seq = 0
    for ai, _b, t in model.successors(s):
        generated[ai] += 1
        child = key + SEQ.pack(seq)
        seq += 1
        if constrained and not (model.in_model(t) and model.action_allowed(s, t)):
            yield (CANDIDATE, 0, child, pfp, ai, None)
            continue
        if budget[0] > 0:
            budget[0] -= 1
            model.check_state(t, f"action {model.actions[ai].name}")
        fp = fingerprint(t)
        if fp in emitted:
            yield (CANDIDATE, fp, child, pfp, ai, None)
            continue
        emitted.add(fp)
        yield (CANDIDATE, fp, child, pfp, ai, t)
    budget[1] = seq


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
    errors: list = []  # (parent key, parent fp, message, where)
    for rec in records:
        if rec[0] == SHARD:
            visited = rec[1]
            continue
        fp, value = rec
        if value[0] == GEN_STATS:
            generated = [a + b for a, b in zip(generated, value[2])]
            deadlocked += value[3]
            continue
        if value[0] == SPEC_ERROR:
            errors.append(value[2:])
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
        try:
            failed = [inv.name for inv in model.failed_invariants(t)] if model.invariants else []
            for p in model.sometimes:
                if p.name not in sometimes and model._call(f"property {p.name}", p.fn, model.c, t):
                    sometimes[p.name] = key  # keys ascend here, so the first is the smallest
        except SpecRuntimeError as err:
            errors.append((key[:-2], pfp, str(err), err.where))
            failed = []
        if failed:
            violations.append((key, fp, failed))
        yield (NEW, fp, key, t, ai)
    yield (SHARD, np.union1d(visited, fresh))
    yield (LEVEL_STATS, par_fp, par_parent, distinct, violations, sometimes, generated, deadlocked, errors)
