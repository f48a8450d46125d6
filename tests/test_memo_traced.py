"""A traced component behaves as its value and notes each use (modelcheck.memo.traced).

The expected results are those of the plain values: each operation is applied
to ``Traced(v)`` and to ``v``, and the two must agree, with the component's
index in the log.  Run on the compiled extension type where it is built, and
on the pure-Python class in a subprocess without the compiled modules.
"""

from __future__ import annotations

import copy
import math
import operator
import os
import pickle
import subprocess
import sys
from typing import NamedTuple

import pytest

from modelcheck.memo.traced import Traced, component_of, value_of

from conftest import ROOT


class Msg(NamedTuple):
    isr: tuple
    version: int


def _outcome(fn, *args):
    """The result, or the type of the exception raised (a frozenset is not reversible, traced or not)."""
    try:
        return ("returns", fn(*args))
    except Exception as e:  # noqa: BLE001 - compared, not hidden
        return (f"raises {type(e).__name__}", None)


UNARY = [hash, bool, len, list, lambda v: list(reversed(v)), repr, str, operator.length_hint]
NUMERIC = [operator.neg, operator.pos, abs, operator.invert, operator.index, int, float, complex, math.trunc,
           math.floor, math.ceil, round, lambda v: round(v, 1), lambda v: f"{v:>5}", lambda v: [0, 1, 2, 3][v]]
BINARY = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge, operator.add,
          operator.sub, operator.mul, operator.floordiv, operator.mod, divmod, pow, operator.lshift,
          operator.rshift, operator.and_, operator.or_, operator.xor, operator.truediv]


@pytest.mark.parametrize("fn", UNARY)
@pytest.mark.parametrize("v", [(1, 2, 3), Msg((0, 1), 2), frozenset({1, 2})])
def test_container_operations_give_the_values_result_and_log_the_component(v, fn):
    log: list = []
    t = Traced(v, 7, log)
    assert _outcome(fn, t) == _outcome(fn, v)
    assert log and set(log) == {7}


@pytest.mark.parametrize("fn", NUMERIC)
def test_numeric_operations_give_the_values_result_and_log_the_component(fn):
    log: list = []
    assert fn(Traced(2, 3, log)) == fn(2)
    assert set(log) == {3}


@pytest.mark.parametrize("fn", BINARY)
@pytest.mark.parametrize("a, b", [(6, 4), (4, 6), (3, 3)])
def test_binary_operations_either_side_and_both_traced(fn, a, b):
    log: list = []
    assert fn(Traced(a, 0, log), b) == fn(a, b)
    assert fn(a, Traced(b, 1, log)) == fn(a, b)
    assert fn(Traced(a, 2, log), Traced(b, 3, log)) == fn(a, b)
    assert set(log) == {0, 1, 2, 3}


def test_mixed_types_dispatch_as_the_values_do():
    log: list = []
    assert Traced(3, 0, log) < 5.0 and 5.0 > Traced(3, 0, log)
    assert Traced((1,), 0, log) + (2,) == (1, 2) and (0,) + Traced((1,), 0, log) == (0, 1)
    assert pow(Traced(3, 0, log), 2, 5) == 4


@pytest.mark.parametrize("value", [5, True, 2.5, None, (1, 2), frozenset({3}), "ab", iter((1, 2, 3))],
                         ids=lambda v: type(v).__name__)
def test_length_hint_with_a_default_is_the_values(value):
    """``operator.length_hint(part, default)``: the value's length, its own hint, or the default where it has
    neither (an int), never a hint the stand-in made up."""
    log: list = []
    assert operator.length_hint(Traced(value, 0, log), 7) == operator.length_hint(value, 7)
    assert log == [0] or log == [0, 0]


@pytest.mark.parametrize("value", [5, 2.5, True, "4", "2.5", (1,), None])
def test_checks_c_code_makes_of_a_value_are_made_of_the_stand_in_alike(value):
    """C code asks whether an argument is callable, or converts it as a number through its type's slots
    (``math.sqrt`` refuses a str, which only ``float()`` parses): a stand-in passes exactly where its value
    does."""
    import collections
    import math

    log: list = []
    t = Traced(value, 0, log)
    assert callable(t) == callable(value)
    acts = [math.sqrt, math.floor, math.fsum, lambda x: "%d" % (x,), lambda x: "%f" % (x,)]
    if value is not None:  # defaultdict(None) is allowed by name; a stand-in for None is refused (safe)
        acts.append(collections.defaultdict)
    for act in acts:
        plain, traced = _outcome(act, [value] if act is math.fsum else value), \
            _outcome(act, [t] if act is math.fsum else t)
        assert plain == traced if plain[0] != "returns" or not isinstance(plain[1], collections.defaultdict) \
            else traced[0] == "returns", (act, plain, traced)


@pytest.mark.parametrize("traced", [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)],
                         ids=lambda t: "traced " + "+".join(("base", "exponent", "modulus")[i] for i in t))
def test_three_argument_pow_with_any_argument_traced(traced):
    """Compiled, three-argument pow reaches the traced type's slot with the modulus alone traced (the two plain
    operands sharing a type), and with the exponent alone traced: each must give the plain values' answer and
    note the traced ones as read."""
    log: list = []
    args = [Traced(v, i, log) if i in traced else v for i, v in enumerate((3, 7, 5))]
    try:
        got = pow(*args)
    except TypeError:
        # A Python class's __rpow__ is not asked by three-argument pow: interpreted, the learner raises, and
        # the tables stop for the spec's own code.
        assert not str(getattr(sys.modules[Traced.__module__], "__file__", "")).endswith(".so") and 0 not in traced
        return
    assert got == pow(3, 7, 5)
    assert set(log) == set(traced)


def test_attributes_membership_indexing_and_class_are_the_values():
    log: list = []
    t = Traced(Msg((0, 1), 2), 5, log)
    assert t.version == 2 and t.isr == (0, 1) and t[1] == 2
    assert t._replace(version=3) == Msg((0, 1), 3)
    assert 2 in t and isinstance(t, Msg) and t.__class__ is Msg
    assert value_of(t) == Msg((0, 1), 2) and component_of(t) == 5
    assert {Traced(1, 0, log): "a"}[1] == "a"  # hashes and compares as its value
    assert log and set(log) == {5, 0}


def test_changing_copying_and_pickling_act_on_the_value():
    log: list = []
    t = Traced((1, 2), 4, log)
    for act in (lambda x: operator.setitem(x, 0, 5), lambda x: operator.delitem(x, 0)):
        assert _outcome(act, t) == _outcome(act, (1, 2))
        assert _outcome(act, t)[0] == "raises TypeError"
    with pytest.raises(TypeError):
        t()
    for fn in (copy.copy, copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))):
        assert fn(t) == (1, 2) and type(fn(t)) is tuple
    assert set(log) == {4}


@pytest.mark.slow
def test_the_same_behaviour_without_the_compiled_modules():
    """The pure-Python class (no Cython build) passes the same tests."""
    env = {**os.environ, "MODELCHECK_INTERPRETED": "1"}
    probe = ("from modelcheck.build import compiled; compiled.activate(); import modelcheck.memo.traced as t; "
             "print(compiled.is_compiled(t))")
    assert subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=60).stdout.strip() == "False"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k", "not without"],
                       cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
