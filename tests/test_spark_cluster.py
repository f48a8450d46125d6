"""The Spark engine on a real standalone cluster (master + worker from the pip package, on 127.0.0.1).

Checks run through the CLI in a subprocess, as a user runs them, because one
Python process can hold only one SparkContext and the other Spark tests keep a
local one. The fault test SIGKILLs the worker's executor JVM in the middle of
a run: Spark must start a new executor, recompute what was lost from the
level checkpoints, and the counts must still be exactly the local engine's.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import MODELS, ROOT, run_cli
from spark_support import executor_jvms, standalone_cluster

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SUMMARY = ("result", "distinct_states", "states_generated", "depth", "queue_left", "actions", "violation",
           "warnings", "stopped_by")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spark-cluster")
    with standalone_cluster(tmp, workers=1, cores=2) as (url, procs):
        yield url, procs[1], tmp / "cluster.log"
    assert not (tmp / "work").exists(), "the worker's work/ directory was not cleaned"


def summary(stdout: str) -> dict:
    data = json.loads(stdout)
    return {k: data.get(k) for k in SUMMARY}


def test_check_on_standalone_cluster_matches_local(cluster):
    url, _worker, _log = cluster
    args = ("check", str(MODELS / "die_hard.py"), "--json", "-q")
    local = run_cli(*args)
    spark = run_cli(*args, "--engine", "spark", "--master", url)
    assert spark.returncode == local.returncode == 1, spark.stderr[-3000:]
    assert json.loads(spark.stdout)["engine"] == "spark"
    assert summary(spark.stdout) == summary(local.stdout)


def test_killed_executor_mid_run_does_not_change_the_result(cluster, tmp_path: Path):
    url, worker, log = cluster
    args = ["check", "kip320", "--const", "Replicas=2", "--json", "-v", "--progress", "0.1"]
    local = run_cli(*args, "-q")
    assert local.returncode == 0
    out = open(tmp_path / "stdout.json", "w")
    proc = subprocess.Popen([sys.executable, "-m", "modelcheck", *args, "--engine", "spark", "--master", url],
                            cwd=ROOT, stdout=out, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    killed = []
    try:
        # Wait for the search to be a few levels deep, then kill the executor JVM (SIGKILL: no goodbye).
        deadline = time.time() + 240
        while time.time() < deadline and proc.poll() is None:
            if any("[spark level 5:" in ln for ln in lines):
                for pid in executor_jvms({worker.pid: 0}):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                break
            time.sleep(0.05)
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        out.close()
        reader.join(timeout=10)
    stderr = "".join(lines)
    assert killed, "no executor was found to kill (did the run finish before level 5?)\n" + stderr[-3000:]
    assert proc.returncode == 0, stderr[-3000:]
    spark_out = (tmp_path / "stdout.json").read_text()
    assert summary(spark_out) == summary(local.stdout)
    # The run really lost its executor and finished on a replacement the worker launched.
    assert re.search(r"Asked to launch executor app-\S+/[1-9]", log.read_text()), log.read_text()[-3000:]
