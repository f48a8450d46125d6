"""A traced state built in C (modelcheck.memo.assemble) is the one the layout's generated code builds.

For states of every registered spec: the same classes at every record and
tuple, the very same Traced object at every component (the learner's log
and the successors' entries rely on that identity).
"""

from __future__ import annotations

import pytest

from modelcheck.memo import assemble
from modelcheck.memo.backend import sample_states
from modelcheck.memo.layout import _generate, derive_layout
from modelcheck.memo.tries import TracedOf
from modelcheck.memo.values import Interner
from modelcheck.model.bound import BoundModel
from modelcheck.model.fingerprint import _is_canonical
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


@pytest.mark.parametrize("name", sorted(registered_specs()))
def test_assembled_state_is_the_generated_one(name):
    spec = load_spec(name)
    model = BoundModel(spec, build_constants(spec, {}), CheckOptions())
    states = sample_states(model, 300)
    layout = derive_layout(states)
    intern = Interner(_is_canonical)
    log: list = []
    T = [TracedOf(k, intern.values, log) for k in range(layout.width)]
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
