"""Helpers for the Spark tests: comparing results field by field, and a standalone cluster on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

COMPARED = ("result", "distinct_states", "states_generated", "depth", "queue_left", "action_stats",
            "sometimes_reached", "warnings", "stopped_by", "invariants", "symmetry")


def differences(local, spark) -> list[str]:
    """Every field where the two results differ (traces compared state by state)."""
    out = [f"{f}: {getattr(local, f)!r} != {getattr(spark, f)!r}" for f in COMPARED
           if getattr(local, f) != getattr(spark, f)]
    lv = [(v.kind, v.name, [(s.action, s.state) for s in v.trace]) for v in local.violations]
    sv = [(v.kind, v.name, [(s.action, s.state) for s in v.trace]) for v in spark.violations]
    if lv != sv:
        out.append(f"violations: {lv!r} != {sv!r}")
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_home() -> str:
    import pyspark

    return os.path.dirname(pyspark.__file__)


@contextmanager
def standalone_cluster(tmp: Path, workers: int = 1, cores: int = 1, memory: str = "2g"):
    """A Spark master and ``workers`` workers (``cores`` cores and ``memory`` each for executors) started
    from the pip package on 127.0.0.1, stopped afterwards.

    Yields the master URL and the list of processes, master first. Everything
    the cluster writes stays under ``tmp``: its JVMs' temporary files too (the
    executors inherit the workers' environment), since an executor that a test
    SIGKILLs cannot remove them. A worker started later with
    :func:`start_worker` and appended to the list is stopped with the others.
    """
    (tmp / "jvm-tmp").mkdir(exist_ok=True)
    port, ui = free_port(), free_port()
    master_url = f"spark://127.0.0.1:{port}"
    procs = []
    (tmp / "cluster.log").write_text("")
    log = open(tmp / "cluster.log", "a")  # O_APPEND, as every later worker's: no process overwrites another's lines
    try:
        master = subprocess.Popen([_spark_class(), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", str(ui)], env=_cluster_env(tmp),
                                  stdout=log, stderr=log)
        procs.append(master)
        _wait_port(port, 60)
        for _ in range(workers):
            procs.append(start_worker(tmp, master_url, cores, memory, wait=False))
        wait_for_registrations(tmp, workers)
        yield master_url, procs
    finally:
        for p in reversed(procs):  # workers first, then the master
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        log.close()
        shutil.rmtree(tmp / "work", ignore_errors=True)


def start_worker(tmp: Path, master_url: str, cores: int = 1, memory: str = "2g", wait: bool = True) -> subprocess.Popen:
    """One more worker for the cluster of :func:`standalone_cluster` in ``tmp`` (e.g. replacing one a test
    killed); with ``wait``, returns once the master has registered it."""
    registered = registrations(tmp)
    with open(tmp / "cluster.log", "a") as log:  # the child keeps its own descriptor
        w = subprocess.Popen([_spark_class(), "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                              "--cores", str(cores), "--memory", memory, "--webui-port", str(free_port()),
                              "--work-dir", str(tmp / "work"), master_url], env=_cluster_env(tmp),
                             stdout=log, stderr=log)
    if wait:
        wait_for_registrations(tmp, registered + 1)
    return w


def registrations(tmp: Path) -> int:
    """How many workers the master of the cluster in ``tmp`` has registered so far."""
    try:
        return (tmp / "cluster.log").read_text(errors="replace").count("Registering worker")
    except OSError:
        return 0


def wait_for_registrations(tmp: Path, count: int, timeout: float = 60) -> None:
    _wait_for(lambda: registrations(tmp) >= count, timeout)


def _spark_class() -> str:
    return os.path.join(spark_home(), "bin", "spark-class")


def _cluster_env(tmp: Path) -> dict:
    # The master and worker JVMs compile with C1 only, as the engine's own JVMs do: it halves the CPU
    # time a cluster takes to start (about 18 s instead of 33 s for a master and three workers).
    return dict(os.environ, SPARK_HOME=spark_home(), SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
                SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false", SPARK_LOG_DIR=str(tmp / "logs"),
                SPARK_DAEMON_JAVA_OPTS="-XX:TieredStopAtLevel=1",
                SPARK_WORKER_DIR=str(tmp / "work"), SPARK_LOCAL_DIRS=str(tmp / "local"),
                JAVA_TOOL_OPTIONS=f"-Djava.io.tmpdir={tmp / 'jvm-tmp'}")


def _wait_port(port: int, timeout: float) -> None:
    def up() -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    _wait_for(up, timeout)


def _wait_for(cond, timeout: float) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise TimeoutError("the standalone Spark cluster did not come up")


def executor_jvms(worker_pids: dict[int, int]) -> dict[int, tuple[int, bytes]]:
    """Executor JVMs (CoarseGrainedExecutorBackend) whose parent is one of ``worker_pids`` (pid -> index):
    their pid -> (the worker's index, their command line)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid not in worker_pids:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if b"CoarseGrainedExecutorBackend" in cmd:
            found[int(entry)] = (worker_pids[ppid], cmd)
    return found
