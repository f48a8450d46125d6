"""Starting Spark for a check: the settings that measurably matter for BFS levels (docs/spark.md).

* Python tasks talk to the JVM over a Unix domain socket (a level took 0.33 s
  instead of 1.0 s over loopback TCP) and Python workers are reused.
* Everything binds to 127.0.0.1, and the UI and console progress bar are off.
* ``PYTHONHASHSEED=0`` is set for the driver and exported to executors, so no
  Python code path that hashes strings can make them disagree (the engine's own
  fingerprints hash only ints, tuples and frozensets, which are stable anyway).
* Executors run this interpreter (the one with modelcheck installed).
* The JVMs JIT-compile with C1 only (:data:`JIT_OPTION`), and the driver JVM maps
  the class-data archive ``modelcheck compile`` wrote (:mod:`.jvm_archive`).
* The driver's JVM runs in a session of its own (:func:`launch_gateway`), so a
  signal for the whole process group stops the check cleanly.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from modelcheck.errors import UsageError
from modelcheck.spark_explore import jvm_archive

DEFAULT_MASTER = "local[*]"

JIT_OPTION = "-XX:TieredStopAtLevel=1"
"""The JVMs compile with C1 only. Here they only move pickled byte arrays (shuffle, cache), which
C1's code does as well, while C2's compiler threads took a noticeable share of the two cores and
runs were faster without them (docs/benchmarks.md). Options the user sets
(``spark.driver.extraJavaOptions``, ``spark.executor.extraJavaOptions``) replace it."""


def spark_context(master: str | None, app_name: str = "modelcheck") -> Any:
    """A SparkContext for ``master`` (default ``local[*]``), configured for BFS levels."""
    try:
        from pyspark import SparkConf, SparkContext
    except ImportError:  # pragma: no cover - pyspark is a dependency
        raise UsageError("the Spark engine needs pyspark (pip install pyspark)") from None
    os.environ.setdefault("PYTHONHASHSEED", "0")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    conf = SparkConf()
    # Under spark-submit the master comes from its --master (a spark.* property); otherwise local[*].
    master = master or (conf.get("spark.master") if conf.contains("spark.master") else DEFAULT_MASTER)
    check_master(master)
    conf = (
        conf.setMaster(master)
        .setAppName(app_name)
        .set("spark.python.unix.domain.socket.enabled", "true")
        .set("spark.python.worker.reuse", "true")
        .set("spark.ui.enabled", "false")
        .set("spark.ui.showConsoleProgress", "false")
        .set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1")
        .set("spark.executorEnv.PYTHONHASHSEED", "0")
        .set("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
        .set("spark.pyspark.python", sys.executable)
        .set("spark.sql.shuffle.partitions", str(os.cpu_count() or 2))
        .set("spark.task.maxFailures", "4")
        # PySpark's daemon, minus the BrokenPipeError traceback when a stop hangs up on a worker.
        .set("spark.python.daemon.module", "modelcheck.spark_explore.daemon")
        # The JVM only moves byte arrays (pickled batches): Kryo serializes the shuffle's
        # (partition, bytes) pairs with less CPU than Java serialization.
        .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
    )
    if "PYSPARK_GATEWAY_PORT" not in os.environ and not conf.contains("spark.driver.extraJavaOptions"):
        # We start the JVM ourselves: keep its start-up chatter off the user's terminal.
        # And map the class-data archive of Spark's JVM, if ``modelcheck compile`` wrote one.
        conf = conf.set("spark.driver.extraJavaOptions",
                        f"-Dlog4j2.configurationFile=file:{_quiet_log4j()} {JIT_OPTION} {jvm_archive.java_options()}")
    if not conf.contains("spark.executor.extraJavaOptions"):
        conf = conf.set("spark.executor.extraJavaOptions", JIT_OPTION)
    if is_local(master) and not conf.contains("spark.driver.memory") and "PYSPARK_GATEWAY_PORT" not in os.environ:
        conf = conf.set("spark.driver.memory", local_driver_memory())
    existing = SparkContext._active_spark_context
    if existing is not None:
        if existing.master != master:
            raise UsageError(f"a SparkContext for {existing.master} is already running in this process")
        return existing
    try:
        sc = SparkContext(conf=conf, gateway=launch_gateway(conf))
    except Exception as exc:  # noqa: BLE001 - JVM start-up failures have many shapes
        raise UsageError(f"could not start Spark with master {master}: {type(exc).__name__}: {exc}".splitlines()[0]) from None
    sc.setLogLevel("ERROR")
    return sc


_LOCAL = re.compile(r"local(\[(\*|[1-9][0-9]*)(,[0-9]+)?\])?")


def check_master(master: str) -> None:
    """Refuse a local master Spark would refuse only after starting its JVM (with a page of Java log).

    ``local``, ``local[N]`` and ``local[*]`` (each optionally ``,F`` for
    task retries) run N >= 1 threads; ``local[0]`` or ``local[x]`` is a
    typo.  Other masters (``spark://``, ``local-cluster[...]``, ``yarn``...)
    are Spark's to judge.
    """
    if master.startswith("local") and not master.startswith("local-cluster") and not _LOCAL.fullmatch(master):
        raise UsageError(f"--master {master}: a local master runs at least one thread: local, local[N] "
                         "with N >= 1, or local[*]")


def launch_gateway(conf: Any) -> Any | None:
    """Start Spark's JVM (the Py4J gateway) in a session of its own; None where PySpark must start it, or not at all.

    ``timeout``, systemd and a CI's cancel send SIGTERM (or SIGINT) to the
    whole process group.  PySpark starts the JVM in the driver's group with
    only SIGINT ignored, so SIGTERM also reached the JVM, which ran its
    shutdown hooks (stopping the local master's executors) while the driver
    was still using it: a Py4J traceback, often exit status 1 ("violated"),
    and no statistics.  In its own session the JVM, and the Python workers it
    forks, hear none of the group's signals: the driver alone is told to stop,
    and it stops at a level boundary and then stops Spark, as when it alone is
    signalled.  The JVM still ends with the driver however the driver ends:
    PySpark's gateway exits when its stdin, a pipe from the driver, is closed,
    and the kernel closes it when the driver dies, SIGKILL included.

    None, for PySpark's own start-up, when the JVM is not ours to start: under
    spark-submit (the JVM started this interpreter), when this interpreter
    already has one (a stopped SparkContext keeps it), or without POSIX
    sessions (Windows).
    """
    from pyspark import SparkContext
    from pyspark import java_gateway

    if "PYSPARK_GATEWAY_PORT" in os.environ or SparkContext._gateway is not None or os.name != "posix":
        return None
    return java_gateway.launch_gateway(conf, popen_kwargs={"start_new_session": True})


_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
# PySpark runs as Spark's "shell": unless the logger of the class that starts it has a level of its
# own, Spark lowers the console to WARN and prints "Setting default log level to WARN" on every start.
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
logger.submit.name = org.apache.spark.deploy.SparkSubmit
logger.submit.level = error
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""


def _quiet_log4j() -> str:
    """A log4j2 configuration that logs errors only (Spark's default prints WARN lines at start-up)."""
    import tempfile

    path = os.path.join(tempfile.gettempdir(), f"modelcheck-log4j2-{os.getuid()}.properties")
    try:
        with open(path) as f:
            current = f.read()
    except OSError:
        current = None
    if current != _LOG4J:
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(_LOG4J)
        os.replace(tmp, path)
    return path


def local_driver_memory() -> str:
    """The heap of the one JVM a local master runs (driver and executors): a quarter of the machine's memory.

    Spark's default (1 GiB) is for a driver that only schedules; on a local
    master the same JVM caches every level's shards and candidates and runs
    the shuffle, and Kip320 with ``MaxLeaderEpoch=3`` (10 million states) ran
    out of it.  Between 1 and 16 GiB; ``spark.driver.memory`` (spark-submit's
    ``--driver-memory``) overrides it.
    """
    import psutil

    gib = psutil.virtual_memory().total / 2**30
    return f"{max(1, min(16, int(gib // 4)))}g"


def is_local(master: str) -> bool:
    """Local masters run executors inside the driver's JVM: a lost executor is a lost run anyway."""
    return master.startswith("local")
