"""kraft-replication against TLC: the port of Vanlightly's kafka_replication_v3_5 counts as TLC counts.

Every expected number below is TLC 2.18's (one worker, breadth-first,
``-deadlock``) on the published TLA+ modules (``Vanlightly/kafka-tlaplus``,
``kafka_data_replication/kraft/v3.5``, with ``FiniteSetsExt`` and
``SequencesExt`` from ``tlaplus/CommunityModules``), run on the published
``kafka_replication_v3_5.cfg`` with only the named constants changed: its
seven invariants, and its ``VIEW view`` line unless ``View=False``.  The
table and how it was measured are in docs/kraft.md.

Where an invariant is violated TLC stops at the first violating state, and
the states it had counted then are not comparable (modelcheck finishes the
batch it is in); what is compared there is the invariant and the length of
the shortest trace, and, for configurations checked to the end with TLC's
``-continue`` (modelcheck's ``continue_after_violation``), the full counts.
"""

from __future__ import annotations

import pytest

import modelcheck
from modelcheck.errors import SpecRuntimeError, UsageError

SPEC = "kraft-replication"

NO_PERTURBATION = {"UncleanShutdownLimit": 0, "FenceBrokerLimit": 0}
TWO_BROKERS = {"BrokerCount": 2, "InitReplicationFactor": 2}


def check(constants: dict, **options):
    return modelcheck.check(SPEC, constants, memo=False, **options)


# (constants, distinct states, states generated, depth): TLC's counts where every invariant holds.
HOLDS = [
    pytest.param(NO_PERTURBATION, 1_163, 3_372, 25, id="published-no-unclean-no-fence"),
    pytest.param({**NO_PERTURBATION, "View": False}, 5_531, 14_267, 31, id="published-no-unclean-no-fence-no-view"),
    pytest.param({**NO_PERTURBATION, "InitReplicationFactor": 2, "InitIsrSize": 2, "ReassignmentLimit": 1},
                 11_005, 37_844, 29, id="rf2-one-reassignment"),
    pytest.param({**NO_PERTURBATION, "InitIsrSize": 3}, 128, 239, 17, id="published-full-isr"),
    pytest.param({**NO_PERTURBATION, "Values": 2}, 11_308, 35_205, 32, id="published-two-values"),
    pytest.param({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 2, "CleanShutdownLimit": 1, **NO_PERTURBATION},
                 938, 2_115, 22, id="two-brokers-clean-shutdown"),
    # Both kinds of shutdown: the view's ties (a clean and an unclean shutdown of an empty replica are one
    # state) make the counts depend on TLC's successor order, broker by broker (19,745 in action order).
    pytest.param({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 2, "CleanShutdownLimit": 1, "UncleanShutdownLimit": 1,
                  "FenceBrokerLimit": 0}, 19_505, 47_290, 38, id="two-brokers-clean-and-unclean-shutdown"),
    pytest.param({**TWO_BROKERS, "MinISR": 2, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "FenceBrokerLimit": 1},
                 33_794, 111_418, 36, id="two-brokers-minisr2-unclean-fence", marks=pytest.mark.slow),
    pytest.param({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "FenceBrokerLimit": 1},
                 34_745, 117_041, 35, id="two-brokers-minisr1-unclean-fence", marks=pytest.mark.slow),
    pytest.param({**NO_PERTURBATION, "LeaderShrinkIsrLimit": 1}, 55_946, 184_447, 32, id="published-one-isr-shrink",
                 marks=pytest.mark.slow),
    pytest.param({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 1, "UncleanShutdownLimit": 1, "FenceBrokerLimit": 1},
                 93_154, 306_905, 40, id="two-brokers-isr1-unclean-fence", marks=pytest.mark.slow),
]


@pytest.mark.slow
@pytest.mark.parametrize("constants, distinct, generated, depth", HOLDS)
def test_tlc_counts_where_the_invariants_hold(constants, distinct, generated, depth):
    r = check(constants)
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", distinct, generated, depth)


# The Last Replica Standing loss (AvoidLastReplicaStanding = FALSE): (constants, invariant, TLC's trace length).
LRS = {"UncleanShutdownLimit": 1, "AvoidLastReplicaStanding": False}
VIOLATED = [
    pytest.param({**TWO_BROKERS, **LRS, "MinISR": 1, "InitIsrSize": 1, "FenceBrokerLimit": 0},
                 "NoCommittedRecordLostGlobally", 5, id="two-brokers-isr1"),
    pytest.param({**TWO_BROKERS, **LRS, "MinISR": 1, "InitIsrSize": 2, "FenceBrokerLimit": 1},
                 "NoCommittedRecordLostGlobally", 5, id="two-brokers-fence"),
    pytest.param({**LRS, "MinISR": 1, "InitIsrSize": 1, "FenceBrokerLimit": 0},
                 "NoCommittedRecordLostGlobally", 5, id="three-brokers-isr1"),
    pytest.param({**LRS, "FenceBrokerLimit": 1}, "LeaderCompletenessProperty", 8, id="published-avoid-lrs-false"),
]


@pytest.mark.parametrize("constants, invariant, length", VIOLATED)
def test_tlc_finds_the_same_shortest_counterexample(constants, invariant, length):
    r = check(constants)
    assert r.result == "violated"
    assert (r.violation.name, len(r.violation.trace)) == (invariant, length)


def test_the_last_replica_standing_trace_is_tlcs():
    """The published constants with AvoidLastReplicaStanding = FALSE: TLC's 8-state trace, step by step.

    The controller fences b2, so the ISR is {b1} alone; b1 learns it and
    advances its high watermark over that ISR (the record is committed,
    though negatively acknowledged with MinISR = 2); b1 shuts down
    uncleanly and loses its log, stays the ISR's last member, restarts and
    is elected leader again, with an empty log.
    """
    r = check({**LRS, "FenceBrokerLimit": 1})
    assert [step.action for step in r.violation.trace[1:]] == [
        "WriteRecordToLeader(b=b1)", "FenceBroker(b=b2)", "ReceiveMetadataUpdate(b=b1)", "UncleanShutdown(b=b1)",
        "BrokerStart(b=b1)", "ReceiveBrokerRegRequest(b=b1)", "ReceiveBrokerRegResponse(b=b1)"]
    last = r.violation.trace[-1].state
    assert last.con_partition_metadata.leader == 1 and last.partition_data[0].log == ()
    assert last.inv_true_hwm == 2


def test_avoiding_the_last_replica_standing_keeps_every_invariant_on_two_brokers():
    r = check({**TWO_BROKERS, **LRS, "AvoidLastReplicaStanding": True, "MinISR": 1, "InitIsrSize": 1,
               "FenceBrokerLimit": 0})
    assert r.result == "holds"


# Checked to the end past the violations (TLC -continue): (constants, distinct, generated, depth).
CONTINUED = [
    pytest.param({**TWO_BROKERS, **LRS, "MinISR": 1, "InitIsrSize": 1, "FenceBrokerLimit": 0}, 5_718, 15_910, 30,
                 id="two-brokers-isr1"),
    pytest.param({**TWO_BROKERS, **LRS, "MinISR": 1, "InitIsrSize": 2, "FenceBrokerLimit": 1}, 43_873, 146_275, 35,
                 id="two-brokers-fence", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("constants, distinct, generated, depth", CONTINUED)
def test_tlc_counts_past_the_violations(constants, distinct, generated, depth):
    r = check(constants, continue_after_violation=True)
    assert (r.distinct_states, r.states_generated, r.depth) == (distinct, generated, depth)
    assert [(v.name, len(v.trace)) for v in r.violations] == [
        ("NoCommittedRecordLostGlobally", 5), ("LeaderCompletenessProperty", 8),
        ("LeaderCandidateCompletenessProperty", 8), ("ConsistentReadProperty", 9)]


@pytest.mark.slow
def test_workers_keep_tlcs_counts_under_the_view():
    r = check({**NO_PERTURBATION, "InitReplicationFactor": 2, "InitIsrSize": 2, "ReassignmentLimit": 1}, workers=2)
    assert (r.distinct_states, r.states_generated, r.depth) == (11_005, 37_844, 29)


@pytest.mark.slow
def test_the_spec_checks_itself_on_a_small_configuration():
    """TypeOK and the spec-bug checks (ValidBrokerState...) hold, which the .cfg does not check."""
    r = check({**NO_PERTURBATION, "InitReplicationFactor": 2, "InitIsrSize": 2, "ReassignmentLimit": 1},
              invariants=["TypeOK", "ValidBrokerState", "ValidReplicaState", "ValidFetcherState",
                          "ValidControllerState"])
    assert r.result == "holds"


def test_a_liveness_check_needs_the_view_off():
    with pytest.raises(UsageError, match="VIEW"):
        check(NO_PERTURBATION, properties=["EventuallyRuns"])


def test_the_assumes_are_enforced():
    with pytest.raises(UsageError):
        check({"InitIsrSize": 1})  # InitIsrSize >= MinISR (2)


LIVENESS = ["EventuallyRuns", "EventuallyUnfenced", "AlterPartitionEpochEventuallyReachedOrZero",
            "EventuallyMetadataConverges", "EventuallyWriteIsAcceptedOrRejected",
            "EventuallyAcknowledgedValueFullyReplicated", "EventuallyReassignmentCompletes"]


@pytest.mark.slow
def test_tlc_verdicts_on_the_liveness_properties_without_the_view():
    """TLC (SPECIFICATION LivenessSpec, no VIEW, each property alone): all seven hold, over 5,531 states."""
    r = check({**NO_PERTURBATION, "View": False}, properties=LIVENESS)
    assert (r.result, r.distinct_states, r.states_generated) == ("holds", 5_531, 14_267)


LRS_NO_VIEW = {**TWO_BROKERS, **LRS, "MinISR": 1, "InitIsrSize": 1, "FenceBrokerLimit": 0, "View": False}


@pytest.mark.slow
def test_tlc_verdicts_on_liveness_after_the_last_replica_standing_loss():
    """TLC: the acknowledged value, lost with the last replica, is never fully replicated (a lasso that ends
    stuttering; lassos need not be alike), while the metadata still converges over all 106,009 states."""
    r = check(LRS_NO_VIEW, properties=["EventuallyAcknowledgedValueFullyReplicated"])
    assert r.result == "violated" and r.violation.kind == "liveness"
    last = r.violation.trace[-1].state
    assert 1 in last.inv_pos_acked and not any(r.log for r in last.partition_data)
    r = check(LRS_NO_VIEW, properties=["EventuallyMetadataConverges"])
    assert (r.result, r.distinct_states, r.states_generated) == ("holds", 106_009, 235_059)


def test_where_tlc_stops_with_an_error_the_port_stops_too():
    """MinISR 1, two values: a leader alone in the ISR writes its second value and WriteRecordToLeader's
    SubSeq(LogOf(b), inv_true_hwm, new_hwm - 1) reads past the old log.  TLC stops ("The second argument of
    SubSeq must be in the domain of its first argument") after this same 4-state behaviour."""
    with pytest.raises(SpecRuntimeError, match="SubSeq") as err:
        check({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 2, "UncleanShutdownLimit": 1, "FenceBrokerLimit": 0,
               "Values": 2})
    assert err.value.where == "action WriteRecordToLeader(b=b1)"
    assert [step.action for step in err.value.trace[1:]] == [
        "WriteRecordToLeader(b=b1)", "UncleanShutdown(b=b2)", "ReceiveMetadataUpdate(b=b1)"]


@pytest.mark.spark
def test_spark_keeps_tlcs_counts_and_trace_where_the_view_has_ties(sc):
    """Both kinds of shutdown on two brokers: the view makes a clean and an unclean shutdown of an empty replica
    one state, so which one is kept (the first in TLC's breadth-first order) decides the counts.  The executors
    keep it too, on the memo tables; and the Last Replica Standing loss is TLC's 8-state trace."""
    both = {**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 2, "CleanShutdownLimit": 1, "UncleanShutdownLimit": 1,
            "FenceBrokerLimit": 0}
    r = modelcheck.check(SPEC, both, engine="spark", spark_context=sc)
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 19_505, 47_290, 38)
    r = modelcheck.check(SPEC, {**LRS, "FenceBrokerLimit": 1}, engine="spark", spark_context=sc)
    assert (r.violation.name, len(r.violation.trace)) == ("LeaderCompletenessProperty", 8)
    assert [step.action for step in r.violation.trace[1:]] == [
        "WriteRecordToLeader(b=b1)", "FenceBroker(b=b2)", "ReceiveMetadataUpdate(b=b1)", "UncleanShutdown(b=b1)",
        "BrokerStart(b=b1)", "ReceiveBrokerRegRequest(b=b1)", "ReceiveBrokerRegResponse(b=b1)"]
