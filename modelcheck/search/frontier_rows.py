"""A checkpoint's frontier as rows of part ids: each distinct part pickled once, each state a row of ints.

Why: an engine that keeps its states as rows of interned parts (the memo
tables) would otherwise rebuild every frontier state as objects and pickle
each in full, although the frontier's states share almost all their parts.
On the KRaft specs that cost about 150 µs a state, so one checkpoint of a
frontier of a million and a half states took a quarter of an hour; written
as rows it is an array and a pickle of the parts the rows use.

What is written, beside the part's ranks (as every frontier part has):

* ``frontier-N.parts.pickle``: one list, pickled by
  :func:`~modelcheck.search.safe_pickle.dump_states` and read back by its
  safe loader (only the spec's NamedTuple classes, tuples, frozensets,
  lists, numbers and strings): first the *shape* of a state, then the
  distinct part values the rows use;
* ``frontier-N.rows.npy``: one row a state, ``rows[i, k]`` the index in
  that list (after the shape) of state ``i``'s part ``k``; uint16 where
  at most 65,536 parts are written, else int32.

A shape is a part index (``int``), ``("tuple", items)`` or ``("record",
cls, fields)``, the items and fields themselves shapes, and ``cls`` a
NamedTuple class; every part index from 0 to the row's width appears once.
Reading checks all of it (the shape's form, the rows' width and range)
before building a state, and any engine rebuilds the states, so a
checkpoint written this way resumes on every engine.
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO, Callable

import attrs
import numpy as np

from modelcheck.errors import CheckpointError

Shape = Any  # int | ("tuple", tuple[Shape, ...]) | ("record", type, tuple[Shape, ...])


@attrs.frozen(eq=False)
class RowsForm:
    """A frontier as it was written: its shape, its distinct parts, and a row of part ids per state."""

    shape: Shape
    values: list
    rows: np.ndarray

    def fits(self, shape: Shape) -> bool:
        """Whether these rows are rows of ``shape`` (a layout's own, lists or tuples)."""
        return self.shape == plain_shape(shape)


class RowsFrontier(list):
    """The states of a frontier read from rows, in rank order, keeping the rows beside them.

    An engine that holds states as rows (the memo tables) takes ``rows_form``
    and interns each distinct part once, instead of taking every state apart
    again; any other engine sees a list of states.
    """

    rows_form: RowsForm | None = None


def write_rows_part(directory: str, index: int, shape: Shape, values: list, rows: np.ndarray
                    ) -> tuple[str, str, int]:
    """Write ``rows`` (ids into ``values``) with ``shape`` into ``directory``; returns (parts file, rows file,
    number of distinct parts written).

    Only the parts the rows use are written, renumbered in order of their
    old ids, so the file does not grow with everything the engine interned.
    """
    from modelcheck.search.safe_pickle import dump_states

    rows = np.ascontiguousarray(rows, np.int32)
    used, ids = renumbered(rows, len(values))
    packed = ids.astype(np.uint16 if len(used) <= 1 << 16 else np.int32)
    parts_file, rows_file = f"frontier-{index}.parts.pickle", f"frontier-{index}.rows.npy"
    with open(os.path.join(directory, parts_file), "xb") as f:
        dump_states(f, [plain_shape(shape)] + [values[i] for i in used.tolist()])
    with open(os.path.join(directory, rows_file), "xb") as f:
        np.save(f, packed, allow_pickle=False)
    return parts_file, rows_file, len(used)


def renumbered(ids: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``ids`` (each below ``bound``) ascending, and ``ids`` as indices into them (int32).

    A dense map over ``0 .. bound``: ``np.unique`` sorts, several times
    slower for the chunks of a few thousand rows Spark ships.  The map is
    int32 and written only where an id is used, so a task's renumbering
    costs its rows and not the whole interner's range (a prefix sum over it).
    """
    present = np.zeros(bound + 1, bool)
    present[ids.ravel()] = True
    used = np.flatnonzero(present)
    index = np.empty(bound + 1, np.int32)
    index[used] = np.arange(len(used), dtype=np.int32)
    return used, np.take(index, ids)


def read_rows_part(parts: BinaryIO, rows: BinaryIO, count: int, n_parts: int,
                   load_part: Callable[[Any, int], list], damaged: str) -> RowsFrontier:
    """The ``count`` states of a rows part, every piece checked first; ``damaged`` starts each refusal."""
    try:
        table = np.load(rows, allow_pickle=False)
    except (ValueError, OSError, EOFError):
        raise CheckpointError(f"{damaged} (a frontier's rows cannot be read)") from None
    loaded = load_part(parts, 1 + n_parts)
    shape, values = loaded[0], loaded[1:]
    width = shape_width(shape)
    if width is None:
        raise CheckpointError(f"{damaged} (a frontier's state shape is malformed)")
    if table.dtype not in (np.int32, np.uint16) or table.ndim != 2 or table.shape != (count, width):
        raise CheckpointError(f"{damaged} (a frontier's rows have the wrong shape)")
    if count and (table.min() < 0 or table.max() >= n_parts):
        raise CheckpointError(f"{damaged} (a frontier's rows name a part it does not hold)")
    build = assembler(shape)
    out = RowsFrontier(build(r, values) for r in table.tolist())
    out.rows_form = RowsForm(shape, values, table)
    return out


def shape_width(shape: Shape) -> int | None:
    """The number of parts ``shape`` holds, if it is well formed (each index 0 .. width-1 once), else None."""
    seen: list[int] = []

    def walk(node: Any, depth: int) -> bool:
        if depth > 64:
            return False
        if type(node) is int:
            seen.append(node)
            return True
        if type(node) is not tuple or not node:
            return False
        if node[0] == "tuple" and len(node) == 2 and type(node[1]) is tuple and node[1]:
            return all(walk(c, depth + 1) for c in node[1])
        if node[0] == "record" and len(node) == 3 and type(node[2]) is tuple:
            cls = node[1]
            fields = getattr(cls, "_fields", None)
            ok = isinstance(cls, type) and issubclass(cls, tuple) and type(fields) is tuple
            return ok and len(fields) == len(node[2]) and all(walk(c, depth + 1) for c in node[2])
        return False

    if not walk(shape, 0) or sorted(seen) != list(range(len(seen))):
        return None
    return len(seen)


def assembler(shape: Shape) -> Callable[[list, list], Any]:
    """``build(row, values)``: the state of one row, as straight-line code for ``shape`` (the recursive walk
    costs several times as much)."""
    env: dict[str, Any] = {"_new": tuple.__new__}

    def expr(node: Any) -> str:
        if type(node) is int:
            return f"v[r[{node}]]"
        if node[0] == "record":
            name = f"C{len(env)}"
            env[name] = node[1]
            return f"_new({name}, ({''.join(expr(c) + ', ' for c in node[2])}))"
        return f"({''.join(expr(c) + ', ' for c in node[1])})"

    source = f"def build(r, v):\n    return {expr(shape)}\n"
    exec(compile(source, "<modelcheck frontier rows>", "exec"), env)  # noqa: S102 - generated from the shape
    return env["build"]


def plain_shape(node: Any) -> Shape:
    """``node`` with its lists made tuples (a layout may build its shape with lists)."""
    if type(node) is int:
        return node
    if node[0] == "record":
        return ("record", node[1], tuple(plain_shape(c) for c in node[2]))
    return ("tuple", tuple(plain_shape(c) for c in node[1]))
