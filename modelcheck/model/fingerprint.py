"""Stable 64-bit fingerprints of states, equal exactly when the states are equal.

TLC stores a 64-bit fingerprint per state instead of the state itself; so do
we.  The fingerprint is this module's own function, not Python's ``hash()``,
because ``hash()`` is not fit for it: ``hash(-1) == hash(-2)`` (``-1`` is
CPython's error code), so two states that differ only in a -1 and a -2 (a
spec's ``Nil`` and ``NoLeader``, say) would be one state; ints are hashed
modulo ``2**61 - 1``; and ``hash()`` of ``str`` and ``None`` differs from
process to process, which Spark executors and worker processes cannot have.

:func:`fingerprint` follows Python's equality, which is the spec's own: ``1``,
``True`` and ``1.0`` are one value, as are ``0.0`` and ``-0.0``, a NamedTuple
and the plain tuple of the same items, and two frozensets of the same
elements however they were built.  An int that fits 64 bits is itself xor a seed
(a bijection, so distinct ints never share a fingerprint), mixed by what
holds it; other leaves are mixed by splitmix64's finaliser; a
tuple combines its items in order with xxHash's round and mixes the result;
a frozenset sums its elements' mixed fingerprints, which does not depend on
iteration order.  Ints of
any size, floats (not NaN, which is not equal to itself), ``str`` (its UTF-8
bytes) and ``None`` are accepted; anything else, or a tuple or frozenset class
with its own equality, is refused with ``TypeError``, so the walk that
fingerprints a state is also the check that it is canonical.

Compiled (``modelcheck compile``) the function is C (``fingerprint.pxd``);
interpreted it is :func:`_fingerprint_py`, the same definition in Python,
which the module checks the C against when it loads.  :func:`fingerprint_array`
fingerprints a batch with one table of the containers already walked, so the
parts a successor shares with its parent and siblings are walked once.
"""

# modelcheck: compile

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from modelcheck.errors import StateError

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module

    _COMPILED = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra
    _COMPILED = False

FINGERPRINT_SCHEME = "splitmix64-xxh-sum/3"
"""The name of this definition of fingerprints, part of a checkpoint's identity: change it with the definition."""

_M = (1 << 64) - 1
_K_INT = 0x9E3779B97F4A7C15
_K_BIG = 0xC2B2AE3D27D4EB4F
_K_FLOAT = 0x165667B19E3779F9
_K_TUPLE = 0x27D4EB2F165667C5
_K_SET = 0x85EBCA77C2B2AE63
_K_STR = 0xD6E8FEB86659FD93
_K_NONE = 0xA0761D6478BD642F
_P1 = 11400714785074694791
_P2 = 14029467366897019727
_P5 = 2870177450012600261
_EQUALITY = ("__eq__", "__ne__", "__hash__")


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M
    return z ^ (z >> 31)


def _step(acc: int, lane: int) -> int:
    acc = (acc + lane * _P2) & _M
    acc = ((acc << 31) | (acc >> 33)) & _M
    return (acc * _P1) & _M


def _big_int(v: int) -> int:
    mag = -v if v < 0 else v
    nlimbs = max(1, (mag.bit_length() + 63) // 64)
    acc = _K_BIG + (1 if v < 0 else 0)
    for k in range(nlimbs):
        acc = _mix(acc ^ ((mag >> (64 * k)) & _M))
    return _mix(acc ^ nlimbs)


def _int(v: int) -> int:
    if -(1 << 63) <= v < (1 << 63):
        return (v & _M) ^ _K_INT
    return _big_int(v)


def _plain(t: type, base: type) -> bool:
    """A tuple or frozenset class whose equality is the builtin's (a NamedTuple, with an order of its own or
    not; not one defining ``__eq__``, ``__ne__`` or ``__hash__``)."""
    return t is base or all(getattr(t, name) is getattr(base, name) for name in _EQUALITY)


def _unsigned(v: Any) -> int:
    t = type(v)
    if t is int or t is bool:
        return _int(int(v))
    if t is float:
        if v != v:
            raise TypeError("a float cannot be part of a state (NaN is not equal to itself)")
        if math.isfinite(v) and v == math.floor(v):
            return _int(int(v))
        return _mix(struct.unpack("<Q", struct.pack("<d", v))[0] ^ _K_FLOAT)
    if t is str:
        data = v.encode("utf-8")
        acc = _K_STR ^ len(data)
        for k in range(0, len(data), 8):
            acc = _mix(acc ^ int.from_bytes(data[k:k + 8], "little"))
        return _mix((acc + len(data)) & _M)
    if v is None:
        return _mix(_K_NONE)
    if isinstance(v, tuple):
        if not _plain(t, tuple):
            raise TypeError(f"a {t.__name__} cannot be part of a state "
                            "(a tuple class that defines its own equality or hash)")
        acc = _K_TUPLE
        for x in v:
            acc = _step(acc, _unsigned(x))
        return _mix((acc + len(v) * _P5) & _M)
    if isinstance(v, frozenset):
        if not _plain(t, frozenset):
            raise TypeError(f"a {t.__name__} cannot be part of a state "
                            "(a frozenset class that defines its own equality or hash)")
        total = sum(_mix(_unsigned(x)) for x in v) & _M
        return _mix(((total + len(v) * _P5) & _M) ^ _K_SET)
    raise TypeError(f"a {t.__name__} cannot be part of a state "
                    "(only ints, bools, floats, strs, None, tuples (NamedTuples) and frozensets are)")


def _signed(u: int) -> int:
    return u - (1 << 64) if u >= (1 << 63) else u


def _fingerprint_py(value: Any) -> int:
    """The definition of :func:`fingerprint`, in Python (what runs when the module is not compiled)."""
    return _signed(_unsigned(value) or 1)


def fingerprint(value: Any) -> int:
    """The 64-bit fingerprint of a state (a signed int, never 0), equal for equal states; ``TypeError`` if not
    canonical."""
    if _C_AGREES:
        return mc_fingerprint(value)
    return _fingerprint_py(value)


def part_fingerprint(value: Any) -> int:
    """The fingerprint of ``value`` as a part of a state: unsigned, what a tuple holding it combines.

    :func:`fingerprint` is this made signed, and 1 where it is 0 (engines
    keep 0 for an empty slot).  An engine that keeps a state as a row of
    parts (the memo tables) combines its parts' fingerprints as a tuple
    does, and so computes the state's own fingerprint.
    """
    if _C_AGREES:
        return mc_part_fingerprint(value)
    return _unsigned(value)


def fingerprint_array(ts: list, n: int, skip_none: bool = False) -> np.ndarray:
    """``fingerprint(t)`` for the first ``n`` states of ``ts``, as an int64 array.

    With ``skip_none``, a ``None`` in ``ts`` (a candidate left out of the
    model) gives 0.  Raises ``TypeError`` for the first state refused.
    """
    return fingerprints(ts, n, None, skip_none)


def fingerprints(ts: list, n: int, fp: Any = None, skip_none: bool = False) -> np.ndarray:
    """``fp(t)`` for the first ``n`` states of ``ts`` as int64 (0 for a ``None`` with ``skip_none``).

    ``fp`` is the run's fingerprint function (a view's or an orbit's, under
    VIEW or symmetry); None or :func:`fingerprint` itself takes the batched
    path of :func:`fingerprint_array`.
    """
    out = np.empty(n, dtype=np.int64)
    if fp is None or fp is fingerprint:
        if _C_AGREES:
            mc_fingerprint_array(ts, n, out, 1 if skip_none else 0)
            return out
        fp = _fingerprint_py
    for k in range(n):
        t = ts[k]
        out[k] = 0 if (skip_none and t is None) else fp(t)
    return out


def _agrees() -> bool:
    """Whether the compiled function gives the Python definition's fingerprints on samples of every kind."""
    if not _COMPILED:
        return False
    from typing import NamedTuple

    class Pair(NamedTuple):
        a: Any
        b: Any

    samples = [0, 1, -1, -2, True, False, 2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**64, -(2**200) + 7, 0.5,
               -0.0, 1.0, 2.0**70, float("inf"), float("-inf"), 1e-300, "", "a", "kafka-ÿ€", "12345678abc",
               None, (), (1, -1), frozenset(), frozenset({1, -2, (3, 4)}), Pair(frozenset({(1, 2)}), (None, "x")),
               ((1, (2, (3, ()))), frozenset({frozenset({1}), frozenset()}))]
    batch = samples + [Pair(1, 2), (1, 2)] + samples
    try:
        if [mc_fingerprint(v) for v in samples] != [_fingerprint_py(v) for v in samples]:
            return False
        if [mc_part_fingerprint(v) for v in samples] != [_unsigned(v) for v in samples]:
            return False
        out = np.empty(len(batch), dtype=np.int64)
        mc_fingerprint_array(batch, len(batch), out, 0)
        return out.tolist() == [_fingerprint_py(v) for v in batch]
    except Exception:  # noqa: BLE001 - anything unexpected: the Python definition serves
        return False


_C_AGREES = _agrees()
"""True when compiled and the C gives the Python definition's fingerprints (a constant of the build)."""


def is_canonical(value: Any) -> bool:
    """Whether ``value`` can be part of a state (the fast yes/no form of :func:`check_canonical`)."""
    try:
        fingerprint(value)
    except (TypeError, RecursionError):
        return False
    return True


def check_canonical(value: Any, *, spec: str, where: str) -> None:
    """Raise :class:`StateError` unless ``value`` can be fingerprinted, naming the path to the bad part.

    Lists, sets and dicts are mutable (an action could change a state already
    stored), and other objects may define equality by identity or their own
    way.  Each of those would make the search silently wrong, so they are
    refused.  :func:`fingerprint` decides; this finds where and says why.
    """
    if is_canonical(value):
        return
    stack: list[tuple[Any, str]] = [(value, "state")]
    while stack:
        v, path = stack.pop()
        t = type(v)
        if isinstance(v, tuple) and _plain(t, tuple):
            fields = getattr(v, "_fields", None)
            for i, x in enumerate(v):
                stack.append((x, f"{path}.{fields[i]}" if fields else f"{path}[{i}]"))
            continue
        if isinstance(v, frozenset) and _plain(t, frozenset):
            for x in v:
                stack.append((x, f"{path}{{…}}"))
            continue
        try:
            fingerprint(v)
            continue
        except (TypeError, RecursionError):
            pass
        if t is float:
            hint = "NaN is not equal to itself; use an int code"
        else:
            hint = {
                list: "use a tuple",
                set: "use a frozenset",
                dict: "use a tuple of pairs",
            }.get(t, "only ints, bools, floats, strs, None, tuples (NamedTuples) and frozensets are allowed, "
                     "and a tuple or frozenset class may not define its own equality or hash")
        what = "NaN" if t is float else f"a {t.__name__}"
        raise StateError(f"spec {spec}: {where} produced a non-canonical state: {path} is {what} ({hint})",
                         spec=spec, where=where)
    raise StateError(f"spec {spec}: {where} produced a state too deeply nested to fingerprint",
                     spec=spec, where=where)


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
