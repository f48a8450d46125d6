"""Equal values of different types (``1``/``True``, ``0.0``/``-0.0``, a record and a plain tuple): the memo tables
never tell apart states the checker merges, nor run the spec on a value of other types than the state holds.

Each spec of tests/models/mixed/ is checked on the default path, with the spec's own code (``memo=False``) and by
the independent explorer of tests/naive.py; all three must agree.  Where one field holds two such values the
tables stop with a one-line note naming both; where they sit in different fields the tables serve the spec.
"""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

import modelcheck
from modelcheck.spec.constants import build_constants
from conftest import needs_memo_tables
from naive import naive_explore

pytestmark = needs_memo_tables

MIXED = pathlib.Path(__file__).parent / "models" / "mixed"


def _load(name):
    path = MIXED / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"mixed_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path, module.SPEC


@pytest.mark.parametrize("name, note", [
    ("int_and_bool", "holds 1 (int) in one state and the equal True (bool)"),
    ("signed_zero", "holds 0.0 (float) in one state and the equal -0.0 (float)"),
    ("record_and_tuple", "Pair(x=1, y=2) (Pair of int) in one state and the equal (1, 2) (tuple of int)"),
    ("set_types_swapped", "frozenset({1, 2.0}) (frozenset of float, int) in another (1.0 (float) against 1 (int))"),
])
def test_one_field_with_two_equal_values_of_other_types(name, note):
    path, spec = _load(name)
    default = modelcheck.check(str(path), deadlock=False)
    own = modelcheck.check(str(path), deadlock=False, memo=False)
    naive = naive_explore(spec, build_constants(spec, {}))
    assert (default.result, default.distinct_states, default.states_generated, default.depth) == \
        (own.result, own.distinct_states, own.states_generated, own.depth) == \
        ("holds", naive["distinct"], naive["generated"], naive["depth"])
    stopped = [w for w in default.warnings if "the memo tables stopped" in w]
    assert len(stopped) == 1 and note in stopped[0], default.warnings


def test_equal_values_in_different_fields_stay_on_the_tables():
    path, spec = _load("zero_and_false")
    default = modelcheck.check(str(path), deadlock=False)
    naive = naive_explore(spec, build_constants(spec, {}))
    assert default.engine_report is not None and default.engine_report["successors"] == "memo tables"
    assert default.warnings == ()
    assert (default.distinct_states, default.states_generated, default.depth) == \
        (naive["distinct"], naive["generated"], naive["depth"])
