"""Orbit fingerprints: one fingerprint per class of states equal up to renaming replicas.

TLC's SYMMETRY takes the smallest fingerprint over every permutation of the
interchangeable values, n! permuted copies of every generated state.  That is
what :func:`min_over_all` does, and on Kafka specs with three replicas it is
most of a symmetric run's time.

:func:`min_over_sorted` needs far fewer copies when the spec gives a
*signature*: a per-value key that a renaming carries along
(``signature(c, permute(c, s, p), p[i]) == signature(c, s, i)``, e.g. a
replica's own log, high watermark and whether it leads).  Only the
permutations that put the values in signature order are tried, all of the
orderings within ties.  Why this is exact: for a state ``s`` and a renaming
``σ``, the sorting permutations of ``σ(s)`` are those of ``s`` composed with
``σ⁻¹``, so both states yield the same set of sorted copies and so the same
smallest fingerprint; states of different orbits yield copies in different
orbits.  The number of distinct orbits, and so every count, is the same as
with :func:`min_over_all`; the fingerprints themselves differ.
"""

# modelcheck: compile

from __future__ import annotations

import itertools
from typing import Any, Callable, Sequence

from modelcheck.model.fingerprint import fingerprint

State = Any


def min_over_all(consts: Any, permute: Callable, perms: Sequence[tuple[int, ...]]) -> Callable[[State], int]:
    """The smallest fingerprint over all permuted copies (the identity needs no copy).

    The returned ``fp(s, h=None)`` takes ``fingerprint(s)`` as ``h`` when the caller has it already.
    """
    identity = tuple(range(len(perms[0]))) if perms else ()
    others = [p for p in perms if p != identity]
    has_identity = len(others) < len(perms)

    def fp(s: State, h: int | None = None) -> int:
        hashes = [fingerprint(permute(consts, s, p)) for p in others]
        if has_identity:
            hashes.append(fingerprint(s) if h is None else h)
        return min(hashes)

    return fp


def _tie_orders(order: list[int], keys: list[Any]) -> list[list[int]]:
    """Every ordering of ``order`` (sorted by ``keys``) that permutes values only within ties."""
    groups: list[list[int]] = []
    for i in order:
        if groups and keys[groups[-1][0]] == keys[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    choices = [list(itertools.permutations(g)) if len(g) > 1 else [tuple(g)] for g in groups]
    return [[i for part in combo for i in part] for combo in itertools.product(*choices)]


def min_over_sorted(
    consts: Any, permute: Callable, signature: Callable[[Any, State, int], Any], n: int
) -> Callable[[State], int]:
    """The smallest fingerprint over the copies that put the values in signature order.

    The returned ``fp(s, h=None)`` takes ``fingerprint(s)`` as ``h`` when the caller has it already.
    """
    values = range(n)
    identity = tuple(values)
    inverses: dict[tuple[int, ...], tuple[int, ...]] = {}  # sorted order -> the renaming that sorts

    def renaming(order: tuple[int, ...]) -> tuple[int, ...]:
        perm = inverses.get(order)
        if perm is None:
            p = [0] * n
            for position, value in enumerate(order):
                p[value] = position
            perm = inverses[order] = tuple(p)
        return perm

    def fp(s: State, h: int | None = None) -> int:
        keys = [signature(consts, s, i) for i in values]
        order = tuple(sorted(values, key=keys.__getitem__))
        if all(keys[order[k]] != keys[order[k + 1]] for k in range(n - 1)):
            if order == identity:
                return fingerprint(s) if h is None else h
            return fingerprint(permute(consts, s, renaming(order)))
        best = None
        for o in _tie_orders(list(order), keys):
            o = tuple(o)
            if o == identity:
                copy_fp = fingerprint(s) if h is None else h
            else:
                copy_fp = fingerprint(permute(consts, s, renaming(o)))
            if best is None or copy_fp < best:
                best = copy_fp
        return best

    return fp


def signature_mismatch(
    consts: Any, permute: Callable, signature: Callable[[Any, State, int], Any],
    perms: Sequence[tuple[int, ...]], s: State,
) -> tuple[tuple[int, ...], int] | None:
    """A (permutation, value) for which ``signature`` is not carried along by ``permute``, or None."""
    for p in perms:
        t = permute(consts, s, p)
        for i in range(len(p)):
            if signature(consts, t, p[i]) != signature(consts, s, i):
                return p, i
    return None
