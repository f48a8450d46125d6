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
    KnownTrace("seeds-1-hw-data-loss", "broker-failures", (("Truncation", "hw"),), "AckedRecordsSurvive",
               "The seeds' story 1: the leader's HW passes the record before the follower's does; the follower "
               "restarts and truncates to its checkpointed HW, the leader crashes, the follower is elected, and "
               "the acknowledged record is gone."),
    KnownTrace("seeds-2-log-divergence", "broker-failures", (("Truncation", "hw"),), "NoDivergenceBelowHw",
               "The seeds' story 2: the new leader writes at the offset the old leader still holds; the old leader "
               "comes back with HW = LEO, keeps its record, and the two logs differ below the HW."),
    KnownTrace("seeds-3-kip101-fast-leader-changes", "broker-failures",
               (("Truncation", "leader-epoch"), ("IsrJoin", "epoch-start"), ("Replicas", "3"), ("Records", "3")),
               "NoDivergenceBelowHw",
               "KIP-101 as first shipped: after two fast leader changes a restarted follower asks where its "
               "short-lived epoch ends, is told where the new leader's epoch starts, and keeps its record over "
               "the leader's at the same offset (fixed by KIP-279)."),
    KnownTrace("seeds-4-unclean-election", "broker-failures",
               (("Truncation", "kip279"), ("IsrJoin", "epoch-start"), ("UncleanElection", "true")),
               "AckedRecordsSurvive",
               "Unclean election: the lagging follower leaves the ISR, the leader crashes, the follower is "
               "elected anyway and the acknowledged record is lost."),
    KnownTrace("seeds-5-acks-1", "broker-failures",
               (("Truncation", "kip279"), ("IsrJoin", "epoch-start"), ("Acks", "1")), "AckedRecordsSurvive",
               "acks=1: the leader acknowledges on its own append, then crashes before any follower fetched it."),
    KnownTrace("seeds-kafka-7128-stale-hw-isr-join", "broker-failures", (("Truncation", "leader-epoch"),),
               "AckedRecordsSurvive",
               "KAFKA-7128: a leader restarted with a stale checkpointed HW readmits an empty follower to the "
               "ISR (LEO >= HW); the follower is elected next and the acknowledged record is lost."),
]
