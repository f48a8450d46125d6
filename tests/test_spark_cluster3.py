"""The Spark engine on a real three-executor cluster: a standalone master and three workers on 127.0.0.1.

Each worker offers one core and 1 GiB, so the application gets three
single-core executors (one per worker) and the fingerprint shards of
``--partitions 6`` are spread over three JVMs. The checks run through the CLI
in a subprocess, as a user runs them (one Python process holds one
SparkContext, and the other Spark tests keep a local one).

Spark settings for the driver go in ``PYSPARK_SUBMIT_ARGS`` (:data:`SPARK_ENV`),
which PySpark hands to the ``spark-submit`` that starts the driver JVM; the
engine's own settings are added on top and do not touch these two:

* ``spark.executor.memory=512m``: an executor must fit in its worker's 1 GiB
  (Spark's default asks for exactly 1 GiB). The test of the executors' shares
  checks the executor JVMs really run with ``-Xmx512M``.
* ``spark.scheduler.minRegisteredResourcesRatio=1.0``: on a standalone master
  the first job would otherwise start as soon as one executor has registered,
  and the shards could all stay on it; with this the SparkContext waits (30 s
  at most) for all three cores, so every executor gets shards from level 1.

One cluster serves the whole module. The last test SIGKILLs a whole worker
(its Worker JVM and its executor JVM) in the middle of a run: the run must
finish on the two workers left with exactly the local engine's answer. Any
test that finds a worker dead first starts a replacement, so the tests do not
depend on their order.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from spark_support import executor_jvms, standalone_cluster, start_worker

pytestmark = [pytest.mark.spark, pytest.mark.slow]

WORKERS = 3
PARTITIONS = 6
SPARK_ENV = {"PYSPARK_SUBMIT_ARGS": "--conf spark.executor.memory=512m "
                                    "--conf spark.scheduler.minRegisteredResourcesRatio=1.0 pyspark-shell"}

HOLDS = ("check", "kip320", "--const", "Replicas=2", "--json")
"""5,973 states in 18 levels, every invariant holds: about a second locally, 45 s on the cluster on two cores
(20 s of it the first level, while the three executors start their Python workers)."""
VIOLATES = ("check", "kip101", "--const", "Replicas=2", "--json")
"""StrongIsr fails at depth 11 (4,083 states): the trace is rebuilt from the executors' parent records."""

SUMMARY = ("result", "distinct_states", "states_generated", "depth", "queue_left", "actions", "violation",
           "warnings", "stopped_by")

LEVEL_LINE = re.compile(r"\[spark level (\d+): [^\]]*states held per executor: ([^\]]*)\]")
HELD = re.compile(r"(\S+):(\d+) ([\d,]+)")


def summary(data: dict) -> dict:
    return {k: data.get(k) for k in SUMMARY}


class Cluster:
    """The module's cluster: its master URL and its processes (master first, then workers, live or not)."""

    def __init__(self, tmp: Path, url: str, procs: list[subprocess.Popen]) -> None:
        self.tmp, self.url, self.procs = tmp, url, procs

    @property
    def workers(self) -> list[subprocess.Popen]:
        return [p for p in self.procs[1:] if p.poll() is None]

    def heal(self) -> None:
        """Replace the workers an earlier test killed, so that three are registered again."""
        assert self.procs[0].poll() is None, "the master died"
        for _ in range(WORKERS - len(self.workers)):
            self.procs.append(start_worker(self.tmp, self.url, cores=1, memory="1g"))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spark-cluster3")
    with standalone_cluster(tmp, workers=WORKERS, cores=1, memory="1g") as (url, procs):
        yield Cluster(tmp, url, procs)
    assert not (tmp / "work").exists(), "the workers' work/ directory was not cleaned"


@dataclass
class Run:
    returncode: int
    data: dict
    stderr: str
    executors: dict[int, int] = field(default_factory=dict)
    """Executor JVMs seen while the run went on: pid -> the index (in ``procs``) of the worker that launched it."""
    cmdlines: dict[int, bytes] = field(default_factory=dict)
    killed: list[int] = field(default_factory=list)
    """The pids SIGKILLed: the worker's first, then its executors'."""


def run_on_cluster(cluster: Cluster, args: tuple, kill_worker_at: str | None = None) -> Run:
    """Run ``modelcheck ARGS --master URL --partitions 6`` in a subprocess, noting the executor JVMs as they
    come; with ``kill_worker_at``, SIGKILL the first worker and its executor once stderr shows that text."""
    cluster.heal()
    worker_pids = {p.pid: i for i, p in enumerate(cluster.procs) if i > 0 and p.poll() is None}
    victim = cluster.workers[0]
    env = dict(os.environ, **SPARK_ENV)
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, "-m", "modelcheck", *args, "--master", cluster.url,
                                 "--partitions", str(PARTITIONS)],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
        reader.start()
        run = Run(0, {}, "")
        try:
            deadline = time.time() + 600
            while time.time() < deadline and proc.poll() is None:
                for pid, (index, cmd) in executor_jvms(worker_pids).items():
                    run.executors[pid] = index
                    run.cmdlines[pid] = cmd
                if kill_worker_at and not run.killed and any(kill_worker_at in ln for ln in lines):
                    # The worker first (so it cannot launch a replacement), then its executor, both without
                    # a goodbye. Its children are listed before: once it is dead they are re-parented.
                    children = [pid for pid, (index, _cmd) in executor_jvms(worker_pids).items()
                                if index == worker_pids[victim.pid]]
                    os.kill(victim.pid, signal.SIGKILL)
                    run.killed.append(victim.pid)
                    for pid in children:
                        os.kill(pid, signal.SIGKILL)
                        run.killed.append(pid)
                    victim.wait(timeout=30)
                time.sleep(0.1)
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            reader.join(timeout=10)
        out.seek(0)
        stdout = out.read()
    run.returncode, run.stderr = proc.returncode, "".join(lines)
    assert stdout.strip(), f"no JSON on stdout (exit {proc.returncode})\n" + run.stderr[-3000:]
    run.data = json.loads(stdout)
    return run


def level_lines(stderr: str) -> list[tuple[int, dict[str, int]]]:
    """The ``-v`` level lines: (level, {executor name: states held})."""
    out = []
    for m in LEVEL_LINE.finditer(stderr):
        held = {f"{host}:{pid}": int(n.replace(",", "")) for host, pid, n in HELD.findall(m.group(2))}
        out.append((int(m.group(1)), held))
    return out


@pytest.fixture(scope="module")
def local_holds():
    p = run_cli(*HOLDS, "-q")
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def spark_holds(cluster):
    """HOLDS on the cluster with ``-v`` (a progress line per level), shared by the tests that only read it."""
    return run_on_cluster(cluster, (*HOLDS, "-v"))


def test_counts_match_the_local_engine(spark_holds, local_holds):
    run = spark_holds
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.data["engine"] == "spark"
    assert summary(run.data) == summary(local_holds)
    assert run.data["spark"]["partitions"] == PARTITIONS
    assert run.data["spark"]["trace_lookups"] == 0  # nothing to walk back when every invariant holds


def test_counterexample_trace_is_rebuilt_from_the_executors_parent_records(cluster):
    local = run_cli(*VIOLATES, "-q")
    assert local.returncode == 1, local.stderr[-3000:]
    local_data = json.loads(local.stdout)
    run = run_on_cluster(cluster, (*VIOLATES, "-q"))
    assert run.returncode == 1, run.stderr[-3000:]
    assert summary(run.data) == summary(local_data)  # the violation with its whole trace, state by state
    trace = run.data["violation"]["trace"]
    assert len(trace) == local_data["depth"] > 1
    # The driver holds no parent records of the levels Spark explored: it asked the owning shard once
    # per step walked back from the violating state to the initial one.
    assert run.data["spark"]["trace_lookups"] == len(trace) - 1 > 0


def test_each_executor_holds_only_its_share(spark_holds, local_holds):
    run = spark_holds
    assert run.returncode == 0, run.stderr[-3000:]
    spark = run.data["spark"]
    distinct = local_holds["distinct_states"]
    shards, held = spark["shard_states"], spark["executor_states"]
    assert len(shards) == PARTITIONS and sum(shards) == distinct
    assert all(n > 0 for n in shards), shards
    # Three executors, one per worker, each the executor JVM of a different worker (named host:jvmpid).
    host = socket.gethostname()
    assert len(run.executors) == WORKERS, f"executor JVMs seen: {run.executors}"
    assert len(set(run.executors.values())) == WORKERS, run.executors
    assert set(held) == {f"{host}:{pid}" for pid in run.executors}, (held, run.executors)
    assert all(b"-Xmx512M" in cmd for cmd in run.cmdlines.values()), "spark.executor.memory was not applied"
    # Each holds whole shards, at least one, and less than everything; together exactly every state once.
    assert sum(held.values()) == distinct
    assert all(min(shards) <= n < distinct for n in held.values()), (held, shards)
    names = sorted(held)
    assignment = next((a for a in itertools.product(range(WORKERS), repeat=PARTITIONS)
                       if set(a) == set(range(WORKERS))
                       and all(sum(s for s, e in zip(shards, a) if e == k) == held[name]
                               for k, name in enumerate(names))), None)
    assert assignment is not None, f"{held} is not a split of the whole shards {shards} over three executors"
    assert spark["executor_shard_bytes"] > 0
    # The -v lines say the same: one per level, naming these three executors (and no other), the last
    # with the final shares. (A level may leave an executor without a shard: tasks wait a little for
    # the executor that cached their partition before they go elsewhere.)
    lines = level_lines(run.stderr)
    assert [level for level, _ in lines] == list(range(1, local_holds["depth"] + 1)), run.stderr[-3000:]
    assert set().union(*(h for _, h in lines)) == set(held), lines
    assert lines[-1][1] == held


def test_killed_worker_mid_run_gives_the_same_answer_on_the_two_left(cluster, local_holds):
    run = run_on_cluster(cluster, (*HOLDS, "-v"), kill_worker_at="[spark level 5:")
    assert run.killed, "nothing was killed (did the run end before level 5?)\n" + run.stderr[-3000:]
    assert len(run.killed) == 2, f"the worker's executor JVM was not found: killed {run.killed}"
    assert run.returncode == 0, run.stderr[-3000:]
    assert summary(run.data) == summary(local_holds)
    worker_pid, executor_pid = run.killed
    survivors = {pid for pid, index in run.executors.items() if pid != executor_pid}
    host = socket.gethostname()
    held = run.data["spark"]["executor_states"]
    # The last levels ran on the two workers left: their executors hold every state, the killed one none.
    assert f"{host}:{executor_pid}" not in held, held
    assert len(held) == WORKERS - 1 and set(held) <= {f"{host}:{pid}" for pid in survivors}, (held, run.executors)
    assert sum(held.values()) == sum(run.data["spark"]["shard_states"]) == local_holds["distinct_states"]
    lines = level_lines(run.stderr)
    assert lines[-1][1] == held
    assert any(f"{host}:{executor_pid}" in h for _, h in lines), "the killed executor never held a shard"
