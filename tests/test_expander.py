"""The compiled successor function against the loop form it unrolls (modelcheck/model/expander.py)."""

from __future__ import annotations

import attrs
import pytest
from conftest import flatten

from modelcheck import Domain, Spec, action, constant
from modelcheck.errors import SpecRuntimeError
from modelcheck.model.expander import compile_expander
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.spec.loader import load_spec


def successors(expand_into, s) -> tuple[list, list]:
    """(action indices, successors) of ``s`` as ``expand_into`` lists them."""
    ais, ts = [], []
    expand_into(s, ais, ts)
    return ais, ts


def reachable(model, limit=20000):
    seen, frontier = set(), list(model.init_states())
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            for _ai, _b, t in model.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    return seen


FORMS = ["unrolled", "loop"]  # BoundModel picks one by whether modelcheck.model.expander runs compiled


def form_of(model, form):
    return compile_expander(model.spec.name, model.actions, model.bindings, model.c, form=form,
                            state_type=model.state_type)


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", ["kip320", "kip279", "truncate-to-hw", "async-isr", "broker-failures"])
def test_same_successors_in_the_same_order_as_the_loop(name, form):
    spec = load_spec(name)
    model = BoundModel(spec, spec.constants_class(Replicas=2), CheckOptions())
    expand_into = form_of(model, form)
    states = reachable(model)
    assert len(states) > 100
    for s in states:
        assert successors(expand_into, s) == flatten(model.expand(s))


@attrs.frozen
class WideConsts:
    N: int = constant(100, "values of the wide parameter", minimum=1, maximum=1000)


WIDE = Domain("wide", lambda c: range(c.N))
PAIR = Domain("pair", lambda c: [(0, 1), (1, 0)])


@action("Wide", x=WIDE)
def wide(c, s, x):
    """Enabled for the values above the state: more bindings than the unroll limit (a generated loop)."""
    return (x,) if s[0] < x < s[0] + 3 else None


@action("Pair", p=PAIR)
def pair(c, s, p):
    """Non-int binding values (looked up, not compiled as constants); a list result counts twice."""
    return [(s[0] + p[0],), (s[0] + p[1],)] if s[0] < 5 else None


@action("Boom", x=WIDE)
def boom(c, s, x):
    if s[0] == 7 and x == 3:
        raise ValueError("seven")
    return None


WIDE_SPEC = Spec(name="wide", title="wide domains", constants=WideConsts, init=lambda c: [(0,)],
                 actions=[wide, pair, boom], deadlock_expected=True)


@pytest.mark.parametrize("form", FORMS)
def test_wide_and_non_int_domains(form):
    model = BoundModel(WIDE_SPEC, WideConsts(), CheckOptions())
    expand_into = form_of(model, form)
    for v in range(7):
        assert successors(expand_into, (v,)) == flatten(model.expand((v,)))
    ais, ts = successors(expand_into, (1,))
    assert ts == [(2,), (3,), (1,), (2,), (2,), (1,)]
    assert ais == [0, 0, 1, 1, 1, 1]


@pytest.mark.parametrize("form", FORMS)
def test_an_action_that_raises_is_named_with_its_binding(form):
    model = BoundModel(WIDE_SPEC, WideConsts(), CheckOptions())
    with pytest.raises(SpecRuntimeError, match=r"action Boom\(x=3\) raised ValueError: seven"):
        form_of(model, form)((7,), [], [])


def test_an_unknown_form_is_refused():
    model = BoundModel(WIDE_SPEC, WideConsts(), CheckOptions())
    with pytest.raises(ValueError, match="form must be 'loop' or 'unrolled'"):
        form_of(model, "vectorised")


def test_loops_once_the_unroll_budget_is_spent(monkeypatch):
    """Past the budget of unrolled bindings, actions get generated loops: same successors, same order."""
    import modelcheck.model.expander as expander

    monkeypatch.setattr(expander, "UNROLL_TOTAL", 4)
    spec = load_spec("kip320")
    model = BoundModel(spec, spec.constants_class(Replicas=2), CheckOptions())
    expand_into = form_of(model, "unrolled")
    for s in list(reachable(model, 3000))[:1000]:
        assert successors(expand_into, s) == flatten(model.expand(s))


BIT = Domain("bit", lambda c: [0, 1])


@action("Three", a=BIT, b=BIT, d=BIT)
def three(c, s, a, b, d):
    return (s[0] + a + 2 * b + 4 * d,) if (a + b + d) % 2 == s[0] % 2 else None


@action("Nine", a=BIT, b=BIT, d=BIT, e=BIT, f=BIT, g=BIT, h=BIT, i=BIT, j=BIT)
def nine(c, s, a, b, d, e, f, g, h, i, j):
    """More parameters than the compiled C loop passes directly (it falls back to ``fn(c, s, *b)``)."""
    bits = (a, b, d, e, f, g, h, i, j)
    return [(s[0] + sum(bits),)] * (1 + a) if sum(bits) == s[0] % 3 else None


@action("None")
def no_parameters(c, s):
    return (s[0] + 1,) if s[0] < 4 else None


MANY_SPEC = Spec(name="many", title="many parameters", constants=WideConsts, init=lambda c: [(0,)],
                 actions=[three, nine, no_parameters], deadlock_expected=True)


@pytest.mark.parametrize("form", FORMS)
def test_zero_three_and_nine_parameters(form):
    """Every arity, including one past the direct C calls, gives the loop form's successors in its order."""
    model = BoundModel(MANY_SPEC, WideConsts(), CheckOptions())
    expand_into = form_of(model, form)
    for v in range(6):
        assert successors(expand_into, (v,)) == flatten(model.expand((v,)))
    ais, ts = successors(expand_into, (0,))
    # Three: the 4 bindings (a, b, d) with an even number of ones, the last parameter varying fastest:
    # 000, 011, 101, 110 -> 0, 6, 5, 3; Nine: only all zeros (once, as a = 0); None: (1,).
    assert ts == [(0,), (6,), (5,), (3,), (0,), (1,)] and ais == [0, 0, 0, 0, 1, 2]


def test_the_compiled_kafka_specs_actions_are_called_as_c_functions():
    """bin/setup's build: every Kip320 action has a C entry, so no call pays the Python protocol."""
    from modelcheck.build import compiled
    from modelcheck.model.expander import c_entry
    import modelcheck.model.expander
    import modelcheck.specs.kip320

    if not (compiled.is_compiled(modelcheck.model.expander) and compiled.is_compiled(modelcheck.specs.kip320)):
        pytest.skip("the engine or the specs run interpreted here (no build)")
    spec = load_spec("kip320")
    assert [a.name for a in spec.actions if c_entry(a.fn, len(a.params)) is None] == []
