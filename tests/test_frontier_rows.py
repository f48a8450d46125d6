"""A frontier written as rows of part ids reads back as the very states, and a damaged one is refused in one line.

The states here are built by hand (records, split tuples, a frozenset and a
log kept whole), written with a shape like the memo tables' layout, and read
back through the checkpoint's safe loader, which admits only this module's
NamedTuple classes.  The end-to-end side (a tables run's checkpoint resumed
on every engine) is in test_checkpoint_resume.py and test_checkpoint_fuzz.py.
"""

from __future__ import annotations

import io
from typing import NamedTuple

import numpy as np
import pytest

from modelcheck.errors import CheckpointError
from modelcheck.search.frontier_rows import assembler, read_rows_part, shape_width, write_rows_part
from modelcheck.search.safe_pickle import load_states


class Replica(NamedTuple):
    epoch: int
    log: tuple


class State(NamedTuple):
    replicas: tuple
    leader: int
    msgs: frozenset


SHAPE = ("record", State, (("tuple", (("record", Replica, (0, 1)), ("record", Replica, (2, 3)))), 4, 5))
"""replicas split into two records of two parts each; leader and msgs whole: six parts."""


def _parts(s: State) -> list:
    return [s.replicas[0].epoch, s.replicas[0].log, s.replicas[1].epoch, s.replicas[1].log, s.leader, s.msgs]


def _states() -> list[State]:
    out = []
    for e in range(3):
        for log in ((), (1,), (1, 2)):
            out.append(State((Replica(e, log), Replica(e + 1, ())), e % 2, frozenset({("m", e), ("n", len(log))})))
    return out


def _interned(states: list[State]) -> tuple[list, np.ndarray]:
    """An interner's values (with some no row uses) and the rows."""
    values: list = ["unused", -7]
    ids: dict = {}
    rows = []
    for s in states:
        row = []
        for v in _parts(s):
            key = (type(v), v)
            if key not in ids:
                ids[key] = len(values)
                values.append(v)
            row.append(ids[key])
        rows.append(row)
    return values, np.array(rows, np.int32)


def _load(f, n):  # noqa: ANN001, ANN202 - the checkpoint's loader, admitting this module's classes
    return load_states(f, [__name__], n)


def _written(tmp_path, states: list[State]) -> tuple:
    values, rows = _interned(states)
    parts, rows_file, n = write_rows_part(str(tmp_path), 0, SHAPE, values, rows)
    return tmp_path / parts, tmp_path / rows_file, n


def _read(parts, rows, count: int, n: int) -> list:
    with open(parts, "rb") as p, open(rows, "rb") as r:
        return read_rows_part(p, r, count, n, _load, "damaged")


def test_rows_read_back_as_the_same_states(tmp_path):
    states = _states()
    parts, rows, n = _written(tmp_path, states)
    back = _read(parts, rows, len(states), n)
    assert back == states
    assert all(type(b) is State and type(b.replicas[0]) is Replica for b in back)
    assert n == len({(type(v), v) for s in states for v in _parts(s)}), "only the parts the rows use are written"
    assert np.load(rows).dtype == np.uint16


def test_an_empty_frontier_reads_back_empty(tmp_path):
    parts, rows_file, n = write_rows_part(str(tmp_path), 0, SHAPE, ["x"], np.empty((0, 6), np.int32))
    assert n == 0 and _read(tmp_path / parts, tmp_path / rows_file, 0, 0) == []


def test_the_shape_is_checked():
    assert shape_width(SHAPE) == 6
    assert shape_width(3) is None  # one part must be part 0
    assert shape_width(0) == 1
    assert shape_width(("tuple", (0, 0))) is None  # a part twice
    assert shape_width(("tuple", (0, 2))) is None  # a part missing
    assert shape_width(("tuple", ())) is None
    assert shape_width(("record", Replica, (0,))) is None  # fewer fields than the record has
    assert shape_width(("record", dict, (0, 1))) is None  # not a NamedTuple class
    assert shape_width(("frozenset", (0,))) is None
    deep = 0
    for _ in range(100):
        deep = ("tuple", (deep,))
    assert shape_width(deep) is None


def test_the_assembler_builds_each_record_of_its_class():
    build = assembler(SHAPE)
    s = _states()[4]
    assert build(list(range(6)), _parts(s)) == s


@pytest.mark.parametrize("damage, message", [
    ("row out of range", "name a part it does not hold"),
    ("too few rows", "wrong shape"),
    ("wide rows", "wrong shape"),
    ("float rows", "wrong shape"),
    ("bad shape", "shape is malformed"),
    ("foreign class", "cannot be read"),
    ("not npy", "rows cannot be read"),
])
def test_damaged_rows_are_refused_in_one_line(tmp_path, damage, message):
    states = _states()
    parts, rows, n = _written(tmp_path, states)
    table = np.load(rows)
    count = len(states)
    if damage == "row out of range":
        table = table.astype(np.int32)
        table[3, 2] = n
    elif damage == "too few rows":
        table = table[:-1]
    elif damage == "wide rows":
        table = np.hstack([table, table[:, :1]])
    elif damage == "float rows":
        table = table.astype(np.float64)
    if damage in ("bad shape", "foreign class"):
        import pickle

        listed = pickle.loads(parts.read_bytes())  # the test's own file
        listed[0] = ("tuple", (0, 0)) if damage == "bad shape" else ("record", io.BytesIO, (0, 1))
        parts.write_bytes(pickle.dumps(listed, protocol=pickle.HIGHEST_PROTOCOL))
    if damage == "not npy":
        rows.write_bytes(b"\x93NUMPY garbage")
    elif damage not in ("bad shape", "foreign class"):
        rows.unlink()
        with open(rows, "xb") as f:
            np.save(f, table, allow_pickle=False)
    with pytest.raises(CheckpointError) as err:
        _read(parts, rows, count, n)
    assert message in str(err.value) and "\n" not in str(err.value)

