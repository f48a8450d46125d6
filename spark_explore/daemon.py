"""PySpark's Python worker daemon, without a traceback when the JVM hangs up first.

When a check on Spark is interrupted (Ctrl-C, SIGTERM), the driver abandons
the running level and stops Spark.  A Python worker still sending a task's
result then finds its socket closed, and PySpark's daemon prints the
``BrokenPipeError`` traceback on the user's terminal, under our own clean
"interrupted" message.  Nothing is lost (the level is redone on ``--resume``),
so this daemon, set as ``spark.python.daemon.module`` by
:func:`modelcheck.spark_explore.session.spark_context`, runs PySpark's own
``manager()`` and only drops the report of a connection the JVM closed.  Any
other exception is printed as before, and the worker still exits with status
1, so Spark retries the task as usual.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

from pyspark import daemon

HUNG_UP = (BrokenPipeError, ConnectionResetError)


class _QuietTraceback:
    """The ``traceback`` module as ``pyspark.daemon`` sees it, silent for a closed connection."""

    def __getattr__(self, name: str) -> Any:
        return getattr(traceback, name)

    @staticmethod
    def print_exc(*args: Any, **kwargs: Any) -> None:
        if isinstance(sys.exc_info()[1], HUNG_UP):
            return
        traceback.print_exc(*args, **kwargs)


def main() -> None:
    """Run PySpark's daemon (forked workers inherit the quiet ``traceback`` and the compiled modules' finder)."""
    from modelcheck.build import compiled

    compiled.activate()  # before a task imports the executor module, so it runs compiled where built
    daemon.traceback = _QuietTraceback()  # type: ignore[assignment]
    daemon.manager()


if __name__ == "__main__":
    main()
