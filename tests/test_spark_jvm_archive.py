"""The class-data archive of Spark's JVM: built once, complete or absent, and mapped by the driver JVM."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.spark

PROBE = """
from modelcheck.spark_explore.session import spark_context
sc = spark_context("local[1]")
assert sc.parallelize(range(10), 1).map(lambda x: x * 2).sum() == 90
args = list(sc._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
print("ARGS", " ".join(a for a in args if "SharedArchiveFile" in a))
sc.stop()
"""


def test_build_then_map(tmp_path, monkeypatch):
    from modelcheck.spark_explore import jvm_archive

    monkeypatch.setenv("MODELCHECK_BUILD_DIR", str(tmp_path))
    path = jvm_archive.archive_path()
    assert path is not None and path.startswith(str(tmp_path))
    assert jvm_archive.java_options() == ""  # nothing to map yet
    # An archive of another JDK or pyspark, and the leftover of a killed build, are replaced.
    folder = tmp_path / "spark-jvm"
    folder.mkdir()
    (folder / "0123456789abcdef0123.jsa").write_bytes(b"an old archive")
    (folder / (os.path.basename(path) + ".1234.tmp")).write_bytes(b"a truncated archive")
    outcome, _ = jvm_archive.build()
    assert outcome == "built"
    assert os.path.getsize(path) > 1 << 20
    assert os.listdir(folder) == [os.path.basename(path)]  # no other archive, no temporary file left
    assert jvm_archive.build()[0] == "current"
    assert f"-XX:SharedArchiveFile={path}" in jvm_archive.java_options()
    # A driver JVM started by the engine maps it, runs a job, and says nothing about it.
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=180,
                       env=dict(os.environ, MODELCHECK_BUILD_DIR=str(tmp_path)))
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"ARGS -XX:SharedArchiveFile={path}" in p.stdout
    assert "cds" not in p.stderr.lower() and "cds" not in p.stdout.lower().replace(path.lower(), "")
