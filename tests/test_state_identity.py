"""State identity: the checker merges two states exactly when the spec's Python says they are equal (``==``).

Each spec of tests/models/identity/ holds values that a fingerprint could confuse (Python's ``hash()`` maps -1
and -2 alike, reduces ints modulo 2**61 - 1, and can be made to collide on crafted tuples and frozensets) or
could tell apart although they are equal (1, 1.0 and True; 0.0 and -0.0; a NamedTuple and a plain tuple; a
frozenset built in another order).  Every path a user can choose (the memo tables, the spec's own code,
``--workers 2`` as threads and as processes, ``--symmetry``, a checkpoint stopped mid-search and resumed) must
give the distinct states, states generated and depth of the oracle below, and the shortest violation of
``Hidden``, which only the state a wrong merge would drop leads to.

The oracle is a breadth-first search written here, over Python sets and dicts of the states themselves (exact
equality, no fingerprint), calling the spec module's own functions.  It counts as the checker does (checked on
die_hard first): the initial states are generated states, depth counts the initial level as 1, and of equal
states the first met is the one expanded.  With symmetry, a state's key is the frozenset of all its renamings
(its orbit, compared exactly).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import shutil
import sys
from collections import deque

import pytest

import modelcheck
from conftest import MODELS, run_cli

IDENTITY = MODELS / "identity"
LINEAR = ["minus_one_two", "minus_one_two_tuples", "minus_one_two_frozensets", "minus_one_two_records",
          "mersenne_ints", "powers_of_two", "negative_big_ints", "equal_numbers", "special_floats",
          "big_floats_equal_ints", "record_vs_tuple", "record_classes_nested", "crafted_tuple_collision",
          "crafted_frozenset_collision", "frozensets_of_frozensets", "empty_containers", "tuple_prefixes",
          "deep_nesting", "built_differently", "one_deep_leaf"]
SYMMETRIC = ["symmetric_minus_one_two", "symmetric_crafted_sets"]
ACCEPTED = LINEAR + SYMMETRIC
REFUSED = ["refuse_list", "refuse_dict", "refuse_set", "refuse_object", "refuse_nan"]
EITHER = ["strings_and_none"]

_modules: dict = {}


def load(name):
    """The spec module, imported on its own (not through modelcheck's loader)."""
    if name not in _modules:
        spec = importlib.util.spec_from_file_location(f"identity_oracle_{name}", IDENTITY / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # NamedTuple classes want their module importable
        spec.loader.exec_module(module)
        _modules[name] = module
    return _modules[name]


def _successors(module, c, s):
    out = []
    for fn in module.ACTIONS:
        r = fn(c, s)
        out.extend([] if r is None else (r if type(r) is list else [r]))
    return out


def oracle(module, *, symmetry=False, invariant=None):
    """(distinct, generated, depth) of a plain BFS over exact states (orbits with ``symmetry``), or, with
    ``invariant``, the number of states on a shortest path to one that violates it (0 if none)."""
    c = module.C()
    if symmetry:
        perms = list(itertools.permutations(range(module.REPLICAS)))

        def key(s):
            return frozenset(module.permute(c, s, p) for p in perms)
    else:
        def key(s):
            return s
    pred = module.INVARIANTS[invariant] if invariant else None
    depth: dict = {}
    queue: deque = deque()
    generated = 0
    for s in module.init(c):
        generated += 1
        k = key(s)
        if k not in depth:
            depth[k] = 1
            queue.append((s, 1))
    while queue:
        s, d = queue.popleft()
        if pred is not None and not pred(c, s):
            return d
        for t in _successors(module, c, s):
            generated += 1
            k = key(t)
            if k not in depth:
                depth[k] = d + 1
                queue.append((t, d + 1))
    if pred is not None:
        return 0
    return len(depth), generated, max(depth.values())


def counts(r):
    return (r.result, r.distinct_states, r.states_generated, r.depth)


def test_the_oracle_counts_as_the_checker_does():
    """On an easy spec without identity traps, the oracle's conventions are the checker's."""
    spec = importlib.util.spec_from_file_location("identity_oracle_die_hard", MODELS / "die_hard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.C = module.Jugs
    module.ACTIONS = [module.fill_small, module.fill_big, module.empty_small, module.empty_big,
                      module.small_to_big, module.big_to_small]
    module.INVARIANTS = {"NotSolved": module.not_solved}
    r = modelcheck.check(str(MODELS / "die_hard.py"), invariants=["TypeOk"])
    assert counts(r) == ("holds", *oracle(module))
    r = modelcheck.check(str(MODELS / "die_hard.py"), invariants=["NotSolved"])
    assert r.result == "violated" and len(r.violation.trace) == oracle(module, invariant="NotSolved") == 7


@pytest.mark.parametrize("name, a, b", [
    ("minus_one_two", -1, -2),
    ("mersenne_ints", 1, 2**61),
    ("powers_of_two", 8, 2**64),
    ("negative_big_ints", -8, -(2**64)),
    ("special_floats", float("inf"), 314159),
    ("crafted_tuple_collision", (3, 7), (6, -690149475412880181)),
    ("crafted_frozenset_collision", frozenset({5, 11}), frozenset({14, 1970105411913533580})),
])
def test_the_adversarial_values_do_collide_under_hash(name, a, b):
    """The specs stay adversarial: each pairs two different values that Python's hash() cannot tell apart,
    the second of them the one whose Reveal a merge would hide."""
    module = load(name)
    assert a != b and hash(a) == hash(b)
    assert a in module.values() and b in module.values() and module.TARGET == b
    c = module.C()
    assert hash(module.S(a, 1, 0)) == hash(module.S(b, 1, 0))
    assert module.reveal(c, module.S(a, 1, 0)) is None and module.reveal(c, module.S(b, 1, 0)) is not None


PATHS = {
    "default": {},
    "no-memo": {"memo": False},
    "workers-threads": {"workers": 2},
    "workers-processes": {"workers": 2, "memo": False},
}
SYMMETRY_PATHS = {
    "symmetry": {"symmetry": True},
    "symmetry-no-memo": {"symmetry": True, "memo": False},
    "symmetry-workers-threads": {"symmetry": True, "workers": 2},
    "symmetry-workers-processes": {"symmetry": True, "workers": 2, "memo": False},
}


def _cases():
    for name in ACCEPTED:
        for path in PATHS:
            yield pytest.param(name, path, False, id=f"{name}-{path}")
    for name in SYMMETRIC:
        for path in SYMMETRY_PATHS:
            yield pytest.param(name, path, True, id=f"{name}-{path}")


@pytest.mark.slow
@pytest.mark.parametrize("name, path, symmetry", list(_cases()))
def test_each_path_counts_as_the_oracle(name, path, symmetry):
    module = load(name)
    kwargs = (SYMMETRY_PATHS if symmetry else PATHS)[path]
    spec_path = str(IDENTITY / f"{name}.py")
    expected = ("holds", *oracle(module, symmetry=symmetry))
    got = counts(modelcheck.check(spec_path, invariants=["Ok"], **kwargs))
    assert got == expected, f"{name} on {path}: (result, distinct, generated, depth) {got}, the oracle {expected}"
    length = oracle(module, symmetry=symmetry, invariant="Hidden")
    assert length > 0
    r = modelcheck.check(spec_path, invariants=["Hidden"], **kwargs)
    got_length = len(r.violation.trace) if r.result == "violated" else None
    assert (r.result, got_length) == ("violated", length), \
        f"{name} on {path}: Hidden {r.result} (trace {got_length}), the oracle: violated in {length} states"


def _json(p):
    assert p.stdout.strip(), p.stderr[-3000:]
    d = json.loads(p.stdout)
    return (d["result"], d["distinct_states"], d["states_generated"], d["depth"])


@pytest.mark.slow
@pytest.mark.parametrize("name, symmetry", [pytest.param(n, False, id=n) for n in ACCEPTED]
                         + [pytest.param(n, True, id=f"{n}-symmetry") for n in SYMMETRIC])
def test_a_checkpoint_stopped_mid_search_resumes_to_the_oracles_counts(tmp_path, name, symmetry):
    """The run is stopped by SIGTERM (from the spec's own hook) once the checkpoint of level 2 is written: the
    frontier's states go through the checkpoint's pickles and the visited set through its arrays, and the
    resumed run (one process, then processes) must still count as the oracle.  Each run has its own
    PYTHONHASHSEED, as separate runs of a user's shell would."""
    module = load(name)
    expected = ("holds", *oracle(module, symmetry=symmetry))
    spec_path = str(IDENTITY / f"{name}.py")
    opts = ["--invariant", "Ok", "-q", "--json"] + (["--symmetry"] if symmetry else [])
    ck = tmp_path / "ck"
    stopped = run_cli("check", spec_path, *opts, "--checkpoint", str(ck), "--checkpoint-every", "0",
                      env={"IDENTITY_STOP_DIR": str(ck), "IDENTITY_STOP_LEVEL": "2", "PYTHONHASHSEED": "1"})
    assert stopped.returncode == 130, (stopped.returncode, stopped.stderr[-2000:])
    shutil.copytree(ck, tmp_path / "ck2")
    resumed = run_cli("check", spec_path, *opts, "--resume", str(ck), env={"PYTHONHASHSEED": "2"})
    assert _json(resumed) == expected, f"{name} resumed: {_json(resumed)}, the oracle {expected}"
    assert resumed.returncode == 0
    resumed = run_cli("check", spec_path, *opts, "--resume", str(tmp_path / "ck2"), "--workers", "2", "--no-memo",
                      env={"PYTHONHASHSEED": "3"})
    assert _json(resumed) == expected, f"{name} resumed with 2 processes: {_json(resumed)}, the oracle {expected}"


def _error_lines(p):
    """stderr without the run's two header lines and without the trace to the refused state that follows the
    error line (``The behavior up to the failing state``, then one indented line per state)."""
    lines = []
    for line in p.stderr.strip().splitlines():
        if line.startswith("The behavior up to") or line.startswith("  State "):
            continue
        if line and not line.startswith("modelcheck ") and not line.startswith("Invariants:"):
            lines.append(line)
    return lines


REFUSAL_PATHS = {"default": [], "no-memo": ["--no-memo"], "workers-processes": ["--workers", "2", "--no-memo"]}


@pytest.mark.slow
@pytest.mark.parametrize("name", REFUSED)
@pytest.mark.parametrize("path", REFUSAL_PATHS)
def test_a_state_without_an_exact_identity_is_refused_in_one_line(name, path):
    p = run_cli("check", str(IDENTITY / f"{name}.py"), "-q", *REFUSAL_PATHS[path])
    lines = _error_lines(p)
    assert p.returncode == 2, (p.returncode, p.stdout[-1500:], p.stderr[-1500:])
    assert "Traceback" not in p.stderr
    assert len(lines) == 1 and lines[0].startswith("error:"), p.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", EITHER)
def test_strings_and_none_are_refused_everywhere_or_counted_exactly_everywhere(tmp_path, name):
    """str and None (hashed differently per process): one answer on every path, each process with its own
    PYTHONHASHSEED, a refusal in one line or the oracle's counts, never a count that depends on the path."""
    module = load(name)
    expected = ("holds", *oracle(module))
    spec_path = str(IDENTITY / f"{name}.py")
    ck = tmp_path / "ck"
    runs = {path: (args, {}) for path, args in [("default", []), ("no-memo", ["--no-memo"]),
                                                ("workers-threads", ["--workers", "2"]),
                                                ("workers-processes", ["--workers", "2", "--no-memo"])]}
    runs["checkpoint-stopped"] = (["--checkpoint", str(ck), "--checkpoint-every", "0"],
                                  {"IDENTITY_STOP_DIR": str(ck), "IDENTITY_STOP_LEVEL": "2"})
    runs["resumed"] = (["--resume", str(ck)], {})
    outcomes = {}
    for seed, (path, (args, env)) in enumerate(runs.items(), start=1):
        if path == "resumed" and outcomes["checkpoint-stopped"] != "stopped":
            continue
        p = run_cli("check", spec_path, "--invariant", "Ok", "-q", "--json", *args,
                    env={**env, "PYTHONHASHSEED": str(seed)})
        assert "Traceback" not in p.stderr, (path, p.stderr[-2000:])
        if p.returncode == 2:
            lines = _error_lines(p)
            assert len(lines) == 1 and lines[0].startswith("error:"), (path, p.stderr)
            outcomes[path] = "refused"
        elif path == "checkpoint-stopped":
            assert p.returncode == 130, (path, p.returncode, p.stderr[-1500:])
            outcomes[path] = "stopped"
        else:
            assert (p.returncode, _json(p)) == (0, expected), (path, p.stderr[-1500:])
            outcomes[path] = "exact"
    assert len(set(outcomes.values()) - {"stopped"}) == 1, f"{name}: {outcomes}"
