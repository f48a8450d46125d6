"""The data files a spec reads while it is loaded and bound to its constants.

A checkpoint may only resume the model that wrote it, and a spec that reads a
file (a JSON of broker settings, a table of cases) is a different model when
the file changes.  So the files opened for reading while the spec's module is
imported and while its constants are bound (initial states, parameter
domains) are recorded, through an audit hook (:pep:`578`), and become part of
the checkpoint's identity.  Python sources and builds are not data (the
import closure covers them: :mod:`modelcheck.spec.sources`), nor are files
of the standard library, installed packages and the system.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import stat
import sys
import sysconfig
from typing import Iterator

_RECORDING: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("modelcheck_opened", default=None)
_CODE_SUFFIXES = (".py", ".pyc", ".pyo", ".so", ".pyd", ".pth", ".pxd", ".pyx")
CHECKER_PACKAGES = ("modelcheck", "counterexamples", "spark_explore")
"""The checker's own code, which the version in a checkpoint's identity covers: neither followed nor data."""


def _hook(event: str, args: tuple) -> None:
    if event != "open":
        return
    files = _RECORDING.get()
    if files is None:
        return
    path, mode, flags = args
    if isinstance(path, int):
        return
    if mode is not None:
        if any(c in mode for c in "wax+"):
            return
    elif isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR):
        return
    try:
        files.add(os.fsdecode(path))
    except (TypeError, ValueError):
        pass


def _ensure_hook() -> None:
    """Install the audit hook once per interpreter (hooks cannot be removed; it does nothing unless recording)."""
    if not getattr(sys, "_modelcheck_open_hook", False):
        sys.addaudithook(_hook)
        sys._modelcheck_open_hook = True  # type: ignore[attr-defined]


@contextlib.contextmanager
def recording() -> Iterator[set[str]]:
    """Within the block, the paths opened for reading are added to the set yielded (raw: see :func:`data_files`)."""
    _ensure_hook()
    files: set[str] = set()
    token = _RECORDING.set(files)
    try:
        yield files
    finally:
        _RECORDING.reset(token)


def not_data_roots() -> list[str]:
    """Folders of the standard library, installed packages, the environment, the system and the checker."""
    roots = set()
    for base in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        paths = sysconfig.get_paths(vars={"base": base, "platbase": base, "installed_base": base,
                                          "installed_platbase": base})
        roots.update(os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib"))
    roots.update(os.path.realpath(p) for p in {sys.prefix, sys.exec_prefix})  # a venv: its builds and stamps
    roots.update(os.path.realpath(p) for p in ("/dev", "/proc", "/sys", "/etc", "/usr", "/lib"))
    for name in CHECKER_PACKAGES:  # the checker's own files (its build reads them), not the spec's data
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            roots.add(os.path.realpath(os.path.dirname(module.__file__)))
    build_dir = os.environ.get("MODELCHECK_BUILD_DIR")
    if build_dir:
        roots.add(os.path.realpath(build_dir))
    return sorted(roots)


def is_under(path: str, roots: list[str]) -> bool:
    """Whether ``path`` (resolved) is one of ``roots`` or inside one."""
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r + os.sep) for r in roots)


def data_files(paths: set[str] | frozenset[str]) -> tuple[str, ...]:
    """The recorded paths that are data: existing regular files, not code, outside the system's folders."""
    roots = not_data_roots()
    out = set()
    for p in paths:
        real = os.path.realpath(p)
        if real.endswith(_CODE_SUFFIXES) or is_under(real, roots):
            continue
        try:
            if not stat.S_ISREG(os.stat(real).st_mode):
                continue
        except OSError:
            continue
        out.add(real)
    return tuple(sorted(out))
