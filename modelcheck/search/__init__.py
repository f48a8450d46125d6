"""The exhaustive search: one level driver and the backends it drives.

:mod:`.driver` owns the breadth-first level loop and everything that must be
identical whichever backend expands the states (counts, stops, traces,
checkpoints, interrupts).  Backends expand levels: :mod:`.local` in this
process, :mod:`.workers` in forked processes on this machine, and
:mod:`modelcheck.spark_explore` on Spark.  :mod:`.simulate` is the other
strategy, random walks, over the same model and result types.
"""
