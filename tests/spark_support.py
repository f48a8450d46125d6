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
def standalone_cluster(tmp: Path, workers: int = 1, cores: int = 1):
    """A Spark master and workers started from the pip package on 127.0.0.1, stopped afterwards.

    Everything the cluster writes stays under ``tmp``: its JVMs' temporary files
    too (the executors inherit the workers' environment), since an executor that
    a test SIGKILLs cannot remove them.
    """
    home = spark_home()
    (tmp / "jvm-tmp").mkdir(exist_ok=True)
    env = dict(os.environ, SPARK_HOME=home, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
               SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false", SPARK_LOG_DIR=str(tmp / "logs"),
               SPARK_WORKER_DIR=str(tmp / "work"), SPARK_LOCAL_DIRS=str(tmp / "local"),
               JAVA_TOOL_OPTIONS=f"-Djava.io.tmpdir={tmp / 'jvm-tmp'}")
    port, ui = free_port(), free_port()
    master_url = f"spark://127.0.0.1:{port}"
    cls = os.path.join(home, "bin", "spark-class")
    procs = []
    log = open(tmp / "cluster.log", "w")
    try:
        master = subprocess.Popen([cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", str(ui)], env=env, stdout=log, stderr=log)
        procs.append(master)
        _wait_port(port, 60)
        for _ in range(workers):
            w = subprocess.Popen([cls, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                  "--cores", str(cores), "--memory", "2g", "--webui-port", str(free_port()),
                                  "--work-dir", str(tmp / "work"), master_url], env=env, stdout=log, stderr=log)
            procs.append(w)
        _wait_for(lambda: (tmp / "cluster.log").read_text().count("Registering worker") >= workers, 60)
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
