"""The default search (the memo tables when it can) against the spec's own code and the naive explorer.

Each module in ``tests/memo_corpus/`` is a small spec written as a user
would write one, with ordinary Python that a stand-in recording a state
part's reads could get wrong (``match``, ``type()`` reached indirectly,
caches, values equal but not alike such as ``1`` and ``True``...).  The
fast path must give exactly the spec's own answer, so for every module this
checks that the default run, ``memo=False`` and ``tests/naive.py`` agree on
the verdict, the counts, the depth and the shortest trace, and that a run
which did not use the tables says why in a note.  A module's ``EXPECTED``
(``"holds"``, ``"violated"``, ``"deadlock"`` or ``"error"``) is what its own code gives, so
that a spec whose bait stopped biting is noticed too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import modelcheck
from modelcheck.errors import SpecRuntimeError
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec, user_module_name
from conftest import INTERPRETED
from corpus_support import NOTE_PREFIXES, check_path_note, on_tables, path_note, summary
from naive import naive_explore, naive_shortest, naive_terminal_states

CORPUS = Path(__file__).resolve().parent / "memo_corpus"
SPECS = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))


KNOWN_GAPS = {
    "nondet_default_accumulates": "state kept in a mutable default argument, filled before the determinism check "
                                  "expands a state twice, goes unnoticed there (open)",
}
"""Specs on which the checker is still wrong on every path, the memo tables included: known, kept visible."""


@pytest.fixture(params=SPECS, ids=[p.stem for p in SPECS])
def corpus(request):
    if request.param.stem in KNOWN_GAPS:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[request.param.stem]))
    path = str(request.param)
    spec = load_spec(path)
    return path, spec, sys.modules[user_module_name(path)]


def test_default_path_gives_the_specs_own_answer(corpus, record_property):
    """Verdict, counts, depth and shortest trace: default run = ``memo=False`` = the naive explorer."""
    path, spec, module = corpus
    if module.EXPECTED == "error":
        return _check_both_fail(path, record_property)
    plain = modelcheck.check(path, memo=False)
    default = modelcheck.check(path)
    record_property("default_path", path_note(default))
    consts = build_constants(spec, {})
    lengths = [n for n in (naive_shortest(spec, consts, name) for name in plain.invariants) if n]
    naive = {"result": "violated" if lengths else "holds", "trace": min(lengths, default=0)}
    if not lengths and not spec.deadlock_expected:
        naive = {"result": "deadlock" if naive_terminal_states(spec, consts) else "holds"}
    found = {"default": summary(default, sometimes=True), "memo=False": summary(plain, sometimes=True)}
    verdicts = {name: {k: r[k] for k in naive} for name, r in found.items()}
    assert found["default"] == found["memo=False"] and verdicts["memo=False"] == naive, (
        f"{found}, naive explorer: {naive}; default: {path_note(default)}")
    assert naive["result"] == module.EXPECTED, f"the spec gives {naive['result']}, its module says {module.EXPECTED}"
    check_path_note(default, lambda: modelcheck.check(path, memo=True), refused_always=True)


def test_whole_state_space_agrees(corpus, record_property):
    """With no invariant and no deadlock checked, every run reaches the naive explorer's states, successors, depth.

    When the default run is on the memo tables, so is ``workers=2`` (helper
    threads on the same tables), and it must count the same.
    """
    path, spec, module = corpus
    if module.EXPECTED == "error":
        pytest.skip("the spec's own code fails: there is no state space to count")
    naive = naive_explore(spec, build_constants(spec, {}))
    runs = {"memo=False": modelcheck.check(path, memo=False, invariants=[], deadlock=False),
            "default": modelcheck.check(path, invariants=[], deadlock=False)}
    record_property("default_path", path_note(runs["default"]))
    if on_tables(runs["default"]):
        runs["default, workers=2"] = modelcheck.check(path, invariants=[], deadlock=False, workers=2)
    counts = {name: (r.distinct_states, r.states_generated, r.depth) for name, r in runs.items()}
    want = (naive["distinct"], naive["generated"], naive["depth"])
    assert counts == dict.fromkeys(runs, want), (
        f"(distinct, generated, depth): {counts}, naive explorer: {want}; default: {path_note(runs['default'])}")


def _check_both_fail(path: str, record_property) -> None:
    """A spec whose own code is wrong (not deterministic, or raising) must fail on the default path too."""
    try:
        plain = modelcheck.check(path, memo=False)
    except SpecRuntimeError as err:
        plain_error = str(err).splitlines()[0]
    else:
        pytest.fail(f"the module says its own code fails, but memo=False answers {summary(plain, sometimes=True)}")
    try:
        default = modelcheck.check(path)
    except SpecRuntimeError as err:
        record_property("default_path", "error, as the spec's own code")
        assert str(err).splitlines()[0] == plain_error
        return
    record_property("default_path", path_note(default))
    pytest.fail(f"memo=False stops with {plain_error!r}, the default run answers "
                f"{summary(default, sometimes=True)} ({path_note(default)})")


ON = {"MODELCHECK_USER_BUILD": ""}


@pytest.fixture(scope="module")
def compiled_corpus():
    """Every corpus spec built with ``modelcheck compile``, in the usual build directory (a rerun builds only edits)."""
    from conftest import run_cli

    p = run_cli("compile", *map(str, COMPILED_SPECS), env=ON, timeout=3 * 3600)
    assert p.returncode == 0, p.stderr[-3000:]
    return dict(zip(map(str, COMPILED_SPECS), p.stdout.splitlines()))


COMPILED_SAMPLE = ("match_class", "isinstance_bool", "float_zero_copysign", "closures", "generators_loops",
                   "frozenset_order", "value_bool_int_str", "type_in_state_method", "closure_factory_type",
                   "canonical_order", "split_duplicate_def")
"""A spread of the corpus built with Cython (each build takes about half a minute): class patterns and
``isinstance`` compile to C type tests, which is where a compiled spec could part from its source."""
COMPILED_SPECS = [p for p in SPECS if p.stem in COMPILED_SAMPLE]


@pytest.mark.slow
@pytest.mark.skipif(INTERPRETED, reason="MODELCHECK_INTERPRETED is set: no spec is compiled")
@pytest.mark.parametrize("spec_path", COMPILED_SPECS, ids=[p.stem for p in COMPILED_SPECS])
def test_compiled_spec_gives_the_same_answer(compiled_corpus, spec_path, record_property):
    """The compiled build of a corpus spec, on the default path, answers as the interpreted spec's own code."""
    import json

    from conftest import run_cli

    path = str(spec_path)
    assert compiled_corpus[path].startswith(f"{path}: compiled"), compiled_corpus[path]
    p = run_cli("check", path, "--json", "-q", env=ON)
    assert "; spec compiled" in p.stderr, p.stderr[-2000:]
    load_spec(path)
    if sys.modules[user_module_name(path)].EXPECTED == "error":
        assert p.returncode == 2, p.stdout[-2000:]
        with pytest.raises(SpecRuntimeError):
            modelcheck.check(path, memo=False)
        return
    data = json.loads(p.stdout)
    fast = (data.get("memo") or {}).get("successors") == "memo tables"
    notes = [w for w in data["warnings"] if w.startswith(NOTE_PREFIXES)]
    record_property("compiled_path", "fast path (memo tables)" if fast else "; ".join(notes) or "NO NOTE")
    plain = summary(modelcheck.check(path, memo=False), sometimes=True)
    violation = data.get("violation")
    got = {"result": data["result"], "distinct": data["distinct_states"], "generated": data["states_generated"],
           "depth": data["depth"], "violated": violation["invariant"] if violation else None,
           "trace": violation["length"] if violation else 0, "sometimes": data["sometimes"]}
    assert got == plain, f"compiled, default path: {got} / interpreted, memo=False: {plain}"
    assert fast or len(notes) == 1, f"the compiled run did not use the memo tables and says why in {notes}"
