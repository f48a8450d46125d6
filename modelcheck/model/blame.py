"""Blaming spec code: which exceptions are the spec's, and the file and line they point at.

A spec is the user's code, run millions of times inside the engine's loops.
When it fails, the author needs one line that names the function (the
action with its parameters, the invariant...), the spec's own line that
raised, and the trace (which the engines add).  A Python traceback is mostly
the engine's frames, so the line here is the innermost frame of the spec's
code, skipping the engine, the standard library and installed packages.

Everything spec code raises is the spec's error, ``SystemExit``,
``KeyboardInterrupt`` and ``GeneratorExit`` included: a ``sys.exit(0)`` in
an action must not end a check with "exit 0" and no result.  The
exceptions are :class:`~modelcheck.errors.EngineSignal`, which modelcheck's
own signal handlers raise in whatever code runs (a real Ctrl-C while an
action runs is the user's, not the action's; :func:`real_interrupts` puts
such a handler in place for Ctrl-C), and the interpreter's own ``MemoryError``
(see :func:`passes_through`).
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib.machinery
import linecache
import os
import signal
import sys
import sysconfig
import threading
from types import TracebackType
from typing import Any, Callable, Iterator

from modelcheck.errors import EngineSignal, SpecRuntimeError, UserInterrupt

_SPEC_PACKAGES = ("modelcheck.specs.", "modelcheck.invariants.")
"""The registered specs: modules of the ``modelcheck`` package that are spec code, not the engine."""

SOURCE_ATTR = "__mc_source__"
"""Set on a compiled user module: its source file (its compiled frames name it relative to where it was built)."""


_SPEC_MEMORY_ERRORS = contextvars.ContextVar("spec_memory_errors", default=False)


def passes_through(exc: BaseException) -> bool:
    """Whether a wrapper around spec code must re-raise ``exc`` as it is: not the spec's doing.

    The engine's own interruptions (:class:`~modelcheck.errors.EngineSignal`)
    and the interpreter's ``MemoryError`` (exactly that class, without a
    message: what a failed allocation raises): the machine running out of
    memory while an action builds a state is the run's condition, which the
    search reports as such (statistics so far), not a bug of the spec.  A
    ``MemoryError`` with a message, or of a subclass, was raised on purpose
    (by the spec or a library it calls) and is the spec's error, naming the
    function; so is any ``MemoryError`` inside :func:`memory_errors_are_the_specs`
    (the preflight walk, a few hundred states, cannot exhaust the machine).
    """
    if isinstance(exc, EngineSignal):
        return True
    return type(exc) is MemoryError and not exc.args and not _SPEC_MEMORY_ERRORS.get()


@contextlib.contextmanager
def memory_errors_are_the_specs() -> Iterator[None]:
    """While inside, every ``MemoryError`` spec code raises is the spec's error (see :func:`passes_through`)."""
    token = _SPEC_MEMORY_ERRORS.set(True)
    try:
        yield
    finally:
        _SPEC_MEMORY_ERRORS.reset(token)


def _library_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple({os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib")
                  if paths.get(k)})


def _is_spec_frame(module: str, filename: str, library: tuple[str, ...]) -> bool:
    if module.startswith(_SPEC_PACKAGES):
        return True
    if module == "modelcheck" or module.startswith("modelcheck."):
        return False  # the engine, and the helpers it offers specs (modelcheck.spec.replace)
    if not filename or filename.startswith("<"):
        return False  # generated code: a NamedTuple's __new__, the expander, frozen importlib
    return not os.path.realpath(filename).startswith(library)


def shown_path(filename: str) -> str:
    """A file name as the user reads it: relative to the working directory when inside it."""
    try:
        rel = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if rel.startswith(os.pardir + os.sep) else rel


def source_file(module_globals: dict, filename: str) -> str:
    """The source file of spec code whose frames say ``filename``.

    A compiled module records its source relative to where it was built
    (``specs/kip320.py``); the file is then found again by the module's
    name, or, for a user's spec file, by :data:`SOURCE_ATTR`.
    """
    given = module_globals.get(SOURCE_ATTR)
    if isinstance(given, str):
        return given
    if os.path.isabs(filename) or filename.startswith("<"):
        return filename
    name = str(module_globals.get("__name__", ""))
    parent = sys.modules.get(name.rpartition(".")[0]) if "." in name else None
    try:
        spec = importlib.machinery.PathFinder.find_spec(name, getattr(parent, "__path__", None))
    except (ImportError, ValueError):
        spec = None
    origin = getattr(spec, "origin", None)
    return origin if isinstance(origin, str) and origin.endswith(".py") else filename


def raise_site(tb: TracebackType | None) -> str | None:
    """``path:line`` of the innermost frame of spec code in a traceback, or None if it has none."""
    library = _library_dirs()
    found = None
    while tb is not None:
        frame = tb.tb_frame
        if _is_spec_frame(str(frame.f_globals.get("__name__", "")), frame.f_code.co_filename, library):
            found = f"{shown_path(source_file(frame.f_globals, frame.f_code.co_filename))}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def definition_site(fn: Any) -> str | None:
    """``path:line`` of a spec function's ``def`` (for a wrong return value, which has no traceback).

    Python numbers a decorated function from its first decorator, Cython
    from its ``def``: the line given is the ``def`` line either way (the
    ``lambda``'s for a lambda).
    """
    code = getattr(fn, "__code__", None)
    filename = getattr(code, "co_filename", None)
    line = getattr(code, "co_firstlineno", None)
    if not isinstance(filename, str) or not isinstance(line, int) or filename.startswith("<"):
        return None
    filename = source_file(getattr(fn, "__globals__", None) or {}, filename)
    for ahead in range(line, line + 50):
        text = linecache.getline(filename, ahead).lstrip()
        if not text.startswith("@"):
            if text:
                line = ahead
            break
    return f"{shown_path(filename)}:{line}"


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, shortened to about ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def spec_error(spec: str, where: str, exc: BaseException, fn: Any = None) -> SpecRuntimeError:
    """The error for an exception raised by spec code in ``where`` (``action Fetch(r2)``), with its spec line.

    The line is the innermost frame of the spec's code in the traceback, or
    else where ``fn``, the spec function called, is defined.
    """
    detail = one_line(str(exc))
    site = raise_site(exc.__traceback__) or (definition_site(fn) if fn is not None else None)
    message = f"spec {spec}: {where} raised {type(exc).__name__}{': ' + detail if detail else ''}"
    return SpecRuntimeError(message + (f" (at {site})" if site else ""), spec=spec, where=where)


def call_spec(spec: str, where: str, fn: Callable, *args: Any) -> Any:
    """``fn(*args)``, with anything it raises turned into the spec's error (see :func:`spec_error`)."""
    try:
        return fn(*args)
    except SpecRuntimeError:
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit and the like from spec code are spec errors
        if passes_through(exc):
            raise
        raise spec_error(spec, where, exc, fn) from exc


def _on_sigint(signum: int, frame: Any) -> None:
    raise UserInterrupt


@contextlib.contextmanager
def real_interrupts() -> Iterator[None]:
    """While inside, a Ctrl-C raises :class:`~modelcheck.errors.UserInterrupt`, which spec wrappers let through.

    Python's default handler raises a plain ``KeyboardInterrupt``, which a
    wrapper could not tell from one the spec raised itself.  Only Python's
    default handler is replaced (a program's own handler stays), and only in
    the main thread (the only one that receives signals).
    """
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
