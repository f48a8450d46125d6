"""Code that runs on Spark executors: a level task per shard (merge, check, expand), and re-reading a level.

Executors receive the spec's *reference and constants*, never closures, and
rebuild the model once per Python worker (a small memo of immutable models,
keyed by everything that defines them).  Every function here is deterministic
in its input, so a task that is retried, or recomputed after an executor died,
produces exactly the same records: a level is idempotent.

Discovery keys reproduce the one-process search's order: a state's key is
its parent's key plus its index among the parent's successors, as an
order-preserving digit (the path form of :mod:`modelcheck.search.discovery`),
so comparing keys as bytes is comparing discovery order.

``modelcheck compile`` builds this module with the engine's (its loops run
per candidate); executors import the build as the driver does (the worker
daemon puts the compiled modules' finder in place), and Spark pickles its
functions by name.
"""

# modelcheck: compile

from __future__ import annotations

import gc
import os
import pickle
from functools import lru_cache
from time import perf_counter, process_time
from typing import Any, Iterable, Iterator

import numpy as np
from pyspark.accumulators import AccumulatorParam

from modelcheck.spec.constants import make_constants
from modelcheck.errors import CheckpointError, SpecRuntimeError
from modelcheck.spec.loader import load_spec
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.search import checkpoint
from modelcheck.search.backend import kind_of
from modelcheck.search.checkpoint import ShardFiles
from modelcheck.search.discovery import digit, split
from modelcheck.search.memory import collections_paused
from modelcheck.search.successor_rules import ParentExpander, check_new_state, parent_expander
from modelcheck.spark_explore.candidates import Batch, Winners, pack_rows, states_batch, unpack_rows
from modelcheck.spark_explore.pickling import StatePickler
from modelcheck.spark_explore.tables import ExecutorTables, executor_tables
from modelcheck.memo.backend import MemoUnsupported
from modelcheck.search.visited import in_sorted


PIECE = 1 << 19
"""States in one record of a shard (10 MiB): see :meth:`Shard.pieces`."""

CHUNK = 256
"""Records pickled together: a chunk is one pickle, so states share the sub-objects they share in memory.

Siblings, which share most of their parent's, are adjacent, so small chunks
lose little sharing, while pickle's memo of a big chunk outgrows the CPU
caches and makes both pickling and unpickling slower (docs/benchmarks.md)."""

ROWS_CHUNK = 4096
"""Candidates in one chunk of the rows form (:mod:`modelcheck.spark_explore.candidates`): numbers, not objects,
so a chunk can be large, and its distinct parts are pickled once for all of it."""

# A level's RDD (persisted, partitioned by shard) holds (shard index, payload) pairs. The payloads:
BLOB = 0  # (BLOB, pickled list of (fp, key, parent fp, action, state)): candidates for this shard
ROWS = 4  # (ROWS, candidates in the rows form): candidates for this shard, from an executor on the tables
GEN_STATS = 1  # (GEN_STATS, partition, generated per action, [(key, fp) of deadlocked states])
SHARD = 2  # (SHARD, Shard): the fingerprints this shard has seen, with their parent records
FRONTIER = 3  # (FRONTIER, pickled list of (fp, key, state)): states to expand as given (a first level)
SPEC_ERROR = 5  # (SPEC_ERROR, partition, parent key, parent fp, message, where, kind) -- spec code raised
# A level task reports each partition's facts through an accumulator, as {(level, partition): stats}:
# stats = (new states, (executor, shard size), distinct per action, violations, {property: min key},
#          generated per action, deadlocked, spec errors, shuffle, successors, CPU) -- generated, deadlocked and
#          errors gathered from GEN_STATS and SPEC_ERROR payloads; shuffle = (candidates shipped, their bytes,
#          seconds packing them, candidates received, seconds unpacking them); successors = (executor, on the
#          tables, why not, from which level), and the task's CPU seconds in its Python worker. Only counts
#          and events: the new states' fingerprints and parents stay in the shard.

_dumps = StatePickler().dumps
"""Pickles states as pickle does, a third faster (see :mod:`modelcheck.spark_explore.pickling`)."""


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
    model = BoundModel(spec, make_constants(spec.constants_class, dict(constants)), options)
    # PySpark's daemon runs a full collection after every task; what is alive now (the modules,
    # the model) lives as long as the worker, so it goes to the permanent generation, out of those.
    gc.freeze()
    return model


def owner(fp: int, partitions: int) -> int:
    """The shard that owns a fingerprint."""
    return fp % partitions


class Shard:
    """One shard's visited set and parent records: 20 bytes a state, kept by the executors, never the driver.

    ``fps`` is sorted; ``parents[i]`` is the fingerprint of the state that
    first reached ``fps[i]`` (the state itself for an initial state) and
    ``levels[i]`` its level (0: the initial states).  A trace walks back one
    parent at a time, each a lookup in the shard that owns it; a checkpoint
    needs the levels to write the records level by level.
    """

    __slots__ = ("fps", "parents", "levels")

    BYTES_PER_STATE = 20

    def __init__(self, fps: np.ndarray, parents: np.ndarray, levels: np.ndarray) -> None:
        self.fps = fps
        self.parents = parents
        self.levels = levels

    @classmethod
    def empty(cls) -> "Shard":
        return cls(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int32))

    def __reduce__(self) -> tuple:
        return Shard, (self.fps, self.parents, self.levels)

    def __len__(self) -> int:
        return len(self.fps)

    def nbytes(self) -> int:
        return int(self.fps.nbytes + self.parents.nbytes + self.levels.nbytes)

    @classmethod
    def union(cls, parts: list["Shard"]) -> "Shard":
        """Disjoint shards as one: pieces of one shard (:meth:`pieces`) end to end, else merged by a sort
        (a resumed checkpoint's shards, split by the new partition count)."""
        parts = sorted((p for p in parts if len(p)), key=lambda p: int(p.fps[0]))
        if not parts:
            return cls.empty()
        if len(parts) == 1:
            return parts[0]
        fps = np.concatenate([p.fps for p in parts])
        parents = np.concatenate([p.parents for p in parts])
        levels = np.concatenate([p.levels for p in parts])
        if all(int(a.fps[-1]) < int(b.fps[0]) for a, b in zip(parts, parts[1:])):
            return cls(fps, parents, levels)
        order = np.argsort(fps, kind="stable")
        return cls(fps[order], parents[order], levels[order])

    def pieces(self) -> list["Shard"]:
        """The shard cut into runs of at most :data:`PIECE` states, each one record of a level's RDD.

        A record is one byte array in the JVM: a whole shard of millions of
        states as one record made the JVM hold (and Kryo copy) arrays of
        hundreds of MiB at once, and run out of heap.
        """
        if len(self) <= PIECE:
            return [self]
        return [Shard(self.fps[i:i + PIECE], self.parents[i:i + PIECE], self.levels[i:i + PIECE])
                for i in range(0, len(self), PIECE)]

    def with_new(self, fps: np.ndarray, parents: np.ndarray, level: int) -> "Shard":
        """This shard plus new states (none of them in it yet): one linear insertion into the sorted arrays."""
        if not len(fps):
            return self
        order = np.argsort(fps)
        fps = fps[order]
        at = np.searchsorted(self.fps, fps)
        return Shard(np.insert(self.fps, at, fps), np.insert(self.parents, at, parents[order]),
                     np.insert(self.levels, at, np.full(len(fps), level, np.int32)))

    def parent_of(self, fp: int) -> int | None:
        i = int(np.searchsorted(self.fps, fp))
        if i < len(self.fps) and int(self.fps[i]) == fp:
            return int(self.parents[i])
        return None


def executor_name() -> str:
    """Which executor this Python worker serves: its host and the executor JVM's process id.

    PySpark tells a task its partition and stage, not its executor; the JVM
    is the worker's parent, or its daemon's parent.
    """
    import socket

    pid = os.getppid()
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"java" not in f.read().split(b"\0", 1)[0]:
                with open(f"/proc/{pid}/stat") as g:
                    pid = int(g.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return f"{socket.gethostname()}:{pid}"


class _Level:
    """One partition of a level's RDD, read: its shard, and its candidates or the states it was given."""

    __slots__ = ("shard", "batches", "given", "generated", "deadlocked", "errors", "received", "unpickle_seconds")

    def __init__(self, records: Iterable[tuple], n_actions: int) -> None:
        self.shard = Shard.empty()
        self.batches: list[Batch] = []
        self.given: list | None = None  # FRONTIER records: (fp, key, state), in key order
        self.generated = [0] * n_actions
        self.deadlocked: list = []
        self.errors: list = []  # (parent key, parent fp, message, where, kind)
        shards = []
        self.received = 0
        self.unpickle_seconds = 0.0
        for _owner, value in records:
            kind = value[0]
            if kind == BLOB or kind == ROWS:
                t0 = perf_counter()
                batch = states_batch(pickle.loads(value[1])) if kind == BLOB else unpack_rows(value[1])
                self.unpickle_seconds += perf_counter() - t0
                self.received += len(batch)
                self.batches.append(batch)
            elif kind == SHARD:
                shards.append(value[1])
            elif kind == FRONTIER:
                self.given = (self.given or []) + pickle.loads(value[1])
            elif kind == GEN_STATS:
                self.generated = [a + b for a, b in zip(self.generated, value[2])]
                self.deadlocked += value[3]
            elif kind == SPEC_ERROR:
                self.errors.append(value[2:])
        if shards:
            self.shard = Shard.union(shards)
        if self.given is not None:
            self.given.sort(key=lambda r: r[1])  # from several chunks (a resumed checkpoint's shards)

    def winners(self) -> Winners:
        """The candidates whose fingerprint the shard has not seen, the smallest key of each, in key order."""
        t0 = perf_counter()
        win = Winners(self.batches, self.shard.fps)
        self.unpickle_seconds += perf_counter() - t0
        return win


def level_states(records: Iterable[tuple]) -> Iterator[tuple]:
    """The states of the level a partition of a level's RDD defines, as (fp, key, state, action), in key order.

    A first level's partition holds them (FRONTIER; action 0); any other
    holds the candidates they are the winners of, and the merge is repeated
    (it is deterministic: the same states a level task found).
    """
    part = _Level(records, 0)
    if part.given is not None:
        for fp, key, s in part.given:
            yield fp, key, s, 0
        return
    win = part.winners()
    yield from zip(win.fps.tolist(), win.keys, win.states(), win.actions.tolist())


def level_task(job: tuple, stats: Any, level: int | None, expand: bool, unreached: frozenset, violated: frozenset,
               index: int, records: Iterable[tuple]) -> Iterator[tuple]:
    """A level of the search for one shard, in one pass: merge, check, expand.

    Reads the shard and the candidates the shuffle brought (or, for a first
    level, the states given), keeps the candidates the shard has not seen,
    checks their invariants and reports the partition's facts as level
    ``level`` (none for a first level, ``level`` None), and, if ``expand``,
    generates their successors: (owner, payload) pairs for the next shuffle,
    with the updated shard, keyed by this partition, among them.  The new
    states are never pickled: they live only inside this task, from the
    merge that finds them to the expansion that consumes them.
    """
    with collections_paused():
        yield from _level_task(job, stats, level, expand, unreached, violated, index, records)


def _level_task(job: tuple, stats: Any, level: int | None, expand: bool, unreached: frozenset,
                violated: frozenset, index: int, records: Iterable[tuple]) -> Iterator[tuple]:
    cpu = process_time()
    model = bound_model(*job[:3])
    tables = tables_of(job, model)
    n_actions = len(model.actions)
    part = _Level(records, n_actions)
    check = None
    win = None
    if part.given is not None:
        shard = part.shard
        given = part.given
        fps = np.fromiter((g[0] for g in given), np.int64, len(given))
        keys = [g[1] for g in given]
        states: list | None = [g[2] for g in given]
    else:
        win = part.winners()
        shard = part.shard.with_new(win.fps, win.pfps, 0 if level is None else level + 1)
        fps, keys, states = win.fps, win.keys, None
        check = _Checks(model, unreached, violated)
    for piece in shard.pieces():
        yield index, (SHARD, piece)
    if check is not None:
        assert win is not None
        check.count(win.actions)
        bits = win.checks() if tables is not None and tables.backend is not None else None
        if bits is None or not check.by_bits(win, bits, tables.backend):
            states = win.states()
            check.states(win, states)
    visited = shard.fps
    shipped = [0, 0, 0.0]  # candidates, bytes, seconds packing them
    if expand and tables is not None and tables.backend is not None:
        backend = tables.backend
        try:
            rows = (win.rows(tables.shape, backend.interned_parts, backend.row_of) if win is not None
                    else np.array([backend.row_of(s) for s in states or []], np.int32).reshape(-1, backend.width))
            exp = backend.expand_rows(rows, fps, unreached, violated)
        except MemoUnsupported as why:
            tables.stand_aside(why.reason, level)
        else:
            yield from _ship_rows(exp, keys, fps, index, owner_count(job), visited, tables.shape,
                                  backend.interner.values, shipped)
            deadlocked = [] if exp.deadlock is None else [(keys[exp.deadlock], int(fps[exp.deadlock]))]
            if exp.failure is not None:
                i, failure = exp.failure
                yield index, (SPEC_ERROR, index, keys[i], int(fps[i]), failure.message, failure.where, failure.kind)
            yield index, (GEN_STATS, index, exp.generated.tolist(), deadlocked)
            expand = False  # done
    if expand:
        if states is None:
            assert win is not None
            states = win.states()
        yield from _expand_own(model, job, index, keys, fps, states, visited, shipped)
    if check is not None and level is not None:
        stats.add({(level, index): (check.new, (executor_name(), len(shard)),
                                    check.distinct, check.violations,
                                    check.sometimes, part.generated, part.deadlocked,
                                    part.errors + check.errors,
                                    (*shipped, part.received, part.unpickle_seconds),
                                    _successors(tables), process_time() - cpu)})
    elif level is None:  # the states given were expanded: only the shuffle to report
        stats.add({(None, index): (0, None, [], [], {}, [], [], [], (*shipped, 0, 0.0), _successors(tables),
                                   process_time() - cpu)})


def tables_of(job: tuple, model: BoundModel) -> ExecutorTables | None:
    """The worker's tables for the job, or None where the driver asked for the spec's own code."""
    mode = job[4] if len(job) > 4 else None
    if mode is None:
        return None
    return executor_tables(model, *mode)


def _successors(tables: ExecutorTables | None) -> tuple:
    """(Python worker, on the tables, why not, from which level, why its orbit trees stood aside) for the
    driver's report: each of an executor's Python workers keeps tables of its own."""
    name = f"{executor_name()} worker {os.getpid()}"
    if tables is None:
        return name, False, None, None, None
    return (name, *tables.status())


def _ship_rows(exp: Any, keys: list, fps: np.ndarray, index: int, partitions: int, visited: np.ndarray,
               shape: Any, values: list, shipped: list) -> Iterator[tuple]:
    """The tables' successors, by owner, in chunks of the rows form; those this shard has seen stay behind."""
    n = len(exp.fp)
    if not n:
        return
    sub = np.arange(n, dtype=np.int64) - np.searchsorted(exp.parent, exp.parent)
    owners = exp.fp % partitions
    rows = exp.rows
    for q in range(partitions):
        sel = np.flatnonzero(owners == q)
        if q == index and len(visited) and len(sel):
            sel = sel[~in_sorted(visited, exp.fp[sel])]
        for j in range(0, len(sel), ROWS_CHUNK):
            s = sel[j:j + ROWS_CHUNK]
            t0 = perf_counter()
            blob = pack_rows(_dumps, shape, values, exp.fp[s], exp.parent[s], sub[s], exp.action[s],
                             exp.checks[s], rows[s], keys, fps)
            shipped[2] += perf_counter() - t0
            shipped[0] += len(s)
            shipped[1] += len(blob)
            yield q, (ROWS, blob)


def _expand_own(model: BoundModel, job: tuple, index: int, keys: list, fps: np.ndarray, states: list,
                visited: np.ndarray, shipped: list) -> Iterator[tuple]:
    """The spec's own code expands the states (in key order); the candidates go out pickled, by owner."""
    n_actions = len(model.actions)
    partitions = owner_count(job)
    generated = [0] * n_actions
    deadlocked = []
    check_deadlock = model.check_deadlock
    expand = parent_expander(model, False)
    budget = [200, 0]  # deep canonical checks (slow) on the first successors of each task
    # Map-side dedup: a fingerprint already emitted by this task came with a smaller key (parents
    # are taken in ascending key order), so a repeat can never win; it stays behind, like a
    # constrained-out successor, still counted as generated.
    emitted = set()  # unannotated: it may become a _NoSet (compiled, an annotated set is exactly a set)
    last_key = b""
    out: list[list] = [[] for _ in range(partitions)]
    error = None
    for fp, key, s in zip(fps.tolist(), keys, states):
        if key < last_key:  # not in discovery order: dedup would be unsound, so stop doing it
            emitted = _NoSet()
        last_key = key
        try:
            _expand_one(expand, model, key, fp, s, generated, emitted, budget, out, partitions)
        except SpecRuntimeError as err:
            # Reported by the driver, with the trace to this parent, as the local engine does.
            error = (SPEC_ERROR, index, key, fp, str(err), err.where, kind_of(err))
            break
        if not budget[1] and check_deadlock:
            deadlocked.append((key, fp))
        for q in range(partitions):
            if len(out[q]) >= CHUNK:
                yield from _blob(q, out[q], visited if q == index else None, shipped)
                out[q] = []
    for q in range(partitions):
        if out[q]:
            yield from _blob(q, out[q], visited if q == index else None, shipped)
    if error is not None:
        yield index, error
    # Keyed by this partition, so the shuffle brings it to this shard's next level task.
    yield index, (GEN_STATS, index, generated, deadlocked)


def _blob(q: int, cands: list, shard: np.ndarray | None, shipped: list) -> Iterator[tuple]:
    """One pickled chunk of candidates for shard ``q``; those ``shard`` (q's own, if here) has seen stay behind.

    ``shipped`` counts what goes into the shuffle: candidates, bytes and the seconds spent pickling them.
    """
    if shard is not None and len(shard):
        fps = np.fromiter((c[0] for c in cands), dtype=np.int64, count=len(cands))
        unseen = (~in_sorted(shard, fps)).tolist()
        cands = [c for c, keep in zip(cands, unseen) if keep]
    if cands:
        t0 = perf_counter()
        blob = _dumps(cands)
        shipped[2] += perf_counter() - t0
        shipped[0] += len(cands)
        shipped[1] += len(blob)
        yield q, (BLOB, blob)


class _Checks:
    """The new states' facts for the driver: parent records, per-action counts, violations, properties."""

    def __init__(self, model: BoundModel, unreached: frozenset, violated: frozenset) -> None:
        self.model = model
        self.properties = [p for p in model.sometimes if p.name in unreached]
        self.reported = set(violated)  # per invariant, only the task's first violating state is reported
        self.new = 0
        self.distinct = [0] * len(model.actions)
        self.violations: list = []
        self.sometimes: dict[str, bytes] = {}
        self.errors: list = []
        self.invariants = bool(model.invariants)

    def count(self, actions: np.ndarray) -> None:
        self.new = len(actions)
        self.distinct = np.bincount(actions, minlength=len(self.distinct)).tolist() if len(actions) else self.distinct

    def states(self, win: Winners, states: list) -> None:
        """Check every new state with the spec's own code (in key order)."""
        for key, fp, pfp, t in zip(win.keys, win.fps.tolist(), win.pfps.tolist(), states):
            self._one(key, fp, pfp, t)

    def _one(self, key: bytes, fp: int, pfp: int, t: Any) -> None:
        model = self.model
        try:
            failed = [inv.name for inv in model.failed_invariants(t) if inv.name not in self.reported] \
                if self.invariants else []
            for p in self.properties:
                if p.name not in self.sometimes and model.property_holds(p, t):
                    self.sometimes[p.name] = key  # keys ascend here, so the first is the smallest
        except SpecRuntimeError as err:
            self.errors.append((split(key)[0], pfp, str(err), err.where, kind_of(err)))
            failed = []
        if failed:
            self.violations.append((key, fp, failed))
            self.reported.update(failed)

    def by_bits(self, win: Winners, bits: np.ndarray, backend: Any) -> bool:
        """Check the new states by the bits the tables kept with each, the first state of each check that
        fired confirmed by the spec's own code; False (nothing recorded) where the spec's code disagrees."""
        hits: dict[int, list[str]] = {}
        for name, bit in backend.check_bits("invariant").items():
            if name not in self.reported:
                at = np.flatnonzero(bits & bit)
                if len(at):
                    hits.setdefault(int(at[0]), []).append(name)
        reached: dict[str, int] = {}
        property_bits = backend.check_bits("sometimes")
        for p in self.properties:
            at = np.flatnonzero(bits & property_bits[p.name])
            if len(at):
                reached[p.name] = int(at[0])
        if not hits and not reached:
            return True
        model = self.model
        wanted = sorted(set(hits) | set(reached.values()))
        states = dict(zip(wanted, win.states(wanted)))
        for i, names in hits.items():
            failed = {inv.name for inv in model.failed_invariants(states[i])}
            if not set(names) <= failed:
                return False
        for name, i in reached.items():
            if not model.property_holds(next(p for p in self.properties if p.name == name), states[i]):
                return False
        for i in sorted(hits):
            self.violations.append((win.keys[i], int(win.fps[i]), hits[i]))
            self.reported.update(hits[i])
        for name, i in reached.items():
            self.sometimes[name] = win.keys[i]
        return True


def owner_count(job: tuple) -> int:
    """The number of shards (the job is (spec reference, constants, options, shards))."""
    return job[3]


def _expand_one(expand: ParentExpander, model: BoundModel, key: bytes, pfp: int, s: Any, generated: list,
                emitted: set, budget: list, out: list, partitions: int) -> None:
    """The candidates of one parent into ``out`` by owner; ``budget`` is [canonical checks left, successors].

    What a parent's successors become (generated, constrained out, the limit,
    deadlock) is :mod:`modelcheck.search.successor_rules`'s; the canonical
    check here is on a task's first candidates, before repeats are dropped.
    """
    fingerprint = model.fingerprint
    codes: list = []
    ts: list = []
    n = expand(s, codes, ts)
    for seq in range(n):
        ai = codes[seq]
        t = ts[seq]
        generated[ai] += 1
        if t is None:  # outside the constraints: generated, no candidate
            continue
        if budget[0] > 0:
            budget[0] -= 1
            check_new_state(model, t, ai)
        fp = fingerprint(t)
        if fp in emitted:
            continue
        emitted.add(fp)
        out[fp % partitions].append((fp, key + digit(seq), pfp, ai, t))
    budget[1] = n


class _NoSet(set):
    """A set that never holds anything (map-side dedup switched off)."""

    def add(self, _item: Any) -> None:
        return None


def count_generated(job: tuple, bound: bytes, records: Iterable[tuple]) -> Iterator[dict]:
    """Successors generated per action by the partition's states whose key is at most ``bound``."""
    model = bound_model(*job[:3])
    counts: dict[int, int] = {}
    with collections_paused():
        for _fp, key, s, _ai in level_states(records):
            if key <= bound:
                for ai, _b, _t in model.successors(s):
                    counts[ai] = counts.get(ai, 0) + 1
    yield counts


def count_new(bound: bytes, records: Iterable[tuple]) -> Iterator[dict]:
    """The partition's states per action whose parent's key is at most ``bound``."""
    counts: dict[int, int] = {}
    with collections_paused():
        for _fp, key, _s, ai in level_states(records):
            if split(key)[0] <= bound:
                counts[ai] = counts.get(ai, 0) + 1
    yield counts


def new_keys(records: Iterable[tuple]) -> Iterator[bytes]:
    """The keys of the partition's states."""
    with collections_paused():
        for _fp, key, _s, _ai in level_states(records):
            yield key


def parent_of(fp: int, records: Iterable[tuple]) -> Iterator[int]:
    """The parent fingerprint of ``fp``, from the partition's shard (nothing if the shard has no ``fp``)."""
    for _owner, value in records:
        if value[0] == SHARD:
            parent = value[1].parent_of(fp)
            if parent is not None:
                yield parent
                return


def shard_of(records: Iterable[tuple]) -> Iterator[Shard]:
    """The partition's shard (its pieces put together)."""
    yield Shard.union([value[1] for _owner, value in records if value[0] == SHARD])


def write_shard_records(directory: str, index: int, records: Iterable[tuple]) -> Iterator[ShardFiles]:
    """Write the partition's shard (visited set and parent records) into a checkpoint's data directory."""
    for shard in shard_of(records):
        yield checkpoint.write_shard_records(directory, index, shard.fps, shard.parents, shard.levels)


def write_shard_frontier(directory: str, index: int, records: Iterable[tuple]) -> Iterator[ShardFiles]:
    """Write the partition's frontier states, in discovery order, into a checkpoint's data directory."""
    with collections_paused():
        front = [(fp, key, s) for fp, key, s, _ai in level_states(records)]
        yield checkpoint.write_shard_frontier(directory, index, front)


def set_digest(fps: np.ndarray) -> int:
    """An order-independent digest of a set of fingerprints (a sum of mixed values, mod 2**64).

    The shards' frontiers together must be their last levels together; the
    driver compares the sums of both over all shards, so neither set has to
    travel to it.
    """
    x = fps.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(31))) * np.uint64(0x9E3779B97F4A7C15)
        x ^= x >> np.uint64(29)
        return int(x.sum(dtype=np.uint64))


def verify_shard(job: tuple, folder: str, level: int, shard: ShardFiles) -> tuple:
    """Check one shard of a checkpoint where it is read: (index, a one-line problem or None, states per level,
    digests of its last level's and its frontier's fingerprints).

    Every file against its digest; the arrays' types and shapes; fingerprints
    sorted and unique; levels within the checkpoint's; initial states their
    own parents; the frontier's keys well formed and a sample of its states
    (re-read with the spec's classes only) with the fingerprints recorded.
    A shard's frontier need not be its own last level (a first level's
    states are cut by rank, not owner), so that check is over all shards.
    """
    from modelcheck.spec.sources import spec_modules

    try:
        for name, meta in shard.digests.items():
            if checkpoint.file_digest(os.path.join(folder, name), expected_bytes=meta["bytes"]) != meta:
                return shard.index, f"{name} does not match its digest", []
        model = bound_model(*job[:3])
        fps, parents, levels, front = _read_shard(folder, shard, [m for m, _ in spec_modules(model.spec)])
        if len(fps) > 1 and np.any(fps[1:] <= fps[:-1]):
            return shard.index, f"shard {shard.index}'s fingerprints are not sorted", []
        if len(levels) and (levels.min() < 0 or levels.max() > level):
            return shard.index, f"shard {shard.index} has a level out of range", []
        if not np.array_equal(fps[levels == 0], parents[levels == 0]):
            return shard.index, f"shard {shard.index} gives an initial state a parent", []
        front_fps = np.fromiter((r[0] for r in front), np.int64, len(front))
        step = max(1, len(front) // 200)
        for fp, _key, s in front[::step]:
            model.check_state(s, "a checkpoint's frontier")
            if model.fingerprint(s) != fp:
                return shard.index, "a frontier state has another fingerprint", []
        return (shard.index, None, np.bincount(levels, minlength=level + 1).tolist(),
                (set_digest(fps[levels == level]), set_digest(front_fps)))
    except CheckpointError as exc:
        return shard.index, str(exc), []
    except (OSError, ValueError, EOFError, SpecRuntimeError) as exc:
        return shard.index, f"shard {shard.index} cannot be read ({type(exc).__name__})", []


def load_shard(job: tuple, folder: str, partitions: int, shard: ShardFiles) -> Iterator[tuple]:
    """One shard of a checkpoint, split by owner for ``partitions`` shards: a first level's records."""
    from modelcheck.spec.sources import spec_modules

    model = bound_model(*job[:3])
    with collections_paused():
        fps, parents, levels, front = _read_shard(folder, shard, [m for m, _ in spec_modules(model.spec)])
        owners = fps % partitions
        for q in np.unique(owners).tolist():
            mine = owners == q
            for piece in Shard(fps[mine], parents[mine], levels[mine]).pieces():
                yield q, (SHARD, piece)
        out: list[list] = [[] for _ in range(partitions)]
        for record in front:
            out[record[0] % partitions].append(record)
        for q, run in enumerate(out):
            for j in range(0, len(run), CHUNK):
                yield q, (FRONTIER, _dumps(run[j:j + CHUNK]))


def _read_shard(folder: str, shard: ShardFiles, modules: list[str]) -> tuple:
    """A checkpoint shard's arrays and its frontier as (fp, key, state) in key order (states read with the
    spec's own classes only)."""
    from modelcheck.search.safe_pickle import load_states

    return checkpoint.read_shard(folder, shard.index, shard.states, shard.frontier,
                                 lambda f, count: load_states(f, modules, count), f"shard {shard.index} cannot be read")
