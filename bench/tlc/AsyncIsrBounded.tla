---------------------------- MODULE AsyncIsrBounded ----------------------------
\* The published AsyncIsr.tla made finite as modelcheck's async-isr spec
\* (specs/async_isr.py) is: AsyncIsr leaves offsets and ISR versions unbounded
\* (its MaxOffset is declared but unused), so a state constraint bounds them.
\* States outside WithinBounds are generated but neither stored nor explored,
\* in TLC (CONSTRAINT) as in modelcheck (state_constraint within_bounds).
\*
\*   - the leader's log end offset stays <= MaxOffset;
\*   - the controller's ISR version stays <= MaxVersion.
\*
\* The leader is AsyncIsr's constant Leader; the configuration sets it to r1,
\* the replica modelcheck's encoding makes the leader.
EXTENDS AsyncIsr

CONSTANT MaxVersion

ASSUME MaxVersion \in Nat

WithinBounds ==
    /\ leaderState.offsets[Leader] <= MaxOffset
    /\ controllerState.version <= MaxVersion

================================================================================
