"""A spec that keeps state between calls in module-level objects: the default run answers as the spec's own code.

Such a spec is not a function of the state, so what it gives depends on every
call made before.  The review refuses every way of changing a module-level
object it can see (tests/test_memo_allowlist.py); behind it, the memo backend
compares each module-level container the spec's code reads after every batch
it learns, stands aside with one line where one changed, and puts it back as
the search would have found it, so that the run on the spec's own code that
follows counts what a run with ``--no-memo`` counts.

To reach that second line, these tests let the review pass ``operator.iadd``
(which it refuses: it changes its first argument where the review cannot
follow), and empty the spec's containers before each run, as a fresh process
would find them.
"""

from __future__ import annotations

import operator
import sys

import pytest

import modelcheck
from modelcheck.memo import allowlist
from modelcheck.spec.loader import load_spec, user_module_name
from conftest import MODELS, needs_memo_tables

pytestmark = needs_memo_tables

SPEC = str(MODELS / "keeps_state" / "function_attribute.py")


@pytest.fixture
def iadd_passes(monkeypatch):
    monkeypatch.setattr(allowlist, "LIBRARY", allowlist.LIBRARY | {operator.iadd})
    load_spec(SPEC)
    return sys.modules[user_module_name(SPEC)]


def _fresh_run(module, consts: dict, **options) -> modelcheck.CheckResult:
    module.bump.calls.clear()
    module.Box.items.clear()
    return modelcheck.check(SPEC, consts, **options)


def test_the_review_refuses_the_change_itself():
    r = modelcheck.check(SPEC, {"T": 350})
    assert r.successors_why is not None and "`operator.iadd` is not among the functions" in r.successors_why


@pytest.mark.parametrize("where, name", [(False, "bump.calls"), (True, "Box.items")])
@pytest.mark.parametrize("threshold", [350, 2500])
def test_the_default_run_counts_what_the_spec_s_own_code_counts(iadd_passes, where, name, threshold):
    consts = {"InClass": where, "T": threshold}
    default = _fresh_run(iadd_passes, consts)
    own = _fresh_run(iadd_passes, consts, memo=False)
    assert (default.distinct_states, default.states_generated, default.depth) == \
        (own.distinct_states, own.states_generated, own.depth)
    assert default.successors_why is not None and f"`{name}`: a module-level list changed" in default.successors_why
