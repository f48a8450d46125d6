"""Kip320 with one more liveness property: each replica's quorum ISR membership eventually stops changing.

``IsrMembershipStabilizes`` is ``\\A r: <>[](r \\in isr) \\/ <>[](r \\notin isr)``.
It is violated: a leader may drop a lagging follower (FencedLeaderShrinkIsr,
no fairness) and add it back (FencedLeaderExpandIsr, strongly fair, needs
only the leader's HW, not its end offset) forever.  The property is kept
here, beside the tests that read its lasso, so that the published spec's
list of properties stays as TLA+ has it.
"""

from modelcheck import all_of, any_of, eventually_always, liveness
from modelcheck.specs import kip320


def _in_isr(c, s, r: int = 0) -> bool:
    return r in s.quorum_state.isr


def _out_of_isr(c, s, r: int = 0) -> bool:
    return r not in s.quorum_state.isr


@liveness("IsrMembershipStabilizes", "Each replica eventually stays in the quorum ISR or stays out of it.")
def isr_membership_stabilizes(c):
    """\\A r \\in Replicas: <>[](r \\in quorumState.isr) \\/ <>[](r \\notin quorumState.isr)."""
    return all_of(any_of(eventually_always(lambda c, s, r=r: _in_isr(c, s, r)),
                         eventually_always(lambda c, s, r=r: _out_of_isr(c, s, r)))
                  for r in range(c.Replicas))


SPEC = kip320.SPEC.extend(properties=[isr_membership_stabilizes])
