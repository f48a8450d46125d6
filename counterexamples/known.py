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
    KnownTrace("producer-reordering", "producer-ordering", (("MaxInFlight", "2"), ("Idempotent", "false")),
               "InOrder",
               "retries with two requests in flight: batch0 fails, batch1 is written, batch0 succeeds on its "
               "retry and lands after batch1 (the seeds' remedy is max.in.flight=1; Kafka's, the idempotent "
               "producer)."),
    KnownTrace("producer-duplicate", "producer-ordering", (("Idempotent", "false"),), "NoDuplicates",
               "retries without idempotence: batch0 is written, its response is lost, the request times out "
               "and the retry writes batch0 a second time."),
    KnownTrace("controller-zombie-second-leader", "controller-failover",
               (("PartitionWrite", "unconditional"), ("StaleControllerEpochCheck", "false")),
               "OneLeaderPerEpoch",
               "Without a guard on the partition state's write: the leader b2 dies, controller b1's session "
               "expires before it acts, b3 becomes controller; both elect a leader in leader epoch 1 (the zombie "
               "b1 itself, b3 itself), and each broker takes the LeaderAndIsr that reaches it first: b1 and b3 "
               "both lead epoch 1."),
    KnownTrace("reassignment-shrink-isr-early", "partition-reassignment", (("Order", "shrink-isr-early"),),
               "LeaderInIsr",
               "Reassigning b1,b2 -> b2,b3 with the ISR shrunk before the new replica joined it: the leader b1 "
               "leaves the ISR, the partition has no leader, and b3 can never catch up."),
    KnownTrace("reassignment-stop-old-early", "partition-reassignment",
               (("Order", "stop-old-early"), ("Replicas", "1:2")), "AckedRecordsSurvive",
               "Moving b1 -> b2 with the old replica stopped and deleted before the new one caught up: the "
               "acknowledged record existed only on b1 and is gone."),
    KnownTrace("reassignment-persist-ar-early", "partition-reassignment", (("Order", "persist-ar-early"),),
               "CompletedAtTarget",
               "Reassigning b1,b2 -> b2,b3 with AR = RAR persisted before the move: the controller crashes, the "
               "next one reads OAR = {b2, b3} from ZooKeeper, never removes or stops b1, and declares the move "
               "complete with b1 still a replica in the ISR."),
    KnownTrace("consumer-commit-after-processing-duplicate", "consumer-offsets", (("Commit", "after-processing"),),
               "NoDuplicates",
               "Committing after processing (at-least-once): c1 processes offset 0 and crashes before committing; "
               "c2 takes the partition over at the committed offset 0 and processes the record again."),
    KnownTrace("consumer-commit-before-processing-loss", "consumer-offsets", (("Commit", "before-processing"),),
               "NoLoss",
               "Committing before processing (at-most-once): c1 polls offset 0, commits offset 1 and crashes "
               "before processing; every later owner starts at offset 1, so the record is never processed."),
]
