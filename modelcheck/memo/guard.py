"""Keep off the memo tables a spec whose code could see through a traced component.

A :class:`~modelcheck.memo.traced.Traced` behaves as its value under every
operation except ``type(x)`` and identity (``x is y``, ``id(x)``), and,
in a spec compiled with Cython, ``isinstance(x, frozenset)`` (a C test of
the type): those would see the wrapper, and a branch on them would be
taken without the read being noted, so the decision tree could store a
result that holds for the wrapper only.  This module reads the source of
the functions the spec runs (its actions, the invariants and properties
checked, its constraint) and of the spec's functions they call, and names
the first such use; ``is None`` and ``is not None`` are fine (no state
part is None).
"""

from __future__ import annotations

import ast
import inspect
import os
import sys
import types
from typing import Any, Callable, Iterable

_ENGINE_PREFIXES = ("modelcheck.spec", "modelcheck.model", "modelcheck.memo", "modelcheck.search",
                    "modelcheck.output", "modelcheck.build")
"""The checker's own modules: what specs call from them (``replace_at``, ``Domain``) is not state code."""


def first_opaque_use(functions: Iterable[Callable]) -> str | None:
    """``file:line: what`` for the first ``type()``, ``id()``, ``isinstance()`` or ``is`` the spec's code
    applies, or None.

    The code is that of the given functions and of every function of the
    spec's modules they call, found by following the names their bodies call
    (``helper(...)``, ``module.helper(...)``) through their modules' globals.
    """
    queue = list(functions)
    done: set[tuple[str, str]] = set()
    while queue:
        fn = queue.pop(0)
        module = sys.modules.get(getattr(fn, "__module__", None) or "")
        qualname = getattr(fn, "__qualname__", None)
        if module is None or qualname is None or _is_outside(module) or (module.__name__, qualname) in done:
            continue
        done.add((module.__name__, qualname))
        path = _source_path(module)
        if path is None:
            return f"{module.__name__}: no Python source to check"
        # A function defined inside another (an action made by a factory) is read with all of its outer one.
        try:
            node = _definition(path, qualname.split(".<locals>")[0])
        except (OSError, SyntaxError, ValueError):
            return f"{_short(path)}: cannot be read to check"
        if node is None:
            if "<lambda>" in qualname:
                return f"{_short(path)}: {qualname} cannot be found in the source to check"
            continue  # not defined by a def here (a class, an alias): nothing of the spec's own to read
        found = _first_in(node)
        if found:
            return f"{_short(path)}:{found[0]}: {found[1]}"
        queue.extend(_called(node, vars(module)))
    return None


def definition_of(fn: Callable) -> Any:
    """The ``def`` of a module-level function (or method) of the spec, parsed from its ``.py``; or None."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    qualname = getattr(fn, "__qualname__", None)
    if module is None or qualname is None or "<" in qualname:
        return None
    path = _source_path(module)
    if path is None:
        return None
    try:
        return _definition(path, qualname)
    except (OSError, SyntaxError, ValueError):
        return None


def _first_in(tree: Any) -> tuple[int, str] | None:
    found = [(node.lineno, what) for node in ast.walk(tree) if (what := _opaque(node))]
    return min(found, key=lambda f: (f[0], not f[1].endswith("(...)"))) if found else None  # a call first


_TREES: dict[tuple[str, int, int], Any] = {}
"""Parsed sources by (path, mtime, size): a cache of file contents, not of any run's state."""


def source_end(fn: Callable) -> int | None:
    """The last line of the source of the module that defines ``fn`` (as parsed), or None if unreadable."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    path = _source_path(module) if module is not None else None
    if path is None:
        return None
    try:
        body = _tree(path).body
    except (OSError, SyntaxError, ValueError):
        return None
    return max((getattr(n, "end_lineno", None) or n.lineno for n in body), default=0)


def _tree(path: str) -> Any:
    """The file's parsed source (each version of a file parsed once)."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    tree = _TREES.get(key)
    if tree is None:
        with open(path, encoding="utf-8") as f:
            tree = _TREES[key] = ast.parse(f.read())
    return tree


def _definition(path: str, qualname: str) -> Any:
    """The ``def`` of ``qualname`` in the file (each version of a file parsed once)."""
    node = _tree(path)
    for part in qualname.split("."):
        node = next((n for n in getattr(node, "body", []) if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
    return node


def _called(tree: Any, names: dict) -> list:
    """The functions ``tree`` names (called or passed on: ``map(helper, xs)``), resolved in a module's
    globals (``helper``, ``module.helper``); what cannot be resolved is not the spec's module code."""
    out = []
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            target = names.get(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = names.get(node.value.id)
            if isinstance(owner, types.ModuleType):
                target = getattr(owner, node.attr, None)
        if target is not None and callable(target) and not isinstance(target, (type, types.ModuleType)):
            out.append(getattr(target, "fn", target))  # an action object's function
    return out


def _is_outside(m: types.ModuleType) -> bool:
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


def _source_path(m: types.ModuleType) -> str | None:
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


def _opaque(node: Any) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("type", "id") \
            and len(node.args) == 1 and not node.keywords:
        return f"{node.func.id}(...)"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
        return "isinstance(...)"  # compiled, isinstance(x, frozenset) is a C type test
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        for op, a, b in zip(node.ops, operands, operands[1:]):
            if isinstance(op, (ast.Is, ast.IsNot)) and not (_is_none(a) or _is_none(b)):
                return "an identity comparison (`is`)"
    return None


def _is_none(node: Any) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _short(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path
