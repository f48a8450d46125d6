"""Finding a spec by what the user typed: a registered name, a file, or ``module:attr``.

The same reference string is what the Spark engine ships to executors, which
import the spec again there: a spec always travels by name, never as a closure.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any

from modelcheck.errors import SpecLoadError, UsageError
from modelcheck.model.blame import one_line, passes_through, raise_site, shown_path
from modelcheck.spec.declare import Spec
from modelcheck.spec.opened import recording
from modelcheck.spec.sources import OPENED_ATTR


def registered_specs() -> dict[str, str]:
    """Registered spec names mapped to their ``module:attr`` references."""
    from modelcheck.specs.registry import REGISTRY

    return dict(REGISTRY)


def _from_module(module: Any, attr: str | None, origin: str) -> Spec:
    if attr:
        spec = getattr(module, attr, None)
        if not isinstance(spec, Spec):
            raise SpecLoadError(f"{origin} has no Spec named {attr!r}")
        return spec
    found = [v for v in vars(module).values() if isinstance(v, Spec)]
    unique = list({id(s): s for s in found}.values())
    if len(unique) != 1:
        names = ", ".join(s.name for s in unique) or "none"
        raise SpecLoadError(
            f"{origin} defines {len(unique)} specs ({names}); name one as {origin}:ATTR"
        )
    return unique[0]


def user_module_name(path: str) -> str:
    """The module name a user's spec file is imported under.

    It is stable (not random) so that pickled states and functions of the file
    resolve in worker processes and Spark executors that import the same file
    (the Spark engine ships it under this name).
    """
    return "modelcheck_user_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")


def _source_of(module: Any) -> str | None:
    from modelcheck.model.blame import SOURCE_ATTR

    src = getattr(module, SOURCE_ATTR, None) or getattr(module, "__file__", None)
    return os.path.abspath(src) if src and str(src).endswith(".py") else None


def _differ(a: str, b: str) -> bool:
    """Whether two spec files that both exist hold different source (a shipped copy of a file is the file)."""
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() != fb.read()
    except OSError:
        return False


def _import_file(path: str) -> Any:
    """Import a user's spec file under :func:`user_module_name`, once per process."""
    from modelcheck.build import user_specs

    path = os.path.abspath(path)
    name = user_module_name(path)
    if name in sys.modules:
        # Imported already, here or (on an executor) from the copy Spark shipped.  Another file of the same
        # name would silently stand in for this one: refused instead.
        other = _source_of(sys.modules[name])
        if other is not None and other != path and _differ(other, path):
            raise SpecLoadError(f"{shown_path(path)}: a different spec file of the same name, {shown_path(other)}, "
                                "is already loaded in this process; rename one of them")
        return sys.modules[name]
    try:
        built = user_specs.load(user_specs.UserModule(name, path))
    except BaseException as exc:  # noqa: BLE001 - as from the source (below)
        if passes_through(exc) or isinstance(exc, SpecLoadError) or hasattr(exc, "spec"):
            raise
        raise _import_failed(shown_path(path), exc) from exc
    if built is not None:
        return built
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SpecLoadError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and the like at import are the spec's errors
        del sys.modules[name]
        if passes_through(exc) or isinstance(exc, SpecLoadError) or hasattr(exc, "spec"):
            raise
        raise _import_failed(shown_path(path), exc) from exc
    return module


def _import_failed(what: str, exc: BaseException) -> SpecLoadError:
    """The one-line error for a spec module that raised while it was imported, with the spec's line."""
    detail = one_line(str(exc))
    site = raise_site(exc.__traceback__)
    return SpecLoadError(f"spec module {what} failed to import: {type(exc).__name__}"
                         f"{': ' + detail if detail else ''}{f' (at {site})' if site else ''}")


def _import_module(name: str) -> Any:
    """Import ``pkg.module``: its compiled build if it is a user module with a current one, else as Python does."""
    from modelcheck.build import user_specs

    if name not in sys.modules:
        user = user_specs.for_module(name) if user_specs.enabled() else None
        if user is not None and user_specs.load(user) is not None:
            parent, _, leaf = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], leaf, sys.modules[name])
    return importlib.import_module(name)


def loaded_module(ref: str) -> str | None:
    """The module a spec reference was imported from (None for a ``Spec`` object's unknown origin)."""
    registry = registered_specs()
    target = registry.get(ref, ref).partition(":")[0]
    if target.endswith(".py") or os.sep in target:
        return user_module_name(os.path.abspath(target))
    return target


def load_spec(ref: str) -> Spec:
    """Resolve ``ref``: a registered name, ``path/to/spec.py[:ATTR]`` or ``pkg.module[:ATTR]``, possibly followed
    by extension files (:data:`EXTENDED`)."""
    from modelcheck.errors import SpecDefinitionError

    if EXTENDED in ref:
        return load_extended(ref)
    registry = registered_specs()
    if ref in registry:
        ref = registry[ref]
    target, _, attr = ref.partition(":")
    try:
        if target.endswith(".py") or os.sep in target:
            if not os.path.isfile(target):
                raise UsageError(f"no spec file {target}")
            with recording() as opened:
                module = _import_file(target)
            _note_opened(module, opened)
            return _from_module(module, attr or None, target)
        if not target.replace(".", "").replace("_", "").isalnum():
            raise UsageError(_unknown(ref, registry))
        try:
            with recording() as opened:
                module = _import_module(target)
            _note_opened(module, opened)
        except ModuleNotFoundError as exc:
            if exc.name and target.startswith(exc.name):
                raise UsageError(_unknown(ref, registry)) from None
            raise SpecLoadError(f"spec module {target} failed to import: {exc}") from exc
        except SpecDefinitionError:
            raise
        except BaseException as exc:  # noqa: BLE001 - SystemExit and the like at import are the spec's errors
            if passes_through(exc):
                raise
            raise _import_failed(target, exc) from exc
        return _from_module(module, attr or None, target)
    except SpecDefinitionError:
        raise


def _note_opened(module: Any, opened: set[str]) -> None:
    """Keep on the module the files it opened for reading while it was imported (its data files, for a
    checkpoint's identity: :func:`modelcheck.spec.sources.spec_files`); none when it was imported before."""
    if opened:
        try:
            setattr(module, OPENED_ATTR, frozenset(getattr(module, OPENED_ATTR, ())) | frozenset(opened))
        except (AttributeError, TypeError):
            pass


def _unknown(ref: str, registry: dict[str, str]) -> str:
    names = ", ".join(sorted(registry))
    return f"unknown spec {ref!r}; registered specs: {names} (or give path/to/spec.py or pkg.module:SPEC)"


def spec_reference(spec: Spec, typed: str | None) -> str:
    """A reference another process can load: the registry name, the file or module path, or the spec's own.

    ``typed`` is what the user gave (None when a :class:`Spec` object was
    passed): a Spark executor imports the spec again from this reference.
    """
    if typed is None:
        if not spec.reference:
            raise UsageError(
                f"spec {spec.name} has no reference another process can import it by; pass its registered "
                "name, its file (path/to/spec.py) or its module (pkg.module:SPEC) instead of the object")
        return spec.reference
    if typed in registered_specs():
        return typed
    target, _, attr = typed.partition(":")
    if target.endswith(".py") or os.sep in target:
        return os.path.abspath(target) + (f":{attr}" if attr else "")
    return typed


EXTENDED = " +extend "
"""Joins a spec's reference and the extension files applied to it (``load_spec`` reads it back): how another
process, a Spark executor, finds an extended spec."""


def extend_from_file(spec: Spec, path: str) -> Spec:
    """``spec`` extended by the file ``path`` (``--extend``): the invariants, ``sometimes`` and temporal
    properties it defines (functions decorated in that file, in their order), and its ``FAIRNESS`` list, if
    it has one, in place of the spec's."""
    from modelcheck.spec.declare import _PREDICATE, PredicateMeta
    from modelcheck.spec.temporal import property_meta

    if not os.path.isfile(path):
        raise UsageError(f"no extension file {path}")
    with recording() as opened:
        module = _import_file(path)
    _note_opened(module, opened)
    found: dict[str, list] = {"always": [], "sometimes": [], "property": []}
    for value in vars(module).values():
        if not callable(value) or getattr(value, "__module__", None) != module.__name__:
            continue
        meta = getattr(value, _PREDICATE, None)
        if isinstance(meta, PredicateMeta):
            found[meta.kind].append(value)
        elif property_meta(value) is not None:
            found["property"].append(value)
    fairness = getattr(module, "FAIRNESS", None)
    if not any(found.values()) and fairness is None:
        raise UsageError(f"extension {path} declares no invariant, sometimes or property (decorate its functions "
                         "with @invariant, @sometimes, @liveness or @step_property) and no FAIRNESS list")
    extended = spec.extend(invariants=found["always"], sometimes=found["sometimes"], properties=found["property"],
                           fairness=fairness)
    if spec.reference:
        extended.reference = spec.reference + EXTENDED + os.path.abspath(path)
    return extended


def load_extended(ref: str, extensions: list[str] | tuple[str, ...] = ()) -> Spec:
    """``load_spec(ref)`` extended by each file of ``extensions`` in turn (``ref`` may already name some)."""
    base, *named = ref.split(EXTENDED)
    spec = load_spec(base)
    for path in (*named, *extensions):
        spec = extend_from_file(spec, path)
    return spec
