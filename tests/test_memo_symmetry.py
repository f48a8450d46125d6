"""``--symmetry`` on the memo tables: the same orbits, counts, verdicts and traces as the spec's own code.

The tables expand as always and take each successor's orbit fingerprint
from the orbit trees (the spec's own ``signature`` and ``permute`` learnt
as decision trees, :mod:`modelcheck.memo.orbits`), or, where those cannot
say, from the spec's own functions, memoised by the state's own fingerprint
in the C loop; so every fingerprint a symmetric run keeps is the one the
spec's own code computes: a checkpoint written on one path resumes on the
other.  Each run here is compared with ``memo=False``, whose orbit counts
tests/test_symmetry.py checks against all n! permutations (TLC's definition).
"""

from __future__ import annotations

import json
import subprocess
import sys

import attrs
import numpy as np
import pytest

import modelcheck
from modelcheck.errors import SpecRuntimeError
from modelcheck.memo import orbits
from modelcheck.memo.orbits import KeyOrder, lehmer_index
from modelcheck.spec.loader import load_spec
from conftest import MODELS, ROOT, json_report as result_of, kill_once_checkpointed, needs_memo_tables, run_cli

pytestmark = needs_memo_tables

CONFIGS = [
    ("kip320", {"Replicas": 3, "MaxLeaderEpoch": 1}),
    ("kip101", {"Replicas": 3, "MaxLeaderEpoch": 1}),
    ("truncate-to-hw", {"Replicas": 3, "MaxLeaderEpoch": 1}),
    ("broker-failures", {"Replicas": 3, "Records": 1, "Crashes": 1}),
    (str(MODELS / "tcommit.py"), {}),
]


def _on_tables(r) -> bool:
    return (r.engine_report or {}).get("successors") == "memo tables"


def _summary(r) -> dict:
    return {"result": r.result, "distinct": r.distinct_states, "generated": r.states_generated, "depth": r.depth,
            "violations": [(v.kind, v.name, [step.state for step in v.trace]) for v in r.violations]}


@pytest.mark.parametrize("name, consts", CONFIGS, ids=[n.rsplit("/", 1)[-1] for n, _ in CONFIGS])
def test_symmetry_on_the_tables_answers_as_the_spec_s_own_code(name, consts):
    default = modelcheck.check(name, consts, symmetry=True, continue_after_violation=True)
    own = modelcheck.check(name, consts, symmetry=True, continue_after_violation=True, memo=False)
    assert _on_tables(default), default.warnings
    assert _summary(default) == _summary(own)
    assert default.distinct_states < modelcheck.check(name, consts, continue_after_violation=True).distinct_states


def test_with_workers_symmetry_runs_on_the_tables():
    r = modelcheck.check("kip320", {"MaxLeaderEpoch": 1}, symmetry=True, workers=2, continue_after_violation=True)
    own = modelcheck.check("kip320", {"MaxLeaderEpoch": 1}, symmetry=True, continue_after_violation=True, memo=False)
    assert _on_tables(r) and r.engine_report["threads"] == 2, r.successors_why
    assert r.engine_report["orbits"]["trees"]
    assert _summary(r) == _summary(own)



@pytest.mark.parametrize("written, resumed", [((), ("--no-memo",)), (("--no-memo",), ()),
                                               (("--workers", "2"), ("--workers", "2")),
                                               (("--workers", "2", "--no-memo"), ("--workers", "2"))],
                         ids=["tables-to-spec-code", "spec-code-to-tables", "threads-to-threads",
                              "processes-to-threads"])
def test_a_symmetric_checkpoint_resumes_on_the_other_path(tmp_path, written, resumed):
    """Both paths keep the orbit fingerprints the spec's own functions give, so a checkpoint of either resumes
    on the other with the uninterrupted run's counts (a different function would count orbits twice)."""
    args = ["check", "kip320", "--const", "MaxLeaderEpoch=1", "--symmetry"]
    expected = result_of(run_cli(*args, "-q", "--json", "--no-memo"))
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", *args, *written, "--checkpoint", str(tmp_path),
                          "--checkpoint-every", "0", "-q", "--json"],
                         cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_once_checkpointed(p, tmp_path, 9)
    out = run_cli(*args, *resumed, "-q", "--json", "--resume", str(tmp_path))
    assert result_of(out) == expected
    assert json.loads(out.stdout)["successors"]["path"] == ("the spec's own code" if "--no-memo" in resumed
                                                            else "memo tables")


def test_a_permute_that_fails_is_reported_as_on_the_spec_s_own_code():
    """The spec's ``permute`` raising on a successor met deep in the search: the same error and trace."""
    spec = load_spec("kip320")
    permute = spec.symmetry.permute

    def fragile(c, s, p):
        if s.quorum_state.leader_epoch == 1 and s.replica_log[0]:
            raise ValueError("no renaming for this one")
        return permute(c, s, p)

    broken = object.__new__(type(spec))
    broken.__dict__.update(spec.__dict__)
    broken.symmetry = attrs.evolve(spec.symmetry, permute=fragile)
    errors = {}
    for memo in (None, False):
        with pytest.raises(SpecRuntimeError) as err:
            modelcheck.check(broken, {"MaxLeaderEpoch": 1}, symmetry=True, memo=memo, preflight=False)
        errors[memo] = (str(err.value).splitlines()[0], len(err.value.trace or ()))
    assert errors[None] == errors[False]
    assert "symmetry" in errors[None][0]


COUNTERS = str(MODELS / "symmetric_counters.py")


def _orbit_report(r) -> dict:
    return (r.engine_report or {})["orbits"]


def test_the_orbit_trees_take_kip320_s_orbits():
    """Kip320's ``signature`` and ``permute`` learnt once per path, not run once per state met."""
    r = modelcheck.check("kip320", {"MaxLeaderEpoch": 1}, symmetry=True)
    report = _orbit_report(r)
    assert report["trees"] and report["why"] is None, report
    assert report["keys"] > 0 and report["evaluations"] * 4 < report["asked"], report
    assert not any("orbit" in w for w in r.warnings), r.warnings


@pytest.mark.parametrize("ref", ["kip320", "truncate-to-hw", "broker-failures"])
def test_the_orbit_trees_follow_renamed_set_on_traced_parts(ref):
    """``renamed_set`` (the spec API's, memoised for plain sets) is evaluated on traced parts when the trees
    learn a ``permute``: no preflight walk (as on a Spark executor) has filled its cache first."""
    from conftest import check
    from modelcheck.options import CheckOptions
    from modelcheck.spec.constants import build_constants

    spec = load_spec(ref)
    c = build_constants(spec, {"MaxLeaderEpoch": "1"} if ref == "kip320" else {})
    r = check(spec, c, CheckOptions(symmetry=True))
    own = check(spec, c, CheckOptions(symmetry=True), memo=False)
    assert _orbit_report(r)["trees"] and not any("orbit" in w for w in r.warnings), (_orbit_report(r), r.warnings)
    assert _summary(r) == _summary(own)


def test_renamed_set_gives_one_set_on_every_path():
    from modelcheck.spec.renamed import renamed_set

    perm = (2, 0, 1)
    assert renamed_set(perm, frozenset({0, 2})) == renamed_set(perm, (0, 2)) == frozenset({2, 1})
    assert renamed_set(perm, frozenset()) == frozenset()


@pytest.mark.parametrize("form", ["SPEC", "SPEC_ALL", "SPEC_UNRANKED", "SPEC_READS_ALL"])
@pytest.mark.parametrize("consts", [{}, {"N": 4, "Max": 3}], ids=["3x2", "4x3"])
def test_orbit_trees_with_equal_keys_no_signature_or_unranked_keys(form, consts):
    """Equal keys (the smallest over the renamings that sort them), no ``signature`` (all renamings), keys
    without a rank (the spec's own code asked for each orbit): the spec's own code's counts and traces."""
    default = modelcheck.check(f"{COUNTERS}:{form}", consts, symmetry=True, continue_after_violation=True)
    own = modelcheck.check(f"{COUNTERS}:{form}", consts, symmetry=True, continue_after_violation=True, memo=False)
    assert _on_tables(default) and _orbit_report(default)["trees"], default.engine_report
    assert _summary(default) == _summary(own)
    assert default.violations, "the invariant fails on every form"
    if form == "SPEC_UNRANKED":
        assert _orbit_report(default)["keys"] == 0


HELPER_CASES = [(n, c) for n, c in CONFIGS if not n.endswith("tcommit.py")] + [
    (f"{COUNTERS}:{form}", {"N": 4, "Max": 3}) for form in ("SPEC", "SPEC_ALL", "SPEC_UNRANKED", "SPEC_READS_ALL")]


@pytest.mark.parametrize("route", ["only_helpers", "own_ring"])
@pytest.mark.parametrize("name, consts", HELPER_CASES, ids=[n.rsplit("/", 1)[-1] for n, _ in HELPER_CASES])
def test_every_parent_through_a_helper_takes_the_spec_s_orbits(name, consts, route):
    """With ``--workers``, a helper takes its candidates' orbits by the orbit trees alone (no cache, no Python)
    and gives the parent back where they cannot say (a branch not learnt, a key without a rank): whichever
    parents it reaches, the orbits, counts and traces are the spec's own code's.  ``only_helpers`` sends
    every parent through a helper, ``own_ring`` through the ring the loop fills ahead of its turn."""
    from modelcheck.memo.backend import MemoBackend
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.search.driver import LevelDriver
    from modelcheck.spec.constants import build_constants

    spec = load_spec(name)
    options = dict(symmetry=True, continue_after_violation=True)
    model = BoundModel(spec, build_constants(spec, consts), CheckOptions(**options))
    backend = MemoBackend(model, threads=2, **{route: True})
    result = LevelDriver(model, backend).run()
    report = backend.engine_report()
    own = modelcheck.check(name, consts, memo=False, **options)
    assert _summary(result) == _summary(own)
    done = report["helper_parents" if route == "only_helpers" else "committer_ahead"]
    if name.endswith(("UNRANKED", "READS_ALL")):  # no key ranked / a leaf per state: every parent comes back
        assert done["prepared"] == 0 and done["given_back"] > 0, report
    else:
        assert done["prepared"] > 0 and report["orbits"]["trees"], report



def test_a_signature_s_orbits_are_every_renaming_s():
    """An independent count: sorting by the ``signature`` finds as many orbits as trying all n! renamings."""
    for consts in ({}, {"N": 4, "Max": 3}):
        sorted_ = modelcheck.check(f"{COUNTERS}:SPEC", consts, symmetry=True)
        every = modelcheck.check(f"{COUNTERS}:SPEC_ALL", consts, symmetry=True, memo=False)
        assert (sorted_.distinct_states, sorted_.states_generated) == (every.distinct_states, every.states_generated)


def test_orbit_trees_that_learn_too_much_stand_aside(monkeypatch):
    """A ``permute`` that reads the whole state has a leaf per state: the route stands aside, with its reason,
    and the spec's own code takes the orbits from there on."""
    monkeypatch.setattr(orbits, "GIVE_WAY_AFTER", 50)
    consts = {"N": 4, "Max": 3}
    default = modelcheck.check(f"{COUNTERS}:SPEC_READS_ALL", consts, symmetry=True, continue_after_violation=True)
    own = modelcheck.check(f"{COUNTERS}:SPEC_READS_ALL", consts, symmetry=True, continue_after_violation=True,
                           memo=False)
    report = _orbit_report(default)
    assert not report["trees"] and "evaluations of the spec's signature and permute" in report["why"], report
    assert [w for w in default.warnings if w.startswith("the orbit trees stood aside")] == [
        f"the orbit trees stood aside ({report['why']}); the spec's own signature and permute took the orbits"]
    assert _on_tables(default) and _summary(default) == _summary(own)


def test_a_wrong_orbit_is_caught_by_the_sampled_parents(monkeypatch):
    """Ranks that do not follow Python's order give other orbits: the sampled parents compare each orbit
    fingerprint with the spec's own code's, and the tables stand aside for the spec's own code."""
    real = KeyOrder.id_of

    def reversed_ranks(self, key, item=0):
        got = real(self, key, item)
        ids = self.sorted_ids[item]
        self.rank[np.array(ids, np.int64)] = np.arange(len(ids))[::-1]
        return got

    monkeypatch.setattr(KeyOrder, "id_of", reversed_ranks)
    r = modelcheck.check("kip320", {"MaxLeaderEpoch": 1}, symmetry=True)
    own = modelcheck.check("kip320", {"MaxLeaderEpoch": 1}, symmetry=True, memo=False)
    assert not _on_tables(r) and any("orbit" in w and "not the spec's own code's" in w for w in r.warnings), r.warnings
    assert (r.distinct_states, r.states_generated) == (own.distinct_states, own.states_generated)


@pytest.mark.parametrize("keys", [
    [(1, "a"), (0, "b"), (1, "a", ()), (1,), (0, "a"), (-0.5, "z"), (True, "a")],
    [3, 1.5, True, 0, -2, 2.0],
    ["b", "a", "ab", ""],
    [((), 1), ((1, 2), 0), ((1,), 5)],
    [(None, 1), (None, 0), (None, 0.5)],
])
def test_key_ranks_follow_python_s_order(keys):
    order = KeyOrder()
    ids = [order.id_of(k) for k in keys]
    assert all(ids)
    by_rank = sorted(range(len(keys)), key=lambda j: (order.rank[ids[j]], j))
    assert by_rank == sorted(range(len(keys)), key=keys.__getitem__)
    for a in range(len(keys)):
        for b in range(len(keys)):
            assert (order.rank[ids[a]] == order.rank[ids[b]]) == (keys[a] == keys[b])


@pytest.mark.parametrize("later", [frozenset({1}), float("nan"), ("a",), [1], (1, 2.5j), None])
def test_a_key_python_cannot_order_with_the_others_has_no_rank(later):
    order = KeyOrder()
    assert order.id_of((1,)) > 0
    assert order.id_of(later) == 0


def test_renamings_are_numbered_as_itertools_lists_them():
    import itertools
    for n in range(1, 6):
        assert [lehmer_index(p) for p in itertools.permutations(range(n))] == list(range(len(list(
            itertools.permutations(range(n))))))


def test_more_values_than_the_trees_take_stand_them_aside_quietly(monkeypatch):
    """Past ``MAX_VALUES`` interchangeable values (n! renamings, a tree each) the spec's own functions take
    every orbit, by design: said in --json, without a note."""
    monkeypatch.setattr(orbits, "MAX_VALUES", 2)
    default = modelcheck.check(f"{COUNTERS}:SPEC", {}, symmetry=True, continue_after_violation=True)
    own = modelcheck.check(f"{COUNTERS}:SPEC", {}, symmetry=True, continue_after_violation=True, memo=False)
    report = _orbit_report(default)
    assert not report["trees"] and report["why"] == "3 interchangeable values, more than 2", report
    assert _on_tables(default) and _summary(default) == _summary(own)
    assert not any("orbit" in w for w in default.warnings), default.warnings
