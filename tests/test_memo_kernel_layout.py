"""The memo kernel's slot layout has one definition: kernel.py's constants, from which the build makes the C enums.

The statuses, the order of the arrays and the slots of the scalars array
are Python constants in ``modelcheck/memo/kernel.py``; ``modelcheck compile``
makes the C enums ``kernel.pxd`` uses from those lines
(:mod:`modelcheck.build.c_enums`).  These tests check the enums made from
the file against the module's constants, that the C uses no such name
defined elsewhere, that a build is keyed by the generator too, that the
arrays are handed over by slot, and, compiled (slow), that a kernel built
from a copy with every order permuted gives the same search as the real one.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

from modelcheck.build import c_enums, compiled
from modelcheck.memo import kernel as kn

SOURCE = Path(compiled.__file__).parents[1] / "memo" / "kernel.py"
PXD = SOURCE.with_suffix(".pxd")


def _groups(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return c_enums.enums(text, str(SOURCE))


def _header_values(header: str) -> dict[str, int]:
    return {name: int(value) for name, value in re.findall(r"^\s+(\w+) = (\d+),?$", header, re.M)}


def test_the_c_enums_are_the_python_constants() -> None:
    text = SOURCE.read_text(encoding="utf-8")
    groups = _groups(text)
    assert [(prefix, names[0], names[-1]) for prefix, names in groups] == [
        ("MC_", "DONE", "ORBIT_MISS"), ("MC_", "ROWS", "N_ARRAYS"), ("", "S_I", "S_N_SCALARS")]
    made = _header_values(c_enums.header(text, str(SOURCE)))
    assert made == {prefix + name: getattr(kn, name) for prefix, names in groups for name in names}
    assert made["MC_N_ARRAYS"] == kn.N_ARRAYS == len(kn.DTYPES)
    assert made["S_N_SCALARS"] == kn.S_N_SCALARS


def test_the_c_defines_none_of_the_made_names_and_uses_only_those() -> None:
    """A hand-written copy of an enum in kernel.pxd, or a slot the C reads that kernel.py does not define, fails here
    (and the compile would fail too: a name defined twice, or not at all)."""
    made = set(_header_values(c_enums.header(SOURCE.read_text(encoding="utf-8"), str(SOURCE))))
    c = PXD.read_text(encoding="utf-8")
    defined = set(re.findall(r"#define\s+(\w+)", c))
    for body in re.findall(r"\benum\s*\w*\s*\{([^}]*)\}", c):
        defined |= set(re.findall(r"(?:^|,)\s*(\w+)", re.sub(r"/\*.*?\*/|=[^,]*", "", body, flags=re.S)))
    assert not defined & made
    used = set(re.findall(r"\b(?:MC|S)_[A-Z0-9_]+\b", c)) - defined
    assert used <= made, used - made
    assert {"MC_ROWS", "MC_N_ARRAYS", "S_I", "S_N_SCALARS", "MC_DONE"} <= used


def _permuted(text: str) -> str:
    """kernel.py with each marked group's names in reverse order (the counts N_ARRAYS, S_N_SCALARS kept last)."""
    lines = text.splitlines(keepends=True)
    marked = {names: None for _, names in _groups(text)}
    for stmt in reversed(ast.parse(text).body):
        if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Tuple):
            continue
        names = tuple(e.id for e in stmt.targets[0].elts if isinstance(e, ast.Name))
        if names not in marked:
            continue
        new = names[-2::-1] + names[-1:] if names[-1].startswith(("N_", "S_N_")) else names[::-1]
        assignment = f"({', '.join(new)}) = range({len(new)})\n"
        lines[stmt.lineno - 1:stmt.end_lineno] = [assignment]
    return "".join(lines)


def test_the_enums_follow_an_edited_order(tmp_path: Path) -> None:
    """Made from the text: a copy with the orders permuted gives permuted enums, the copy's own constants."""
    text = _permuted(SOURCE.read_text(encoding="utf-8"))
    made = _header_values(c_enums.header(text, "kernel.py"))
    copy = tmp_path / "kernel.py"
    copy.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("permuted_kernel", copy)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert made["MC_ROWS"] == module.ROWS == kn.N_ARRAYS - 1 and made["MC_N_ARRAYS"] == kn.N_ARRAYS
    assert made["S_I"] == module.S_I == kn.S_N_SCALARS - 1 and made["MC_ORBIT_MISS"] == module.ORBIT_MISS == 0
    assert module.DTYPES[module.LEAVES] == kn.LEAF and module.DTYPES[module.VKEYS] == kn.DTYPES[kn.VKEYS]


@pytest.mark.parametrize("text, says", [
    ("# modelcheck: c enum\nA, B = 1, 2\n", "must be above"),
    ("# modelcheck: c enum\nA, B = range(3)\n", "must be above"),
    ("# modelcheck: c enum X_\n\nA, B = range(2)\n", "not directly above"),
    ("def f():\n# modelcheck: c enum\n    A, B = range(2)\n", "not directly above"),
])
def test_a_marker_above_anything_else_is_an_error(text: str, says: str) -> None:
    with pytest.raises(c_enums.EnumError, match=says):
        c_enums.header(text, "m.py")


def test_a_build_of_marked_constants_is_keyed_by_the_generator(tmp_path: Path, monkeypatch) -> None:
    """A changed generator makes other headers: the kernel's build is then not current."""
    before = compiled._artefact_for("modelcheck.memo.kernel", str(SOURCE), "9.9", str(tmp_path))
    monkeypatch.setattr(c_enums, "version", lambda: "another")
    assert compiled._artefact_for("modelcheck.memo.kernel", str(SOURCE), "9.9", str(tmp_path)) != before
    expander = str(SOURCE.parents[1] / "model" / "expander.py")
    assert not c_enums.has_enums(Path(expander).read_bytes()) and c_enums.has_enums(SOURCE.read_bytes())


@pytest.mark.slow
@pytest.mark.skipif(not kn.COMPILED, reason="builds the kernel, and compares it with the compiled one")
def test_a_kernel_built_with_every_order_permuted_searches_the_same(tmp_path: Path, monkeypatch) -> None:
    """Python and C both follow kernel.py: permuted there, the C loop indexes the same arrays and slots.

    With the C's enums written out by hand, as they were, the same edit to kernel.py alone would hand the
    C loop its arrays in another order than it reads them.
    """
    from modelcheck.memo import backend as backend_mod
    from modelcheck.memo.backend import MemoBackend
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.search.driver import LevelDriver
    from modelcheck.spec.constants import build_constants
    from modelcheck.spec.loader import load_spec

    src = tmp_path / "src"
    src.mkdir()
    (src / "kernel.py").write_text(_permuted(SOURCE.read_text(encoding="utf-8")), encoding="utf-8")
    (src / "kernel.pxd").write_bytes(PXD.read_bytes())
    so = tmp_path / ("kernel" + compiled.EXT_SUFFIX)
    work = tmp_path / "work"
    work.mkdir()
    compiled.compile_module("kernel", str(src / "kernel.py"), str(so), str(work), engine=True)
    loader = importlib.machinery.ExtensionFileLoader("kernel", str(so))
    permuted = importlib.util.module_from_spec(importlib.util.spec_from_file_location("kernel", so, loader=loader))
    loader.exec_module(permuted)
    assert permuted.COMPILED and permuted.ROWS == kn.N_ARRAYS - 1 and permuted.S_I == kn.S_N_SCALARS - 1

    def run() -> tuple:
        spec = load_spec("kip320")
        model = BoundModel(spec, build_constants(spec, {"Replicas": 2}), CheckOptions())
        r = LevelDriver(model, MemoBackend(model)).run()
        return r.distinct_states, r.states_generated, r.depth, r.action_stats

    reference = run()
    monkeypatch.setattr(backend_mod, "kn", permuted)
    assert run() == reference
    assert reference[0] == 5_973


def test_the_array_table_takes_each_slot_once() -> None:
    """The arrays are handed over by slot, so no caller keeps an order of its own; a slot left out is an error."""
    arrs = {j: np.zeros(3, dtype) for j, dtype in enumerate(kn.DTYPES)}
    table = kn.array_table(arrs)
    assert table[kn.ROWS] == arrs[kn.ROWS].__array_interface__["data"][0] and table[kn.N_ARRAYS + kn.VFP] == 3
    del arrs[kn.OUT_CHECKS]
    with pytest.raises(ValueError, match="one per slot"):
        kn.array_table(arrs)
