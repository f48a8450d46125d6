"""The Spark backend: levels expanded on Spark, the frontier and visited set distributed by fingerprint.

Each of P partitions owns one shard of the fingerprint space (``fp % P``).
A level's RDD holds, in partition i, shard i's visited set and the candidate
states the shuffle brought to it (each with its discovery key, parent and
action).  A level is one Python pass per partition (``mapPartitionsWithIndex``
of :func:`modelcheck.spark_explore.executor.level_task`): keep the candidates
the shard has not seen (the smallest key wins a fingerprint), check their
invariants, report the partition's facts through an accumulator, and expand
them at once; their successors, with the updated shard, go through
``partitionBy`` with the shards' partitioner to make the next level's RDD,
which is persisted and its lineage cut (``localCheckpoint`` on local masters;
a reliable ``checkpoint`` on clusters, so a lost executor costs a
recomputation, not the run).  New states are never pickled: they exist only
inside the task that finds and expands them.  When a level's states are
needed again (a checkpoint's frontier, written by the executors, or the
counts where a run stops inside a level), the level's merge is repeated on
the RDD it came from, which is deterministic.  The shards also hold every
state's parent record, so the driver keeps only counts: a trace walks back
one lookup per step (:meth:`SparkBackend.path_to`).

Because a new state is expanded before any process knows its rank in its
level, candidates carry path keys (:mod:`modelcheck.search.discovery`): the
level driver (:mod:`modelcheck.search.driver`) reads the events of a level
with those positions and decides, as for every backend, where the run stops.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import tempfile
import threading
import time
from typing import Any, Callable, Iterator

import attrs
import numpy as np

from modelcheck.model.bound import BoundModel
from modelcheck.search.backend import LevelAbandoned, LevelCommit, LevelReport, LevelRequest
from modelcheck.search.backend import SpecFailure
from modelcheck.errors import CheckpointError
from modelcheck.search.checkpoint import Boundary, ShardFiles
from modelcheck.search.discovery import digit, split
from modelcheck.search.visited import ParentRecords
from modelcheck.spark_explore import executor as ex
from modelcheck.spark_explore.session import is_local, spark_context
from modelcheck.spec.constants import constants_to_dict
from modelcheck.spec.loader import EXTENDED

_DRIVER_ONLY = dict(checkpoint_dir=None, resume=None, max_memory_mb=None, progress_seconds=5.0,
                    checkpoint_every=600.0)
"""Options the executors never read: dropped from the model key they rebuild the model by."""


class SparkBackend:
    """One run's Spark side. All run state lives on the instance (and in the RDDs it owns)."""

    name = "spark"
    keeps_parents = True

    def __init__(self, model: BoundModel, spec_ref: str, *, master: str | None = None,
                 partitions: int | None = None, sc: Any = None, verbose: bool = False,
                 tables: tuple | None = None) -> None:
        """``tables``: the executors expand on the memo tables, with (verify, seed, may give up) as
        :class:`~modelcheck.memo.backend.MemoBackend` takes them; None: on the spec's own code."""
        self.model = model
        self.tables = tables
        self.executor_cpu = 0.0
        """CPU seconds the level tasks took in the executors' Python workers (their JVMs not counted)."""
        self.generated_total = 0
        self.successors: dict[str, tuple] = {}
        """Per executor (Python worker): (on the tables, why not, from which level), as last reported."""
        self.orbit_asides: dict[str, str] = {}
        """Per Python worker whose orbit trees stood aside for a reason of the spec's code: the reason."""
        self.spec_ref = spec_ref
        self.master = master
        self.requested_partitions = partitions
        self.sc = sc
        self.own_context = sc is None
        self.verbose = verbose
        self.poll: Callable[[], None] = lambda: None
        self.P = 0
        self.job: tuple = ()
        self.part_func: Any = None
        self.level_seconds: list[float] = []
        self.job_seconds = 0.0
        self.reliable_dir: str | None = None
        self.shipped: str | None = None
        self._pool: Any = None
        self.stats: Any = None
        # The RDD the frontier was found in (``source``: its states are its merge's winners, or given
        # for a first level), and the RDD of the candidates for the level after (``found``: None until
        # a first level is expanded).  ``_old`` are persisted RDDs to release.
        self.source: Any = None
        self.found: Any = None
        self._old: list[Any] = []
        self._pending: tuple | None = None  # the level under way: (next RDD, its facts)
        self.shards: Any = None
        """The newest RDD whose partitions hold complete shards (visited sets and parent records)."""
        self.shard_sizes: dict[int, tuple[str, int]] = {}
        """Per partition: the executor that last built its shard and the shard's size in states."""
        self.lookups = 0
        """Parent lookups made for traces (one small Spark job each)."""
        self.shuffle = [0, 0, 0.0, 0, 0.0]
        """Over the run: candidates shipped, their pickled bytes, seconds pickling, candidates received, seconds
        unpickling (as the executors' level tasks report them; a retried task replaces its own report)."""
        self.driver_peak: dict[str, int] = {}
        """Peak resident memory of the driver's Python process and of its JVM, read when the run closes."""

    # -- the backend protocol ---------------------------------------------------------------

    def start(self, states: Any, fps: np.ndarray, visited: np.ndarray, poll: Callable[[], None],
              parents: Any = None) -> None:
        self._open(poll)
        records = [(int(fp), digit(rank), s) for rank, (fp, s) in enumerate(zip(np.asarray(fps).tolist(), states))]
        self.source = self._level_rdd(records, _flat_records(parents, visited))
        self.shards = self.source
        self.found = None
        self._old = [self.source]

    def resume_shards(self, boundary: Boundary, poll: Callable[[], None]) -> None:
        """Start from a ``shards`` checkpoint that the executors read: each checks and splits one shard.

        The driver holds only the manifest: a first job checks every shard
        where it is read (digests, shapes, a sample of frontier fingerprints)
        and returns its states per level, which must add up to the manifest's
        levels; a second builds the first level's RDD, each shard split by
        ``fp % P`` for this run's partition count.  Frontier states keep the
        discovery keys they were written with.
        """
        self._open(poll)
        folder, level, shards = boundary.folder, boundary.level, boundary.shards
        assert folder is not None and shards is not None
        damaged = f"checkpoint in {os.path.dirname(folder)} is damaged"
        checked = self._action(self.sc.parallelize(shards, max(1, len(shards))).map(
            functools.partial(ex.verify_shard, self.job, folder, level)).collect, abandonable=False)
        per_level = [0] * (level + 1)
        last = front = 0
        for _index, problem, counts, *sums in sorted(checked, key=lambda c: c[0]):
            if problem is not None:
                raise CheckpointError(f"{damaged} ({problem})")
            per_level = [a + b for a, b in zip(per_level, counts)]
            last, front = (last + sums[0][0]) % 2**64, (front + sums[0][1]) % 2**64
        if per_level != list(boundary.level_sizes):
            raise CheckpointError(f"{damaged} (its shards do not add up to its levels)")
        if last != front:
            raise CheckpointError(f"{damaged} (its frontier is not its last level)")
        rdd = (self.sc.parallelize(shards, max(1, len(shards)))
               .flatMap(functools.partial(ex.load_shard, self.job, folder, self.P))
               .partitionBy(self.P, self.part_func))
        self.source = self.shards = self._cut_lineage(rdd)
        self.found = None
        self._old = [self.source]

    def _open(self, poll: Callable[[], None]) -> None:
        import concurrent.futures

        self.poll = poll
        if self.sc is None:
            # PySpark's SparkContext replaces the SIGINT handler with its own (cancel every job, raise
            # KeyboardInterrupt mid-Py4J-call); the driver's stop requests must keep handling Ctrl-C.
            on_main = threading.current_thread() is threading.main_thread()
            previous = signal.getsignal(signal.SIGINT) if on_main else None
            self.sc = spark_context(self.master)
            if on_main:
                signal.signal(signal.SIGINT, previous)
        sc = self.sc
        files = [part.partition(":")[0] for part in self.spec_ref.split(EXTENDED)
                 if part.endswith(".py") or ".py:" in part]  # a user's spec file, and extension files
        if files:
            self.shipped = _ship_user_modules(sc, files)
        self.P = self.requested_partitions or sc.defaultParallelism
        options = attrs.evolve(self.model.options, **_DRIVER_ONLY)
        # Each Python worker learns its own tables, and judges whether they pay by its share of the successors.
        tables = None if self.tables is None else (*self.tables, 1 / max(1, sc.defaultParallelism))
        self.job = (self.spec_ref, tuple(sorted(constants_to_dict(self.model.c).items())), options, self.P, tables)
        self.part_func = functools.partial(ex.owner, partitions=self.P)
        if not is_local(sc.master):
            # Reliable checkpoints (a lost executor's shards are re-read, not the run lost). The
            # directory must be visible to every executor: on a real cluster set
            # spark.checkpoint.dir to shared storage (HDFS, S3, NFS).
            conf_dir = sc.getConf().get("spark.checkpoint.dir")
            if conf_dir:
                sc.setCheckpointDir(conf_dir)
            else:
                self.reliable_dir = tempfile.mkdtemp(prefix="modelcheck-spark-")
                sc.setCheckpointDir(self.reliable_dir)
        self.reliable = not is_local(sc.master)
        self.stats = sc.accumulator({}, ex.StatsParam())
        if threading.current_thread() is threading.main_thread():
            # Spark actions run on a helper thread, so that a stop request only cancels jobs:
            # raising inside a Py4J call would leave the gateway mid-answer.
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="spark-action")

    def memory_bytes(self) -> int | None:
        return None  # executors have their own limits (--max-memory is refused for Spark)

    def expand(self, request: LevelRequest) -> Iterator[LevelReport]:
        """One Spark job: level ``level + 1``'s states found, checked and (unless last) expanded."""
        t0 = time.perf_counter()
        level = request.level
        found = self.found
        if found is None:
            found = self._next_level(self.source, None, True, request)
            self._old.append(found)
            self.found = found
        nxt = self._next_level(found, level, not request.last, request)
        t_job = time.perf_counter()
        try:
            self._action(nxt._jrdd.count)
        except BaseException:
            nxt.unpersist(blocking=False)
            raise
        self.job_seconds = time.perf_counter() - t_job
        found_stats = self.stats.value
        stats = [found_stats.pop((level, i)) for i in range(self.P)]
        for key in [k for k in found_stats if k[0] is None]:  # a first level's expansion: its shuffle only
            first = found_stats.pop(key)
            self.shuffle = [a + b for a, b in zip(self.shuffle, first[8])]
            self._note_successors(first[9])
            self.executor_cpu += first[10]
        for key in [k for k in found_stats if k[0] <= level]:  # late copies from recomputed tasks
            del found_stats[key]
        n = len(self.model.actions)
        generated = [0] * n
        distinct = [0] * n
        deadlocked: list = []
        violations: list = []
        sometimes: dict[str, bytes] = {}
        for st in stats:
            generated = [a + b for a, b in zip(generated, st[5])]
            distinct = [a + b for a, b in zip(distinct, st[2])]
            deadlocked += st[6]
            violations += st[3]
            for name, key in st[4].items():
                if name not in sometimes or key < sometimes[name]:
                    sometimes[name] = key
        new_count = sum(s[0] for s in stats)
        sizes = {i: s[1] for i, s in enumerate(stats)}
        for st in stats:
            self.shuffle = [a + b for a, b in zip(self.shuffle, st[8])]
            self._note_successors(st[9])
            self.executor_cpu += st[10]
        self.generated_total += sum(generated)
        failures = sorted(e for s in stats for e in s[7])
        violations.sort()
        deadlocked.sort()
        self._pending = (nxt, new_count, sizes, generated, distinct, time.perf_counter() - t0)
        yield LevelReport(
            complete_through=None,
            generated=sum(generated),
            new_states=new_count,
            violations=[(split(key), fp, tuple(names)) for key, fp, names in violations],
            deadlocks=deadlocked[:1],
            sometimes={name: split(key) for name, key in sometimes.items()},
            failures=[(key, pfp, SpecFailure(message, self.model.spec.name, where, kind))
                      for key, pfp, message, where, kind in failures[:1]],
        )

    def _note_successors(self, report: tuple) -> None:
        """Keep what an executor's task said of its successor path; on the tables it may only leave them."""
        name, on_tables, why, since, orbit_why = report
        known = self.successors.get(name)
        if known is None or known[0]:
            self.successors[name] = (on_tables, why, since)
        if orbit_why is not None:  # trees that stood aside stay aside in that worker
            self.orbit_asides.setdefault(name, orbit_why)

    def successor_notes(self) -> list[str]:
        """One line per reason the executors' Python workers ran the spec's own code where the run asked for
        the tables, naming the workers (worded as the local engine words its own)."""
        if self.tables is None:
            return []
        by_reason: dict[tuple, list[str]] = {}
        for name, (on_tables, why, since) in sorted(self.successors.items()):
            if not on_tables:
                by_reason.setdefault((why, since), []).append(name)
        lines = []
        for (why, since), names in by_reason.items():
            where = f"Spark worker{'s' if len(names) > 1 else ''} {', '.join(names)}"
            if since is None:
                lines.append(f"the memo tables are not used on {where}: {why}; the spec's own code computes "
                             "their successors")
            else:
                lines.append(f"the memo tables stopped on {where} ({why}); the spec's own code went on there "
                             f"from level {since + 1}")
        return lines

    def orbit_notes(self) -> list[str]:
        """One line per reason the orbit trees of Python workers on the tables stood aside (worded as the
        local engine words its own), naming the workers; their orbits were the spec's own code's."""
        by_reason: dict[str, list[str]] = {}
        for name, why in sorted(self.orbit_asides.items()):
            by_reason.setdefault(why, []).append(name)
        return [f"the orbit trees stood aside on Spark worker{'s' if len(names) > 1 else ''} {', '.join(names)} "
                f"({why}); the spec's own signature and permute took the orbits there"
                for why, names in by_reason.items()]

    def tables_everywhere_off(self) -> str | None:
        """Why no Python worker ran on the tables (the first reason), or None if one did or none was asked."""
        if self.tables is None or not self.successors or any(on for on, _w, _s in self.successors.values()):
            return None
        return next(why for _on, why, _s in self.successors.values())

    def new_state_parent(self, n: int) -> Any:
        """The parent of the level's ``n``-th new state in key order: a distributed sort, not the keys collected."""
        keys = self.found.mapPartitions(ex.new_keys).sortBy(_identity, numPartitions=self.P)
        nth = self._action(keys.zipWithIndex().filter(functools.partial(_at_index, n - 1)).keys().collect)
        return split(nth[0])[0]

    def commit(self, bound: Any) -> LevelCommit:
        assert self._pending is not None
        nxt, new_count, sizes, generated, distinct, seconds = self._pending
        found = self.found
        if bound is not None:
            # The run stops after the parent ``bound``: count what one process had seen by then.
            gen_counts = _sum_counts(self._action(
                self.source.mapPartitions(functools.partial(ex.count_generated, self.job, bound)).collect))
            new_counts = _sum_counts(self._action(
                found.mapPartitions(functools.partial(ex.count_new, bound)).collect))
            generated = [gen_counts.get(a, 0) for a in range(len(generated))]
            distinct = [new_counts.get(a, 0) for a in range(len(distinct))]
            new_count = sum(new_counts.values())
        self._pending = None
        self.level_seconds.append(seconds)
        # The frontier's level is no longer needed: ``found`` holds the next level, ``nxt`` its successors.
        self._old = [rdd for rdd in self._old if rdd is not found]
        self._release_old()
        self._old = [found, nxt]
        self.shards = nxt
        self.shard_sizes = sizes
        if bound is not None or new_count == 0:
            self.source = self.found = None
        else:
            self.source, self.found = found, nxt
        return LevelCommit(generated, distinct, new_count, None, None)

    def path_to(self, level: int, fp: int) -> list[int]:
        """Walk back from ``fp`` one parent at a time: one lookup in the owning shard per level."""
        path = [fp]
        for _ in range(level):
            path.append(self._parent_of(path[-1]))
        path.reverse()
        return path

    def _parent_of(self, fp: int) -> int:
        found = self._action(lambda: self.sc.runJob(self.shards, functools.partial(ex.parent_of, fp),
                                                    [ex.owner(fp, self.P)]), abandonable=False)
        self.lookups += 1
        if not found:
            raise KeyError(f"fingerprint {fp} is in no shard")
        return int(found[0])

    def write_shards(self, directory: str) -> list[ShardFiles]:
        """The boundary written by the executors, one shard per task: records from the newest shards, the
        frontier's states from the level they were found in (the merge repeated), all in parallel."""
        shards = self._action(self.shards.mapPartitionsWithIndex(
            functools.partial(ex.write_shard_records, directory)).collect, abandonable=False)
        fronts = self._action(self.source.mapPartitionsWithIndex(
            functools.partial(ex.write_shard_frontier, directory)).collect, abandonable=False)
        written = {s.index: s for s in shards}
        out = []
        for f in fronts:
            s = written.pop(f.index)
            out.append(ShardFiles(f.index, s.states, f.frontier, {**s.digests, **f.digests}))
        if written:
            raise CheckpointError(f"shards {sorted(written)} were written without their frontier")
        return out

    def engine_report(self) -> dict[str, Any]:
        """What the executors hold (states per partition and per executor) and what the driver held at most."""
        per_executor = self._per_executor()
        held = sum(per_executor.values())
        return {"partitions": self.P,
                "shard_states": [self.shard_sizes[i][1] for i in sorted(self.shard_sizes)],
                "executor_states": per_executor,
                "executor_shard_bytes": held * ex.Shard.BYTES_PER_STATE,
                "trace_lookups": self.lookups,
                "executor_python_cpu_seconds": round(self.executor_cpu, 3),
                "executor_cpu_us_per_generated": round(1e6 * self.executor_cpu / max(1, self.generated_total), 2),
                "executor_successors": {name: "memo tables" if on else
                                        f"the spec's own code: {why}" if self.tables is not None else
                                        "the spec's own code, as the run chose"
                                        for name, (on, why, _since) in sorted(self.successors.items())},
                "executor_orbit_trees_aside": dict(sorted(self.orbit_asides.items())),
                "shuffle": {"candidates": self.shuffle[0], "bytes": self.shuffle[1],
                            "pickle_seconds": round(self.shuffle[2], 3), "received": self.shuffle[3],
                            "unpickle_seconds": round(self.shuffle[4], 3)},
                "driver_peak_rss_bytes": self.driver_peak.get("python"),
                "driver_jvm_peak_rss_bytes": self.driver_peak.get("jvm")}

    def _per_executor(self) -> dict[str, int]:
        per_executor: dict[str, int] = {}
        for name, size in self.shard_sizes.values():
            per_executor[name] = per_executor.get(name, 0) + size
        return dict(sorted(per_executor.items()))

    def abandon(self) -> None:
        if self._pending is not None:
            self._pending[0].unpersist(blocking=False)
            self._pending = None
        self._cancel_quietly()

    def detail(self) -> str:
        """Per-level timings for verbose progress lines."""
        if not self.verbose or not self.level_seconds:
            return ""
        shards = ", ".join(f"{name} {n:,}" for name, n in self._per_executor().items())
        return (f"[spark level {len(self.level_seconds)}: {self.level_seconds[-1]:.2f}s, "
                f"Spark job {self.job_seconds:.2f}s, {self.P} partitions; states held per executor: {shards}]")

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
        if self.sc is not None:
            self._release_old()
            self.shards = None
            self.driver_peak = _driver_peak_rss(self.sc)
            if self.own_context:
                self.sc.stop()
            self.sc = None
        if self.reliable_dir:
            shutil.rmtree(self.reliable_dir, ignore_errors=True)
            self.reliable_dir = None
        if self.shipped:
            shutil.rmtree(self.shipped, ignore_errors=True)  # Spark has its own copy by now
            self.shipped = None

    # -- RDDs ---------------------------------------------------------------------------------

    def _cut_lineage(self, rdd: Any) -> Any:
        from pyspark import StorageLevel

        rdd.persist(StorageLevel.MEMORY_AND_DISK)
        if self.reliable:
            rdd.checkpoint()
        else:
            rdd.localCheckpoint()
        return rdd

    def _release_old(self) -> None:
        for rdd in self._old:
            rdd.unpersist(blocking=False)
        self._old = []

    def _level_rdd(self, frontier: list, seen: "ex.Shard") -> Any:
        """A first level's RDD, built on the driver: the states seen so far as P shards (``fp % P``) and
        the states to expand (``(fp, key, state)`` in key order) cut into P contiguous runs."""
        owners = seen.fps % self.P  # numpy follows Python: never negative for a positive P
        n = len(frontier)
        parts = []
        for i in range(self.P):
            run = frontier[i * n // self.P:(i + 1) * n // self.P]
            records = [(i, (ex.FRONTIER, ex._dumps(run[j:j + ex.CHUNK]))) for j in range(0, len(run), ex.CHUNK)]
            mine = owners == i
            shard = ex.Shard(seen.fps[mine], seen.parents[mine], seen.levels[mine])
            parts.append((i, [(i, (ex.SHARD, piece)) for piece in shard.pieces()] + records))
        rdd = (self.sc.parallelize(parts, self.P)
               .partitionBy(self.P, self.part_func)
               .mapPartitions(_unwrap, preservesPartitioning=True))
        return self._cut_lineage(rdd)

    def _next_level(self, rdd: Any, level: int | None, expand: bool, request: LevelRequest) -> Any:
        """The RDD of the level after ``rdd``'s: one level task per partition, then the shuffle to owners.

        ``level`` is the number the tasks report their new states under (None
        for a first level, whose states were given, not found).
        """
        task = functools.partial(ex.level_task, self.job, self.stats, level, expand, request.unreached,
                                 request.violated)
        nxt = rdd.mapPartitionsWithIndex(task).partitionBy(self.P, self.part_func)
        if nxt.getNumPartitions() != self.P:
            raise RuntimeError("a level lost the shard partitioner")
        return self._cut_lineage(nxt)

    def _action(self, fn: Any, abandonable: bool = True) -> Any:
        """Run a Spark action; a stop request meanwhile cancels its jobs and raises :class:`LevelAbandoned`.

        Actions that are not ``abandonable`` (gathering a checkpoint) run to the
        end unless a second Ctrl-C comes.
        """
        if self._pool is None:
            return fn()
        import concurrent.futures

        future = self._pool.submit(fn)
        while True:
            try:
                return future.result(timeout=0.1)
            except concurrent.futures.TimeoutError:
                if not abandonable:
                    continue
                try:
                    self.poll()
                except LevelAbandoned:
                    self.sc.cancelAllJobs()
                    try:
                        future.result(timeout=120)
                    except BaseException:  # noqa: BLE001 - the cancelled job's error is expected
                        pass
                    raise
            except KeyboardInterrupt:
                self._cancel_quietly()
                raise

    def _cancel_quietly(self) -> None:
        try:
            if self.sc is not None:
                self.sc.cancelAllJobs()
        except Exception:  # noqa: BLE001 - best effort while stopping
            pass


def _ship_user_modules(sc: Any, paths: list[str]) -> str:
    """Make a user's spec files importable on executors under the names the loader gives them.

    States pickled on one side name their NamedTuple class by module, so the
    executors need the module before they can read a single state. Returns the
    temporary folder of the copies, for the caller to remove after the run.
    """
    from modelcheck.spec.loader import user_module_name

    folder = tempfile.mkdtemp(prefix="modelcheck-spec-")
    for path in paths:
        copy = os.path.join(folder, user_module_name(path) + ".py")
        shutil.copyfile(path, copy)
        sc.addPyFile(copy)
    return folder


def _flat_records(parents: ParentRecords | None, visited: np.ndarray) -> "ex.Shard":
    """The driver's parent records as one sorted shard (an initial state is its own parent)."""
    if parents is None:
        raise RuntimeError("the Spark backend starts from the driver's parent records")
    fps, ups, levels = [], [], []
    for k, cur in enumerate(parents.fps):
        fps.append(np.asarray(cur, np.int64))
        ups.append(fps[-1] if k == 0 else fps[k - 1][parents.parent_idx[k]])
        levels.append(np.full(len(cur), k, np.int32))
    flat = np.concatenate(fps) if fps else np.empty(0, np.int64)
    order = np.argsort(flat, kind="stable")
    shard = ex.Shard(flat[order], np.concatenate(ups)[order] if fps else flat,
                     np.concatenate(levels)[order] if fps else np.empty(0, np.int32))
    if not np.array_equal(shard.fps, np.asarray(visited, np.int64)):
        raise RuntimeError("the visited set and the parent records disagree")
    return shard


def _driver_peak_rss(sc: Any) -> dict[str, int]:
    """The peak resident memory (bytes) of this Python process and of the driver's JVM, as far as readable."""
    import resource

    peak = {"python": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}  # KiB on Linux
    proc = getattr(getattr(sc, "_gateway", None), "proc", None)
    if proc is not None:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak["jvm"] = int(line.split()[1]) * 1024
        except OSError:
            pass
    return peak


def _unwrap(records: Any) -> Any:
    """(partition index, records) pairs as the records of that partition."""
    for _i, part in records:
        yield from part


def _identity(x: Any) -> Any:
    return x


def _at_index(index: int, pair: tuple) -> bool:
    return pair[1] == index


def _sum_counts(parts: list) -> dict:
    total: dict = {}
    for counts in parts:
        for k, n in counts.items():
            total[k] = total.get(k, 0) + n
    return total
