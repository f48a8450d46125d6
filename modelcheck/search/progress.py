"""Progress reports for long runs, shaped like TLC's progress line.

Engines call a :class:`ProgressSink` with a :class:`Progress` snapshot every
few seconds; the CLI prints it to stderr.  Keeping this a callback (not a
print in the engine) lets tests, Spark and library users decide where it goes.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

import attrs


@attrs.frozen
class Progress:
    """One progress snapshot."""

    level: int
    """The BFS level being expanded (initial states are level 1)."""
    generated: int
    distinct: int
    queue: int
    """States discovered but not yet expanded."""
    seconds: float
    detail: str = ""
    """Engine-specific extra (e.g. Spark per-level timings)."""

    def line(self) -> str:
        rate = self.generated / self.seconds if self.seconds > 0 else 0.0
        text = (
            f"Progress({self.level}) at {self.seconds:7.1f}s: {self.generated:,} states generated "
            f"({rate:,.0f} s/sec), {self.distinct:,} distinct states found, {self.queue:,} states left on queue."
        )
        return f"{text} {self.detail}" if self.detail else text


ProgressSink = Callable[[Progress], None]


def stderr_sink(stream: TextIO | None = None) -> ProgressSink:
    """A sink that prints each progress line to stderr (or ``stream``)."""

    def sink(p: Progress) -> None:
        print(p.line(), file=stream or sys.stderr, flush=True)

    return sink


class Ticker:
    """Decides when the next progress line is due (cheap to poll in a hot loop)."""

    def __init__(self, every: float) -> None:
        self.every = every
        self.start = time.perf_counter()
        self.next_at = self.start + every

    def due(self) -> bool:
        now = time.perf_counter()
        if now >= self.next_at:
            self.next_at = now + self.every
            return True
        return False

    def elapsed(self) -> float:
        return time.perf_counter() - self.start
