"""A traced state built from a row in one C call (the learner builds one for every evaluation).

The layout's generated ``traced_state`` (:mod:`modelcheck.memo.layout`) is
straight-line Python: per component two subscripts and a lookup, per record
a ``tuple.__new__`` through an intermediate tuple, all interpreted.  Built
here, the same state costs about a third as much (Kip320: 21 components and
seven records or tuples a state, 47,450 evaluations).  It is only a faster
way to the same objects: tests/test_memo_assemble.py compares the two on
states of every registered spec.
"""

# modelcheck: compile

from __future__ import annotations

from typing import Any

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module

    COMPILED: bool = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra
    COMPILED = False


def shape_of(node: Any) -> Any:
    """The layout's tree (:mod:`modelcheck.memo.layout`) as :func:`mc_assemble` reads it: a component index,
    or ``(record class, children)``, ``(None, children)`` for a plain tuple, children a tuple."""
    if type(node) is int:
        return node
    if node[0] == "record":
        return (node[1], tuple(shape_of(c) for c in node[2]))
    return (None, tuple(shape_of(c) for c in node[1]))


class Assembler:
    """``assembler(row, T)``: the state of ``row`` (a tuple of ids) with component ``k`` the Traced
    ``T[k][row[k]]``; compiled only (:data:`COMPILED`), the layout's generated code serves otherwise."""

    def __init__(self, shape: Any) -> None:
        if not COMPILED:
            raise RuntimeError("the assembler runs compiled only (modelcheck compile)")
        self.shape = shape

    def __call__(self, row: tuple, T: list) -> Any:
        if type(row) is not tuple or type(T) is not list:
            raise TypeError("assemble: a tuple row and a list of Traced makers")
        return mc_assemble(self.shape, row, T)
