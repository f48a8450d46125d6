"""The files a spec is made of, and one digest over them.

A checkpoint must only resume the model that wrote it: the spec's name is not
enough (a copy of ``kip320.py`` with a guard removed is still "kip320").  The
spec's module and every module it imports that is not the standard library,
an installed package or the checker itself are found by reading their
``import`` statements (not by looking at what happens to be imported in this
process, so the answer is the same in every run), wherever they live: the
spec's own folder, ``PYTHONPATH``, the project's spec packages (``specs/``,
``invariants/``).  The data files the spec read while it was imported and
bound to its constants (:mod:`modelcheck.spec.opened`) are part of it too.
Each file's bytes are digested, so a change names the file.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import sys
from typing import Any, Iterable

from modelcheck.spec.opened import CHECKER_PACKAGES, data_files, is_under, not_data_roots

SPEC_PACKAGES = ("modelcheck.specs", "modelcheck.invariants")
OPENED_ATTR = "__modelcheck_opened__"
"""A spec module's attribute: the paths it opened for reading while it was imported (set by the loader)."""


def spec_modules(spec: Any) -> list[tuple[str, str]]:
    """(module name, source path) of the spec's modules and of every family module they import, sorted by name.

    The spec's modules are those that define its functions (init, actions,
    invariants, properties, constraints, symmetry, views).
    """
    starts = {}
    for name in _function_modules(spec):
        path = _source_of(name)
        if path is not None:
            starts[name] = path
    packages = _package_dirs()
    elsewhere = not_data_roots()
    found: dict[str, str] = {}
    todo = sorted(starts.items())
    while todo:
        name, file = todo.pop()
        if name in found:
            continue
        found[name] = file
        for imported in _imports(name, file):
            source = _source_of(imported)
            if source is not None and _followed(imported, source, packages, elsewhere):
                todo.append((imported, source))
    return sorted(found.items())


def _followed(name: str, source: str, packages: list[str], elsewhere: list[str]) -> bool:
    """A spec package's module, or one that is neither the checker's, the standard library's nor installed."""
    if any(_inside(source, root) for root in packages):
        return True
    if name.split(".")[0] in CHECKER_PACKAGES:
        return False
    return not is_under(source, elsewhere)


def spec_files(spec: Any, opened: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(what, SHA-256 of its bytes) for each module of :func:`spec_modules` (``module <name>``: where the
    project lives does not matter) and each data file the spec's modules read when imported or that
    ``opened`` names (its absolute path), sorted."""
    out = []
    paths = set(opened)
    for name, path in spec_modules(spec):
        out.append((f"module {name}", _digest(path)))
        paths.update(getattr(sys.modules.get(name), OPENED_ATTR, ()))
    out += [(path, _digest(path)) for path in data_files(paths)]
    return sorted(out)


def _digest(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "unreadable"


def sources_digest(spec: Any, opened: Iterable[str] = ()) -> str:
    """A SHA-256 over :func:`spec_files` (empty string if there are none)."""
    files = spec_files(spec, opened)
    if not files:
        return ""
    h = hashlib.sha256()
    for what, digest in files:
        h.update(what.encode() + b"\0" + digest.encode() + b"\0")
    return h.hexdigest()


def _function_modules(spec: Any) -> set[str]:
    """The modules that define the spec's functions."""
    fns = [getattr(spec, "init", None), getattr(spec, "state_constraint", None),
           getattr(spec, "action_constraint", None), getattr(spec, "view", None), getattr(spec, "lanes", None)]
    fns += [a.fn for a in getattr(spec, "actions", ())]
    fns += [p.fn for p in tuple(getattr(spec, "invariants", ())) + tuple(getattr(spec, "sometimes", ()))]
    symmetry = getattr(spec, "symmetry", None)
    if symmetry is not None:
        fns += [symmetry.size, symmetry.permute, symmetry.signature]
    out = set()
    for fn in fns:
        module = getattr(fn, "__module__", None)
        if module and module != "builtins" and not module.startswith("modelcheck.") or \
                (module or "").startswith(SPEC_PACKAGES):
            out.add(module)
    return out


def _package_dirs() -> list[str]:
    out = []
    for pkg in SPEC_PACKAGES:
        found = importlib.util.find_spec(pkg)
        out += [os.path.abspath(d) for d in (found.submodule_search_locations or [])] if found else []
    return out


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([os.path.abspath(path), root]) == root


def _source_of(name: str) -> str | None:
    """The ``.py`` file a module name is imported from, without importing it (None if there is none)."""
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    if path and path.endswith(".py"):
        return os.path.abspath(path)
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if found is None or not found.origin:
        return None
    origin = found.origin
    if not origin.endswith(".py"):  # a compiled build: digest the source it was built from
        parent, _, leaf = name.rpartition(".")
        parent_spec = importlib.util.find_spec(parent) if parent else None
        for d in (parent_spec.submodule_search_locations or []) if parent_spec else []:
            candidate = os.path.join(d, leaf + ".py")
            if os.path.isfile(candidate):
                return os.path.abspath(candidate)
        return None
    return os.path.abspath(origin)


def _imports(name: str, path: str) -> list[str]:
    """The absolute module names a source file imports (``from . import x`` resolved against ``name``)."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return []
    package = name if os.path.basename(path) == "__init__.py" else name.rpartition(".")[0]
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(parts + ([node.module] if node.module else []))
            if base:
                out.append(base)
                out += [f"{base}.{alias.name}" for alias in node.names]  # ``from pkg import module``
    return out
