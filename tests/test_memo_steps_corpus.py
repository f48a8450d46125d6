"""Step properties on the default search (the memo tables when it can) against the spec's own code and a naive oracle.

Each module in ``tests/memo_corpus_steps/`` is a small spec written as a
user would write one, with a ``@step_property`` (``fn(c, s, t) -> bool``,
TLA+'s ``[][P]_vars``) whose ordinary Python a fast path could get wrong:
values equal but not alike (``1``/``True``/``1.0``, ``0.0``/``-0.0``),
whole states compared or hashed, reads that depend on the values, steps to
states seen before, stuttering steps built anew, steps leaving the model,
errors and non-bool answers, caches and constructs the tables do not run.
For every module this checks that the default run, ``memo=False`` and the
naive oracle below agree on the verdict, the counts, the depth, the
violated property and the length of the shortest trace (for ``"error"``:
both runs raise ``SpecRuntimeError`` with the same first line, and so does
the oracle), that ``workers=2`` agrees where the default run used the
tables, and that a default run which did not use them says why in one
note.  A module's ``EXPECTED`` (``"holds"``, ``"violated"`` or
``"error"``) is what its own code gives; ``PROPERTY`` names the step
property checked (``PROPERTIES``, when present, is the run's list in order,
and ``PROPERTY`` the one reported).

The oracle is a plain breadth-first search over full states (no
fingerprints), as ``tests/naive.py``: for each reachable state ``s``, in
order, and each successor ``t`` inside the state constraint with ``t != s``,
it evaluates the properties in the run's order; a result that is not a bool
is the spec's error, as an exception is.  Trace lengths count states: a
violating step from a state at depth ``d`` (initial states at depth 1)
gives a trace of ``d + 1`` states, its last state the step's successor
(``memo=False`` on ``zip_logs``: five appends from the initial state, then
the rewrite, is a trace of 7).  The verification sample of the default run
is drawn with a fixed seed, so that every run repeats.
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
from naive import successors

CORPUS = Path(__file__).resolve().parent / "memo_corpus_steps"
SPECS = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))
SEED = 1
"""The default run's ``memo_seed``: which parents the spec's own code expands again to check the tables."""

DISAGREEMENTS: dict[str, str] = {}
"""Modules on which the default run answers otherwise than the spec's own code: kept, and expected to fail."""


class OracleError(Exception):
    """The spec's own code fails on a step (an exception, or a result that is not a bool)."""


def naive_steps(spec, consts, names) -> dict:
    """The first violating step in breadth-first order, the slow way: verdict, property, trace length; counts if none."""
    preds = [(name, spec.property(name).fn) for name in names]
    depth: dict = {}
    queue: deque = deque()
    generated = 0
    for s in spec.init(consts):
        generated += 1
        if s not in depth:
            depth[s] = 1
            queue.append(s)
    while queue:
        s = queue.popleft()
        for t in successors(spec, consts, s):
            generated += 1
            if spec.state_constraint is not None and not spec.state_constraint(consts, t):
                continue
            if t != s:
                for name, pred in preds:
                    try:
                        ok = pred(consts, s, t)
                    except Exception as err:
                        raise OracleError(f"{name} raised {type(err).__name__}") from err
                    if type(ok) is not bool:
                        raise OracleError(f"{name} returned {ok!r}")
                    if not ok:
                        return {"result": "violated", "violated": name, "trace": depth[s] + 1}
            if t not in depth:
                depth[t] = depth[s] + 1
                queue.append(t)
    return {"result": "holds", "violated": None, "trace": 0, "distinct": len(depth), "generated": generated,
            "depth": max(depth.values(), default=0)}


@pytest.fixture(params=SPECS, ids=[p.stem for p in SPECS])
def corpus(request):
    expect_disagreement(request, DISAGREEMENTS)
    path = str(request.param)
    spec = load_spec(path)
    module = sys.modules[user_module_name(path)]
    return path, spec, module, list(getattr(module, "PROPERTIES", (module.PROPERTY,)))


def test_step_property_gives_the_specs_own_answer(corpus, record_property):
    """Verdict, counts, depth, property and shortest trace: default run = ``memo=False`` = the naive oracle."""
    path, spec, module, names = corpus
    consts = build_constants(spec, {})
    if module.EXPECTED == "error":
        return _check_both_fail(path, spec, consts, names, record_property)
    plain = modelcheck.check(path, properties=names, memo=False)
    default = modelcheck.check(path, properties=names, memo_seed=SEED)
    record_property("default_path", path_note(default))
    naive = naive_steps(spec, consts, names)
    found = {"default": summary(default), "memo=False": summary(plain)}
    assert found["default"] == found["memo=False"], f"{found}; default: {path_note(default)}"
    assert {k: found["memo=False"][k] for k in naive} == naive, f"memo=False: {found['memo=False']}, oracle: {naive}"
    assert naive["result"] == module.EXPECTED, f"the spec gives {naive['result']}, its module says {module.EXPECTED}"
    if naive["violated"]:
        assert naive["violated"] == module.PROPERTY and plain.violation.kind == "step"
    check_path_note(default, lambda: modelcheck.check(path, properties=names, memo=True))
    if on_tables(default):
        threads = modelcheck.check(path, properties=names, workers=2, memo_seed=SEED)
        assert summary(threads) == found["default"], f"workers=2: {summary(threads)}, one thread: {found['default']}"


def _check_both_fail(path, spec, consts, names, record_property) -> None:
    """A spec whose own code fails on a step must fail the same way on the default path, and in the oracle
    (unless the module says the checker rejects it before the search, ``REJECTED``: a rule of the checker's,
    such as answers that follow a frozenset's iteration order, which the oracle does not apply)."""
    module = sys.modules[user_module_name(path)]
    if getattr(module, "REJECTED", None) is None:
        with pytest.raises(OracleError):
            naive_steps(spec, consts, names)
    try:
        plain = modelcheck.check(path, properties=names, memo=False)
    except SpecRuntimeError as err:
        plain_error = str(err).splitlines()[0]
        assert getattr(module, "REJECTED", "") in plain_error
    else:
        pytest.fail(f"the module says its own code fails, but memo=False answers {summary(plain)}")
    try:
        default = modelcheck.check(path, properties=names, memo_seed=SEED)
    except SpecRuntimeError as err:
        record_property("default_path", "error, as the spec's own code")
        assert str(err).splitlines()[0] == plain_error
        return
    record_property("default_path", path_note(default))
    pytest.fail(f"memo=False stops with {plain_error!r}, the default run answers "
                f"{summary(default)} ({path_note(default)})")
