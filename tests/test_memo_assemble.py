"""A traced state built in C (modelcheck.memo.assemble) is the one the layout's generated code builds, and
a successor's entries written by the compiled writer (modelcheck.memo.traced) are the generated code's.

For states of every registered spec: the same classes at every record and
tuple, the very same Traced object at every component (the learner's log
and the successors' entries rely on that identity); for every successor
the spec's actions build from those traced states, the same entries, and
for a successor of another shape the same LayoutMismatch.
"""

from __future__ import annotations

import pytest

from modelcheck.memo import assemble, traced
from modelcheck.memo.backend import sample_states
from modelcheck.memo.layout import LayoutMismatch, _generate, derive_layout
from modelcheck.memo.tries import TracedOf
from modelcheck.memo.values import Interner
from modelcheck.model.bound import BoundModel
from modelcheck.model.fingerprint import is_canonical
from modelcheck.options import CheckOptions
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec, registered_specs

pytestmark = pytest.mark.skipif(not assemble.COMPILED, reason="the assembler runs compiled only")


def _same(a, b) -> None:
    """``a`` and ``b`` are built alike: equal types all the way down, the same objects at the leaves."""
    assert type(a) is type(b)
    if type(a).__name__ == "Traced":
        assert a is b
        return
    assert len(a) == len(b)
    for x, y in zip(a, b):
        _same(x, y)


def _traced_setup(name: str, n: int):
    """A registered spec's model, its first ``n`` states, their layout, an interner and the Traced makers."""
    spec = load_spec(name)
    model = BoundModel(spec, build_constants(spec, {}), CheckOptions())
    states = sample_states(model, n)
    layout = derive_layout(states)
    intern = Interner(is_canonical)
    log: list = []
    return model, states, layout, intern, [TracedOf(k, intern.values, log) for k in range(layout.width)]


@pytest.mark.parametrize("name", sorted(registered_specs()))
def test_assembled_state_is_the_generated_one(name):
    _model, states, layout, intern, T = _traced_setup(name, 300)
    generated = _generate(layout.root)[0]
    built = assemble.Assembler(assemble.shape_of(layout.root))
    assert layout.traced_state is not generated  # the layout took the assembler
    for s in states:
        row = layout.row(s, intern)
        t = built(row, T)
        _same(t, generated(row, T))
        assert t == s  # a Traced compares as its value


def test_a_short_row_is_an_error_not_a_crash():
    built = assemble.Assembler((None, (0, 1, 2)))
    with pytest.raises(IndexError):
        built((0, 0), [{0: "a"}, {0: "b"}, {0: "c"}])
    with pytest.raises(TypeError):
        built([0, 0, 0], [{0: "a"}, {0: "b"}, {0: "c"}])


@pytest.mark.parametrize("name", sorted(registered_specs()))
def test_compiled_successor_entries_are_the_generated_ones(name):
    model, states, layout, intern, T = _traced_setup(name, 200)
    generated = _generate(layout.root)[2]
    assert isinstance(layout.child_entry_of, traced.SuccessorEntries)  # the layout took the compiled writer
    compared = 0
    for s in states:
        ts = layout.traced_state(layout.row(s, intern), T)
        for a, bindings in zip(model.actions, model.bindings):
            for b in bindings:
                r = a.fn(model.c, ts, *b)
                for t in [] if r is None else r if type(r) is list else [r]:
                    mine: list = []
                    theirs: list = []
                    layout.child_entry_of(t, mine, intern, ts)
                    generated(t, theirs, intern, ts)
                    assert mine == theirs
                    assert len(mine) == layout.width
                    compared += 1
    assert compared > len(states)  # most sampled states have successors


def test_a_successor_of_another_shape_gets_the_generated_codes_mismatch():
    states = [((1, 2), 3), ((4, 5), 6)]
    layout = derive_layout(states)
    intern = Interner(is_canonical)
    T = [TracedOf(k, intern.values, []) for k in range(layout.width)]
    ts = layout.traced_state(layout.row(states[0], intern), T)
    assert isinstance(layout.child_entry_of, traced.SuccessorEntries)
    out = [7]
    layout.child_entry_of(((ts[0][1], 9), ts[1]), out, intern, ts)
    assert out == [7, ~1, intern(9), ~2]
    out = [7]
    layout.child_entry_of((ts[0], 8), out, intern, ts)  # the parent's very tuple: every component below
    assert out == [7, ~0, ~1, intern(8)]
    for bad, path in [(((1, 2, 3), 4), (0,)), ([(1, 2), 3], ()), ((None, 4), (0,))]:
        out = [7]
        with pytest.raises(LayoutMismatch) as raised:
            layout.child_entry_of(bad, out, intern, ts)
        assert raised.value.path == path
