"""Spark-distributed BFS (installed as ``modelcheck.spark_explore``)."""
