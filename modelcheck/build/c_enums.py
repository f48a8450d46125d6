"""C enums generated from a compiled module's Python constants, so that C and Python share one definition.

A compiled engine module whose C (its augmenting ``.pxd``) indexes the same
slots as its Python marks each such constant group with the line
:data:`MARKER`, optionally followed by a prefix for the C names, just above a
tuple assignment from ``range``::

    # modelcheck: c enum MC_
    ROWS, COMP, EDGES = range(3)

``modelcheck compile`` then writes ``enum { MC_ROWS = 0, MC_COMP = 1,
MC_EDGES = 2 };`` into the header :func:`header_name` (``kernel_enums.h`` for
``kernel.py``) in the build's own directory, on the C compiler's include path,
and the ``.pxd`` includes it with ``cdef extern from "kernel_enums.h": pass``.
The header is made from the same source text whose digest names the build, so
a build is never compiled against other constants than the source it is filed
under; it is not kept in the source tree, where it could go stale.  A marker
that is not followed by such an assignment is a build error rather than a
group left out.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re

MARKER = "# modelcheck: c enum"
"""A line of its own above ``A, B, C = range(3)``: emit the names as a C enum (the rest of the line: a prefix)."""
_MARKER_RE = re.compile(r"^" + re.escape(MARKER) + r"(?:[ \t]+([A-Za-z_][A-Za-z0-9_]*))?[ \t]*$", re.M)
_MARKER_BYTES_RE = re.compile(_MARKER_RE.pattern.encode(), re.M)


class EnumError(ValueError):
    """A marker line that is not above a tuple assignment from ``range`` of the same length."""


def has_enums(source: bytes) -> bool:
    """Whether the source has a :data:`MARKER` line (a substring test first: the finder asks on every import)."""
    return MARKER.encode() in source and _MARKER_BYTES_RE.search(source) is not None


def enums(source: str, filename: str = "<source>") -> list[tuple[str, tuple[str, ...]]]:
    """(C prefix, names in order) of each marked group of ``source``, in the order they appear.

    Only module-level statements count, and a group's values are its names'
    positions: ``range(n)`` with ``n`` the number of names.
    """
    prefixes = {source.count("\n", 0, m.start()) + 1: m.group(1) or "" for m in _MARKER_RE.finditer(source)}
    if not prefixes:
        return []
    found: dict[int, tuple[str, tuple[str, ...]]] = {}
    for stmt in ast.parse(source, filename).body:
        line = stmt.lineno - 1
        if line not in prefixes:
            continue
        names = _range_names(stmt)
        if names is None:
            raise EnumError(f"{filename}:{stmt.lineno}: a '{MARKER}' line must be above 'A, B, ... = range(n)'")
        found[line] = (prefixes[line], names)
    for line in prefixes.keys() - found.keys():
        raise EnumError(f"{filename}:{line}: '{MARKER}' is not directly above a module-level statement")
    return [found[line] for line in sorted(found)]


def _range_names(stmt: ast.stmt) -> tuple[str, ...] | None:
    """The names of ``A, B, ... = range(n)`` (n the number of names), else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)):
        return None
    names = tuple(e.id for e in stmt.targets[0].elts if isinstance(e, ast.Name))
    value = stmt.value
    if (len(names) != len(stmt.targets[0].elts) or not isinstance(value, ast.Call)
            or not isinstance(value.func, ast.Name) or value.func.id != "range" or len(value.args) != 1
            or value.keywords or not isinstance(value.args[0], ast.Constant) or value.args[0].value != len(names)):
        return None
    return names


def header_name(source_path: str) -> str:
    """The header a module's ``.pxd`` includes: ``<module>_enums.h``."""
    return os.path.splitext(os.path.basename(source_path))[0] + "_enums.h"


def header(source: str, filename: str = "<source>") -> str:
    """The C header of the marked groups of ``source``: one enum each, every value written out."""
    out = [f"/* Made by modelcheck compile from {os.path.basename(filename)} (modelcheck.build.c_enums). */\n"]
    for prefix, names in enums(source, filename):
        items = ",\n".join(f"    {prefix}{name} = {j}" for j, name in enumerate(names))
        out.append(f"enum {{\n{items}\n}};\n")
    return "".join(out)


def version() -> str:
    """This module's own source, as a digest: a build that used its headers is keyed by it too."""
    with open(__file__, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:20]
