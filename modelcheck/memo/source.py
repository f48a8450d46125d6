"""Reading a spec's own source: where a module's ``.py`` is, its parsed tree, a function's ``def``.

The memo tables read the spec's source twice: the allowlist
(:mod:`modelcheck.memo.allowlist`) checks what each function can run, and
the guard and effect split (:mod:`modelcheck.memo.split`) rewrites actions.
Both read it here, each version of a file parsed once, also when the spec
runs compiled (its ``__file__`` is then the built extension).
"""

from __future__ import annotations

import ast
import os
import sys
import types
from typing import Any, Callable

_ENGINE_PREFIXES = ("modelcheck.spec", "modelcheck.model", "modelcheck.memo", "modelcheck.search",
                    "modelcheck.output", "modelcheck.build")
"""The checker's own modules: what specs call from them (``replace_at``, ``Domain``) is not state code."""


def definition_of(fn: Callable) -> Any:
    """The ``def`` of a module-level function (or method) of the spec, parsed from its ``.py``; or None."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    qualname = getattr(fn, "__qualname__", None)
    if module is None or qualname is None or "<" in qualname:
        return None
    path = source_path(module)
    if path is None:
        return None
    try:
        return _definition(path, qualname)
    except (OSError, SyntaxError, ValueError):
        return None


_TREES: dict[tuple[str, int, int], Any] = {}
"""Parsed sources by (path, mtime, size): a cache of file contents, not of any run's state."""


def source_end(fn: Callable) -> int | None:
    """The last line of the source of the module that defines ``fn`` (as parsed), or None if unreadable."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    path = source_path(module) if module is not None else None
    if path is None:
        return None
    try:
        body = parsed_source(path).body
    except (OSError, SyntaxError, ValueError):
        return None
    return max((getattr(n, "end_lineno", None) or n.lineno for n in body), default=0)


def parsed_source(path: str) -> Any:
    """The file's parsed source (each version of a file parsed once)."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    tree = _TREES.get(key)
    if tree is None:
        with open(path, encoding="utf-8") as f:
            tree = _TREES[key] = ast.parse(f.read())
    return tree


def function_defs(tree: Any) -> list:
    """Every ``def`` in a parsed tree, outer before inner (``ast.walk`` order), listed once per tree: the
    allowlist looks up each function it reviews here, and walking a whole module per lookup made the review
    cost more than the search on small models."""
    found = getattr(tree, "_modelcheck_defs", None)
    if found is None:
        found = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        tree._modelcheck_defs = found
    return found


def inside_classes(tree: Any) -> set[int]:
    """The ids of every node inside a class body in a parsed tree, listed once per tree (Python renames a
    private name there, and the allowlist asks this of each function it reviews)."""
    found = getattr(tree, "_modelcheck_in_classes", None)
    if found is None:
        found = {id(n) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in ast.walk(c) if n is not c}
        tree._modelcheck_in_classes = found
    return found


def _definition(path: str, qualname: str) -> Any:
    """The ``def`` of ``qualname`` in the file (each version of a file parsed once)."""
    node = parsed_source(path)
    for part in qualname.split("."):
        node = next((n for n in getattr(node, "body", []) if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
    return node


def is_outside(m: types.ModuleType) -> bool:
    """Modules that are not the spec's: the standard library, installed packages, the checker's engine."""
    name = m.__name__
    if name in ("modelcheck", "builtins") or any(name == p or name.startswith(p + ".") for p in _ENGINE_PREFIXES):
        return True
    if name.startswith("modelcheck."):
        return False  # the project's specs and invariants (possibly compiled, from a build directory)
    file = getattr(m, "__file__", None) or ""
    if not file or "site-packages" in file or file.startswith(sys.base_prefix):
        return True
    return name.split(".")[0] in sys.stdlib_module_names


def source_path(m: types.ModuleType) -> str | None:
    """The module's ``.py``, also when it runs compiled (its ``__file__`` is then the built extension)."""
    from modelcheck.model.blame import SOURCE_ATTR

    path = getattr(m, SOURCE_ATTR, None) or getattr(m, "__file__", None)
    if path and str(path).endswith(".py"):
        return str(path)
    parent, _, leaf = m.__name__.rpartition(".")
    package = sys.modules.get(parent)
    for d in getattr(package, "__path__", None) or ():
        candidate = os.path.join(d, leaf + ".py")
        if os.path.exists(candidate):
            return candidate
    return None


def short_path(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path
