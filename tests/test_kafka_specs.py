"""The Kafka specs beyond the reference table: published-spec findings, independent cross-checks."""

from __future__ import annotations

import pytest

from modelcheck.spec.constants import build_constants
from conftest import check
from modelcheck.spec.loader import load_spec, registered_specs
from modelcheck.options import CheckOptions
from naive import naive_explore

KAFKA = ["truncate-to-hw", "kip101", "kip279", "kip320-first-try", "kip320"]


def consts_for(spec, **values):
    return build_constants(spec, tuple((k, str(v)) for k, v in values.items()))


def test_every_variant_is_registered():
    assert set(KAFKA + ["async-isr"]) <= set(registered_specs())


def test_leader_in_isr_as_published_is_violated_by_the_initial_state():
    """A finding of the published spec: quorumState.leader starts as None, which is not in the ISR."""
    spec = load_spec("kip320")
    r = check(spec, consts_for(spec, Replicas=2), CheckOptions(invariants=("LeaderInIsr",)))
    assert r.result == "violated"
    assert r.violations[0].name == "LeaderInIsr"
    assert len(r.violations[0].trace) == 1


def test_corrected_leader_in_isr_holds_for_kip320():
    spec = load_spec("kip320")
    r = check(spec, consts_for(spec, Replicas=2), CheckOptions(invariants=("LeaderInIsrWhenElected", "TypeOk", "WeakIsr")))
    assert r.result == "holds", r.violations[:1]


@pytest.mark.parametrize("name", KAFKA)
def test_type_ok_holds_on_two_replicas(name):
    spec = load_spec(name)
    r = check(spec, consts_for(spec, Replicas=2), CheckOptions(invariants=("TypeOk",)))
    assert r.result == "holds"


@pytest.mark.parametrize(
    "name,values",
    [
        ("truncate-to-hw", dict(Replicas=2)),
        ("kip101", dict(Replicas=2, LogSize=1)),
        ("kip279", dict(Replicas=2, MaxLeaderEpoch=1)),
        ("kip320-first-try", dict(Replicas=2)),
        ("kip320", dict(Replicas=2, MaxRecords=1)),
        ("async-isr", dict(Replicas=2, MaxOffset=2, MaxVersion=2)),
    ],
)
def test_counts_agree_with_a_naive_explorer(name, values):
    spec = load_spec(name)
    c = consts_for(spec, **values)
    r = check(spec, c, CheckOptions(invariants=()))
    expected = naive_explore(spec, c)
    assert (r.distinct_states, r.states_generated, r.depth) == (
        expected["distinct"], expected["generated"], expected["depth"]
    )


def test_symmetry_reduces_and_keeps_the_violation_length():
    spec = load_spec("truncate-to-hw")
    c = consts_for(spec)
    plain = check(spec, c, CheckOptions())
    reduced = check(spec, c, CheckOptions(symmetry=True))
    assert reduced.result == "violated"
    assert len(reduced.violations[0].trace) == len(plain.violations[0].trace) == 9
    assert reduced.distinct_states < plain.distinct_states


@pytest.mark.slow
def test_kip320_symmetry_orbit_count_matches_tlc():
    """TLC with SYMMETRY Permutations(Replicas) reports 123,311 distinct states (the reference table)."""
    spec = load_spec("kip320")
    r = check(spec, consts_for(spec), CheckOptions(symmetry=True))
    assert r.result == "holds"
    assert r.distinct_states == 123_311


def test_async_isr_valid_high_watermark_holds_within_bounds():
    spec = load_spec("async-isr")
    r = check(spec, consts_for(spec, Replicas=3, MaxOffset=1, MaxVersion=2), CheckOptions(invariants=("TypeOk", "ValidHighWatermark")))
    assert r.result == "holds"
    assert r.distinct_states > 1


def test_kip320_first_try_violates_strong_isr():
    """The module's own notes say the first try fails StrongIsr."""
    spec = load_spec("kip320-first-try")
    r = check(spec, consts_for(spec), CheckOptions())
    assert r.result == "violated" and r.violations[0].name == "StrongIsr"
