"""The Spark engine: the local engine's BFS, with the frontier and visited set distributed.

Each of P partitions owns one shard of the fingerprint space (``fp % P``).
A level is: expand the frontier (``mapPartitionsWithIndex``), shuffle the
candidates to their owners (``partitionBy`` with the shards' partitioner),
``union`` them with the shards (same partitioner, so partition i of both
sides meet) and run one ``mapPartitions`` that deduplicates against the
shard, checks invariants on new states, and emits the next frontier, the
updated shard and the (fingerprint, parent) records.  The result is persisted
and its lineage cut (``localCheckpoint`` on local masters; a reliable
``checkpoint`` on clusters, so a lost executor costs a recomputation, not the
run).

Results are identical to the local engine's, counts and first violation
included, because candidates carry discovery keys (see
:mod:`modelcheck.spark_explore.executor`): the smallest key wins a
fingerprint (the local engine's first discoverer), and where the local engine
would have stopped in the middle of a level (a violation, a deadlock,
``--max-states``) the counts are taken up to that point in key order.
"""

from __future__ import annotations

import functools
import tempfile
import time
from typing import Any

from modelcheck.constants import constants_to_dict
from modelcheck.engine import ParentTable
from modelcheck.errors import SpecRuntimeError
from modelcheck.model import BoundModel
from modelcheck.progress import Progress, ProgressSink, Ticker
from modelcheck.replay import replay
from modelcheck.result import CheckOptions, CheckResult, Violation
from modelcheck.spec import Spec
from modelcheck.summary import summarize
from modelcheck.spark_explore import executor as ex
from modelcheck.spark_explore.session import is_local, spark_context

_SPARK_IRRELEVANT = dict(checkpoint_dir=None, resume=None, max_memory_mb=None, progress_seconds=5.0)


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
    """Check ``spec`` on Spark; pass ``sc`` to reuse a running SparkContext (it is then not stopped)."""
    import attrs

    from modelcheck.errors import UsageError

    if options.resume or options.checkpoint_dir:
        raise UsageError("--checkpoint/--resume are not supported by the Spark engine yet; use the local engine")
    progress_seconds = options.progress_seconds
    # Executors get the options as part of the model's key: drop what only the driver uses.
    options = attrs.evolve(options, **_SPARK_IRRELEVANT)
    model = BoundModel(spec, consts, options)
    own = sc is None
    if own:
        sc = spark_context(master)
    shipped = None
    try:
        if spec_ref.endswith(".py") or ".py:" in spec_ref:
            shipped = _ship_user_module(sc, spec_ref.partition(":")[0])
        parts = partitions or sc.defaultParallelism
        job = (spec_ref, tuple(sorted(constants_to_dict(consts).items())), options)
        bfs = SparkBFS(sc, model, job, parts, progress, verbose, reliable=not is_local(sc.master))
        bfs.progress_seconds = progress_seconds
        return bfs.run()
    finally:
        if own:
            sc.stop()
        if shipped:
            import shutil

            shutil.rmtree(shipped, ignore_errors=True)  # Spark has its own copy by now


class SparkBFS:
    """One run on Spark. All run state lives on the instance (and in the RDDs it owns)."""

    def __init__(self, sc: Any, model: BoundModel, job: tuple, partitions: int, progress: ProgressSink | None,
                 verbose: bool, reliable: bool) -> None:
        self.sc = sc
        self.model = model
        self.job = job
        self.P = partitions
        self.progress = progress
        self.verbose = verbose
        self.reliable = reliable
        self.part_func = functools.partial(ex.owner, partitions=partitions)
        self.parents = ParentTable()
        n = len(model.actions)
        self.act_generated = [0] * n
        self.act_distinct = [0] * n
        self.generated = 0
        self.distinct = 0
        self.depth = 0
        self.queue_left = 0
        self.stopped_by: str | None = None
        self.violations: list[Violation] = []
        self.violated: set[str] = set()
        self.sometimes = {p.name: False for p in model.sometimes}
        self.level_seconds: list[float] = []
        self._old: list[Any] = []
        self.progress_seconds = 5.0
        self.checkpoint_dir: str | None = None
        self.job_seconds = 0.0

    # -- helpers ------------------------------------------------------------------

    def _record(self, kind: str, name: str, description: str, level: int, fp: int) -> None:
        trace = replay(self.model, self.parents.path_to(level, fp))
        self.violations.append(Violation(kind, name, description, tuple(trace)))
        self.violated.add(name)

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

    # -- the search ------------------------------------------------------------------

    def run(self) -> CheckResult:
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
        # Level 1 on the driver, exactly as the local engine does it.
        frontier = []
        seen: set[int] = set()
        fps_level = []
        inits = model.init_states()
        for i, s in enumerate(inits):
            self.generated += 1
            if not model.in_model(s):
                continue
            fp = model.fingerprint(s)
            if fp in seen:
                continue
            seen.add(fp)
            frontier.append((fp, ex.SEQ.pack(i), s))
            fps_level.append(fp)
        from array import array

        self.parents.add_level(array("q", fps_level), array("q", [0] * len(fps_level)))
        self.distinct = len(frontier)
        self.depth = 1 if frontier else 0
        stop = False
        for fp, _key, s in frontier:
            for p in model.sometimes:
                if not self.sometimes[p.name] and model._call(f"property {p.name}", p.fn, model.c, s):
                    self.sometimes[p.name] = True
            for inv in model.failed_invariants(s):
                if inv.name not in self.violated:
                    self._record("invariant", inv.name, inv.description, 0, fp)
                    stop = stop or not opts.continue_after_violation
        shards = (
            self.sc.parallelize([(fp, None) for fp in seen], self.P)
            .partitionBy(self.P, self.part_func)
            .mapPartitions(_build_shard, preservesPartitioning=True)
        )
        frontier_rdd = self.sc.parallelize(frontier, self.P)
        level = 0
        ticker = Ticker(self.progress_seconds)
        try:
            while frontier_rdd is not None and not stop:
                if opts.max_depth is not None and level + 1 >= opts.max_depth:
                    self.stopped_by = "max-depth"
                    self.queue_left = self._frontier_size
                    break
                t0 = time.perf_counter()
                shards, frontier_rdd, stop = self._level(level, frontier_rdd, shards)
                self.level_seconds.append(time.perf_counter() - t0)
                level += 1
                if self.progress is not None and (self.verbose or ticker.due()):
                    detail = (f"[spark level {level}: {self.level_seconds[-1]:.2f}s, "
                              f"Spark job {self.job_seconds:.2f}s, {self.P} partitions]" if self.verbose else "")
                    self.progress(Progress(level + 1, self.generated, self.distinct, self.queue_left,
                                           time.perf_counter() - start, detail))
        except KeyboardInterrupt:
            self.stopped_by = "interrupt"
        finally:
            self._release_old()
            if self.checkpoint_dir:
                import shutil

                shutil.rmtree(self.checkpoint_dir, ignore_errors=True)
        return self._result(time.perf_counter() - start)

    _frontier_size = 0

    def _level(self, level: int, frontier_rdd: Any, shards: Any) -> tuple[Any, Any, bool]:
        """Expand level ``level`` (0-based); returns the next shards, frontier (None when empty) and stop."""
        model = self.model
        opts = model.options
        job = self.job
        # One job per level: expansion, shuffle to owners and merge run as two stages. The
        # expansion is not persisted; the rare recount at a stopping level recomputes it.
        expanded = frontier_rdd.mapPartitionsWithIndex(functools.partial(ex.expand_partition, job))
        candidates = expanded.mapPartitions(ex.to_owner_pairs).partitionBy(self.P, self.part_func)
        if candidates.partitioner != shards.partitioner or candidates.getNumPartitions() != self.P:
            raise RuntimeError("shards and candidates are not co-partitioned")
        merged = shards.union(candidates)
        if merged.partitioner != shards.partitioner:
            raise RuntimeError("the union lost the shard partitioner")
        merged = self._cut_lineage(merged.mapPartitions(functools.partial(ex.merge_shard, job),
                                                        preservesPartitioning=True))
        t_job = time.perf_counter()
        stats = merged.filter(lambda r: r[0] == ex.LEVEL_STATS).collect()
        self.job_seconds = time.perf_counter() - t_job

        # Gather the level's facts on the driver.
        level_generated = [0] * len(model.actions)
        deadlocked = []
        for st in stats:
            level_generated = [a + b for a, b in zip(level_generated, st[6])]
            deadlocked += st[7]
        from array import array

        import numpy as np

        fps = np.concatenate([s[1] for s in stats]) if stats else np.empty(0, dtype=np.int64)
        par = np.concatenate([s[2] for s in stats]) if stats else np.empty(0, dtype=np.int64)
        errors = sorted(e for s in stats for e in s[8])
        if errors:
            # Spec code raised on an executor: the first in discovery order, with the trace to its parent.
            _key, pfp, message, where = errors[0]
            raise SpecRuntimeError(message, spec=model.spec.name, where=where,
                                   trace=replay(model, self.parents.path_to(level, pfp)))
        self.parents.add_level(array("q", fps.tolist()), array("q", par.tolist()))
        level_distinct = [0] * len(model.actions)
        violations = []
        sometimes_keys: dict[str, bytes] = {}
        for s in stats:
            level_distinct = [a + b for a, b in zip(level_distinct, s[3])]
            violations += s[4]
            for name, key in s[5].items():
                if name not in sometimes_keys or key < sometimes_keys[name]:
                    sometimes_keys[name] = key
        violations.sort()
        deadlocked.sort()
        new_count = len(fps)

        # Where would the local engine have stopped in this level, if anywhere?
        events = []  # (parent key, phase, kind, payload)
        fresh_violations = [v for v in violations if any(n not in self.violated for n in v[2])]
        if fresh_violations and not opts.continue_after_violation:
            key = fresh_violations[0][0]
            events.append((key[:-2], 0, "violation", None))
        if model.check_deadlock and deadlocked and "Deadlock" not in self.violated and not opts.continue_after_violation:
            events.append((deadlocked[0][0], 1, "deadlock", deadlocked[0]))
        if opts.max_states is not None and self.distinct + new_count >= opts.max_states:
            need = opts.max_states - self.distinct
            keys = sorted(merged.filter(lambda r: r[0] == ex.NEW).map(lambda r: r[2]).collect())
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
            bound = event[0]
            in_bound = functools.partial(_parent_at_most, bound=bound)
            gen_counts = (expanded.filter(lambda r: r[0] == ex.CANDIDATE)
                          .filter(lambda r: in_bound(r[2])).map(lambda r: r[4]).countByValue())
            new_counts = (merged.filter(lambda r: r[0] == ex.NEW)
                          .filter(lambda r: in_bound(r[2])).map(lambda r: r[4]).countByValue())
            for ai, n in gen_counts.items():
                self.act_generated[ai] += n
            for ai, n in new_counts.items():
                self.act_distinct[ai] += n
            self.generated += sum(gen_counts.values())
            kept_new = sum(new_counts.values())
            reached = {name for name, key in sometimes_keys.items() if key[:-2] <= bound}
        for name in reached:
            self.sometimes[name] = True
        self.distinct += kept_new
        if kept_new:
            self.depth = level + 2
        # Violations, in discovery order, as the local engine records them.
        for key, fp, failed in violations:
            if bound is not None and key[:-2] > bound:
                break
            for name in failed:
                if name not in self.violated:
                    inv = model.spec.invariant(name)
                    self._record("invariant", name, inv.description, level + 1, fp)
        if model.check_deadlock and deadlocked and "Deadlock" not in self.violated:
            dkey, dfp = deadlocked[0]
            if bound is None or dkey <= bound:
                self._record("deadlock", "Deadlock", "a reachable state has no successor", level, dfp)
        self._release_old()
        self._old = [merged]
        next_shards = merged.filter(lambda r: r[0] == ex.SHARD)
        if event is not None:
            if event[2] == "max-states":
                self.stopped_by = "max-states"
            self.queue_left = kept_new
            return next_shards, None, True
        self.queue_left = new_count
        self._frontier_size = new_count
        if new_count == 0:
            return next_shards, None, False
        next_frontier = merged.filter(lambda r: r[0] == ex.NEW).map(lambda r: (r[1], r[2], r[3]))
        return next_shards, next_frontier, False

    def _result(self, seconds: float) -> CheckResult:
        return summarize(
            self.model, engine="spark", seconds=seconds, violations=self.violations, stopped_by=self.stopped_by,
            distinct=self.distinct, generated=self.generated, depth=self.depth, queue_left=self.queue_left,
            act_generated=self.act_generated, act_distinct=self.act_distinct,
            sometimes_reached=self.sometimes,
        )


def _ship_user_module(sc: Any, path: str) -> str:
    """Make a user's spec file importable on executors under the name the loader gives it.

    States pickled on one side name their NamedTuple class by module, so the
    executors need the module before they can read a single state. Returns the
    temporary folder of the copy, for the caller to remove after the run.
    """
    import os
    import shutil

    from modelcheck.loader import user_module_name

    folder = tempfile.mkdtemp(prefix="modelcheck-spec-")
    copy = os.path.join(folder, user_module_name(path) + ".py")
    shutil.copyfile(path, copy)
    sc.addPyFile(copy)
    return folder


def _build_shard(records: Any) -> Any:
    import numpy as np

    fps = np.fromiter((fp for fp, _ in records), dtype=np.int64)
    fps.sort()
    yield (ex.SHARD, fps)


def _parent_at_most(key: bytes, bound: bytes) -> bool:
    """Whether a successor (key) came from a parent no later than ``bound`` in discovery order."""
    return key[:-2] <= bound
