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

import contextlib
import functools
import gc
import pickle
import struct
from functools import lru_cache
from typing import Any, Iterable, Iterator

import numpy as np
from pyspark.accumulators import AccumulatorParam

from modelcheck.constants import make_constants
from modelcheck.errors import SpecRuntimeError
from modelcheck.loader import load_spec
from modelcheck.model import BoundModel
from modelcheck.result import CheckOptions
from modelcheck.visited import merge_sorted

SEQ = struct.Struct(">H")
MAX_SUCCESSORS = 1 << 16
"""A state's successors are numbered by a 16-bit digit of the discovery key."""

CHUNK = 8192
"""Records pickled together: a chunk is one pickle, so states share the sub-objects they share in memory."""

# A level's persisted RDD (one per BFS level, partitioned like the shards) holds, per partition:
SHARD = "shard"  # (SHARD, sorted int64 numpy array of the fingerprints this shard has seen)
NEW = "new"  # (NEW, pickled list of (fp, key, state, action)): the level's new states, in key order
# String tags: the merge reads these mixed with (owner, payload) candidate pairs, whose first element
# is an int, so a tag can never be mistaken for an owner (or vice versa).
#
# Expansion sends (owner, payload) pairs through the shuffle; the payloads are:
BLOB = 0  # (BLOB, pickled list of (fp, key, parent fp, action, state)): candidates for one owner
GEN_STATS = 1  # (GEN_STATS, partition, generated per action, [(key, fp) of deadlocked states])
SPEC_ERROR = 5  # (SPEC_ERROR, partition, parent key, parent fp, message, where) -- spec code raised
# The merge reports each partition's facts through an accumulator, as {(level, partition): stats}:
# stats = (fps, parent fps, distinct per action, violations, {property: min key},
#          generated per action, deadlocked, spec errors) -- the last three gathered from
#          GEN_STATS and SPEC_ERROR payloads.

_dumps = functools.partial(pickle.dumps, protocol=pickle.HIGHEST_PROTOCOL)


class StatsParam(AccumulatorParam):
    """Per-partition level statistics: a dict keyed by (level, partition); a retried task overwrites its own."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, a: dict, b: dict) -> dict:
        a.update(b)
        return a


@lru_cache(maxsize=8)
def bound_model(ref: str, constants: tuple, options: CheckOptions) -> BoundModel:
    """The model for (spec reference, constants, options), built once per Python worker."""
    spec = load_spec(ref)
    return BoundModel(spec, make_constants(spec.constants_class, dict(constants)), options)


def owner(fp: int, partitions: int) -> int:
    """The shard that owns a fingerprint."""
    return fp % partitions


def frontier_states(records: Iterable[tuple]) -> Iterator[tuple]:
    """The (fp, key, state, action) records of the new states in a level's partition, in key order."""
    for rec in records:
        if rec[0] == NEW:
            yield from pickle.loads(rec[1])


def expand_partition(job: tuple, index: int, records: Iterable[tuple]) -> Iterator[tuple]:
    """Expand one frontier partition: (owner, payload) pairs of candidates, then this partition's counts."""
    with _no_cyclic_gc():
        yield from _expand_partition(job, index, records)


def _expand_partition(job: tuple, index: int, records: Iterable[tuple]) -> Iterator[tuple]:
    model = bound_model(*job[:3])
    n_actions = len(model.actions)
    generated = [0] * n_actions
    deadlocked = []
    check_deadlock = model.check_deadlock
    constrained = model.spec.state_constraint is not None or model.spec.action_constraint is not None
    budget = [200, 0]  # deep canonical checks (40 µs each) on the first successors of each task
    # Map-side dedup: a fingerprint already emitted by this task came with a smaller key (parents
    # arrive in ascending key order), so a repeat can never win; it stays behind, like a
    # constrained-out successor, still counted as generated.
    emitted: set[int] = set()
    last_key = b""
    partitions = owner_count(job)
    out: list[list] = [[] for _ in range(partitions)]
    error = None
    for pfp, key, s, _ai in frontier_states(records):
        if error is not None:
            continue  # read the input to its end: a worker that leaves input unread is not reused
        if key < last_key:  # not in discovery order: dedup would be unsound, so stop doing it
            emitted = _NoSet()
        last_key = key
        try:
            _expand_one(model, key, pfp, s, generated, emitted, constrained, budget, out, partitions)
        except SpecRuntimeError as err:
            # Reported by the driver, with the trace to this parent, as the local engine does.
            error = (SPEC_ERROR, index, key, pfp, str(err), err.where)
            continue
        if not budget[1] and check_deadlock:
            deadlocked.append((key, pfp))
        for q in range(partitions):
            if len(out[q]) >= CHUNK:
                yield q, (BLOB, _dumps(out[q]))
                out[q] = []
    for q in range(partitions):
        if out[q]:
            yield q, (BLOB, _dumps(out[q]))
    if error is not None:
        yield index, error
    # Keyed by the partition's index, so the shuffle brings it to merge task ``index`` (owner(i) = i).
    yield index, (GEN_STATS, index, generated, deadlocked)


def owner_count(job: tuple) -> int:
    """The number of shards (the job is (spec reference, constants, options, shards))."""
    return job[3]


def _expand_one(model: BoundModel, key: bytes, pfp: int, s: Any, generated: list, emitted: set,
                constrained: bool, budget: list, out: list, partitions: int) -> None:
    """The candidates of one parent into ``out`` by owner; ``budget`` is [canonical checks left, successors]."""
    fingerprint = model.fingerprint
    seq = 0
    if constrained:
        pairs: Any = ((ai, t) for ai, _b, t in model.successors(s))
    else:
        ais: list[int] = []
        ts: list = []
        model.expand_into(s, ais, ts)  # the compiled successor function (modelcheck.expander)
        pairs = zip(ais, ts)
    for ai, t in pairs:
        generated[ai] += 1
        if seq == MAX_SUCCESSORS:
            raise SpecRuntimeError(
                f"a state has more than {MAX_SUCCESSORS:,} successors, more than the Spark engine's discovery "
                "keys can order; check this spec with the local engine",
                spec=model.spec.name, where="the Spark engine")
        child = key + SEQ.pack(seq)
        seq += 1
        if constrained and not (model.in_model(t) and model.action_allowed(s, t)):
            continue
        if budget[0] > 0:
            budget[0] -= 1
            model.check_state(t, f"action {model.actions[ai].name}")
        fp = fingerprint(t)
        if fp in emitted:
            continue
        emitted.add(fp)
        out[fp % partitions].append((fp, child, pfp, ai, t))
    budget[1] = seq


class _NoSet(set):
    """A set that never holds anything (map-side dedup switched off)."""

    def add(self, _item: Any) -> None:
        return None


def merge_shard(job: tuple, stats: Any, level: int, index: int, records: Iterable[Any]) -> Iterator[tuple]:
    """Deduplicate one shard's candidates against its visited set; check invariants on what is new.

    Reads the previous level's partition (its shard; its new states are skipped
    unopened) and the candidates the shuffle brought; emits the updated shard and
    the new states, and reports the partition's facts through ``stats``.
    """
    with _no_cyclic_gc():
        yield from _merge_shard(job, stats, level, index, records)


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a task, as the local engine does for its search.

    States are immutable trees of tuples: the collector finds no cycles in them,
    yet a task that unpickles or builds a few hundred thousand of them triggers
    collections that rescan them all, which made unpickling ten times slower.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _merge_shard(job: tuple, stats: Any, level: int, index: int, records: Iterable[Any]) -> Iterator[tuple]:
    model = bound_model(*job[:3])
    visited = np.empty(0, dtype=np.int64)
    best: dict[int, tuple] = {}
    generated = [0] * len(model.actions)
    deadlocked: list = []
    errors: list = []  # (parent key, parent fp, message, where)
    for rec in records:
        tag = rec[0]
        if type(tag) is str:
            if tag == SHARD:
                visited = rec[1]
            continue
        value = rec[1]
        kind = value[0]
        if kind == BLOB:
            for cand in pickle.loads(value[1]):
                fp = cand[0]
                cur = best.get(fp)
                if cur is None or cand[1] < cur[1]:
                    best[fp] = cand
        elif kind == GEN_STATS:
            generated = [a + b for a, b in zip(generated, value[2])]
            deadlocked += value[3]
        elif kind == SPEC_ERROR:
            errors.append(value[2:])
    fps = np.fromiter(best.keys(), dtype=np.int64, count=len(best))
    if len(visited) and len(fps):
        pos = np.searchsorted(visited, fps)
        pos[pos == len(visited)] = 0
        fresh = fps[visited[pos] != fps]
    else:
        fresh = fps
    new = sorted((best[fp] for fp in fresh.tolist()), key=lambda c: c[1])
    distinct = [0] * len(model.actions)
    violations = []
    sometimes: dict[str, bytes] = {}
    par_fp = np.empty(len(new), dtype=np.int64)
    par_parent = np.empty(len(new), dtype=np.int64)
    check = bool(model.invariants)
    out = []
    for i, (fp, key, pfp, ai, t) in enumerate(new):
        distinct[ai] += 1
        par_fp[i] = fp
        par_parent[i] = pfp
        try:
            failed = [inv.name for inv in model.failed_invariants(t)] if check else []
            for p in model.sometimes:
                if p.name not in sometimes and model._call(f"property {p.name}", p.fn, model.c, t):
                    sometimes[p.name] = key  # keys ascend here, so the first is the smallest
        except SpecRuntimeError as err:
            errors.append((key[:-2], pfp, str(err), err.where))
            failed = []
        if failed:
            violations.append((key, fp, failed))
        out.append((fp, key, t, ai))
        if len(out) >= CHUNK:
            yield (NEW, _dumps(out))
            out = []
    if out:
        yield (NEW, _dumps(out))
    # Both sides are duplicate-free and disjoint, so the union is a merge of two sorted runs
    # (np.union1d hashes every item again: 4 of the 30 Python seconds of Kip320 with three replicas).
    yield (SHARD, merge_sorted(visited, np.sort(fresh)))
    stats.add({(level, index): (par_fp, par_parent, distinct, violations, sometimes, generated, deadlocked,
                                errors)})


def count_generated(job: tuple, bound: bytes, records: Iterable[tuple]) -> Iterator[dict]:
    """Successors generated per action by the partition's parents whose key is at most ``bound``."""
    model = bound_model(*job[:3])
    counts: dict[int, int] = {}
    for _fp, key, s, _ai in frontier_states(records):
        if key <= bound:
            for ai, _b, _t in model.successors(s):
                counts[ai] = counts.get(ai, 0) + 1
    yield counts


def count_new(bound: bytes, records: Iterable[tuple]) -> Iterator[dict]:
    """New states per action whose parent's key is at most ``bound``."""
    counts: dict[int, int] = {}
    for _fp, key, _s, ai in frontier_states(records):
        if key[:-2] <= bound:
            counts[ai] = counts.get(ai, 0) + 1
    yield counts


def new_keys(records: Iterable[tuple]) -> Iterator[bytes]:
    for _fp, key, _s, _ai in frontier_states(records):
        yield key
