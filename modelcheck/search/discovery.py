"""Discovery order: which candidate a breadth-first search meets first, written the same way by every backend.

A one-process BFS meets the candidates of level L+1 in a definite order: the
parents of level L in their own discovery order, and each parent's
successors in the spec's action order.  The first candidate met with a
fingerprint is that state's discoverer (its parent in the trace), and where
the search stops inside a level (a violation, a deadlock, ``--max-states``)
is a point in that order.  Backends that expand a level in pieces, in other
processes or on other machines, reproduce the order exactly by giving every
candidate a *discovery key*: its parent's position in level L, then its
index among that parent's successors.  The level driver
(:mod:`modelcheck.search.driver`) compares positions ``(parent, index)`` and
never looks inside ``parent``, so two forms of the same key serve:

* **ranked**: ``parent`` is the parent's rank in level L (an int).  Backends
  that know the ranks of the level they expand (this process, ``--workers``)
  pack a key into one int64, ``rank << SUCC_BITS | index`` (:func:`pack`),
  which sorts as the pair does.
* **path**: ``parent`` is the parent's own key, a byte string: the path of
  successor indices from an initial state, one order-preserving digit per
  level (:func:`digit`).  Spark's fused level task expands a new state before
  any process knows its rank in the level, so it extends the parent's path;
  comparing paths as bytes is comparing discovery order.

Both forms allow the same successors per state, :data:`MAX_SUCCESSORS`
(checked by :func:`check_successor_count`), so no backend can check a spec
another refuses.
"""

# modelcheck: compile

from __future__ import annotations

from modelcheck.errors import SpecRuntimeError

SUCC_BITS = 24
"""Bits of a packed ranked key for the successor index."""

MAX_SUCCESSORS = 1 << SUCC_BITS
"""Successors one state may have (16,777,216), in every backend."""

MAX_RANK = 1 << (63 - SUCC_BITS)
"""States one level may hold in the ranked form (about 5.5e11)."""


def pack(rank: int, index: int) -> int:
    """The ranked key of successor ``index`` of the parent ranked ``rank``, as one int64."""
    return (rank << SUCC_BITS) | index


def unpack(key: int) -> tuple[int, int]:
    """``(parent rank, successor index)`` of a packed ranked key."""
    return key >> SUCC_BITS, key & (MAX_SUCCESSORS - 1)


def check_successor_count(count: int, spec_name: str) -> None:
    """Refuse a state with more successors than a discovery key can number."""
    if count > MAX_SUCCESSORS:
        raise SpecRuntimeError(
            f"spec {spec_name}: a state has {count:,} successors, more than the {MAX_SUCCESSORS:,} "
            "a discovery key can number; split the action or bound its parameters",
            spec=spec_name, where="an action")


# -- the path form -------------------------------------------------------------------------

_ONE_BYTE = tuple(bytes((n,)) for n in range(0x80))


def digit(n: int) -> bytes:
    """``n`` (0 <= n < 2**56) as a prefix-free, order-preserving digit: comparing digits as bytes compares numbers.

    The number of leading one bits of the first byte is the number of bytes
    that follow (as in UTF-8), and every number takes the fewest bytes it can:
    values below 128 take one byte, below 16,384 two, and so on.  A longer
    digit is therefore always a larger number, digits of one length compare
    big-endian, and no digit is the prefix of another, so a concatenation of
    digits (a path) compares as the sequence of numbers does.
    """
    if n < 0x80:
        return _ONE_BYTE[n]
    for extra in range(1, 8):
        if n < 1 << (7 * (extra + 1)):
            raw = bytearray(n.to_bytes(extra + 1, "big"))
            raw[0] |= (0xFF << (8 - extra)) & 0xFF
            return bytes(raw)
    raise ValueError(f"{n} is too large for a discovery digit")


def digit_length(first_byte: int) -> int:
    """The length of the digit that starts with ``first_byte``."""
    extra = 0
    while extra < 7 and first_byte & (0x80 >> extra):
        extra += 1
    return extra + 1


def child(parent: bytes, index: int) -> bytes:
    """The path key of successor ``index`` of the state whose path key is ``parent``."""
    return parent + digit(index)


def split(path: bytes) -> tuple[bytes, int]:
    """``(parent path, index)`` of a path key (the inverse of :func:`child`)."""
    i = 0
    last = 0
    while i < len(path):
        last = i
        i += digit_length(path[i])
    if i != len(path) or not path:
        raise ValueError(f"not a discovery path: {path!r}")
    return path[:last], int.from_bytes(bytes((path[last] & (0xFF >> digit_length(path[last])),)) + path[last + 1:],
                                       "big")
