"""kraft-elr against TLC: the port of Vanlightly's kafka_replication_kip_966 counts as TLC counts.

Every expected number below is TLC's, measured for this port (TLC 2.20,
rev. 96056d9, one worker, breadth-first, ``-deadlock``) on the published TLA+
modules (``Vanlightly/kafka-tlaplus``,
``kafka_data_replication/kraft/kip-966``, with ``FiniteSetsExt`` and
``SequencesExt`` from ``tlaplus/CommunityModules``), run on the published
``kafka_replication_kip_966.cfg`` with only the named constants changed: its
eight invariants (or the ones named), and its ``VIEW view`` line unless
``View=False``.  The table and how it was measured are in docs/kraft.md.

Where an invariant is violated TLC stops at the first violating state, and
the states it had counted then are not comparable (modelcheck finishes the
batch it is in); what is compared there is the invariant and the length of
the shortest trace, and, checked to the end with TLC's ``-continue``
(modelcheck's ``continue_after_violation``), the full counts.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import modelcheck
from modelcheck.errors import UsageError
from modelcheck.specs import kraft_elr
from modelcheck.specs.kraft_elr_state import ElrConstants
from modelcheck.specs.kraft_state import NoLeader

SPEC = "kraft-elr"

NO_PERTURBATION = {"DataLossShutdownLimit": 0, "FenceBrokerLimit": 0}
TWO_BROKERS = {"BrokerCount": 2, "InitReplicationFactor": 2}
SEVEN = ["LeaderCompletenessProperty", "LeaderCandidateCompletenessProperty", "ReplicationQuorumSupersetProperty",
         "LogMatchingProperty", "MetadataLogMatchingProperty", "ConsistentReadProperty", "MinIsrRecoveryQuorum"]
"""The .cfg's invariants without NoCommittedRecordLostGlobally, which its comment says to leave out when
MinISR = DataLossShutdownLimit (the loss of every replica of a record is then within the model's bounds)."""


def check(constants: dict, **options):
    return modelcheck.check(SPEC, constants, memo=False, **options)


# (constants, invariants (None: the .cfg's), distinct states, states generated, depth): TLC's counts where every
# invariant holds.
HOLDS = [
    pytest.param(NO_PERTURBATION, None, 1_163, 3_372, 25, id="published-no-data-loss-no-fence"),
    pytest.param({**NO_PERTURBATION, "View": False}, None, 5_531, 14_267, 31, id="no-data-loss-no-fence-no-view"),
    pytest.param({**NO_PERTURBATION, "InitIsrSize": 3}, None, 128, 239, 17, id="published-full-isr"),
    pytest.param({**NO_PERTURBATION, "InitReplicationFactor": 2, "ReassignmentLimit": 1}, None,
                 11_005, 37_844, 29, id="rf2-one-reassignment"),
    pytest.param({**TWO_BROKERS, **NO_PERTURBATION, "MinISR": 1, "NoDataLossShutdownLimit": 1}, None,
                 1_079, 2_428, 22, id="two-brokers-minisr1-no-data-loss-shutdown"),
    pytest.param({**TWO_BROKERS, **NO_PERTURBATION, "MinISR": 2, "NoDataLossShutdownLimit": 1}, None,
                 7_284, 18_645, 28, id="two-brokers-minisr2-no-data-loss-shutdown"),
    pytest.param({**TWO_BROKERS, "MinISR": 2, "DataLossShutdownLimit": 0, "FenceBrokerLimit": 1}, None,
                 1_215, 3_204, 22, id="two-brokers-minisr2-fence"),
    pytest.param({**TWO_BROKERS, "MinISR": 1, "DataLossShutdownLimit": 1, "FenceBrokerLimit": 0}, None,
                 945, 2_141, 25, id="two-brokers-minisr1-data-loss"),
    pytest.param({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 1, "DataLossShutdownLimit": 1, "FenceBrokerLimit": 0},
                 SEVEN, 4_428, 11_551, 30, id="two-brokers-isr1-data-loss-seven-invariants"),
    pytest.param({**NO_PERTURBATION, "Values": 2}, None, 11_308, 35_205, 32, id="published-two-values"),
    pytest.param({**NO_PERTURBATION, "LeaderShrinkIsrLimit": 1}, None, 43_095, 143_757, 31,
                 id="published-one-isr-shrink", marks=pytest.mark.slow),
    # The last replica standing of kraft-replication's story, with the ELR: it holds (docs/kraft.md).
    pytest.param({**TWO_BROKERS, "MinISR": 2}, None, 282_201, 955_033, 41, id="two-brokers-minisr2-data-loss-fence",
                 marks=pytest.mark.slow),
    # Both kinds of shutdown: ties under the view make the counts depend on TLC's successor order.
    pytest.param({**TWO_BROKERS, "MinISR": 2, "NoDataLossShutdownLimit": 1, "DataLossShutdownLimit": 1,
                  "FenceBrokerLimit": 0}, None, 388_330, 1_129_330, 45, id="two-brokers-minisr2-both-shutdowns",
                 marks=pytest.mark.slow),
]


@pytest.mark.slow
@pytest.mark.parametrize("constants, invariants, distinct, generated, depth", HOLDS)
def test_tlc_counts_where_the_invariants_hold(constants, invariants, distinct, generated, depth):
    r = check(constants, invariants=invariants)
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", distinct, generated, depth)


# (constants, invariant, TLC's trace length, TLC's actions).
WRITE_COMMIT_LOSE = ["WriteRecordToLeader(b=b1)", "SendFetchRequest(b=b2)", "ReceiveFetchRequest(b=b1)",
                     "DataLossShutdown(b=b1)"]
VIOLATED = [
    pytest.param({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 1, "DataLossShutdownLimit": 1, "FenceBrokerLimit": 0},
                 "NoCommittedRecordLostGlobally", WRITE_COMMIT_LOSE, id="two-brokers-isr1"),
    pytest.param({"MinISR": 1, "InitIsrSize": 1, "DataLossShutdownLimit": 1, "FenceBrokerLimit": 0},
                 "NoCommittedRecordLostGlobally", WRITE_COMMIT_LOSE, id="three-brokers-isr1"),
    pytest.param({**TWO_BROKERS, "MinISR": 1}, "NoCommittedRecordLostGlobally",
                 ["WriteRecordToLeader(b=b1)", "FenceBroker(b=b2)", "ReceiveMetadataUpdate(b=b1)",
                  "DataLossShutdown(b=b1)"], id="two-brokers-minisr1-fence"),
]


@pytest.mark.parametrize("constants, invariant, actions", VIOLATED)
def test_tlc_finds_the_same_shortest_counterexample(constants, invariant, actions):
    r = check(constants)
    assert r.result == "violated"
    assert (r.violation.name, [step.action for step in r.violation.trace[1:]]) == (invariant, actions)


# Checked to the end past the violations (TLC -continue): (constants, distinct, generated, depth).  Only
# NoCommittedRecordLostGlobally is violated: MinISR = DataLossShutdownLimit = 1, so an acknowledged record can have
# had one replica, and it lost its log.
CONTINUED = [
    pytest.param({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 1, "DataLossShutdownLimit": 1, "FenceBrokerLimit": 0},
                 4_428, 11_551, 30, id="two-brokers-isr1"),
    pytest.param({**TWO_BROKERS, "MinISR": 1}, 40_719, 135_398, 35, id="two-brokers-minisr1-fence",
                 marks=pytest.mark.slow),
]


@pytest.mark.slow
@pytest.mark.parametrize("constants, distinct, generated, depth", CONTINUED)
def test_tlc_counts_past_the_violations(constants, distinct, generated, depth):
    r = check(constants, continue_after_violation=True)
    assert (r.distinct_states, r.states_generated, r.depth) == (distinct, generated, depth)
    assert [(v.name, len(v.trace)) for v in r.violations] == [("NoCommittedRecordLostGlobally", 5)]


def _run(s, c, *steps):
    """Follow ``steps`` (action, broker), each having exactly one successor."""
    for fn, b in steps:
        out = fn(c, s, b)
        out = [out] if not isinstance(out, list) else out
        assert len(set(out)) == 1, (fn.__name__, b, len(out))
        s = out[0]
    return s


def test_the_last_replica_standing_schedule_leaves_the_partition_offline_not_led_by_an_empty_log():
    """kraft-replication's Last Replica Standing schedule, replayed step by step on kraft-elr.

    b1 writes; b2 is fenced, so the ISR is {b1} and b2 joins the ELR; b1
    learns it but cannot advance its high watermark (its ISR is below
    MinISR), so nothing is committed; b1 loses its log and registers again
    without a saved broker epoch, so the controller takes it out of the ELR
    (into the last known ELR) and elects nobody: the partition waits for
    b2.  Nothing committed was lost, and no replica without it leads.
    """
    c = ElrConstants(BrokerCount=2, InitReplicationFactor=2, MinISR=2)
    (s,) = kraft_elr.init(c)
    s = _run(s, c, (kraft_elr.write_record_to_leader, 1), (kraft_elr.fence_broker, 2),
             (kraft_elr.receive_metadata_update, 1), (kraft_elr.data_loss_shutdown, 1), (kraft_elr.broker_start, 1),
             (kraft_elr.receive_broker_reg_request, 1))
    md = s.con_partition_metadata
    assert (md.leader, md.isr, md.elr, md.last_known_elr) == (NoLeader, frozenset(), {2}, {1})
    assert s.inv_true_hwm == 1 and not s.inv_pos_acked
    assert s.partition_data[1].log == () and s.partition_data[0].log == ()


@pytest.mark.slow
def test_tlc_finds_the_elr_overlapping_the_isr():
    """A finding of the published spec: ValidControllerIsrAndElr (a spec-bug check the .cfg does not run) fails.

    The controller accepts an ISR that takes back an ELR member while staying below MinISR, and UpdateElr
    keeps that member in the ELR.  TLC (``MinISR=3 InitIsrSize=3``, INVARIANT ValidControllerIsrAndElr): this
    same 9-state trace.
    """
    r = check({"MinISR": 3, "InitIsrSize": 3}, invariants=["ValidControllerIsrAndElr"])
    assert r.result == "violated"
    assert [step.action for step in r.violation.trace[1:]] == [
        "SendFetchRequest(b=b2)", "ReceiveFetchRequest(b=b1)", "FenceBroker(b=b2)", "UnfenceBroker(b=b2)",
        "DataLossShutdown(b=b3)", "ReceiveMetadataUpdate(b=b1)", "SendAlterPartitionRequest(b=b1)",
        "ReceiveAlterPartitionRequest(b=b1)"]
    md = r.violation.trace[-1].state.con_partition_metadata
    assert (md.isr, md.elr) == ({1, 2}, {2, 3})


@pytest.mark.slow
def test_the_last_replica_standing_story_as_printed():
    """docs/kraft.md's story command on kraft-replication: exit status 1, LeaderCompletenessProperty in 8 states
    (TLC, on the v3.5 modules with these constants: the same 8 states)."""
    out = subprocess.run([sys.executable, "-m", "modelcheck", "check", "kraft-replication", "--const", "BrokerCount=2",
                          "--const", "InitReplicationFactor=2", "--const", "AvoidLastReplicaStanding=false"],
                         capture_output=True, text=True)
    assert out.returncode == 1
    assert "Invariant LeaderCompletenessProperty is violated" in out.stdout
    assert "(8 states)" in out.stdout


def test_the_spec_checks_itself_on_a_small_configuration():
    """TypeOK and the spec-bug checks (ValidControllerIsrAndElr...) hold, which the .cfg does not check."""
    r = check({**TWO_BROKERS, "MinISR": 2, "DataLossShutdownLimit": 0, "FenceBrokerLimit": 1},
              invariants=["TypeOK", "ValidBrokerState", "ValidReplicaState", "ValidFetcherState",
                          "ValidControllerState", "ValidControllerIsrAndElr"])
    assert r.result == "holds"


def test_a_liveness_check_needs_the_view_off():
    with pytest.raises(UsageError, match="VIEW"):
        check(NO_PERTURBATION, properties=["EventuallyRuns"])


def test_the_assumes_are_enforced():
    with pytest.raises(UsageError):
        check({"InitIsrSize": 1})  # InitIsrSize >= MinISR (2)


FENCE_NO_VIEW = {**TWO_BROKERS, "MinISR": 2, "DataLossShutdownLimit": 0, "FenceBrokerLimit": 1, "View": False}


@pytest.mark.slow
def test_tlc_verdicts_on_liveness_with_fencing():
    """TLC (SPECIFICATION LivenessSpec, no VIEW, no invariants, each property alone): both hold over 11,964
    states (28,460 generated)."""
    for prop in ("EventuallyUnfenced", "EventuallyMetadataConverges"):
        r = check(FENCE_NO_VIEW, invariants=[], properties=[prop])
        assert (r.result, r.distinct_states, r.states_generated) == ("holds", 11_964, 28_460)


@pytest.mark.slow
def test_tlc_verdict_on_liveness_after_losing_the_only_replica():
    """TLC: the acknowledged value, lost with its only replica, is never fully replicated (TLC's lasso has 12
    states ending in stuttering; lassos need not be alike)."""
    r = check({**TWO_BROKERS, "MinISR": 1, "InitIsrSize": 1, "DataLossShutdownLimit": 1, "FenceBrokerLimit": 0,
               "View": False}, invariants=[], properties=["EventuallyAcknowledgedValueFullyReplicated"])
    assert r.result == "violated" and r.violation.kind == "liveness"
    last = r.violation.trace[-1].state
    assert 1 in last.inv_pos_acked and not any(pd.log for pd in last.partition_data)
