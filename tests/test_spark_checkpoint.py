"""Checkpoints and resume on the Spark engine: the local engine's contract and checkpoint file.

A run killed at any moment resumes from its last checkpoint and ends with
exactly the counts, depth, coverage and first violation (with its trace) of an
uninterrupted run; Ctrl-C and SIGTERM stop at a level boundary with a final
checkpoint and exit 130; a checkpoint of another run is refused with one line;
and either engine resumes the other's checkpoints.

The uninterrupted reference is the local engine's run: ``tests/test_spark.py``
shows the Spark engine's results are identical to it on every configuration.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import (MODELS, ROOT, checkpoint_leftovers, checkpoint_level, checkpoint_manifest, json_report,
                      kill_once_checkpointed, run_cli)

pytestmark = pytest.mark.spark

SPARK = ("--engine", "spark", "--master", "local[2]")


def report(p: subprocess.CompletedProcess) -> dict:
    """The JSON report without timing and the engine's name and own report: in all else the engines must agree."""
    return json_report(p, "engine", "spark")


def start(args, scratch, env=None, **kwargs) -> subprocess.Popen:
    """Start the CLI in a session of its own (``env`` added to its environment), as a service manager does.

    The driver's JVM runs in a session of its own (so that a signal for the
    group reaches the driver alone), and dies with the driver. A killed JVM
    cannot remove its local directories and temporary files, so they go under
    ``scratch`` (pytest's temporary directory), not the machine's /tmp; and
    the path in its environment finds the run's processes (:func:`run_processes`).
    """
    env = dict(os.environ, SPARK_LOCAL_DIRS=str(scratch), SPARK_SUBMIT_OPTS=f"-Djava.io.tmpdir={scratch}",
               **(env or {}))
    return subprocess.Popen([sys.executable, "-m", "modelcheck", *args], cwd=ROOT, start_new_session=True, env=env,
                            **kwargs)


def run_processes(scratch) -> list[int]:
    """The live processes of a run :func:`start` started with ``scratch``: the driver, its JVM, Python workers.

    Found by the ``SPARK_LOCAL_DIRS`` they inherit, since the JVM and the
    workers it forks are in neither the driver's process group nor, once the
    driver is dead, its process tree.
    """
    mark = f"SPARK_LOCAL_DIRS={scratch}".encode()
    found = []
    for pid in (int(entry) for entry in os.listdir("/proc") if entry.isdigit()):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark in f.read().split(b"\0"):
                    found.append(pid)
        except OSError:  # it ended meanwhile
            continue
    return found


def wait_until_gone(scratch, timeout: float = 60) -> None:
    """Wait for every process of the run in ``scratch`` to end: its JVM ends with the driver, however it ends."""
    deadline = time.time() + timeout
    while run_processes(scratch) and time.time() < deadline:
        time.sleep(0.05)
    assert run_processes(scratch) == [], "the run's JVM or Python workers outlived its driver"


def kill_when_checkpointed(args, directory, level: int) -> None:
    """Run ``args`` checkpointing at every level boundary; SIGKILL its process group once ``level`` is on disk.

    Returns once the JVM and the Python workers have ended too (the JVM exits when
    the driver's end of its stdin closes): none of them writes in ``directory``
    while it is resumed.
    """
    p = start([*args, *SPARK, "--checkpoint", str(directory), "--checkpoint-every", "0", "-q", "--json"],
              directory.parent, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        kill_once_checkpointed(p, directory, level, kill=lambda: os.killpg(p.pid, signal.SIGKILL),
                               detail=lambda: p.stderr.read().decode()[-2000:])
    finally:
        p.stderr.close()
    wait_until_gone(directory.parent)


CASES = [
    # A run that holds (18 levels), killed once the first checkpoint file is there and in the middle...
    (["check", "kip320", "--const", "Replicas=2"], [0, 9]),
    # ...and one that finds the 9-state HW data-loss trace, killed just before its last levels.
    (["check", "truncate-to-hw"], [6]),
]


@pytest.mark.parametrize("args,levels", CASES, ids=["kip320-R2-holds", "truncate-to-hw-violated"])
def test_spark_resume_after_sigkill_gives_the_uninterrupted_result(tmp_path, args, levels):
    expected = report(run_cli(*args, "-q", "--json"))
    for level in levels:
        directory = tmp_path / f"ck{level}"
        kill_when_checkpointed(args, directory, level)
        killed_at = checkpoint_level(directory)
        assert killed_at >= level
        # Written with two partitions; resumed with three: each shard is split by the new owner.
        resumed = run_cli(*args, *SPARK, "--partitions", "3", "-q", "--json", "--resume", str(directory))
        assert resumed.returncode == (1 if expected["result"] == "violated" else 0), resumed.stderr[-3000:]
        assert json.loads(resumed.stdout)["engine"] == "spark"
        assert report(resumed) == expected, f"killed after the checkpoint of level {killed_at}"
        # A kill in the middle of a write leaves a temporary file; resuming removes it.
        assert checkpoint_leftovers(directory) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_spark_interrupt_stops_at_a_boundary_with_a_checkpoint_that_resumes(tmp_path, sig):
    # The driver only, as a terminal's Ctrl-C does (the JVM ignores SIGINT).
    interrupt_and_resume(tmp_path, sig, lambda p: p.send_signal(sig))


UNSUPERVISED = {"MODELCHECK_NO_SUPERVISOR": "1"}
"""The check's driver in the command's process group, as in a program that runs checks through the API: the
supervisor (:mod:`modelcheck.supervisor`) would run it in a child with a process group of its own."""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_spark_interrupt_of_the_process_group_stops_as_the_driver_alone_would(tmp_path, sig):
    """``timeout``, a CI's cancel and ``kill -- -PGID`` signal the whole process group: the JVM must not hear it.

    It did (PySpark starts it in the driver's group, ignoring SIGINT only): SIGTERM
    killed it mid-level and the run ended with a Py4J traceback, no statistics and
    often exit status 1, "violated". Now the JVM has a session of its own, and the
    run stops as when the driver alone is signalled.
    """
    interrupt_and_resume(tmp_path, sig, lambda p: os.killpg(p.pid, sig), env=UNSUPERVISED)


def interrupt_and_resume(tmp_path, sig, send, env=None) -> None:
    """Interrupt a Spark run of kip320 with ``send(process)`` mid-search: it stops at a level boundary, prints
    the statistics of its final checkpoint, exits 130, leaves no process behind, and resumes to the
    uninterrupted run's result."""
    args = ["check", "kip320", "--const", "Replicas=2"]
    expected = report(run_cli(*args, "-q", "--json"))
    ck = tmp_path / "ck"
    p = start([*args, *SPARK, "--checkpoint", str(ck), "--checkpoint-every", "3600", "--progress", "0.1"],
              tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Past the first levels (so the checkpoint is not just the initial states), then interrupt.
        # (Progress lines come at most every 0.1 s, so a fast level may have none: wait for any from 5 on.)
        while not re.match(r"Progress\(([5-9]|\d\d+)\)", p.stderr.readline()):
            assert p.poll() is None, "the run ended before it could be interrupted"
        send(p)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 130, err[-3000:]
    assert "Model checking interrupted; statistics so far:" in out
    assert re.search(rf"Checkpoint written to {re.escape(str(ck))} \(level \d+\); continue with --resume", err)
    assert "Traceback" not in err
    wait_until_gone(tmp_path)
    level = checkpoint_level(ck)
    assert level >= 4
    assert checkpoint_leftovers(ck) == []
    # The statistics printed are those of the boundary checkpointed.
    snap = checkpoint_manifest(ck)
    seen, frontier = sum(snap["level_sizes"]), snap["level_sizes"][snap["level"]]
    assert f"{seen:,} distinct states found, {frontier:,} states left on queue" in out
    # SIGINT: resumed on Spark; SIGTERM: resumed by the local engine (the checkpoint is the same file).
    engine = SPARK if sig == signal.SIGINT else ()
    resumed = run_cli(*args, *engine, "-q", "--json", "--resume", str(ck))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert report(resumed) == expected


def test_spark_resume_refuses_another_run_with_one_line(tmp_path):
    """Refused before Spark starts: exit 2 and one line naming what differs."""
    shutil.copytree(local_checkpoint(tmp_path / "local"), tmp_path / "ck")
    directory = str(tmp_path / "ck")
    p = run_cli("check", "kip320", "--const", "Replicas=3", *SPARK, "--resume", directory)
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert lines[-1] == (f"error: cannot resume from {directory}: the checkpoint is for constants "
                         "LogSize=2, MaxLeaderEpoch=2, MaxRecords=2, Replicas=2, this run has "
                         "LogSize=2, MaxLeaderEpoch=2, MaxRecords=2, Replicas=3")
    assert "Traceback" not in p.stderr and "log level" not in p.stderr  # Spark was never started
    p = run_cli("check", "kip279", "--const", "Replicas=2", *SPARK, "--resume", directory)
    assert p.returncode == 2 and "the checkpoint is for spec kip320, this run has kip279" in p.stderr
    p = run_cli("check", "kip320", "--const", "Replicas=2", "--symmetry", *SPARK, "--resume", directory)
    assert p.returncode == 2 and "cannot resume from" in p.stderr and "options" in p.stderr


@pytest.mark.parametrize("victim", ["shard-1.parents.npy", "shard-0.states.pickle", "shard-1.keys.bin"])
def test_a_damaged_shard_is_refused_by_the_executor_that_reads_it(tmp_path, victim):
    """On Spark the executors read a Spark checkpoint's shards: damage is still one line and exit 2."""
    args = ["check", "kip320", "--const", "Replicas=2"]
    directory = tmp_path / "ck"
    kill_when_checkpointed(args, directory, 6)
    manifest = checkpoint_manifest(directory)
    assert manifest["layout"] == "shards"
    path = directory / manifest["data"] / victim
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    p = run_cli(*args, *SPARK, "-q", "--resume", str(directory))
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("error: ")]
    assert lines == [f"error: checkpoint in {directory} is damaged ({victim} does not match its digest)"], p.stderr
    assert "Traceback" not in p.stderr
    # The local engine, which reads the whole checkpoint on the driver, refuses it too.
    p = run_cli(*args, "-q", "--resume", str(directory))
    assert p.returncode == 2 and f"({victim} does not match its digest)" in p.stderr, p.stderr[-3000:]


def local_checkpoint(directory) -> str:
    """A checkpoint of kip320 Replicas=2 written by the local engine (its last boundary)."""
    p = start(["check", "kip320", "--const", "Replicas=2", "--checkpoint", str(directory),
               "--checkpoint-every", "0", "-q"], directory.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p.wait(timeout=60)
    assert p.returncode == 0 and checkpoint_level(directory) == 17
    return str(directory)


# -- in-process: the Spark-written checkpoint of every level is right ----------------------------------


@pytest.fixture(scope="module")
def sc():
    from pyspark import SparkContext

    from modelcheck.spark_explore.session import spark_context

    existing = SparkContext._active_spark_context
    context = spark_context("local[2]")
    yield context
    if existing is None:
        context.stop()


def _copies_each_checkpoint(directory, copies):
    """A progress sink (called after every level with verbose=True) that keeps each level's checkpoint."""

    def sink(_progress):
        level = checkpoint_level(directory)
        if level >= 0 and level not in copies:
            dest = directory.parent / f"level{level}"
            shutil.copytree(directory, dest)
            copies[level] = dest

    return sink


IN_PROCESS = [
    ("kip279", (("Replicas", "2"),), {}),
    (str(MODELS / "die_hard.py"), (), {"continue_after_violation": True}),
]


@pytest.mark.parametrize("ref,consts,opts", IN_PROCESS, ids=["kip279-R2", "die_hard-continue"])
def test_every_spark_checkpoint_resumes_to_the_uninterrupted_result(sc, tmp_path, ref, consts, opts):
    """Checkpoints of every level, written by Spark (by shards), resumed by the local engine; one also by
    ``--workers 2``, two also by Spark (the executors reading the shards)."""
    from conftest import check
    from modelcheck.options import CheckOptions
    from modelcheck.spec.constants import build_constants
    from modelcheck.spec.loader import load_spec
    from spark_support import differences

    spec = load_spec(ref)
    c = build_constants(spec, consts)
    expected = check(spec, c, CheckOptions(**opts))
    directory = tmp_path / "ck"
    copies: dict = {}
    first = check(spec, c, CheckOptions(checkpoint_dir=str(directory), checkpoint_every=0, **opts),
                  engine="spark", sc=sc, ref=ref, verbose=True, progress=_copies_each_checkpoint(directory, copies))
    assert differences(expected, first) == []
    assert sorted(copies) == list(range(expected.depth)), "a checkpoint at every level boundary"
    for level, path in sorted(copies.items()):
        resumed = check(spec, c, CheckOptions(resume=str(path), **opts))
        assert differences(expected, resumed) == [], f"resumed from level {level}"
    middle = sorted(copies)[len(copies) // 2]
    resumed = check(spec, c, CheckOptions(resume=str(copies[middle]), **opts), workers=2)
    assert differences(expected, resumed) == [], f"resumed with --workers 2 from level {middle}"
    for level in (0, max(copies) - 1):
        path = shutil.copytree(copies[level], tmp_path / f"spark{level}")
        resumed = check(spec, c, CheckOptions(resume=str(path), **opts), engine="spark", sc=sc, ref=ref)
        assert resumed.engine == "spark"
        assert differences(expected, resumed) == [], f"resumed on Spark from level {level}"


def test_a_checkpoint_written_as_rows_resumes_on_every_engine(sc, tmp_path):
    """The memo tables write their frontier as rows of part ids; Spark's executors, the worker processes and
    the spec's own code read it back as states and finish with the uninterrupted run's result."""
    from conftest import check
    from modelcheck.options import CheckOptions
    from modelcheck.spec.constants import build_constants
    from modelcheck.spec.loader import load_spec
    from spark_support import differences

    spec = load_spec("kip279")
    c = build_constants(spec, (("Replicas", "2"),))
    expected = check(spec, c, CheckOptions())
    directory = tmp_path / "ck"
    stopped = check(spec, c, CheckOptions(checkpoint_dir=str(directory), checkpoint_every=0, max_states=2000))
    assert stopped.stopped_by == "max-states" and stopped.successors == "memo tables"
    data = [d for d in os.listdir(directory) if d.startswith("data-")]
    assert "frontier-0.rows.npy" in os.listdir(directory / data[0])
    for name, kwargs in (("spark", {"engine": "spark", "sc": sc, "ref": "kip279"}), ("workers", {"workers": 2}),
                         ("own code", {"memo": False}), ("tables", {})):
        copy = shutil.copytree(directory, tmp_path / name.replace(" ", "-"))
        resumed = check(spec, c, CheckOptions(resume=str(copy)), **kwargs)
        assert differences(expected, resumed) == [], f"resumed on {name}"
