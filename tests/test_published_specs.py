"""The ports of published TLA+ specifications (bench/published/): TLC's counts, on both search paths.

Each spec of the suite is checked on a configuration small enough to run in
seconds, on the default path (the memo tables) and with ``memo=False`` (every
successor by the spec's own code).  The expected counts come from outside
modelcheck: from the ``manifest.json`` of the spec's folder in tlaplus/Examples,
where it records a model this small (copied into ``bench/published/SUITE``), and
otherwise from ``tests/naive.py``'s independent explorer.  MultiPaxos's manifest
model (343,796 states under its SYMMETRY) takes about two minutes a run, so it is
marked slow; PaxosCommit's (1,321,761 states) takes far longer on ``memo=False``
and is left to ``bench/vs_tlc.py --suite published``, which checks it against the
manifest and TLC.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import modelcheck
import naive_liveness as nl
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec
from conftest import INTERPRETED
from naive import naive_explore

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "bench" / "published"


def _suite() -> list[dict]:
    spec = importlib.util.spec_from_file_location("published_suite", PUBLISHED / "__init__.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod.SUITE


SUITE = {entry["name"]: entry for entry in _suite()}


def path_of(name: str) -> str:
    return str(PUBLISHED / f"{SUITE[name]['module']}.py")


def counts(r) -> tuple[int, int, int]:
    return r.distinct_states, r.states_generated, r.depth


def check_both(name: str, constants: dict, **options) -> tuple[int, int, int]:
    """Check on the default path and with memo=False; both must hold with the same counts."""
    fast = modelcheck.check(path_of(name), constants, **options)
    slow = modelcheck.check(path_of(name), constants, memo=False, **options)
    assert fast.result == "holds", fast.violation
    assert slow.result == "holds", slow.violation
    assert counts(fast) == counts(slow)
    if not options.get("properties") and not options.get("symmetry") and not INTERPRETED:
        # The tables serve the whole run when asked to (``memo=True``: they do not give way where they learn
        # too much, as the default path does on the message-set specs), with the same counts; they would fall
        # back to the spec's code, with a warning, if their own verification found them wrong.  With
        # MODELCHECK_INTERPRETED set they stand aside.
        tables = fast if fast.successors == "memo tables" else modelcheck.check(path_of(name), constants,
                                                                                 memo=True, **options)
        memo = tables.to_json()["memo"]
        assert memo is not None and memo["successors"] == "memo tables", tables.to_json()["warnings"]
        assert tables.result == "holds" and counts(tables) == counts(slow)
    return counts(fast)


def naive_counts(name: str, constants: dict) -> tuple[int, int, int]:
    spec = load_spec(path_of(name))
    c = build_constants(spec, tuple((k, str(v)) for k, v in constants.items()))
    n = naive_explore(spec, c)
    return n["distinct"], n["generated"], n["depth"]


def manifest_counts(name: str) -> tuple[int, int, int]:
    m = SUITE[name]["manifest"]
    return m["distinct"], m["generated"], SUITE[name].get("tlc_depth", m["depth"])


# --- the manifests' own models ------------------------------------------------------------

@pytest.mark.parametrize("name", ["tcommit", "twophase"])
def test_manifest_model_counts(name):
    """TCommit.cfg (34 / 94 / 7) and TwoPhase.cfg (288 / 1,146 / 11), as the manifest records them."""
    e = SUITE[name]
    assert check_both(name, e["constants"], invariants=e["invariants"]) == manifest_counts(name)


def test_ewd840_manifest_model_counts():
    """EWD840.cfg, N = 3: the manifest's 302 distinct states and 2,001 generated.

    The manifest records depth 10; TLC 2.20 reports 9 for the same model, with or
    without its properties, and so does the naive explorer, which counts the
    192 initial states as depth 1, as TLC does.
    """
    e = SUITE["ewd840"]
    got = check_both("ewd840", e["constants"], invariants=e["invariants"])
    assert got[:2] == (e["manifest"]["distinct"], e["manifest"]["generated"])
    assert got == naive_counts("ewd840", e["constants"])
    assert got[2] == e["tlc_depth"]


def test_ewd840_liveness_holds_under_its_fairness():
    """Liveness (terminated ~> terminationDetected) holds under WF(System), as TLC finds on EWD840.cfg."""
    e = SUITE["ewd840"]
    r = modelcheck.check(path_of("ewd840"), e["constants"], invariants=e["invariants"], properties=["Liveness"])
    assert r.result == "holds", r.violation
    assert counts(r)[:2] == (e["manifest"]["distinct"], e["manifest"]["generated"])


@pytest.mark.parametrize("n", [2, 3])
def test_ewd840_liveness_verdicts_match_the_naive_oracle(n):
    """The oracle agrees: Liveness holds with the fairness, and fails without it (the token may stop)."""
    spec = load_spec(path_of("ewd840"))
    c = build_constants(spec, (("N", str(n)),))
    g = nl.build_graph(spec, c)
    assert nl.check_property(spec, c, "Liveness", g) is None
    assert nl.check_formula(g, [], spec.property("Liveness").fn(c), c) is not None
    r = modelcheck.check(path_of("ewd840"), {"N": n}, properties=["Liveness"])
    assert r.result == "holds"
    assert len(g.states) == r.distinct_states


def test_ewd840_non_properties_are_violated():
    """The spec's own non-properties: TokenAlwaysBlack and NeverChangeColor fail, as the TLA+ comments say."""
    r = modelcheck.check(path_of("ewd840"), {"N": 3}, invariants=["TokenAlwaysBlack"])
    assert r.result == "violated"
    r = modelcheck.check(path_of("ewd840"), {"N": 3}, properties=["NeverChangeColor"])
    assert r.result == "violated"


# --- smaller models of the large specs, against the naive explorer ------------------------

SMALL = [
    ("tcommit", {"RM": 4}),
    ("twophase", {"RM": "{r1, r2, r3, r4}"}),
    ("ewd840", {"N": 4}),
    ("paxos-commit", {"RM": 1, "Acceptor": 3, "MaxBallot": 1}),
    ("paxos-commit", {"RM": 2, "Acceptor": 1, "MaxBallot": 1}),
    ("paxos-commit", {"RM": 1, "Acceptor": 1, "MaxBallot": 2}),
    ("paxos-commit-bits", {"RM": 1, "Acceptor": 3, "MaxBallot": 1}),
    ("paxos-commit-bits", {"RM": 2, "Acceptor": 1, "MaxBallot": 1}),
    ("paxos-commit-bits", {"RM": 1, "Acceptor": 1, "MaxBallot": 2}),
    ("multipaxos", {"Replicas": 2, "Writes": 1, "Reads": 1, "MaxBallot": 2}),
    ("multipaxos", {"Replicas": 1, "Writes": 2, "Reads": 1, "MaxBallot": 2}),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,constants", SMALL, ids=[f"{n}-{'-'.join(f'{k}{v}' for k, v in c.items())}"
                                                      for n, c in SMALL])
def test_small_models_against_the_naive_explorer(name, constants):
    e = SUITE[name]
    assert check_both(name, constants, invariants=e["invariants"]) == naive_counts(name, constants)


def test_paxos_commit_tc_consistent_holds():
    """Paxos Commit implements TCommit: no RM aborts while another commits (TC!TCConsistent)."""
    r = modelcheck.check(path_of("paxos-commit"), {"RM": 2, "Acceptor": 1, "MaxBallot": 1},
                         invariants=["PCTypeOK", "TCConsistent"])
    assert r.result == "holds", r.violation


# --- MultiPaxos under its model's SYMMETRY ------------------------------------------------

def _normal(v):
    """A value with every frozenset replaced by a sorted tuple, so that states can be ordered."""
    if isinstance(v, frozenset):
        return ("set", tuple(sorted(_normal(x) for x in v)))
    if isinstance(v, tuple):
        return tuple(_normal(x) for x in v)
    return v


def naive_symmetric_counts(name: str, constants: dict) -> tuple[int, int, int]:
    """TLC's counts under SYMMETRY, the slow way: orbits of the full reachable graph.

    TLC keeps one state per orbit and expands it; in a symmetric spec every
    member of an orbit has as many successors and the same depth, so the counts
    are the orbits, the initial states plus each orbit's successor count, and the
    largest depth.
    """
    spec = load_spec(path_of(name))
    c = build_constants(spec, tuple((k, str(v)) for k, v in constants.items()))
    perms = spec.symmetry.permutations(c)
    depth_of: dict = {}
    frontier = []
    generated = 0
    for s in spec.init(c):
        generated += 1
        if s not in depth_of:
            depth_of[s] = 1
            frontier.append(s)
    succ_count: dict = {}
    while frontier:
        nxt = []
        for s in frontier:
            n = 0
            for act in spec.actions:
                for binding in act.bindings(c):
                    r = act.fn(c, s, *binding)
                    for t in [] if r is None else (r if isinstance(r, list) else [r]):
                        n += 1
                        if t not in depth_of:
                            depth_of[t] = depth_of[s] + 1
                            nxt.append(t)
            succ_count[s] = n
        frontier = nxt
    orbits: dict = {}
    for s in depth_of:
        key = min(_normal(spec.symmetry.permute(c, s, p)) for p in perms)
        orbits.setdefault(key, []).append(s)
    for members in orbits.values():
        assert len({succ_count[s] for s in members}) == 1 and len({depth_of[s] for s in members}) == 1
    generated += sum(succ_count[members[0]] for members in orbits.values())
    return len(orbits), generated, max(depth_of.values())


def test_multipaxos_symmetry_counts_orbits_as_tlc_does():
    constants = {"Replicas": 2, "Writes": 1, "Reads": 1, "MaxBallot": 2}
    r = modelcheck.check(path_of("multipaxos"), constants, symmetry=True)
    assert r.result == "holds", r.violation
    assert counts(r) == naive_symmetric_counts("multipaxos", constants)


@pytest.mark.slow
def test_multipaxos_manifest_model_counts():
    """MultiPaxos_MC_small.cfg under its SYMMETRY: the manifest's 343,796 / 736,012 / 28."""
    e = SUITE["multipaxos"]
    assert check_both("multipaxos", e["constants"], invariants=e["invariants"], symmetry=True) == \
        manifest_counts("multipaxos")
