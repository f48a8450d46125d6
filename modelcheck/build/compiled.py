"""Ahead-of-time compiled specs: the readable spec modules, built with Cython, loaded only while current.

Most of a check's time is the specs' own Python: each action is called once
per parameter binding on every state (about fifty calls per Kip320 state),
and most calls fail their guard after a few attribute reads.  Cython turns
those same source files, unchanged, into C extension modules, which skips
the bytecode dispatch: the spec calls of Kip320 with three replicas take
about a quarter less CPU (docs/benchmarks.md).  The specs stay plain Python:
nothing here asks a spec author for type declarations.

``modelcheck compile`` (run by ``bin/setup``) builds every module of
``modelcheck.specs`` and ``modelcheck.invariants``, plus the engine modules
that run per state or per successor, into a directory of the interpreter's
environment (``<sys.prefix>/modelcheck-compiled``, or ``$MODELCHECK_BUILD_DIR``).
An engine module opts in with the line :data:`MARKER` in its source; the
build finds the modules by that line, so a renamed or new module is compiled
without a list of names to keep up to date, and writes the names it built to
a manifest that the finder reads.  Constants an engine module shares with the
C of its ``.pxd`` are defined once, in the module, and made into C enums at
build time (:mod:`modelcheck.build.c_enums`).  Each
artefact is filed under a digest of its source file, the Cython version and
the interpreter's cache tag, so an edited spec is never shadowed by a stale
build: the :class:`CompiledFinder` loads an extension only when its digest
matches the source on disk and otherwise lets the normal ``.py`` import
happen.  The finder is put in place by :func:`activate`, which the entry
points call (the command line, :func:`modelcheck.check`, the Spark workers'
daemon): importing ``modelcheck`` installs nothing.  ``MODELCHECK_INTERPRETED=1``
turns the finder off, for debugging a spec with pdb or comparing the two.  A user's own spec, loaded
from a file path or a module outside the project, is built the same way by
:mod:`modelcheck.build.user_specs`, in the background on first use; its
build, like the package's, records its source's digest in its own bytes,
checked before it is loaded (:func:`records_digest`), so a file put in its
place is not run.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Sequence

import attrs

from modelcheck.build import c_enums
from modelcheck.errors import ModelCheckError

if TYPE_CHECKING:  # the rewrite is imported only to build: it imports the expander, a compiled module
    from modelcheck.build import record_rewrite

PACKAGES = ("modelcheck.specs", "modelcheck.invariants")
"""Every module of these packages is compiled (their ``__init__`` excepted), with the record rewrite."""
ENGINE_PACKAGES = ("modelcheck", "modelcheck.spark_explore")
"""Where engine modules that carry :data:`MARKER` are looked for (recursively)."""
MARKER = "# modelcheck: compile"
"""A line of its own in an engine module's source: compile this module (it runs per state or per successor)."""
MANIFEST = "manifest"
"""In the build directory: the name of every module built, one a line, for the finder."""
DISABLE_ENV = "MODELCHECK_INTERPRETED"
BUILD_DIR_ENV = "MODELCHECK_BUILD_DIR"
EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


class CompileError(ModelCheckError):
    """Building the compiled modules failed (no Cython, no C compiler, a compile error)."""


def build_dir() -> str:
    """Where the artefacts live: per interpreter environment, since extensions are ABI-specific."""
    return os.environ.get(BUILD_DIR_ENV) or os.path.join(sys.prefix, "modelcheck-compiled")


def cython_version() -> str:
    """The installed Cython's version (``none`` without it): part of what every build's digest is taken over."""
    try:
        from Cython import __version__  # type: ignore[import-not-found]
    except ImportError:
        return "none"
    return str(__version__)


def source_digest(source: bytes, cython_version: str, rewrite: str = "") -> str:
    """What an artefact is valid for: this exact source, Cython version, interpreter ABI (and rewrite)."""
    h = hashlib.sha256()
    for part in (sys.implementation.cache_tag or "", EXT_SUFFIX, cython_version, rewrite):
        h.update(part.encode() + b"\0")
    h.update(source)
    return h.hexdigest()[:20]


def rewrite_version() -> str:
    """The rewrite's own source, as a digest: changing :mod:`modelcheck.build.record_rewrite` rebuilds the specs,
    and so does changing :mod:`modelcheck.memo.split` (the rewrite appends the guards and effects it derives)."""
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for path in (os.path.join(here, "record_rewrite.py"), os.path.join(os.path.dirname(here), "memo", "split.py")):
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:20]


DIGEST_MARKER = b"modelcheck-source-digest:"
"""In a user spec's built extension: these bytes, the digest of the source it was built from, then a NUL."""


def digest_marker(digest: str) -> bytes:
    """The bytes a build of the source with ``digest`` carries literally (see :func:`records_digest`)."""
    return DIGEST_MARKER + digest.encode("ascii") + b"\0"


def records_digest(so: str, digest: str) -> bool:
    """Whether the extension ``so`` says it was built from the source with ``digest``.

    A build's path names its digest, but a file put at that path (another
    build of the same module, say of an older version of the file) would be
    trusted by its path alone; its own bytes say what it was built from.
    The file is read, not imported: importing would run its code.
    """
    try:
        with open(so, "rb") as f:
            return digest_marker(digest) in f.read()
    except OSError:
        return False


def _digest_unit(workdir: str, fullname: str, digest: str) -> str:
    """A C file, linked into the extension, that holds :func:`digest_marker` in its read-only data; its path.

    In C rather than as a Python constant in the module: Cython compresses a
    large module's string constants, so theirs would not appear in the file.
    ``used`` keeps the compiler from dropping the array nothing refers to.
    """
    path = os.path.abspath(os.path.join(workdir, fullname + ".digest.c"))
    marker = digest_marker(digest)[:-1].decode("ascii")  # the C string literal adds the NUL
    with open(path, "w", encoding="ascii") as f:
        f.write(f'__attribute__((used)) static const char modelcheck_source_digest[] = "{marker}";\n')
    return path


DEPENDS = "depends"
"""In an artefact's directory: ``module sha256`` per module whose source the rewrite read (its records)."""


def is_current(so: str, dirs: dict[str, str] | None = None) -> bool:
    """The artefact exists, and every module its rewrite read is still the source it read.

    ``dirs`` maps packages to their directories, where those modules are
    found (by default the compiled packages').

    A module rewritten against ``kafka_replication``'s record classes is
    stale once they change, though its own source did not: it would still
    compute the right thing (its load-time check turns the fast paths off) but
    slowly, so it is rebuilt instead.
    """
    if not os.path.isfile(so):
        return False
    try:
        with open(os.path.join(os.path.dirname(so), DEPENDS), encoding="utf-8") as f:
            lines = f.read().split()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    dirs = dirs if dirs is not None else package_dirs()
    for module, digest in zip(lines[::2], lines[1::2]):
        pkg, _, leaf = module.rpartition(".")
        try:
            with open(os.path.join(dirs.get(pkg, ""), leaf + ".py"), "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != digest:
                    return False
        except OSError:
            return False
    return True


def artefact_path(fullname: str, digest: str, root: str | None = None) -> str:
    """``<root>/<module>/<digest>/<leaf><EXT_SUFFIX>``: the extension's file name must be its leaf name."""
    return os.path.join(root or build_dir(), fullname, digest, fullname.rpartition(".")[2] + EXT_SUFFIX)


def _stamp_path(root: str) -> str:
    return os.path.join(root, "cython-version")


def _built_version(root: str) -> str | None:
    """The Cython version the build directory was last built with, or None if nothing was built."""
    try:
        with open(_stamp_path(root)) as f:
            return f.read().strip()
    except OSError:
        return None


def _artefact_for(fullname: str, source: str, version: str, root: str) -> str:
    """Where the build of ``source`` as it is now on disk lives (it may not exist)."""
    with open(source, "rb") as f:
        data = f.read()
    pxd = os.path.splitext(source)[0] + ".pxd"  # an augmenting .pxd beside the module (modelcheck/model/expander.pxd)
    if os.path.exists(pxd):
        with open(pxd, "rb") as f:
            data += b"\0augmenting pxd\0" + f.read()
    if is_spec_module(fullname):
        rewrite = rewrite_version()
    elif c_enums.has_enums(data):  # its C enums are made from its source
        rewrite = c_enums.version()
    else:
        rewrite = ""
    return artefact_path(fullname, source_digest(data, version, rewrite), root)


def is_spec_module(fullname: str) -> bool:
    """A module of a spec package (compiled with the record rewrite), as opposed to a marked engine module."""
    return any(fullname.startswith(p + ".") and "." not in fullname[len(p) + 1:] for p in PACKAGES)


def _read_manifest(root: str) -> frozenset[str]:
    """The modules the last build compiled (none if there was no build)."""
    try:
        with open(os.path.join(root, MANIFEST), encoding="utf-8") as f:
            return frozenset(f.read().split())
    except OSError:
        return frozenset()


class CompiledFinder:
    """A meta-path finder that swaps in a compiled module when its artefact matches the source.

    It finds the module's source the normal way (so the ``.py`` that would be
    imported is the one whose digest counts) and returns an extension-module
    spec only when ``<digest>`` has been built; otherwise ``None``, and Python
    imports the source.  The Cython version is read once from the build
    directory's stamp, not by importing Cython on every run.
    """

    def __init__(self, root: str | None = None) -> None:
        self.root = root or build_dir()
        self.cython_version = _built_version(self.root)
        self.modules = _read_manifest(self.root)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if self.cython_version is None or fullname not in self.modules:
            return None
        source_spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if source_spec is None or not (source_spec.origin or "").endswith(".py"):
            return None
        try:
            so = _artefact_for(fullname, source_spec.origin, self.cython_version, self.root)
        except OSError:
            return None
        if not _is_built_from(so):
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, so)
        return importlib.util.spec_from_file_location(fullname, so, loader=loader)

    def invalidate_caches(self) -> None:
        """Nothing cached beyond the stamp; part of the finder protocol."""


def activate() -> None:
    """Put a :class:`CompiledFinder` first on ``sys.meta_path`` (once), unless disabled.

    Modules imported before this call stay as they were imported (interpreted);
    the entry points call it before they import any compiled module.
    """
    if os.environ.get(DISABLE_ENV):
        return
    if not any(isinstance(f, CompiledFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, CompiledFinder())


def spec_mode(module_name: str) -> str | None:
    """``"compiled"`` or ``"interpreted"`` for an imported module the finder covers, else None.

    For the check's header line: after an edit a spec runs interpreted (and
    slower) until ``modelcheck compile`` rebuilds it, and the user should see so.
    """
    module = sys.modules.get(module_name)
    if module is None or module_name not in _read_manifest(build_dir()):
        return None
    return "compiled" if is_compiled(module) else "interpreted"


def is_compiled(module: Any) -> bool:
    """Whether an imported module is a compiled extension (for reports and tests).

    By where it was loaded from: a compiled user spec's ``__file__`` names its
    source, which its own code may read.
    """
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    return str(origin or getattr(module, "__file__", "") or "").endswith(EXT_SUFFIX)


@attrs.frozen
class BuildReport:
    """What ``modelcheck compile`` did."""

    built: tuple[str, ...]
    current: tuple[str, ...]
    root: str
    seconds: float


def _sources() -> list[tuple[str, str]]:
    """(module name, source path) of every module to compile, found without importing it."""
    out: list[tuple[str, str]] = []
    for pkg in PACKAGES:
        spec = importlib.util.find_spec(pkg)
        for d in (spec.submodule_search_locations or []) if spec else []:
            for name in sorted(os.listdir(d)):
                if name.endswith(".py") and name != "__init__.py":
                    out.append((f"{pkg}.{name[:-3]}", os.path.join(d, name)))
    return out + engine_modules()


def engine_modules() -> list[tuple[str, str]]:
    """(module name, source path) of every engine module whose source has the :data:`MARKER` line."""
    marker = re.compile("^" + re.escape(MARKER) + r"\s*$", re.M)
    out: list[tuple[str, str]] = []
    for pkg in ENGINE_PACKAGES:
        spec = importlib.util.find_spec(pkg)
        for top in (spec.submodule_search_locations or []) if spec else []:
            if pkg == "modelcheck" and os.path.basename(top) != "modelcheck":
                continue  # the repository root, on the package's path in a source checkout
            for d, dirs, files in os.walk(top):
                dirs[:] = sorted(x for x in dirs if not x.startswith((".", "_")))
                rel = os.path.relpath(d, top)
                prefix = pkg if rel == "." else pkg + "." + rel.replace(os.sep, ".")
                for name in sorted(files):
                    if not name.endswith(".py"):
                        continue
                    path = os.path.join(d, name)
                    with open(path, encoding="utf-8") as f:
                        if not marker.search(f.read()):
                            continue
                    leaf = name[:-3]
                    out.append((prefix if leaf == "__init__" else f"{prefix}.{leaf}", path))
    return out


def status(root: str | None = None) -> list[tuple[str, bool]]:
    """(module, whether a build of its current source exists) for every compilable module."""
    root = root or build_dir()
    version = _built_version(root)
    return [(name, version is not None and _is_built_from(_artefact_for(name, source, version, root)))
            for name, source in _sources()]


def _is_built_from(so: str) -> bool:
    """A package module's build is current, and its own bytes say it was built from the source its path names
    (``<root>/<module>/<digest>/``): a file put there is not run, nor called current."""
    return is_current(so) and records_digest(so, os.path.basename(os.path.dirname(so)))


def c_compiler() -> list[str]:
    """The C compiler's command: ``$CC`` when set (the usual convention), else the one Python was built with."""
    return (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()


def compile_module(fullname: str, source: str, so: str, workdir: str,
                   rewritten: record_rewrite.Rewritten | None = None, engine: bool = False,
                   text: str | None = None, digest: str | None = None) -> None:
    """Build one source file (``.py`` or ``.pyx``) into the extension ``so`` as module ``fullname``.

    Cython then the C compiler, intermediate files in ``workdir``; a failure is
    a one-line :class:`CompileError` naming the first error.  With
    ``rewritten`` (see :mod:`modelcheck.build.record_rewrite`), its source and
    ``.pxd`` are compiled in place of the file, and with ``text`` (the
    source as read when its digest was taken, so that an edit made during the
    build cannot be filed under the old digest) that text; either under the
    same ``<package dir>/<file>`` name, which is what tracebacks show.
    With ``digest`` (the source's, as filed), the extension records it
    (:func:`records_digest`), and a build that does not is an error.
    """
    c_file = os.path.abspath(os.path.join(workdir, fullname + ".c"))
    cwd = None
    include: list[str] = []
    changed = rewritten is not None and rewritten.changed
    if changed or text is not None:
        cwd = os.path.join(workdir, fullname)
        source = os.path.join(os.path.basename(os.path.dirname(source)), os.path.basename(source))
        os.makedirs(os.path.join(cwd, os.path.dirname(source)), exist_ok=True)
        with open(os.path.join(cwd, source), "w", encoding="utf-8") as f:
            f.write(rewritten.source if changed else text)
    if changed:
        # Cython finds a module's .pxd by its full name on the include path, package by package.
        parts = fullname.split(".")
        for depth in range(1, len(parts)):
            pkg_dir = os.path.join(cwd, "include", *parts[:depth])
            os.makedirs(pkg_dir, exist_ok=True)
            open(os.path.join(pkg_dir, "__init__.pxd"), "w").close()
        os.makedirs(os.path.join(cwd, "include", *parts[:-1]), exist_ok=True)
        with open(os.path.join(cwd, "include", *parts[:-1], parts[-1] + ".pxd"), "w", encoding="utf-8") as f:
            f.write(rewritten.pxd)
        include = ["-I", "include"]
    # Spec modules take the rewrite's directives (annotations untyped); engine modules type their locals.
    from modelcheck.build.record_rewrite import CYTHON_DIRECTIVES

    directives = [] if engine else ["-X", ",".join(CYTHON_DIRECTIVES)]
    c_include = _write_enum_header(fullname, source if cwd is None else os.path.join(cwd, source), workdir)
    tmp = f"{so}.{os.getpid()}.{threading.get_ident()}.tmp"  # two builds of one artefact never share it
    units = [c_file] + ([_digest_unit(workdir, fullname, digest)] if digest is not None else [])
    steps = [
        [sys.executable, "-m", "cython", "-3", *directives, *include, "--module-name", fullname, source,
         "-o", c_file],
        c_compiler() + ["-shared", "-fPIC", "-O2", "-I", sysconfig.get_paths()["include"], *c_include, *units,
                        "-o", tmp],
    ]
    for cmd in steps:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
        except OSError as exc:
            raise CompileError(f"cannot compile {fullname}: {cmd[0]}: {exc.strerror}") from None
        if proc.returncode != 0:
            lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
            detail = next((ln for ln in lines if "rror" in ln), lines[-1] if lines else "no output")
            raise CompileError(f"cannot compile {fullname}: {detail.strip()}")
    if digest is not None and not records_digest(tmp, digest):  # else every run would reject it and rebuild
        os.unlink(tmp)
        raise CompileError(f"cannot compile {fullname}: the build does not record its source digest")
    os.replace(tmp, so)  # atomic: a concurrent import never sees half a file


def _write_enum_header(fullname: str, source: str, workdir: str) -> list[str]:
    """The C enums of the source's marked constants (:mod:`modelcheck.build.c_enums`) as the header its ``.pxd``
    includes, in a directory of this module's own; the C compiler's options that find it (none: no marker)."""
    with open(source, "rb") as f:
        data = f.read()
    if not c_enums.has_enums(data):
        return []
    try:
        made = c_enums.header(data.decode("utf-8"), source)
    except (c_enums.EnumError, SyntaxError, UnicodeDecodeError) as exc:
        raise CompileError(f"cannot compile {fullname}: {exc}") from None
    folder = os.path.abspath(os.path.join(workdir, fullname + ".include"))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, c_enums.header_name(source)), "w", encoding="utf-8") as f:
        f.write(made)
    return ["-I", folder]


def package_dirs() -> dict[str, str]:
    """Each compiled package's directory, where :mod:`modelcheck.build.record_rewrite` reads record classes."""
    out = {}
    for pkg in PACKAGES:
        spec = importlib.util.find_spec(pkg)
        for d in (spec.submodule_search_locations or []) if spec else []:
            out[pkg] = d
    return out


def _rewritten(fullname: str, source: str) -> record_rewrite.Rewritten | None:
    """The spec module with record access by index (None: compile the file as it is)."""
    if not is_spec_module(fullname):
        return None  # the engine's own modules hold no spec records
    with open(source, encoding="utf-8") as f:
        from modelcheck.build.record_rewrite import rewrite

        result = rewrite(f.read(), fullname, package_dirs())
    return result if result.changed else None


def build(root: str | None = None, jobs: int | None = None) -> BuildReport:
    """Compile every module whose current source has no artefact yet; old artefacts are removed."""
    root = root or build_dir()
    try:
        return _build(root, jobs)
    except OSError as exc:
        raise CompileError(f"cannot build into {root}: {exc.strerror or exc}") from None


def _build(root: str, jobs: int | None) -> BuildReport:
    start = time.monotonic()
    version = cython_version()
    if version == "none":
        raise CompileError("Cython is not installed: pip install 'modelcheck[compile]' (bin/setup does)")
    os.makedirs(root, exist_ok=True)
    todo: list[tuple[str, str, str]] = []
    current: list[str] = []
    sources = _sources()
    for fullname, source in sources:
        so = _artefact_for(fullname, source, version, root)
        keep = os.path.dirname(so)
        mod_dir = os.path.dirname(keep)
        if os.path.isdir(mod_dir):
            for old in os.listdir(mod_dir):  # artefacts of earlier sources of this module
                if os.path.join(mod_dir, old) != keep:
                    shutil.rmtree(os.path.join(mod_dir, old), ignore_errors=True)
        if _is_built_from(so):
            current.append(fullname)
        else:
            shutil.rmtree(keep, ignore_errors=True)  # a build against modules that have changed since
            os.makedirs(keep, exist_ok=True)
            todo.append((fullname, source, so))
    if todo:
        rewritten = {n: _rewritten(n, src) for n, src, _ in todo}
        for n, _, so in todo:
            r = rewritten[n]
            if r is not None and r.depends_on:  # written before the artefact exists, so never missing
                with open(os.path.join(os.path.dirname(so), DEPENDS), "w", encoding="utf-8") as f:
                    f.writelines(f"{m} {d}\n" for m, d in r.depends_on)
        with tempfile.TemporaryDirectory(prefix="modelcheck-compile-") as work, \
                ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
            futures = [pool.submit(compile_module, n, src, so, work, rewritten[n], not is_spec_module(n),
                                   digest=os.path.basename(os.path.dirname(so)))
                       for n, src, so in todo]
            for f in futures:
                f.result()
    with open(_stamp_path(root), "w") as f:
        f.write(version + "\n")
    with open(os.path.join(root, MANIFEST + ".tmp"), "w", encoding="utf-8") as f:
        f.writelines(name + "\n" for name, _ in sources)
    os.replace(os.path.join(root, MANIFEST + ".tmp"), os.path.join(root, MANIFEST))
    return BuildReport(tuple(n for n, _, _ in todo), tuple(current), root, time.monotonic() - start)
