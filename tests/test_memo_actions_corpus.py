"""Action constraints on the default search (the memo tables when it can) against the spec's own code and a naive oracle.

Each module in ``tests/memo_corpus_actions/`` is a small spec written as a
user would write one, with an ``action_constraint`` (``fn(c, s, t) ->
bool``, TLC's ACTION_CONSTRAINT: a successor it rejects is generated but
neither kept nor explored) whose ordinary Python a fast path could get
wrong: values equal but not alike (``1``/``True``/``1.0``, ``0.0``/``-0.0``),
whole states compared or hashed, reads that depend on the values, stuttering
steps (on which the constraint is evaluated too), steps leaving the model
(on which it is not), successors rejected from one parent and let through
from another, errors and non-bool answers, caches and constructs the tables
do not run.  For every module this checks that the default run,
``memo=False`` and the naive oracle below agree on the verdict, the depth,
the violated invariant and the length of the shortest trace, that the
default run and ``memo=False`` agree on the counts, that with no invariant
checked every run reaches ``tests/naive.py``'s states, successors and depth
(``workers=2`` too, where the default run used the tables), and that a
default run which did not use them says why in one note (for ``"error"``:
both runs raise ``SpecRuntimeError`` with the same first line, and the
oracle fails too).  A module's ``EXPECTED`` (``"holds"``, ``"violated"``
or ``"error"``) is what its own code gives.

The oracle is a plain breadth-first search over full states (no
fingerprints), as ``naive_explore``, that checks the invariants on every
state it keeps: for each reachable state ``s``, in order, and each successor
``t``, the state constraint first, then, for a ``t`` inside it (stuttering
or not), the action constraint; a result that is not a bool is the spec's
error, as an exception is.  (``naive_shortest`` applies no constraint, so
it does not give these specs' traces.)  Trace lengths count states, the
initial state at 1.  The verification sample of the default run is drawn
with a fixed seed, so that every run repeats.
"""

from __future__ import annotations

import sys
from collections import deque
from pathlib import Path

import pytest

import modelcheck
from modelcheck.errors import SpecRuntimeError
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec, user_module_name
from corpus_support import check_path_note, expect_disagreement, on_tables, path_note, summary
from naive import naive_explore, successors

CORPUS = Path(__file__).resolve().parent / "memo_corpus_actions"
SPECS = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))
SEED = 1
"""The default run's ``memo_seed``: which parents the spec's own code expands again to check the tables."""

DISAGREEMENTS: dict[str, str] = {
    "frozenset_seal_order": "a constraint that follows a frozenset's iteration order only on a step deep in the "
                            "search, beyond the preflight's sample: the tables hand it the equal set met first, "
                            "not the successor as built (holds, where the spec's own code finds it violated)",
}
"""Modules on which the default run answers otherwise than the spec's own code: kept, and expected to fail."""


class OracleError(Exception):
    """The spec's own code fails on a step (an exception, or a constraint's result that is not a bool)."""


def _holds(name, fn, *args) -> bool:
    try:
        ok = fn(*args)
    except Exception as err:
        raise OracleError(f"{name} raised {type(err).__name__}") from err
    if type(ok) is not bool:
        raise OracleError(f"{name} returned {ok!r}")
    return ok


def naive_verdict(spec, consts, names) -> dict:
    """The first invariant violated in breadth-first order under both constraints, the slow way."""
    preds = [(name, spec.invariant(name).fn) for name in names]
    depth: dict = {}
    queue: deque = deque()

    def keep(s, d):
        depth[s] = d
        queue.append(s)
        for name, pred in preds:
            if not _holds(name, pred, consts, s):
                return {"result": "violated", "violated": name, "trace": d}
        return None

    for s in spec.init(consts):
        if s not in depth and (found := keep(s, 1)):
            return found
    while queue:
        s = queue.popleft()
        for t in successors(spec, consts, s):
            if spec.state_constraint is not None and not _holds("state_constraint", spec.state_constraint, consts, t):
                continue
            if not _holds("action_constraint", spec.action_constraint, consts, s, t):
                continue
            if t not in depth and (found := keep(t, depth[s] + 1)):
                return found
    return {"result": "holds", "violated": None, "trace": 0, "depth": max(depth.values(), default=0)}


@pytest.fixture(params=SPECS, ids=[p.stem for p in SPECS])
def corpus(request):
    expect_disagreement(request, DISAGREEMENTS)
    path = str(request.param)
    spec = load_spec(path)
    return path, spec, sys.modules[user_module_name(path)]


def test_action_constraint_gives_the_specs_own_answer(corpus, record_property):
    """Verdict, depth, invariant and shortest trace: default run = ``memo=False`` = the naive oracle; counts too."""
    path, spec, module = corpus
    consts = build_constants(spec, {})
    if module.EXPECTED == "error":
        return _check_both_fail(path, spec, consts, record_property)
    plain = modelcheck.check(path, memo=False)
    default = modelcheck.check(path, memo_seed=SEED)
    record_property("default_path", path_note(default))
    naive = naive_verdict(spec, consts, list(plain.invariants))
    found = {"default": summary(default), "memo=False": summary(plain)}
    assert found["default"] == found["memo=False"], f"{found}; default: {path_note(default)}"
    assert {k: found["memo=False"][k] for k in naive} == naive, f"memo=False: {found['memo=False']}, oracle: {naive}"
    assert naive["result"] == module.EXPECTED, f"the spec gives {naive['result']}, its module says {module.EXPECTED}"
    check_path_note(default, lambda: modelcheck.check(path, memo=True))
    if on_tables(default):
        threads = modelcheck.check(path, workers=2, memo_seed=SEED)
        assert summary(threads) == found["default"], f"workers=2: {summary(threads)}, one thread: {found['default']}"


def test_whole_state_space_agrees(corpus, record_property):
    """With no invariant checked, every run reaches the naive explorer's states, successors and depth."""
    path, spec, module = corpus
    if module.EXPECTED == "error":
        pytest.skip("the spec's own code fails: there is no state space to count")
    naive = naive_explore(spec, build_constants(spec, {}))
    runs = {"memo=False": modelcheck.check(path, memo=False, invariants=[]),
            "default": modelcheck.check(path, invariants=[], memo_seed=SEED)}
    record_property("default_path", path_note(runs["default"]))
    if on_tables(runs["default"]):
        runs["default, workers=2"] = modelcheck.check(path, invariants=[], workers=2, memo_seed=SEED)
    counts = {name: (r.distinct_states, r.states_generated, r.depth) for name, r in runs.items()}
    want = (naive["distinct"], naive["generated"], naive["depth"])
    assert counts == dict.fromkeys(runs, want), (
        f"(distinct, generated, depth): {counts}, naive explorer: {want}; default: {path_note(runs['default'])}")


def _check_both_fail(path, spec, consts, record_property) -> None:
    """A spec whose own code fails on a step must fail the same way on the default path, and in the oracle
    (unless the module says the checker rejects it before the search, ``REJECTED``: a rule of the checker's,
    such as answers that follow a frozenset's iteration order, which the oracle does not apply)."""
    module = sys.modules[user_module_name(path)]
    if getattr(module, "REJECTED", None) is None:
        with pytest.raises(OracleError):
            naive_verdict(spec, consts, [])
    try:
        plain = modelcheck.check(path, memo=False)
    except SpecRuntimeError as err:
        plain_error = str(err).splitlines()[0]
        assert getattr(module, "REJECTED", "") in plain_error
    else:
        pytest.fail(f"the module says its own code fails, but memo=False answers {summary(plain)}")
    try:
        default = modelcheck.check(path, memo_seed=SEED)
    except SpecRuntimeError as err:
        record_property("default_path", "error, as the spec's own code")
        assert str(err).splitlines()[0] == plain_error
        return
    record_property("default_path", path_note(default))
    pytest.fail(f"memo=False stops with {plain_error!r}, the default run answers "
                f"{summary(default)} ({path_note(default)})")
