"""Stable 64-bit fingerprints of canonical states.

TLC stores a 64-bit fingerprint per state instead of the state itself; so do we.
The fingerprint is Python's built-in ``hash()`` of the state, which for tuples,
frozensets, ints and bools is a deterministic 64-bit xxHash-style mix that does
not depend on the process (unlike ``hash()`` of ``str`` or, on Python 3.11, of
``None``, both refused by :func:`check_canonical`).  It costs about a tenth of a
blake2b digest, and it is identical in Spark executors and worker processes,
which is what the distributed engines rely on.
"""

# modelcheck: compile

from __future__ import annotations

import math
from typing import Any

from modelcheck.errors import StateError

_ALLOWED_LEAVES = (int, float)  # bool is a subclass of int


_INT_LIMIT = (1 << 61) - 1
"""Python hashes an int modulo this prime: ints as large as it would share fingerprints with small ones."""


def is_canonical(value: Any) -> bool:
    """The fast yes/no form of :func:`check_canonical` (no paths built): it runs on many states."""
    t = type(value)
    if t is bool:
        return True
    if t is int:
        return -_INT_LIMIT < value < _INT_LIMIT
    if t is float:
        return value == value  # NaN hashes by identity: no two processes would agree on its fingerprint
    if t is tuple or t is frozenset or (isinstance(value, tuple) and hasattr(value, "_fields")):
        for x in value:
            tx = type(x)
            if tx is bool or (tx is int and -_INT_LIMIT < x < _INT_LIMIT):
                continue
            if not is_canonical(x):
                return False
        return True
    return False


def check_canonical(value: Any, *, spec: str, where: str) -> None:
    """Raise :class:`StateError` unless ``value`` is built of ints, bools, tuples and frozensets.

    Lists, sets and dicts are mutable (an action could change a state already
    stored), ``str`` and ``None`` hash differently in every process, and other
    objects may define ``__hash__`` by identity.  Each of those would make the
    search silently wrong, so they are refused with the path to the bad part.
    """
    if is_canonical(value):
        return
    stack: list[tuple[Any, str]] = [(value, "state")]
    while stack:
        v, path = stack.pop()
        t = type(v)
        if t is tuple or (isinstance(v, tuple) and hasattr(v, "_fields")):
            fields = getattr(v, "_fields", None)
            for i, x in enumerate(v):
                stack.append((x, f"{path}.{fields[i]}" if fields else f"{path}[{i}]"))
        elif t is frozenset:
            for x in v:
                stack.append((x, f"{path}{{…}}"))
        elif t is bool or (t is int and -_INT_LIMIT < v < _INT_LIMIT) or (t is float and v == v):
            continue
        elif t is int:
            raise StateError(
                f"spec {spec}: {where} produced a non-canonical state: {path} is {v}, beyond ±(2**61 - 1) "
                "(Python hashes ints modulo that prime, so larger ones would share fingerprints with small ones)",
                spec=spec, where=where)
        elif t is float:
            raise StateError(
                f"spec {spec}: {where} produced a non-canonical state: {path} is NaN (it hashes "
                "differently in every process; use an int code)", spec=spec, where=where)
        else:
            hint = {
                list: "use a tuple",
                set: "use a frozenset",
                dict: "use a tuple of pairs",
                str: "strings hash differently in every process; use an int code",
                type(None): "None hashes differently in every process on Python 3.11; use -1 or a flag",
            }.get(t, "only ints, bools, tuples and frozensets are allowed")
            raise StateError(
                f"spec {spec}: {where} produced a non-canonical state: {path} is a "
                f"{t.__name__} ({hint})",
                spec=spec,
                where=where,
            )


def record_classes(states: Any) -> list[type]:
    """The record classes (tuple subclasses) found in the given states, at any depth, first met first."""
    out: dict[type, None] = {}
    stack = list(states)
    while stack:
        v = stack.pop()
        if isinstance(v, (tuple, frozenset)):
            if type(v) not in (tuple, frozenset):
                out[type(v)] = None
            stack.extend(v)
    return list(out)


def collision_probability(distinct: int, generated: int) -> float:
    """TLC's optimistic estimate of the chance that two states shared a fingerprint.

    TLC prints ``n * (g - n) / 2**64`` for n distinct of g generated states:
    each of the g - n re-visits could have matched a wrong one of the n stored
    fingerprints.
    """
    if distinct <= 0:
        return 0.0
    return distinct * max(generated - distinct, 0) / math.pow(2.0, 64)
