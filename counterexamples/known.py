"""The known bugs whose rendered traces are checked in under ``counterexamples/known/``.

``modelcheck render-known`` regenerates them all; ``tests/test_known_traces.py``
fails when a checked-in rendering is out of date.  Append an entry to add one.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class KnownTrace:
    """One known counterexample: which check produces it."""

    name: str
    """Directory name under counterexamples/known/."""
    spec: str
    """Registered spec name."""
    constants: tuple[tuple[str, str], ...]
    """Constants as NAME, VALUE pairs (the spec's defaults fill the rest)."""
    invariant: str
    """The invariant the trace violates."""
    story: str
    """One sentence on what the trace shows."""


KNOWN: list[KnownTrace] = [
    KnownTrace("hw-data-loss", "truncate-to-hw", (), "StrongIsr",
               "Before KIP-101: a follower re-truncates to its stale HW after the leader committed a record; "
               "the quorum ISR now holds a replica without it."),
    KnownTrace("kip101-fast-leader-changes", "kip101", (), "StrongIsr",
               "KIP-101's epoch lookup still loses committed data across consecutive leader changes."),
    KnownTrace("kip279-three-replicas", "kip279", (), "StrongIsr",
               "KIP-279's truncation, computed from a leader in another epoch, still fails with three replicas."),
    KnownTrace("kip320-first-try", "kip320-first-try", (), "StrongIsr",
               "The first KIP-320 attempt: lazy truncation lets a follower on an old epoch count toward the HW."),
]
