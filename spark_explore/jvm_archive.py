"""A class-data archive of Spark's JVM, so that a check starts Spark in about half the time.

Starting Spark loads and verifies some ten thousand classes from jars, a
good part of a small check's time.  The JVM can map those classes from an
archive written at the exit of an earlier run (Java's dynamic class-data
sharing, ``-XX:ArchiveClassesAtExit`` / ``-XX:SharedArchiveFile``), which
roughly halves the time to the SparkContext and to the end of the first job
(docs/benchmarks.md).

``modelcheck compile`` (run by ``bin/setup``) builds the archive with a small
job under ``spark-submit``, into the same per-environment directory as the
compiled specs, and the Spark engine passes it to the driver JVM it starts
when it exists.  Its name digests what it depends on (the java binary, its
modification time, the pyspark version), so a new JDK or pyspark is simply
not matched until the next ``modelcheck compile``.  A *truncated* archive
crashes the JVM at start, so the archive is written under a temporary name
and renamed only once the JVM that wrote it has exited.  The JVM's own
reports about the archive are switched off (``-Xlog:cds=off``); an archive
the JVM cannot use (another JDK build) is ignored, silently.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

from modelcheck.build.compiled import build_dir

QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"

_TRAINING_JOB = """\
from pyspark import SparkConf, SparkContext
conf = (SparkConf().setMaster("local[2]").setAppName("modelcheck-jvm-archive")
        .set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false")
        .set("spark.python.unix.domain.socket.enabled", "true")
        .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer"))
sc = SparkContext(conf=conf)
sc.setLogLevel("ERROR")
acc = sc.accumulator(0)
rdd = sc.parallelize(range(1000), 2).map(lambda x: (x % 2, x)).partitionBy(2).persist()
rdd.localCheckpoint()
rdd.foreach(lambda kv: acc.add(1))
assert rdd.count() == 1000 and acc.value == 1000
sc.stop()
"""
"""The code paths of a check: a shuffle with a Python partitioner, persist and localCheckpoint, an accumulator."""


def _java() -> str | None:
    """The java binary Spark's launcher runs (``$JAVA_HOME/bin/java``, else ``java`` on PATH)."""
    home = os.environ.get("JAVA_HOME")
    path = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return os.path.realpath(path) if path and os.path.exists(path) else None


def _spark_home() -> str | None:
    try:
        import pyspark
    except ImportError:
        return None
    return os.path.dirname(pyspark.__file__)


def archive_path() -> str | None:
    """Where this environment's archive lives (whether or not it exists); None without java or pyspark."""
    java, home = _java(), _spark_home()
    if java is None or home is None:
        return None
    import pyspark

    key = f"{java}\0{os.stat(java).st_mtime_ns}\0{pyspark.__version__}\0{home}".encode()
    return os.path.join(build_dir(), "spark-jvm", hashlib.sha256(key).hexdigest()[:20] + ".jsa")


def java_options() -> str:
    """The driver JVM's options that map the archive, or "" when there is none to map."""
    path = archive_path()
    if path is None or not os.path.isfile(path):
        return ""
    return f"-XX:SharedArchiveFile={path} {QUIET}"


def build(timeout: float = 300.0) -> tuple[str, float]:
    """Write the archive if it is missing; returns ("built"/"current"/a reason it cannot be, seconds)."""
    start = time.monotonic()
    path = archive_path()
    if path is None:
        return ("unavailable: no java or no pyspark", 0.0)
    if os.path.isfile(path):
        return ("current", 0.0)
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):  # archives of another JDK or pyspark, and leftovers of a killed build
        _remove(os.path.join(folder, old))
    tmp = f"{path}.{os.getpid()}.tmp"
    home = _spark_home()
    assert home is not None
    with tempfile.TemporaryDirectory(prefix="modelcheck-jvm-archive-") as work:
        job = os.path.join(work, "job.py")
        with open(job, "w") as f:
            f.write(_TRAINING_JOB)
        env = dict(os.environ, SPARK_HOME=home, PYSPARK_PYTHON=sys.executable,
                   PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1", PYTHONHASHSEED="0")
        env.pop("PYSPARK_GATEWAY_PORT", None)
        cmd = [os.path.join(home, "bin", "spark-submit"), "--master", "local[2]",
               "--driver-java-options", f"-XX:ArchiveClassesAtExit={tmp} {QUIET}", job]
        try:
            # spark-submit returns once the JVM has exited, so the archive is complete by then.
            done = subprocess.run(cmd, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            _remove(tmp)
            return (f"not built: {type(exc).__name__}: {exc}".splitlines()[0], time.monotonic() - start)
    if done.returncode != 0 or not os.path.isfile(tmp) or os.path.getsize(tmp) < 1 << 20:
        _remove(tmp)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return (f"not built: the training job exited with {done.returncode}: {last}", time.monotonic() - start)
    os.replace(tmp, path)
    return ("built", time.monotonic() - start)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
