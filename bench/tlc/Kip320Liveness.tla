--------------------------- MODULE Kip320Liveness ---------------------------
(***************************************************************************)
(* The published Kip320 module with the properties of LivenessProperties. *)
(* Its own Spec (with its fairness conditions) is checked unchanged.      *)
(***************************************************************************)
EXTENDS Kip320, LivenessProperties

=============================================================================
