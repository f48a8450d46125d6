"""Spark's own fixed costs, without modelcheck: start, the first jobs, and a later job's scheduling.

What a Spark run pays before any model work, measured on plain PySpark so that
it cannot be the engine's: the SparkContext's start, a first job that runs only
in the JVM, a first job that runs Python on the executors (the Python workers
start), and later jobs of each kind (the per-level scheduling a BFS level pays).
docs/benchmarks.md ("Spark") uses these figures for the floor of a Spark run on
a model the local engine checks in seconds.

    .venv/bin/python bench/spark_first_job.py [--master 'local[2]'] [--jobs 3]
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--jobs", type=int, default=3, help="later jobs of each kind to time")
    args = parser.parse_args()

    started = time.perf_counter()
    from pyspark import SparkConf, SparkContext

    conf = (SparkConf().setMaster(args.master).setAppName("spark-first-job")
            .set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false")
            .set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1"))
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    try:
        print(f"start (import pyspark, SparkContext): {time.perf_counter() - started:.2f} s")
        jsc = sc._jsc.sc()  # a JVM-only RDD: no Python worker is involved
        for i in range(1 + args.jobs):
            t = time.perf_counter()
            jsc.range(0, 2, 1, 2).count()
            print(f"JVM-only job {i + 1}: {time.perf_counter() - t:.2f} s")
        for i in range(1 + args.jobs):
            t = time.perf_counter()
            sc.parallelize([1, 2], 2).map(lambda x: x + 1).collect()
            print(f"Python job {i + 1}: {time.perf_counter() - t:.2f} s")
        for i in range(1 + args.jobs):
            t = time.perf_counter()
            sc.parallelize([1, 2], 2).map(lambda x: (x, 1)).reduceByKey(lambda a, b: a + b, 2).collect()
            print(f"Python job with a shuffle {i + 1}: {time.perf_counter() - t:.2f} s")
    finally:
        sc.stop()


if __name__ == "__main__":
    main()
