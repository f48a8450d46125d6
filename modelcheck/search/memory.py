"""Memory of this process and of a ``--workers`` run's processes, for ``--max-memory`` budgets and benchmarks."""

from __future__ import annotations

import contextlib
import gc
import os
import resource
from typing import Iterator

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def current_rss_bytes() -> int:
    """Resident memory now (Linux /proc; falls back to the peak elsewhere)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return peak_rss_bytes()


def free_bytes() -> int:
    """Memory no process uses (less than what the system could give: it keeps caches it would drop), 0 where
    the system does not say; asked of the kernel directly, without importing psutil."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * _PAGE
    except (ValueError, OSError, AttributeError):
        return 0


def peak_rss_bytes() -> int:
    """Peak resident memory of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a block builds many objects that hold no cycles.

    States are trees of tuples: building many of them (a checkpoint read back,
    its rows turned into states, a Spark task unpickling its candidates)
    triggers collection after collection, each walking every live object,
    which made reading a KRaft checkpoint, and unpickling on an executor,
    about ten times slower.  Reference counts still free what is dropped.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class MemoryBudgetExceeded(Exception):
    """Raised inside a search when the process reaches its ``--max-memory`` budget."""


def _process_rss_bytes(pid: int) -> int:
    """Resident memory of one process, shared pages included (cheap: /proc/PID/statm)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return _process_memory_bytes(pid)


def _process_memory_bytes(pid: int) -> int:
    """Physical memory of one process: its proportional set size (shared pages split), else its RSS.

    The kernel walks the page tables to answer, about 10 ms per GiB.
    """
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil

        return int(psutil.Process(pid).memory_info().rss)
    except Exception:  # noqa: BLE001 - a process that just ended uses no memory
        return 0


def processes_memory_bytes(pids: list[int], limit: int | None = None) -> int:
    """The memory of a coordinator and its workers together, for ``--max-memory``.

    Pages shared since the fork count once (proportional set sizes).  With a
    ``limit``, the cheap resident sizes are summed first: their sum is at least
    the proportional one, so when it is within the limit that is the answer.
    """
    if limit is not None:
        rss = sum(_process_rss_bytes(pid) for pid in pids)
        if rss <= limit:
            return rss
    return sum(_process_memory_bytes(pid) for pid in pids)
