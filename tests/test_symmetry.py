"""Orbit fingerprints by sorted permutations (a spec's symmetry signature) against all n! permutations.

Both functions must count exactly the same orbits: the all-permutations one
is TLC's definition (and reproduces TLC's 123,311 for Kip320), so it is the
independent reference for the signature-based one on every symmetric spec.
"""

from __future__ import annotations

import itertools
import random

import attrs
import pytest

from conftest import MODELS, run_cli
from modelcheck.spec.constants import build_constants
from conftest import check
from modelcheck.spec.loader import load_spec
from modelcheck.model.bound import BoundModel
from modelcheck.model.preflight import sample_states
from modelcheck.options import CheckOptions
from modelcheck.spec.declare import Spec
from modelcheck.model.symmetry import min_over_all, min_over_sorted


def without_signature(spec: Spec) -> Spec:
    """The same spec, fingerprinting orbits by all permutations."""
    clone = object.__new__(Spec)
    clone.__dict__.update(spec.__dict__)
    clone.symmetry = attrs.evolve(spec.symmetry, signature=None)
    return clone


CONFIGS = [
    ("kip320", {"Replicas": "3", "MaxLeaderEpoch": "1"}),
    ("kip279", {"Replicas": "3", "MaxRecords": "1", "MaxLeaderEpoch": "1"}),
    ("kip101", {"Replicas": "3", "MaxLeaderEpoch": "1"}),
    ("truncate-to-hw", {"Replicas": "3", "MaxLeaderEpoch": "1"}),
    ("broker-failures", {"Replicas": "3", "Records": "1", "Crashes": "1"}),
    ("broker-failures", {"Replicas": "3", "Records": "1", "Crashes": "2", "Truncation": "kip279"}),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,consts", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_sorted_permutations_count_the_same_orbits_as_all_permutations(name, consts):
    spec = load_spec(name)
    assert spec.symmetry is not None and spec.symmetry.signature is not None
    c = build_constants(spec, tuple(consts.items()))
    opts = CheckOptions(symmetry=True, continue_after_violation=True)
    fast = check(spec, c, opts)
    reference = check(without_signature(spec), c, opts)
    assert (fast.distinct_states, fast.states_generated, fast.depth) == (
        reference.distinct_states, reference.states_generated, reference.depth)
    assert [v.name for v in fast.violations] == [v.name for v in reference.violations]
    # and symmetry really reduced something
    assert fast.distinct_states < check(spec, c, CheckOptions(continue_after_violation=True)).distinct_states


def test_orbit_fingerprint_is_constant_on_orbits_and_separates_them():
    spec = load_spec("kip320")
    c = build_constants(spec, (("Replicas", "3"),))
    model = BoundModel(spec, c, CheckOptions(symmetry=True))
    sym = spec.symmetry
    perms = list(itertools.permutations(range(3)))
    by_sorted = min_over_sorted(c, sym.permute, sym.signature, 3)
    by_all = min_over_all(c, sym.permute, perms)
    states = sample_states(model, 3000)
    rng = random.Random(7)
    for s in rng.sample(states, 300):
        fps = {by_sorted(sym.permute(c, s, p)) for p in perms}
        assert len(fps) == 1  # one fingerprint per orbit
    # Two states share a sorted fingerprint exactly when they share TLC's (all-permutations) one.
    groups_sorted: dict[int, set[int]] = {}
    for s in states:
        groups_sorted.setdefault(by_sorted(s), set()).add(by_all(s))
    assert all(len(v) == 1 for v in groups_sorted.values())
    assert len(groups_sorted) == len({by_all(s) for s in states})


@pytest.mark.slow
def test_a_signature_that_renaming_does_not_carry_is_refused():
    p = run_cli("check", str(MODELS / "broken" / "bad_signature.py"), "--symmetry", "-q")
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "symmetry signature of value" in lines[0] and "unsound" in lines[0]
    assert "Traceback" not in p.stderr
    # Without --symmetry the signature is not used and the spec checks fine.
    assert run_cli("check", str(MODELS / "broken" / "bad_signature.py"), "-q").returncode == 0
