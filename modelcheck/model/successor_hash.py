"""Fingerprints of a batch of successors, from the parts each shares with its parent.

A state's fingerprint is ``hash(state)`` (:mod:`modelcheck.model.fingerprint`).
For a tuple that is CPython's xxHash-style combination of its items' hashes
(``tuplehash``), which is not cached: hashing each successor walks every
record of every log again, about a tenth of a Kip320 check.  Yet an action
changes one or two fields of its parent and keeps the others as the very same
objects (``with_replica_state(s, replace_at(s.replica_state, r, rs))`` shares
five of six fields with ``s``, and two of three replica states).  So, compiled
(``modelcheck compile``), :func:`successor_fingerprints` hashes each parent's
items once and recombines them for every successor, hashing only the items
the successor does not share; one level down as well, for an item replaced by
a tuple of the same type and length.  The C is in ``successor_hash.pxd``.

It is ``hash(t)`` exactly: the same combination of the same item hashes, an
item that *is* the parent's having the parent's item's hash (the parts of a
canonical state are immutable, see :func:`modelcheck.model.fingerprint.check_canonical`).
Only tuples whose hash is tuple's own are recombined (plain tuples, and
NamedTuples that do not define ``__hash__``); anything else is hashed as it
is.  The combination is CPython's since 3.8; when this module loads it checks
itself against ``hash`` on sample states and turns itself off on any
difference, so fingerprints stay those of every other engine (Spark executors
and checkpoints use ``hash``).  Interpreted, it is ``map(hash, ...)``.
"""

# modelcheck: compile

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module

    _COMPILED = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra
    _COMPILED = False


def successor_fingerprint_array(parents: list, ends: list, ts: list, fingerprint: Any = hash) -> np.ndarray:
    """``fingerprint(t)`` for each ``t in ts[:ends[-1]]``, as int64, where ``ts[ends[j - 1]:ends[j]]`` are
    the successors of ``parents[j]``; recombined from the parents' parts when ``fingerprint`` is ``hash``.

    An array rather than a list: the engine probes the batch's fingerprints
    with numpy, and the workers only ever use them as arrays, so an int
    object per successor (and its conversion back) was pure cost.  Raises
    what ``fingerprint`` raises for the first unhashable successor.
    """
    n = ends[-1] if ends else 0
    if fingerprint is hash and _RECOMBINES:
        out = np.empty(n, dtype=np.int64)
        mc_successor_fps(parents, ends, ts, out)
        return out
    return np.fromiter(map(fingerprint, ts[:n]), dtype=np.int64, count=n)


def successor_fingerprints(parents: list, ends: list, ts: list) -> list:
    """The same as a list of ints: ``[hash(t) for t in ts[:ends[-1]]]``."""
    return successor_fingerprint_array(parents, ends, ts).tolist()


class _Sample(NamedTuple):
    log: tuple
    state: tuple
    epoch: int
    isr: frozenset


class _OwnHash(tuple):
    """A tuple type with its own ``__hash__``: never recombined."""

    def __hash__(self) -> int:
        return 7


def _agrees() -> bool:
    """Whether the compiled recombination gives ``hash`` on samples of every kind it distinguishes."""
    if not _COMPILED:
        return False
    log = ((0, 1), (1, 1))
    p = _Sample(log, (5, 6, (7, 8)), 2, frozenset({0, 1}))
    successors = [
        p, p._replace(epoch=3), p._replace(log=log + ((2, 2),)), p._replace(log=((0, 1), (1, 2))),
        p._replace(state=(5, 9, (7, 8))), p._replace(state=(5, 6)), p._replace(isr=frozenset({1})),
        p._replace(state=_OwnHash((5, 6, (7, 8)))), (1, 2, 3, 4), _OwnHash(p), -1, -2,
    ]
    plain = (1, (2, 3), -1)
    ts = successors + [plain, (1, (2, 4), -1), (1, (2, 3), -2)]
    parents = [p, plain]
    ends = [len(successors), len(ts)]
    try:
        out = np.empty(len(ts), dtype=np.int64)
        return mc_successor_fps(parents, ends, ts, out) == len(ts) and out.tolist() == [hash(t) for t in ts]
    except Exception:  # noqa: BLE001 - anything unexpected: use hash
        return False


_RECOMBINES = _agrees()
"""True when compiled and the self-check passed (a constant of the interpreter, not run state)."""
