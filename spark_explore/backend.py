"""The Spark engine: the local engine's BFS, with the frontier and visited set distributed.

Each of P partitions owns one shard of the fingerprint space (``fp % P``).
A level's RDD holds, in partition i, shard i's visited set and the candidate
states the shuffle brought to it (each with its discovery key, parent and
action).  A level is one Python pass per partition (``mapPartitionsWithIndex``
of :func:`modelcheck.spark_explore.executor.level_task`): keep the candidates
the shard has not seen (the smallest key wins a fingerprint), check their
invariants, report the (fingerprint, parent) records through an accumulator,
and expand them at once; their successors, with the updated shard, go
through ``partitionBy`` with the shards' partitioner to make the next level's
RDD, which is persisted and its lineage cut (``localCheckpoint`` on local
masters; a reliable ``checkpoint`` on clusters, so a lost executor costs a
recomputation, not the run).  New states are never pickled: they exist only
inside the task that finds and expands them.  When the driver needs a level's
states again (a checkpoint, or the counts where a run stops mid-level), the
level's merge is repeated on the RDD it came from, which is deterministic.

Results are identical to the local engine's, counts and first violation
included, because candidates carry discovery keys (see
:mod:`modelcheck.spark_explore.executor`): the smallest key wins a
fingerprint (the local engine's first discoverer), and where the local engine
would have stopped in the middle of a level (a violation, a deadlock,
``--max-states``) the counts are taken up to that point in key order.
"""

from __future__ import annotations

import functools
import signal
import tempfile
import threading
import time
from typing import Any

import attrs
import numpy as np

from modelcheck.search.checkpoint import boundary_payload, read_boundary, write_checkpoint
from modelcheck.spec.constants import constants_to_dict
from modelcheck.errors import CheckpointError, SpecRuntimeError
from modelcheck.model.bound import BoundModel
from modelcheck.search.progress import Progress, ProgressSink, Ticker
from modelcheck.model.replay import replay
from modelcheck.options import CheckOptions
from modelcheck.output.results import CheckResult, Violation
from modelcheck.search.counters import SearchCounters, checkpoint_identity
from modelcheck.spec.declare import Spec
from modelcheck.spark_explore import executor as ex
from modelcheck.spark_explore.session import is_local, spark_context

_SPARK_IRRELEVANT = dict(checkpoint_dir=None, resume=None, max_memory_mb=None, progress_seconds=5.0,
                         checkpoint_every=600.0)


@attrs.frozen
class Checkpointing:
    """The driver-only checkpoint options of a run."""

    directory: str | None = None
    """Where checkpoints are written (``--checkpoint``; ``--resume`` implies the same directory)."""
    every: float = 600.0
    """Seconds between checkpoints (0: at every level boundary)."""
    resume: str | None = None
    """The directory of the checkpoint to continue from."""


def check(
    spec: Spec,
    spec_ref: str,
    consts: Any,
    options: CheckOptions,
    *,
    master: str | None = None,
    partitions: int | None = None,
    progress: ProgressSink | None = None,
    verbose: bool = False,
    sc: Any = None,
) -> CheckResult:
    """Check ``spec`` on Spark; pass ``sc`` to reuse a running SparkContext (it is then not stopped).

    ``options.checkpoint_dir``/``checkpoint_every``/``resume`` work as for the
    local engine, with the same checkpoint file: either engine resumes the other's.
    """
    progress_seconds = options.progress_seconds
    ckpt = Checkpointing(options.checkpoint_dir, options.checkpoint_every, options.resume)
    # Executors get the options as part of the model's key: drop what only the driver uses.
    options = attrs.evolve(options, **_SPARK_IRRELEVANT)
    model = BoundModel(spec, consts, options)
    # A checkpoint of another run is refused before Spark takes seconds to start.
    snapshot = read_boundary(ckpt.resume, checkpoint_identity(model)) if ckpt.resume else None
    own = sc is None
    if own:
        sc = spark_context(master)
    shipped = None
    try:
        if spec_ref.endswith(".py") or ".py:" in spec_ref:
            shipped = _ship_user_module(sc, spec_ref.partition(":")[0])
        parts = partitions or sc.defaultParallelism
        job = (spec_ref, tuple(sorted(constants_to_dict(consts).items())), options, parts)
        bfs = SparkBFS(sc, model, job, parts, progress, verbose, reliable=not is_local(sc.master))
        bfs.progress_seconds = progress_seconds
        bfs.ckpt = ckpt
        return bfs.run(snapshot)
    finally:
        if own:
            sc.stop()
        if shipped:
            import shutil

            shutil.rmtree(shipped, ignore_errors=True)  # Spark has its own copy by now


class _Stop(Exception):
    """Ctrl-C or SIGTERM came while a level was under way: the level is abandoned."""


class SparkBFS(SearchCounters):
    """One run on Spark. All run state lives on the instance (and in the RDDs it owns).

    Its parent records are the local engine's; a level's order is the order its stats
    arrived in, and a checkpoint puts the frontier level in discovery order, which is
    what the checkpoint format promises.
    """

    engine = "spark"

    def __init__(self, sc: Any, model: BoundModel, job: tuple, partitions: int, progress: ProgressSink | None,
                 verbose: bool, reliable: bool) -> None:
        super().__init__(model)
        self.sc = sc
        self.job = job
        self.P = partitions
        self.progress = progress
        self.verbose = verbose
        self.reliable = reliable
        self.part_func = functools.partial(ex.owner, partitions=partitions)
        self.level_seconds: list[float] = []
        self._old: list[Any] = []
        self.progress_seconds = 5.0
        self.checkpoint_dir: str | None = None
        self.job_seconds = 0.0
        self.ckpt = Checkpointing()
        self.checkpoint_seconds = 0.0
        self.checkpointed_level: int | None = None
        """The boundary last written to (or resumed from): a stop there need not write it again."""
        self.interrupted = False
        self._pool: Any = None

    # -- helpers ------------------------------------------------------------------

    def _record(self, kind: str, name: str, description: str, level: int, fp: int) -> None:
        trace = replay(self.model, self.parents.path_to(level, fp))
        self.violations.append(Violation(kind, name, description, tuple(trace)))
        self.violated_names.add(name)

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

    def _level_rdd(self, frontier: list, fps: np.ndarray) -> Any:
        """A first level's RDD, built on the driver: the visited set ``fps`` as P shards (``fp % P``) and
        the states to expand (``(fp, key, state)`` in key order) cut into P contiguous runs."""
        fps = np.asarray(fps, dtype=np.int64)
        owners = fps % self.P  # numpy follows Python: never negative for a positive P
        n = len(frontier)
        parts = []
        for i in range(self.P):
            run = frontier[i * n // self.P:(i + 1) * n // self.P]
            records = [(i, (ex.FRONTIER, ex._dumps(run[j:j + ex.CHUNK]))) for j in range(0, len(run), ex.CHUNK)]
            parts.append((i, [(i, (ex.SHARD, np.sort(fps[owners == i])))] + records))
        rdd = (self.sc.parallelize(parts, self.P)
               .partitionBy(self.P, self.part_func)
               .mapPartitions(_unwrap, preservesPartitioning=True))
        return self._cut_lineage(rdd)

    def _next_level(self, rdd: Any, level: int | None, expand: bool) -> Any:
        """The RDD of the level after ``rdd``'s: one level task per partition, then the shuffle to owners.

        ``level`` is the number the tasks report their new states under (None
        for a first level, whose states were given, not found).
        """
        tasks = rdd.mapPartitionsWithIndex(functools.partial(ex.level_task, self.job, self.stats, level, expand))
        nxt = tasks.partitionBy(self.P, self.part_func)
        if nxt.getNumPartitions() != self.P:
            raise RuntimeError("a level lost the shard partitioner")
        return self._cut_lineage(nxt)

    # -- interrupts ---------------------------------------------------------------

    def _on_signal(self, signum: int, frame: Any) -> None:
        if self.interrupted:  # a second Ctrl-C: stop now; the last checkpoint written stays valid
            raise KeyboardInterrupt
        self.interrupted = True

    def _action(self, fn: Any, abandonable: bool = True) -> Any:
        """Run a Spark action; a Ctrl-C/SIGTERM meanwhile cancels its jobs and raises :class:`_Stop`.

        The action runs on a helper thread so that the signal handler only sets a
        flag: raising inside a Py4J call would leave the gateway mid-answer.
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
                if self.interrupted and abandonable:
                    self.sc.cancelAllJobs()
                    try:
                        future.result(timeout=120)
                    except BaseException:  # noqa: BLE001 - the cancelled job's error is expected
                        pass
                    raise _Stop from None

    # -- checkpoints ----------------------------------------------------------------

    def _write_checkpoint(self, level: int, source: Any, elapsed: float) -> None:
        """The boundary before ``level`` is expanded, in the local engine's format (2).

        The frontier (the states of ``source``, the RDD level ``level`` was
        found in) is collected to the driver and sorted into discovery order;
        the visited set is the union of the parent records' levels, which the
        driver holds anyway.
        """
        t0 = time.perf_counter()
        records = self._action(source.mapPartitions(ex.frontier_records).collect, abandonable=False)
        records.sort(key=lambda r: r[1])
        fps = np.fromiter((r[0] for r in records), dtype=np.int64, count=len(records))
        self._reorder_level(level, fps)
        snap = boundary_payload(
            level=level,
            frontier=[r[2] for r in records],
            seen=np.unique(np.concatenate(self.parents.fps[: level + 1])),
            parent_fps=list(self.parents.fps[: level + 1]),
            parent_idx=list(self.parents.parent_idx[: level + 1]),
            elapsed=elapsed,
            **self.counters(),
        )
        write_checkpoint(self.ckpt.directory, checkpoint_identity(self.model), snap)
        self.checkpoints_written += 1
        self.checkpointed_level = level
        self.checkpoint_seconds += time.perf_counter() - t0

    def _reorder_level(self, level: int, fps: np.ndarray) -> None:
        """Put level ``level``'s parent records in the order of ``fps`` (the same fingerprints)."""
        cur = self.parents.fps[level]
        if len(cur) != len(fps):
            raise CheckpointError(f"the frontier holds {len(fps)} states, level {level + 1} has {len(cur)}")
        order = np.argsort(cur, kind="stable")
        pos = np.searchsorted(cur[order], fps)
        np.minimum(pos, len(cur) - 1, out=pos)
        perm = order[pos]
        if len(cur) and not np.array_equal(cur[perm], fps):
            raise CheckpointError(f"the frontier and the parent records of level {level + 1} disagree")
        self.parents.fps[level] = cur[perm]
        self.parents.parent_idx[level] = self.parents.parent_idx[level][perm]

    def _restore(self, snap: dict) -> tuple[int, list, np.ndarray]:
        """Counters and parent records from a checkpoint; returns the level, frontier records and visited set."""
        if snap.get("format") != 2:
            raise CheckpointError("the checkpoint was written by an older engine; start the run again")
        level = snap["level"]
        self.restore_parents(snap)
        frontier = snap["frontier"]
        cur = self.parents.fps[level]
        if len(cur) != len(frontier) or len(self.parents.fps) != level + 1:
            raise CheckpointError(f"checkpoint in {self.ckpt.resume} is inconsistent; start the run again")
        self.restore_counters(snap)
        self.elapsed_before = snap["elapsed"]
        seen = np.asarray(snap["seen"], dtype=np.int64)
        self.distinct = len(seen)
        # The frontier is in discovery order: its rank is a discovery key (fixed width, so bytes compare
        # as numbers) from which successors' keys grow as usual.
        width = ">I" if len(frontier) < 2**32 else ">Q"
        import struct

        pack = struct.Struct(width).pack
        records = [(int(fp), pack(i), s) for i, (fp, s) in enumerate(zip(cur.tolist(), frontier))]
        return level, records, seen

    def _boundary(self) -> dict:
        """The counters at a level boundary (restored when the level after it is abandoned)."""
        return {**self.counters(), "distinct": self.distinct, "levels": len(self.parents.fps)}

    def _roll_back(self, b: dict) -> None:
        self.restore_counters(b)
        self.distinct = b["distinct"]
        self.parents.truncate(b["levels"])

    # -- the search ------------------------------------------------------------------

    def run(self, snapshot: dict | None = None) -> CheckResult:
        model = self.model
        opts = model.options
        start = time.perf_counter()
        if self.reliable:
            # Reliable checkpoints (a lost executor's shards are re-read, not the run lost). The
            # directory must be visible to every executor: on a real cluster set
            # spark.checkpoint.dir to shared storage (HDFS, S3, NFS).
            conf_dir = self.sc.getConf().get("spark.checkpoint.dir")
            if conf_dir:
                self.sc.setCheckpointDir(conf_dir)
            else:
                self.checkpoint_dir = tempfile.mkdtemp(prefix="modelcheck-spark-")
                self.sc.setCheckpointDir(self.checkpoint_dir)
        stop = False
        if snapshot is not None:
            level, frontier, seen = self._restore(snapshot)
            self.checkpointed_level = level
        else:
            level = 0
            frontier, seen, stop = self._initial_level()
        self.stats = self.sc.accumulator({}, ex.StatsParam())
        # The RDD the current level was found in (``source``: its states are its merge's winners, or
        # given for a first level; None when the level is empty), and the RDD of the candidates
        # for the level after (``found``: None until a first level is expanded).
        source = self._level_rdd(frontier, seen) if frontier else None
        found = None
        self._old = [source] if source is not None else []
        del frontier, seen
        ticker = Ticker(self.progress_seconds)
        last_checkpoint = time.perf_counter()
        previous: dict = {}
        if threading.current_thread() is threading.main_thread():
            # Ctrl-C and SIGTERM only set a flag; the run stops at a level boundary (see _action).
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, self._on_signal)
            import concurrent.futures

            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="spark-action")
        elapsed = lambda: self.elapsed_before + time.perf_counter() - start  # noqa: E731
        try:
            while source is not None and not stop:
                # A level boundary: ``source`` holds level ``level``, the counters are this boundary's.
                self.queue_left = len(self.parents.fps[level])
                if opts.max_depth is not None and level + 1 >= opts.max_depth:
                    self.stopped_by = "max-depth"
                    break
                if self.interrupted:
                    raise _Stop
                if self.ckpt.directory and self.checkpointed_level != level and \
                        time.perf_counter() - last_checkpoint >= self.ckpt.every:
                    self._write_checkpoint(level, source, elapsed())
                    last_checkpoint = time.perf_counter()
                t0 = time.perf_counter()
                boundary = self._boundary()
                try:
                    source, found, stop = self._level(level, source, found)
                except (_Stop, KeyboardInterrupt):
                    self._roll_back(boundary)
                    raise
                self.level_seconds.append(time.perf_counter() - t0)
                level += 1
                if self.progress is not None and (self.verbose or ticker.due()):
                    detail = (f"[spark level {level}: {self.level_seconds[-1]:.2f}s, "
                              f"Spark job {self.job_seconds:.2f}s, {self.P} partitions]" if self.verbose else "")
                    self.progress(Progress(level + 1, self.generated, self.distinct, self.queue_left,
                                           time.perf_counter() - start, detail))
        except _Stop:
            self.stopped_by = "interrupt"
            self.queue_left = len(self.parents.fps[level])
            if self.ckpt.directory and self.checkpointed_level != level:
                try:
                    self._write_checkpoint(level, source, elapsed())
                except KeyboardInterrupt:
                    self._cancel_quietly()  # a second Ctrl-C: the last checkpoint written stays valid
        except KeyboardInterrupt:
            # A second Ctrl-C (or one outside the level loop): the last checkpoint written stays the
            # one to resume from.
            self.stopped_by = "interrupt"
            self.queue_left = len(self.parents.fps[level])
            self._cancel_quietly()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if self._pool is not None:
                self._pool.shutdown(wait=False)
                self._pool = None
            self._release_old()
            if self.checkpoint_dir:
                import shutil

                shutil.rmtree(self.checkpoint_dir, ignore_errors=True)
        return self.result(elapsed())

    def _cancel_quietly(self) -> None:
        try:
            self.sc.cancelAllJobs()
        except Exception:  # noqa: BLE001 - best effort while stopping
            pass

    def _initial_level(self) -> tuple[list, np.ndarray, bool]:
        """Level 1 on the driver, exactly as the local engine does it: the frontier records, their fps, stop."""
        model = self.model
        opts = model.options
        frontier = []
        seen: set[int] = set()
        fps_level = []
        for i, s in enumerate(model.init_states()):
            self.generated += 1
            if not model.in_model(s):
                continue
            fp = model.fingerprint(s)
            if fp in seen:
                continue
            seen.add(fp)
            frontier.append((fp, ex.SEQ.pack(i), s))
            fps_level.append(fp)
        self.parents.add_level(fps_level, [0] * len(fps_level))
        self.distinct = len(frontier)
        self.depth = 1 if frontier else 0
        stop = False
        for fp, _key, s in frontier:
            for p in model.sometimes:
                if not self.sometimes_reached[p.name] and model._call(f"property {p.name}", p.fn, model.c, s):
                    self.sometimes_reached[p.name] = True
            for inv in model.failed_invariants(s):
                if inv.name not in self.violated_names:
                    self._record("invariant", inv.name, inv.description, 0, fp)
                    stop = stop or not opts.continue_after_violation
        return frontier, np.asarray(fps_level, dtype=np.int64), stop

    def _add_level(self, level: int, fps: np.ndarray, parent_fps: np.ndarray) -> None:
        """Record level ``level + 1``: each fingerprint with the index of its parent in level ``level``."""
        prev = self.parents.fps[level]
        order = np.argsort(prev, kind="stable")
        pos = np.searchsorted(prev[order], parent_fps)
        if len(parent_fps):
            np.minimum(pos, len(prev) - 1, out=pos)
        idx = order[pos] if len(parent_fps) else np.empty(0, dtype=np.int64)
        if len(parent_fps) and not np.array_equal(prev[idx], parent_fps):
            raise RuntimeError(f"a parent of level {level + 2} is not in level {level + 1}")
        self.parents.add_level(fps, idx)

    def _level(self, level: int, source: Any, found: Any) -> tuple[Any, Any, bool]:
        """Find level ``level + 1`` (0-based) and expand it; returns its RDD and the next one's, and stop.

        ``source`` is the RDD level ``level`` was found in, ``found`` the RDD of
        its successors (None: expand ``source``, a first level, in the same
        job).  One Spark job whose action is a JVM-side count of the next
        level's RDD; the level tasks report their partitions' facts through an
        accumulator.  Level ``level + 1``'s successors are generated in the
        same pass unless ``--max-depth`` stops the search before them.
        """
        model = self.model
        opts = model.options
        job = self.job
        if found is None:
            found = self._next_level(source, None, True)
            self._old.append(found)
        expand = opts.max_depth is None or level + 2 < opts.max_depth
        nxt = self._next_level(found, level, expand)
        t_job = time.perf_counter()
        try:
            self._action(nxt._jrdd.count)
        except BaseException:
            nxt.unpersist(blocking=False)
            raise
        self.job_seconds = time.perf_counter() - t_job
        found_stats = self.stats.value
        stats = [found_stats.pop((level, i)) for i in range(self.P)]
        for key in [k for k in found_stats if k[0] is None or k[0] <= level]:  # late copies from recomputed tasks
            del found_stats[key]

        # Gather the level's facts on the driver.
        level_generated = [0] * len(model.actions)
        deadlocked = []
        for st in stats:
            level_generated = [a + b for a, b in zip(level_generated, st[5])]
            deadlocked += st[6]
        fps = np.concatenate([s[0] for s in stats]) if stats else np.empty(0, dtype=np.int64)
        par = np.concatenate([s[1] for s in stats]) if stats else np.empty(0, dtype=np.int64)
        errors = sorted(e for s in stats for e in s[7])
        if errors:
            # Spec code raised on an executor: the first in discovery order, with the trace to its parent.
            _key, pfp, message, where = errors[0]
            nxt.unpersist(blocking=False)
            raise SpecRuntimeError(message, spec=model.spec.name, where=where,
                                   trace=replay(model, self.parents.path_to(level, pfp)))
        self._add_level(level, fps, par)
        level_distinct = [0] * len(model.actions)
        violations = []
        sometimes_keys: dict[str, bytes] = {}
        for s in stats:
            level_distinct = [a + b for a, b in zip(level_distinct, s[2])]
            violations += s[3]
            for name, key in s[4].items():
                if name not in sometimes_keys or key < sometimes_keys[name]:
                    sometimes_keys[name] = key
        violations.sort()
        deadlocked.sort()
        new_count = len(fps)

        # Where would the local engine have stopped in this level, if anywhere?
        events = []  # (parent key, phase, kind, payload)
        fresh_violations = [v for v in violations if any(n not in self.violated_names for n in v[2])]
        if fresh_violations and not opts.continue_after_violation:
            key = fresh_violations[0][0]
            events.append((key[:-2], 0, "violation", None))
        if model.check_deadlock and deadlocked and "Deadlock" not in self.violated_names and not opts.continue_after_violation:
            events.append((deadlocked[0][0], 1, "deadlock", deadlocked[0]))
        if opts.max_states is not None and self.distinct + new_count >= opts.max_states:
            need = opts.max_states - self.distinct
            keys = sorted(self._action(found.mapPartitions(ex.new_keys).collect))
            parent = keys[max(need, 1) - 1][:-2]
            events.append((parent, 2, "max-states", None))
        event = min(events, key=lambda e: (e[0], e[1])) if events else None

        if event is None:
            bound = None
            for i, n in enumerate(level_generated):
                self.act_generated[i] += n
            for i, n in enumerate(level_distinct):
                self.act_distinct[i] += n
            self.generated += sum(level_generated)
            kept_new = new_count
            reached = set(sometimes_keys)
        else:
            # The local engine stopped after the parent ``bound``: count what it had seen by then.
            bound = event[0]
            gen_counts = _sum_counts(self._action(
                source.mapPartitions(functools.partial(ex.count_generated, job, bound)).collect))
            new_counts = _sum_counts(self._action(
                found.mapPartitions(functools.partial(ex.count_new, bound)).collect))
            for ai, n in gen_counts.items():
                self.act_generated[ai] += n
            for ai, n in new_counts.items():
                self.act_distinct[ai] += n
            self.generated += sum(gen_counts.values())
            kept_new = sum(new_counts.values())
            reached = {name for name, key in sometimes_keys.items() if key[:-2] <= bound}
        for name in reached:
            self.sometimes_reached[name] = True
        self.distinct += kept_new
        if kept_new:
            self.depth = level + 2
        # Violations, in discovery order, as the local engine records them.
        for key, fp, failed in violations:
            if bound is not None and key[:-2] > bound:
                break
            for name in failed:
                if name not in self.violated_names:
                    inv = model.spec.invariant(name)
                    self._record("invariant", name, inv.description, level + 1, fp)
        if model.check_deadlock and deadlocked and "Deadlock" not in self.violated_names:
            dkey, dfp = deadlocked[0]
            if bound is None or dkey <= bound:
                self._record("deadlock", "Deadlock", "a reachable state has no successor", level, dfp)
        # Level ``level`` is no longer needed: ``found`` holds level ``level + 1``, ``nxt`` its successors.
        self._old = [rdd for rdd in self._old if rdd is not found]
        self._release_old()
        self._old = [found, nxt]
        if event is not None:
            if event[2] == "max-states":
                self.stopped_by = "max-states"
            self.queue_left = kept_new
            return None, None, True
        self.queue_left = new_count
        if new_count == 0:
            return None, None, False
        return found, nxt, False


def _ship_user_module(sc: Any, path: str) -> str:
    """Make a user's spec file importable on executors under the name the loader gives it.

    States pickled on one side name their NamedTuple class by module, so the
    executors need the module before they can read a single state. Returns the
    temporary folder of the copy, for the caller to remove after the run.
    """
    import os
    import shutil

    from modelcheck.spec.loader import user_module_name

    folder = tempfile.mkdtemp(prefix="modelcheck-spec-")
    copy = os.path.join(folder, user_module_name(path) + ".py")
    shutil.copyfile(path, copy)
    sc.addPyFile(copy)
    return folder


def _unwrap(records: Any) -> Any:
    """(partition index, records) pairs as the records of that partition."""
    for _i, part in records:
        yield from part


def _sum_counts(parts: list) -> dict:
    total: dict = {}
    for counts in parts:
        for k, n in counts.items():
            total[k] = total.get(k, 0) + n
    return total
