"""Compiled user specs: a spec from a file or a module, built like the registered ones and cached by digest.

A user's own spec deserves the speed ``modelcheck compile`` gives the
registered ones (the same Cython build and record rewrite,
:mod:`modelcheck.build.compiled`).  Building takes seconds of C compilation,
more than a small check takes, so it is never done in the way of a check:
when a check loads a user spec that has no build for its current source, it
starts one in the background (a detached, low-priority process) and runs
interpreted; the next check of the same source loads the build.  An edited
spec runs interpreted, with a note, until its new build is done.
``modelcheck compile path/to/spec.py`` builds at once.

Each build is filed under ``<build dir>/user/<module>/<digest>/``, the digest
taken over the exact source text compiled (a snapshot, so an edit during the
build cannot be filed under the old digest), the Cython version, the
interpreter's ABI and the record rewrite's own source; the modules of the
project whose records the rewrite read are checked at load, as for the
registered specs.  The extension also records that digest in its own bytes,
and a build is loaded only if it does (read, not imported): a file put at
the path, such as a build of an older version of the same file, is ignored
with a warning and built again.  So a build is used only for the source it
was made from, and a wrong result cannot come from a stale one.  Concurrent
runs are safe: a lock (``flock`` on a file beside the build, as a
checkpoint directory's; held by the build process, so the kernel drops it
when that process ends, however it ends) keeps a second run from starting
the same build, and the extension is written under a temporary name and
renamed into place.

``MODELCHECK_USER_BUILD=off`` runs user specs interpreted without building
(CI, tests); ``MODELCHECK_INTERPRETED=1`` turns every compiled module off.
Spark executors import the spec the loader finds: the build where it is on
the same machine, else the ``.py`` shipped with the job (interpreted).
"""

from __future__ import annotations

import fcntl
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import time
from types import ModuleType

import attrs

from modelcheck.build import compiled
from modelcheck.model.blame import SOURCE_ATTR

BUILD_ENV = "MODELCHECK_USER_BUILD"
"""``off``: user specs run interpreted, neither built nor loaded compiled."""
KEEP_BUILDS = 4
"""Builds kept per module name (the most recent); older ones are removed by the next build."""
FAILED = "failed"
"""In a build's directory: why it failed, so that the same source is not built again at every run."""


@attrs.frozen
class UserModule:
    """A user's spec module: the name it is imported under and its source file."""

    name: str
    source: str
    """Absolute path of its ``.py``."""
    package_dirs: tuple[tuple[str, str], ...] = ()
    """Packages besides the compiled ones whose modules' records the rewrite may read (the module's own)."""


def enabled() -> bool:
    """Whether user specs may run compiled (neither switch is set)."""
    return not os.environ.get(compiled.DISABLE_ENV) and os.environ.get(BUILD_ENV, "").lower() != "off"


def user_root() -> str:
    return os.path.join(compiled.build_dir(), "user")


def _stamp() -> str:
    return os.path.join(user_root(), "cython-version")


def _dirs(module: UserModule) -> dict[str, str]:
    dirs = compiled.package_dirs()
    dirs.update(dict(module.package_dirs))
    return dirs


def _rewrite_version() -> str:
    return compiled.rewrite_version() + ":user"


def _digest(data: bytes, cython_version: str) -> str:
    """What a build of this source text is filed under, and records in itself."""
    return compiled.source_digest(data, cython_version, _rewrite_version())


def _artefact(module: UserModule, digest: str) -> str:
    return compiled.artefact_path(module.name, digest, user_root())


def _is_current(so: str, digest: str, dirs: dict[str, str]) -> bool:
    """The build at ``so`` is of the source with ``digest``: by its own record, not only by where it lies."""
    return compiled.is_current(so, dirs) and compiled.records_digest(so, digest)


_warned: set[str] = set()
"""Builds already reported as ignored in this process (the loader and the check's header both look)."""


def _warn_foreign(so: str) -> None:
    """One line on stderr: a file at the build's path that was not built from the current source."""
    if so not in _warned:
        _warned.add(so)
        print(f"Warning: the build at {so} was not built from the current source and was ignored",
              file=sys.stderr, flush=True)


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def current_build(module: UserModule) -> str | None:
    """The build of the module's current source, if there is one (and user builds are enabled)."""
    if not enabled():
        return None
    try:
        with open(_stamp(), encoding="utf-8") as f:
            version = f.read().strip()
        digest = _digest(_read(module.source), version)
    except OSError:
        return None
    so = _artefact(module, digest)
    if not compiled.is_current(so, _dirs(module)):
        return None
    if not compiled.records_digest(so, digest):
        _warn_foreign(so)
        return None
    return so


def load(module: UserModule) -> ModuleType | None:
    """Import the module's build under its name (in ``sys.modules``), or None if it has none that loads.

    Only the extension's loading may fail here (a build that does not
    load: the caller imports the source instead); an exception raised by
    the module's own code propagates, as it would from the source.
    """
    so = current_build(module)
    if so is None:
        return None
    loader = importlib.machinery.ExtensionFileLoader(module.name, so)
    spec = importlib.util.spec_from_file_location(module.name, so, loader=loader)
    if spec is None:
        return None
    try:
        mod = importlib.util.module_from_spec(spec)
    except ImportError:
        return None
    setattr(mod, SOURCE_ATTR, module.source)
    mod.__file__ = module.source  # what the spec's own code reads (e.g. its directory, for its sibling files)
    sys.modules[module.name] = mod
    try:
        loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(module.name, None)
        raise
    return mod


def for_module(name: str) -> UserModule | None:
    """The user module ``pkg.mod`` as a :class:`UserModule`, if it is one with a ``.py`` (not the project's)."""
    if name == "modelcheck" or name.startswith("modelcheck."):
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None) or ""
    if not origin.endswith(".py"):
        return None
    package = name.rpartition(".")[0]
    extra = ((package, os.path.dirname(origin)),) if package else ()
    return UserModule(name, os.path.abspath(origin), extra)


def settled_mode(loaded: ModuleType) -> str | None:
    """How the check runs the module when no build can change it; None when a build may be asked for.

    ``compiled``, or ``interpreted (the switch that keeps it so)``.  A
    lookup: it starts nothing (:func:`request_build` does).
    """
    if compiled.is_compiled(loaded):
        return "compiled"
    if os.environ.get(compiled.DISABLE_ENV):
        return f"interpreted ({compiled.DISABLE_ENV} is set)"
    if not enabled():
        return f"interpreted ({BUILD_ENV}=off)"
    return None


def _missing_tool() -> str | None:
    """Why nothing can be built here (no Cython, no C compiler), or None."""
    if importlib.util.find_spec("Cython") is None:
        return "Cython is not installed: pip install 'modelcheck[compile]' to compile specs"
    cc = compiled.c_compiler()
    if not cc or shutil.which(cc[0]) is None:
        return f"no C compiler ({cc[0] if cc else 'cc'} not found): specs run interpreted"
    return None


def request_build(module: UserModule) -> str:
    """Start a background build of the module's current source unless one is under way or failed; what happened."""
    missing = _missing_tool()
    if missing:
        return missing
    try:
        digest = _digest(_read(module.source), compiled.cython_version())
    except OSError as exc:
        return f"cannot read {module.source}: {exc.strerror}"
    so = _artefact(module, digest)
    if _is_current(so, digest, _dirs(module)):
        return "its build is ready for the next run"
    keep = os.path.dirname(so)
    try:
        with open(os.path.join(keep, FAILED), encoding="utf-8") as f:
            return f"its build failed: {f.read().strip()}"
    except OSError:
        pass
    edited = os.path.isdir(os.path.dirname(keep))
    try:
        os.makedirs(os.path.dirname(keep), exist_ok=True)
        lock = _take_lock(keep + ".lock")
        if lock is None:
            return "being compiled in the background for the next run"
    except OSError as exc:
        return f"cannot write {user_root()}: {exc.strerror}"
    import subprocess  # here: only a request that starts a build needs it

    try:
        with open(keep + ".log", "w", encoding="utf-8") as log:
            subprocess.Popen(  # noqa: S603 - this interpreter, this module
                [sys.executable, "-m", "modelcheck.build.user_specs", module.name, module.source, str(lock),
                 *(f"{pkg}={d}" for pkg, d in module.package_dirs)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                close_fds=True, pass_fds=(lock,))
    except OSError as exc:
        return f"cannot start a build: {exc.strerror}"
    finally:
        os.close(lock)  # the build process holds the lock now (its copy of the descriptor), until it ends
    what = "edited since its last build; " if edited else ""
    return f"{what}compiling it in the background for the next run"


def _take_lock(path: str) -> int | None:
    """A descriptor holding the build lock at ``path`` (created if need be), or None if another holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _is_locked(path: str) -> bool:
    """Whether a build process holds the lock at ``path`` (a lock file no process holds is a leftover)."""
    try:
        fd = _take_lock(path)
    except OSError:
        return False
    if fd is None:
        return True
    os.close(fd)
    return False


def build(module: UserModule) -> str:
    """Build the module's current source now (if not built yet); the artefact's path.

    Raises :class:`~modelcheck.build.compiled.CompileError` when it cannot
    be built; the reason is also recorded, so that background requests do
    not build the same source again.
    """
    missing = _missing_tool()  # not recorded as the source's failure: installing the tool fixes it
    if missing:
        raise compiled.CompileError(missing)
    version = compiled.cython_version()
    data = _read(module.source)
    digest = _digest(data, version)
    so = _artefact(module, digest)
    dirs = _dirs(module)
    if _is_current(so, digest, dirs):
        return so
    import tempfile

    keep = os.path.dirname(so)
    os.makedirs(keep, exist_ok=True)
    try:
        text = data.decode("utf-8")
        dead = dead_binding(text)
        if dead is not None:
            raise compiled.CompileError(dead)
        from modelcheck.build.record_rewrite import rewrite

        rewritten = rewrite(text, module.name, dirs)
        if rewritten.changed and rewritten.depends_on:  # before the artefact, so never missing beside it
            _write(os.path.join(keep, compiled.DEPENDS), "".join(f"{m} {d}\n" for m, d in rewritten.depends_on))
        with tempfile.TemporaryDirectory(prefix="modelcheck-user-") as work:
            compiled.compile_module(module.name, module.source, so, work, rewritten if rewritten.changed else None,
                                    text=text, digest=digest)
    except (compiled.CompileError, UnicodeDecodeError, OSError) as exc:
        reason = str(exc) if isinstance(exc, compiled.CompileError) else f"{type(exc).__name__}: {exc}"
        _write(os.path.join(keep, FAILED), f"{reason}\n")
        raise compiled.CompileError(reason) from None
    try:
        os.unlink(os.path.join(keep, FAILED))  # an earlier attempt's, if any
    except OSError:
        pass
    _write(_stamp(), version + "\n")
    _prune(os.path.dirname(keep), keep)
    return so


def dead_binding(text: str) -> str | None:
    """Why the module must run interpreted, where a statement that can never run binds a name.

    Python decides a name's scope from every assignment in the function,
    run or not: ``return ... ; x = 1`` makes ``x`` local throughout, and a
    read of it raises UnboundLocalError.  Cython drops the statement, and
    the read finds the module's ``x``: a compiled spec would answer where
    the spec's own code raises.  None where there is no such statement.
    """
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None  # the build reports it
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for i, stmt in enumerate(stmts[:-1]):
                if not isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
                    continue
                for dead in stmts[i + 1:]:
                    for n in ast.walk(dead):
                        binds = isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) \
                            or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                                              ast.ImportFrom, ast.Global, ast.Nonlocal))
                        if binds:
                            return (f"line {dead.lineno}: a statement after `{type(stmt).__name__.lower()}` that can "
                                    "never run binds a name (Python keeps the name local to the function; a "
                                    "compiled build would drop the statement and the scope with it)")
                break
    return None


def _write(path: str, text: str) -> None:
    """Write ``path`` atomically (a reader sees the old file or the new one)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _prune(module_dir: str, keep: str) -> None:
    """Remove all but the :data:`KEEP_BUILDS` most recent builds of a module (never ``keep``, never a locked one)."""
    try:
        entries = [os.path.join(module_dir, e) for e in os.listdir(module_dir)]
    except OSError:
        return
    builds = sorted((e for e in entries if os.path.isdir(e) and e != keep), key=os.path.getmtime, reverse=True)
    for old in builds[KEEP_BUILDS - 1:]:
        if not _is_locked(old + ".lock"):
            shutil.rmtree(old, ignore_errors=True)
            for suffix in (".log", ".lock"):
                try:
                    os.unlink(old + suffix)
                except OSError:
                    pass


def _main(argv: list[str]) -> int:
    """The background build: ``python -m modelcheck.build.user_specs NAME SOURCE LOCK_FD [PKG=DIR]...``.

    ``LOCK_FD`` is the inherited descriptor holding the build's lock: kept open until this process ends."""
    name, source, _lock_fd, *extra = argv
    try:
        os.nice(10)  # a build must not slow the checks that run meanwhile
    except OSError:
        pass
    module = UserModule(name, source, tuple(tuple(x.split("=", 1)) for x in extra))  # type: ignore[misc]
    start = time.monotonic()
    try:
        so = build(module)
        print(f"built {so} in {time.monotonic() - start:.1f}s")
        return 0
    except compiled.CompileError as exc:
        print(f"build failed: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
