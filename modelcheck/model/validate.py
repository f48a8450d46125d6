"""What spec functions may return, and the one-line error for anything else.

A model checker must never say "holds" because of a typo.  Python judges any
value by its truthiness, so an invariant that returns a generator (``all(``
forgotten) would always hold, one that forgets ``return`` would always fail
without a hint, and an action written ``return guard and s._replace(...)``
would hand the engine ``False`` as a state.  So the engine accepts exactly:

* from invariants, ``sometimes`` properties and constraints: ``True`` or
  ``False`` (numpy's bools too);
* from an action: ``None`` (disabled), a state of the spec's state type (the
  type of its initial states), or an iterable of such states (a ``list`` is
  the usual one; each item counts as one generated state);
* from ``init``: an iterable of states of one type.

The checks on the hot path are identity tests (``r is True``, ``type(r) is
S``) made where the value is used anyway; the functions here run only when
such a test fails, to accept the rarer valid forms or to say what is wrong.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from typing import Any

from modelcheck.errors import SpecResultError
from modelcheck.model.blame import definition_site, one_line

try:
    import numpy as _np

    _NUMPY_BOOL: tuple[type, ...] = (_np.bool_,)
except ImportError:  # numpy is a dependency; this only keeps the module importable without it
    _NUMPY_BOOL = ()


class BadResult(Exception):
    """A value an action may not return; ``what`` says what it is, for the caller's message."""

    def __init__(self, what: str, hint: str = "") -> None:
        super().__init__(what)
        self.what = what
        self.hint = hint


def _short(value: Any, limit: int = 60) -> str:
    return one_line(repr(value), limit)


def _the(value: Any) -> str:
    """``the tuple (1, 0)``: a value as a message names it."""
    return f"the {type(value).__name__} {_short(value)}"


def _site(fn: Any) -> str:
    site = definition_site(fn) if fn is not None else None
    return f" (defined at {site})" if site else ""


def as_bool(value: Any) -> bool | None:
    """``value`` as a bool if it is one (``True``, ``False`` or a numpy bool), else None."""
    if value is True or value is False:
        return value
    if _NUMPY_BOOL and isinstance(value, _NUMPY_BOOL):
        return bool(value)
    return None


def predicate_error(spec: str, where: str, fn: Any, value: Any) -> SpecResultError:
    """The error for an invariant, property or constraint that returned ``value``, not a bool."""
    if value is None:
        what, hint = "None", "is a return statement missing?"
    elif isinstance(value, Generator):  # compiled spec modules make Cython generators, registered as Generators
        what, hint = "a generator", "wrap it in all(...) or any(...)"
    elif isinstance(value, Iterator):
        what, hint = f"an iterator ({type(value).__name__})", "wrap it in all(...) or any(...)"
    elif type(value) is int:
        what, hint = f"{value} (an int)", "write the comparison, e.g. x != 0"
    else:
        what, hint = _the(value), ""
    return SpecResultError(
        f"spec {spec}: {where} returned {what}, not a bool{': ' + hint if hint else ''}{_site(fn)}",
        spec=spec, where=where)


def _type_name(t: type) -> str:
    return t.__name__


def as_successors(value: Any, state_type: type) -> list:
    """An action's result that is not None nor a state: the same ``list`` of states, or one made of an iterable.

    Raises :class:`BadResult` for anything else: a bool, a value of another
    type, an iterable holding anything but states.
    """
    if type(value) is list:
        for x in value:
            if type(x) is not state_type:
                break
        else:
            return value
    return _other_successors(value, state_type)


def _other_successors(value: Any, state_type: type) -> list:
    name = _type_name(state_type)
    if value is True or value is False:
        raise BadResult(f"{value}, not a state of type {name}", "return None when the action is disabled "
                        "('guard and state' gives False when the guard fails)")
    if type(value) is list:
        items = value
    elif isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise BadResult(f"{_the(value)}, not a state of type {name}")
    else:
        try:
            items = list(value)
        except TypeError:
            raise BadResult(f"{_the(value)}, not a state of type {name}") from None
    others = sorted({type(x).__name__ for x in items if type(x) is not state_type})
    if others:
        if type(value) is list and len(others) < len({type(x) for x in items}):
            raise BadResult(f"a list mixing {name} and {' and '.join(others)}",
                            f"every item must be a state of type {name}")
        raise BadResult(f"{_the(value)}, not a state of type {name}")
    return items


def action_error(spec: str, label: str, fn: Any, bad: BadResult, state_type: type) -> SpecResultError:
    """The error for action ``label`` (``Fetch(r2)``) that returned what ``bad`` describes."""
    name = _type_name(state_type)
    hint = bad.hint or f"return None (disabled), a state of type {name}, or a list of them"
    return SpecResultError(f"spec {spec}: action {label} returned {bad.what}: {hint}{_site(fn)}",
                           spec=spec, where=f"action {label}")


def init_states(spec: str, fn: Any, value: Any) -> list:
    """``init``'s result as a list of states of one type; a clear error for a single state or a non-iterable."""
    where = "init"
    if value is None:
        raise SpecResultError(f"spec {spec}: init returned None, not an iterable of states: is a return statement "
                              f"missing?{_site(fn)}", spec=spec, where=where)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        cls = type(value).__name__
        raise SpecResultError(f"spec {spec}: init returned a single state of type {cls}, not an iterable of "
                              f"states: return [{cls}(...)]{_site(fn)}", spec=spec, where=where)
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise SpecResultError(f"spec {spec}: init returned {_the(value)}, not an iterable of states{_site(fn)}",
                              spec=spec, where=where)
    states = list(value)
    kinds = []
    for s in states:
        if type(s) not in kinds:
            kinds.append(type(s))
    if len(kinds) > 1:
        raise SpecResultError(f"spec {spec}: init returned states of different types "
                              f"({', '.join(_type_name(k) for k in kinds)}): every state must have one type"
                              f"{_site(fn)}", spec=spec, where=where)
    return states
