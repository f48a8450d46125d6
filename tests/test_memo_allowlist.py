"""The memo tables' allowlist (modelcheck.memo.allowlist): what it accepts, what it refuses, and where it says.

Each function of tests/models/allowlist_cases.py is reviewed alone (with the
state classes where the construct hides in a method); the expected answer is
a fragment of the refusal (None: accepted).  Whole specs with these
constructs are compared with the spec's own code and an independent explorer
in tests/test_memo_corpus.py and tests/test_memo_defence.py.
"""

from __future__ import annotations

import pytest

from modelcheck.memo.allowlist import review
from models import allowlist_cases as cases

EXPECTED = {
    "plain": None,
    "uses_methods": None,
    "uses_library": None,
    "uses_generator": None,
    "local_named_id": None,
    "uses_match": "pattern matching (`match`)",
    "uses_type_in_method": "the builtin `type`",
    "uses_isinstance_in_property": "the builtin `isinstance`",
    "uses_lru_cache": "functools.lru_cache",
    "uses_dispatch": "the builtin `type`",
    "uses_operator_is": "`operator.is_`",
    "uses_map_type": "the builtin `type`",
    "uses_partial": "the builtin `type`",
    "uses_import_inside": "an import inside a function",
    "uses_global_store": "an assignment into a module-level object",
    "uses_setdefault": "`.setdefault()` on a module-level object",
    "uses_mutable_default": "a mutable default argument",
    "uses_dunder": "the dunder attribute `.__class__`",
    "uses_getattr": "the builtin `getattr`",
    "uses_try": "`try`",
    "uses_module_iterator": "itertools.count object",
    "uses_identity": "an identity comparison",
    "uses_global_statement": "`global`",
    "shadows_a_builtin_elsewhere": "the builtin `type`",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_construct(name):
    found = review([getattr(cases, name)]).refusal
    want = EXPECTED[name]
    if want is None:
        assert found is None
    else:
        assert found is not None and want in found, found
        assert "allowlist_cases.py:" in found  # the file and line, so the author can find it


def test_every_case_is_expected():
    names = {n for n, v in vars(cases).items() if callable(v) and getattr(v, "__module__", "") == cases.__name__
             and (n.startswith("uses_") or n in EXPECTED)}
    assert names <= set(EXPECTED)


def test_a_state_class_method_is_reviewed_though_no_action_names_it():
    """A method the actions call on the state they are given (never naming its class) is reached through the
    state's classes, which the memo backend passes from the initial states."""
    def action(c, s):
        return s.kind()

    assert review([cases.plain]).refusal is None
    found = review([cases.plain], [cases.Typed]).refusal
    assert found is not None and "the builtin `type`" in found


def test_module_level_containers_are_reported_for_watching():
    r = review([cases.uses_dispatch.__globals__["plain"]])
    assert r.refusal is None and r.mutables == []
    r = review([_reads_cache])
    assert r.refusal is None and [obj for _w, obj in r.mutables] == [cases.CACHE]


def _reads_cache(c, s):
    return cases.CACHE.get(s.a, s)
