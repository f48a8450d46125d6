"""The source files a spec is made of, and one digest over them.

A checkpoint must only resume the spec that wrote it: the spec's name is not
enough (a copy of ``kip320.py`` with a guard removed is still "kip320").  The
spec's module and every module it imports from its own family are found by
reading their ``import`` statements (not by looking at what happens to be
imported in this process, so the answer is the same in every run), and their
bytes are digested.  A module's family is the directory tree of the spec's
own file and the project's spec packages (``specs/``, ``invariants/``);
modules elsewhere (the standard library, attrs, modelcheck itself, which the
version covers) are not followed.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import sys
from typing import Any

SPEC_PACKAGES = ("modelcheck.specs", "modelcheck.invariants")


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
    roots = sorted({os.path.dirname(path) for path in starts.values()}) + _package_dirs()
    found: dict[str, str] = {}
    todo = sorted(starts.items())
    while todo:
        name, file = todo.pop()
        if name in found:
            continue
        found[name] = file
        for imported in _imports(name, file):
            source = _source_of(imported)
            if source is not None and any(_inside(source, root) for root in roots):
                todo.append((imported, source))
    return sorted(found.items())


def sources_digest(spec: Any) -> str:
    """A SHA-256 over the names and bytes of :func:`spec_modules` (empty string if none can be read)."""
    modules = spec_modules(spec)
    if not modules:
        return ""
    h = hashlib.sha256()
    for name, path in modules:
        with open(path, "rb") as f:
            data = f.read()
        h.update(name.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
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
