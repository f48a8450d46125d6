"""Every row of the reference table: TLC 2.18's counts on the published TLA+ models (README, "Known results").

"States generated" is compared too: our actions return one successor per
satisfied TLA+ disjunct (Kip279's truncation on an empty log, Kip320's
FencedLeaderShrinkIsr when a follower is both in the wrong epoch and lagging),
which is exactly how TLC counts, so the numbers agree.
"""

from __future__ import annotations

import pytest

from modelcheck.spec.constants import build_constants
from conftest import check
from modelcheck.spec.loader import load_spec
from modelcheck.options import CheckOptions


def run(spec_name: str, replicas: int, **opts):
    spec = load_spec(spec_name)
    consts = build_constants(
        spec, (("Replicas", str(replicas)), ("LogSize", "2"), ("MaxRecords", "2"), ("MaxLeaderEpoch", "2"))
    )
    return check(spec, consts, CheckOptions(invariants=("StrongIsr",), **opts))


HOLDS = [
    # spec, Replicas, distinct, generated, depth  (from the reference table)
    ("kip320", 2, 5_973, 11_839, 18),
    ("kip279", 2, 9_027, 23_425, 18),
    pytest.param("kip320", 3, 737_794, 1_967_560, 26, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("spec_name,replicas,distinct,generated,depth", HOLDS)
def test_strong_isr_holds_with_tlc_counts(spec_name, replicas, distinct, generated, depth):
    r = run(spec_name, replicas)
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == (distinct, generated, depth)
    assert r.queue_left == 0


VIOLATED = [
    # spec, Replicas, states in the shortest counterexample (from the reference table)
    ("truncate-to-hw", 3, 9),
    ("kip101", 3, 11),
    ("kip279", 3, 11),
]


@pytest.mark.parametrize("spec_name,replicas,length", VIOLATED)
def test_strong_isr_violated_with_shortest_trace(spec_name, replicas, length):
    r = run(spec_name, replicas)
    assert r.result == "violated"
    (v,) = r.violations
    assert v.name == "StrongIsr"
    assert len(v.trace) == length
    assert v.trace[0].action is None
    # The last state really violates StrongIsr and no earlier one does.
    spec = load_spec(spec_name)
    inv = spec.invariant("StrongIsr")
    consts = build_constants(spec, (("Replicas", str(replicas)),))
    assert not inv.fn(consts, v.trace[-1].state)
    assert all(inv.fn(consts, step.state) for step in v.trace[:-1])


def test_truncate_to_hw_trace_is_the_hw_data_loss_case():
    """The reference lists the actions of TLC's trace; ours, found in the same BFS order, is that trace."""
    r = run("truncate-to-hw", 3)
    names = [step.action_name for step in r.violations[0].trace[1:]]
    assert names == [
        "ControllerElectLeader",
        "ControllerShrinkIsr",
        "BecomeLeader",
        "LeaderWrite",
        "BecomeFollowerTruncateToHighWatermark",
        "FollowerReplicate",
        "LeaderIncHighWatermark",
        "BecomeFollowerTruncateToHighWatermark",
    ]
