------------------------- MODULE LivenessProperties -------------------------
(***************************************************************************)
(* Liveness and step properties of the Kafka replication models, stated   *)
(* once over the variables and operators of the published base module     *)
(* KafkaReplication (hachikuji/kafka-specification).  The spec wrappers    *)
(* Kip320Liveness and Kip101Liveness extend a published variant and this   *)
(* module; this module is not checked on its own.                          *)
(***************************************************************************)
EXTENDS KafkaReplication

\* The replica's high watermark.
Hw(r) == replicaState[r].hw

\* r's log holds record id i at offset o, an offset r has (below its log end
\* offset).  Whether r presumes leadership is tested by the callers.
HoldsRecordId(r, i, o) ==
    /\ ReplicaLog!HasOffset(r, o)
    /\ ReplicaLog!GetRecordAtOffset(r, o).id = i

LeaderHasRecord(i) ==
    \E r \in Replicas, o \in ReplicaLog!Offsets :
        /\ ReplicaPresumesLeadership(r)
        /\ HoldsRecordId(r, i, o)

LeaderCommittedRecord(i) ==
    \E r \in Replicas, o \in ReplicaLog!Offsets :
        /\ ReplicaPresumesLeadership(r)
        /\ HoldsRecordId(r, i, o)
        /\ o < Hw(r)

-----------------------------------------------------------------------------
(* Liveness *)

EventuallySomeLeader ==
    <>(\E r \in Replicas : ReplicaPresumesLeadership(r))

DesignatedLeaderTakesOver ==
    \A r \in Replicas :
        (quorumState.leader = r) ~> (IsTrueLeader(r) \/ quorumState.leader # r)

LeaderRecordEventuallyCommitted ==
    \A i \in 0 .. (MaxRecords - 1) :
        LeaderHasRecord(i) ~> LeaderCommittedRecord(i)

OutOfIsrRejoins ==
    \A r \in Replicas :
        (r \notin quorumState.isr) ~> (r \in quorumState.isr)

-----------------------------------------------------------------------------
(* Step properties *)

LeaderHwMonotonic ==
    [][\A r \in Replicas :
          (ReplicaPresumesLeadership(r) /\ replicaState'[r].leader = r)
              => replicaState'[r].hw >= Hw(r)]_vars

HwMonotonicWithinEpoch ==
    [][\A r \in Replicas :
          replicaState'[r].leaderEpoch = replicaState[r].leaderEpoch
              => replicaState'[r].hw >= Hw(r)]_vars

=============================================================================
