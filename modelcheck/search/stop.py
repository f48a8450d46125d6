"""Requests to stop a run early: Ctrl-C, SIGTERM and the memory budget, as one poll for every backend.

A signal only sets a flag; the search looks at it where a level can be
abandoned cleanly (between batches of parents, while waiting for worker
processes or Spark jobs), so the last level boundary stays intact for the
checkpoint.  A second Ctrl-C raises :class:`KeyboardInterrupt` at once: the
last checkpoint written stays the one to resume from.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any, Callable

from modelcheck.errors import UserInterrupt
from modelcheck.search.backend import LevelAbandoned

DUPLICATE_SIGNAL_SECONDS = 0.25
"""A second interrupt this soon after the first is the same one delivered twice (``pkill`` or a service manager
signalling every process, so the check hears it directly and from the command's supervising parent): ignored,
where a second Ctrl-C stops at once."""

MEMORY_POLL_SECONDS = 0.2
"""The shortest time between two measurements of the memory against ``--max-memory``."""


class StopRequests:
    """The stop requests of one run: a flag set by signals, and the memory budget."""

    def __init__(self, memory_limit_mb: int | None = None, measure: Callable[[], int | None] | None = None) -> None:
        self.interrupted = False
        self.interrupted_at = 0.0
        self.memory_limit = memory_limit_mb * 1024 * 1024 if memory_limit_mb else None
        self.measure = measure
        self.next_memory_check = 0.0
        self._previous: dict[int, Any] = {}

    def poll(self) -> None:
        """Raise :class:`LevelAbandoned` if a stop was requested or the run is over its memory budget."""
        if self.interrupted:
            raise LevelAbandoned("interrupt")
        if self.memory_limit is not None and self.measure is not None:
            now = time.monotonic()
            if now >= self.next_memory_check:
                used = self.measure()
                # Measuring large processes takes a while: spend at most ~5 % of the time on it.
                spent = time.monotonic() - now
                self.next_memory_check = now + max(MEMORY_POLL_SECONDS, 20 * spent)
                if used is not None and used > self.memory_limit:
                    raise LevelAbandoned("max-memory")

    def room(self, extra_bytes: int = 0) -> None:
        """Raise :class:`LevelAbandoned` if a stop was requested, or if ``extra_bytes`` more would take the run
        over its memory budget: asked before a phase allocates in bulk (deciding liveness), so that the budget
        holds through it instead of being found exceeded after.  With no bytes named, :meth:`poll`."""
        if not extra_bytes:
            self.poll()
            return
        if self.interrupted:
            raise LevelAbandoned("interrupt")
        if self.memory_limit is not None and self.measure is not None:
            used = self.measure()
            if used is not None and used + extra_bytes > self.memory_limit:
                raise LevelAbandoned("max-memory")

    def _on_signal(self, signum: int, frame: Any) -> None:
        now = time.monotonic()
        if self.interrupted and now - self.interrupted_at > DUPLICATE_SIGNAL_SECONDS:
            raise UserInterrupt  # a second Ctrl-C: stop now (UserInterrupt: spec wrappers let it through)
        if not self.interrupted:
            self.interrupted_at = now
        self.interrupted = True

    def install(self) -> None:
        """Route Ctrl-C and SIGTERM to the flag (only the main thread can; elsewhere signals stay as they are)."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._on_signal)

    def uninstall(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous = {}
