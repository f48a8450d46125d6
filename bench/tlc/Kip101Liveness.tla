--------------------------- MODULE Kip101Liveness ---------------------------
(***************************************************************************)
(* The published Kip101 module with the properties of LivenessProperties. *)
(* Kip101 declares its Next and Spec LOCAL, so they are not visible here;  *)
(* they are restated below exactly as Kip101 defines them (same actions,   *)
(* same fairness conditions; Kip101.tla, Apache License 2.0).             *)
(* run_liveness.py checks that they still match the checkout it is given. *)
(***************************************************************************)
EXTENDS Kip101, LivenessProperties

Next ==
    \/ ControllerElectLeader 
    \/ ControllerShrinkIsr
    \/ BecomeLeader
    \/ LeaderExpandIsr
    \/ LeaderShrinkIsr
    \/ LeaderWrite
    \/ LeaderIncHighWatermark 
    \/ BecomeFollowerTruncateKip101
    \/ FollowerReplicate
    
Spec == Init /\ [][Next]_vars 
             /\ SF_vars(LeaderIncHighWatermark)
             /\ SF_vars(LeaderExpandIsr)
             /\ SF_vars(LeaderWrite)
             /\ WF_vars(BecomeFollowerTruncateKip101)
             /\ WF_vars(BecomeLeader)

=============================================================================
