"""Actions split into guard and effect (modelcheck.memo.split): the same results as the action itself.

Expected values are the action's own results on the same inputs: the split is
a rewriting of the spec's code, so ``effect(s) if guard(s) else None`` must be
``action(s)`` on every state.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import textwrap

import numpy as np
import pytest

from modelcheck.memo.backend import sample_states
from modelcheck.build import compiled
from modelcheck.memo.split import BUILT, built_source, split_guard
from modelcheck.memo.tries import Tries
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec

SOURCE = '''
import functools
from typing import NamedTuple

class S(NamedTuple):
    a: int
    b: tuple
    c: int

def helper(x):
    return x * 2

def guarded(c, s, r):
    """Two guards, a part read between them, then the effect."""
    a = s.a
    if a == r:
        return None
    b = s.b[0]
    if not b:
        return
    return s._replace(c=helper(s.c) + a)

def call_ends_the_beginning(c, s, r):
    if s.a < 0:
        return None
    x = helper(s.a)
    if x > 4:
        return None
    return s._replace(a=x)

def no_guard(c, s, r):
    return s._replace(a=s.a + 1)

def walrus(c, s, r):
    if (x := s.a) > 3:
        return None
    return s._replace(a=x)

def guard_with_else(c, s, r):
    if s.a > 3:
        return None
    else:
        pass
    return s

def raises_in_guard(c, s, r):
    if s.b[5] > 0:
        return None
    return s

def doubling(f):
    @functools.wraps(f)
    def wrapper(c, s, r, _f=f):  # not a closure: only the check of the def it names tells it apart
        t = _f(c, s, r)
        return None if t is None else [t, t]
    return wrapper

@doubling
def wrapped(c, s, r):
    if s.a > 3:
        return None
    return s

def make_closure(k):
    def inner(c, s, r):
        if s.a == k:
            return None
        return s
    return inner

__LIM = 100
_Acts__LIM = 3

class Acts:
    @staticmethod
    def method(c, s, r):
        if s.a > __LIM:  # ``_Acts__LIM`` here: moved out of the class, the guard would read ``__LIM``
            return None
        return s

def twice(c, s, r):
    if s.a > 3:
        return None
    return s

LIM = 100

def late_local(c, s, r):
    if s.a > LIM:  # LIM is this function's local (assigned below): UnboundLocalError here, never the module's
        return None
    LIM = 1
    return s._replace(a=LIM)

first_twice = twice

def twice(c, s, r):
    if s.a > 100:
        return None
    return s
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    path = tmp_path_factory.mktemp("split") / "split_sample.py"
    path.write_text(textwrap.dedent(SOURCE))
    spec = importlib.util.spec_from_file_location("split_sample", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["split_sample"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["split_sample"]


def _states(mod):
    return [mod.S(a, b, c) for a in range(-1, 6) for b in ((0,), (1,), (2, 3)) for c in range(3)]


@pytest.mark.parametrize("name", ["guarded", "call_ends_the_beginning"])
def test_split_actions_give_the_actions_results(mod, name):
    fn = getattr(mod, name)
    split = split_guard(fn)
    assert split is not None
    guard, effect = split
    for s in _states(mod):
        for r in range(3):
            assert (effect(None, s, r) if guard(None, s, r) else None) == fn(None, s, r)


def test_the_guard_stops_at_an_assignment_that_calls(mod):
    guard, effect = split_guard(mod.call_ends_the_beginning)
    s = mod.S(3, (0,), 0)  # helper(3) = 6 > 4: the action is disabled, but the guard only has `s.a < 0`
    assert guard(None, s, 0) is True and effect(None, s, 0) is None and mod.call_ends_the_beginning(None, s, 0) is None


@pytest.mark.parametrize("name", ["no_guard", "walrus", "guard_with_else", "late_local"])
def test_what_is_not_split(mod, name):
    assert split_guard(getattr(mod, name)) is None


def test_a_closure_is_not_split(mod):
    assert split_guard(mod.make_closure(2)) is None


def test_a_method_is_not_split(mod):
    """Python renames a private name inside a class: a guard moved out of it would read another variable."""
    s = mod.S(4, (0,), 0)
    assert mod.Acts.method(None, s, 0) is None
    assert split_guard(mod.Acts.method) is None


def test_two_module_level_defs_of_one_name_get_no_appended_guard():
    """The functions ``modelcheck compile`` appends are found by the action's name: with two ``def``s of it,
    they could come from the other one, so none is appended (each is split from its own source instead)."""
    built = "\n".join(built_source(ast.parse(textwrap.dedent(SOURCE))))
    assert BUILT[0] + "twice" not in built and BUILT[0] + "guarded" in built


def test_a_decorators_wrapper_is_not_split_as_the_function_it_wraps(mod):
    """The wrapper doubles the result; splitting the source of ``wrapped`` would drop that."""
    assert mod.wrapped(None, mod.S(0, (0,), 0), 0) == [mod.S(0, (0,), 0)] * 2
    assert split_guard(mod.wrapped) is None


def test_an_error_in_the_guard_is_raised_by_the_guard_with_the_specs_line(mod):
    guard, _effect = split_guard(mod.raises_in_guard)
    with pytest.raises(IndexError) as err:
        guard(None, mod.S(0, (1,), 0), 0)
    assert err.traceback[-1].path.name == "split_sample.py"
    assert err.traceback[-1].lineno + 1 == SOURCE.splitlines().index("    if s.b[5] > 0:") + 1


SPECS = ["kip320", "kip279", "kip101", "kip320-first-try", "truncate-to-hw", "async-isr", "broker-failures",
         "consumer-offsets", "controller-failover", "partition-reassignment", "producer-ordering"]


@pytest.mark.parametrize("name", SPECS)
def test_every_split_action_of_the_registered_specs_agrees_on_their_first_states(name):
    spec = load_spec(name)
    model = BoundModel(spec, build_constants(spec, {}), CheckOptions())
    states = sample_states(model, 3000)
    compared = 0
    for a, bindings in zip(model.actions, model.bindings):
        split = split_guard(a.fn)
        if split is None:
            continue
        guard, effect = split
        for s in states:
            for b in bindings:
                want = a.fn(model.c, s, *b)
                assert (effect(model.c, s, *b) if guard(model.c, s, *b) else None) == want, (a.name, b, s)
                compared += 1
    assert compared > 0


def test_leaves_of_predicates_and_actions_learnt_in_one_batch_keep_their_entries():
    """A predicate's leaf has a count and no entries; the action leaves after it must not shift."""
    t = Tries(3, 2)
    true = t.leaf(1)
    a = t.leaf(2, (5, 6, 7, 8))
    b = t.leaf(1, (-1, 9))
    t.flush()
    assert t.leaf_entries(true)[0] == 1  # a predicate leaf: its count is its value
    assert t.leaf_entries(a)[0] == 2 and t.leaf_entries(a)[1].tolist() == [5, 6, 7, 8]
    assert t.leaf_entries(b)[0] == 1 and t.leaf_entries(b)[1].tolist() == [-1, 9]
    assert isinstance(t.entries, np.ndarray)


def test_the_source_appended_at_build_time_holds_the_same_guard_and_effect(mod):
    """What ``modelcheck compile`` appends to a spec module (built_source) run in the module's globals: the
    same results as the functions split_guard derives when the module runs as its .py."""
    namespace = dict(vars(mod))
    exec(compile("\n\n".join(built_source(ast.parse(textwrap.dedent(SOURCE)))), "<built>", "exec"), namespace)  # noqa: S102
    for name in ("guarded", "call_ends_the_beginning", "raises_in_guard", "wrapped"):
        assert callable(namespace[BUILT[0] + name]) and callable(namespace[BUILT[1] + name])
    for name in ("no_guard", "walrus", "guard_with_else", "make_closure", "doubling"):
        assert BUILT[0] + name not in namespace
    for name in ("guarded", "call_ends_the_beginning"):
        guard, effect = split_guard(getattr(mod, name))
        built_guard, built_effect = namespace[BUILT[0] + name], namespace[BUILT[1] + name]
        for s in _states(mod):
            for r in range(3):
                assert built_guard(None, s, r) == guard(None, s, r)
                assert built_effect(None, s, r) == effect(None, s, r)


def test_a_compiled_spec_runs_the_split_functions_built_with_it():
    spec = load_spec("kip320")
    if not compiled.is_compiled(sys.modules["modelcheck.specs.kip320"]):
        pytest.skip("the registered specs run as their .py (no modelcheck compile)")
    model = BoundModel(spec, build_constants(spec, {}), CheckOptions())
    split = [split_guard(a.fn) for a in model.actions]
    assert any(sp is not None for sp in split)
    for a, sp in zip(model.actions, split):
        if sp is not None:
            guard, effect = sp
            assert guard.__name__ == BUILT[0] + a.fn.__name__ and effect.__name__ == BUILT[1] + a.fn.__name__
            assert compiled.is_compiled(sys.modules[guard.__module__])


def test_a_specs_own_function_bearing_a_built_name_is_not_taken_for_the_built_one(tmp_path):
    """Only code appended past the module's last line (by modelcheck compile) is taken for the built guard
    and effect; a function of the spec's own with such a name is not."""
    path = tmp_path / "own_names.py"
    path.write_text(textwrap.dedent('''
        def _mc_split_guard_act(c, s, r):
            return True

        def _mc_split_effect_act(c, s, r):
            return "not the effect"

        def act(c, s, r):
            if s < 0:
                return None
            return s + r
    '''))
    spec = importlib.util.spec_from_file_location("own_names", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["own_names"] = module
    try:
        spec.loader.exec_module(module)
        guard, effect = split_guard(module.act)
        assert guard is not module._mc_split_guard_act and effect is not module._mc_split_effect_act
        assert guard(None, -1, 0) is False and effect(None, 2, 3) == 5
    finally:
        del sys.modules["own_names"]
