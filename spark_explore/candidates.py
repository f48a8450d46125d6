"""The candidates a level task ships and receives, and the merge that picks each fingerprint's winner.

Two forms travel in the shuffle:

* **rows** (:func:`pack_rows`), written by executors that expand on the
  memo tables: a chunk of candidates as columns of numbers.  Each
  candidate is its fingerprint, its parent (an index into the chunk's
  parents, each written once with its key and fingerprint), its index
  among that parent's successors kept, its action, the bits of the checks
  that fired on it, and a row of part ids.  The parts are numbered within
  the chunk, and the distinct parts it uses are pickled once, with the
  state's *shape* (:mod:`modelcheck.search.frontier_rows`).  The rows,
  column by column (a component changes in few of a chunk's states), and
  the parents' keys (sorted, so sharing long prefixes) are compressed with
  zlib's fastest level: a fifth of their size for a fraction of a
  microsecond a candidate.  So the
  encoding does not depend on any process's interning, and any executor
  rebuilds the states: with its own tables (interning each part once) or,
  without them, with the shape's assembler;
* **states** (pickled ``(fp, key, parent fp, action, state)`` tuples),
  written by executors that run the spec's own code.

A candidate's key is its parent's key and one digit (:mod:`modelcheck.search.discovery`).
On the tables the digit is the candidate's index among the successors its
parent kept (those new to the task), not among all of them: the kept ones
are in the spec's order, and two candidates of one parent never share a
fingerprint, so the smallest key of a fingerprint is the same candidate,
and the same trace, either way.  A parent is expanded by one task only, so
the digits of its candidates are all of one kind.
"""

# modelcheck: compile

from __future__ import annotations

import pickle
import zlib
from typing import Any, Callable

import numpy as np

from modelcheck.search.discovery import digit
from modelcheck.search.frontier_rows import assembler, renumbered, shape_width
from modelcheck.search.visited import in_sorted

ROWS_FORMAT = 1
"""The version of :func:`pack_rows`'s layout (executors of one run share one build)."""


def _smallest(n: int) -> Any:
    """The smallest unsigned type that holds ``0 .. n - 1``."""
    return np.uint8 if n <= 1 << 8 else np.uint16 if n <= 1 << 16 else np.uint32


def pack_rows(dumps: Callable[[Any], bytes], shape: Any, values: list, fps: np.ndarray, parent: np.ndarray,
              sub: np.ndarray, action: np.ndarray, checks: np.ndarray, rows: np.ndarray,
              parent_keys: list, parent_fps: np.ndarray) -> bytes:
    """One chunk of candidates in the rows form.

    ``parent`` (ascending) indexes ``parent_keys``/``parent_fps`` (the
    expanding task's parents); ``rows`` are ids into ``values`` (the
    process's interned parts: numbering the chunk's among them costs the
    chunk's rows, not the number of ``values``); ``sub`` is each candidate's
    index among its parent's kept successors.
    """
    first = np.empty(len(parent), bool)  # ``parent`` ascends (a task's successors come in parent order)
    first[:1] = True
    np.not_equal(parent[1:], parent[:-1], out=first[1:])
    up = parent[first]
    pidx = (np.cumsum(first) - 1).astype(_smallest(len(up)))
    used, local = renumbered(rows, len(values))
    local = local.astype(_smallest(len(used)))
    fired = np.flatnonzero(checks)
    pkeys = [parent_keys[i] for i in up.tolist()]
    lengths = np.fromiter(map(len, pkeys), np.int64, len(pkeys))
    return dumps((ROWS_FORMAT, shape, [values[i] for i in used.tolist()], len(fps),
                  np.ascontiguousarray(fps, np.int64).tobytes(),
                  pidx.tobytes(),
                  sub.astype(_smallest(int(sub.max(initial=0)) + 1)).tobytes(),
                  action.astype(_smallest(int(action.max(initial=0)) + 1)).tobytes(),
                  fired.astype(np.uint32).tobytes(), np.ascontiguousarray(checks[fired], np.int64).tobytes(),
                  zlib.compress(b"".join(pkeys), 1), lengths.astype(_smallest(int(lengths.max(initial=0)) + 1)).tobytes(),
                  np.ascontiguousarray(parent_fps[up], np.int64).tobytes(),
                  zlib.compress(np.ascontiguousarray(local.T).tobytes(), 1), local.dtype.itemsize, rows.shape[1]))


class Batch:
    """One received chunk of candidates as columns (either form)."""

    __slots__ = ("fps", "_keys", "pfps", "actions", "checks", "shape", "parts", "rows", "states", "_parent_keys",
                 "_pidx", "_sub")

    def __init__(self, fps: np.ndarray, keys: list | None, pfps: np.ndarray, actions: np.ndarray,
                 checks: np.ndarray | None, shape: Any = None, parts: list | None = None,
                 rows: np.ndarray | None = None, states: list | None = None,
                 parent_keys: list | None = None, pidx: np.ndarray | None = None,
                 sub: np.ndarray | None = None) -> None:
        self.fps = fps
        self._keys = keys
        """The candidates' keys as shipped (states form), or None: then each is its parent's and a digit."""
        self._parent_keys = parent_keys
        self._pidx = pidx
        self._sub = sub
        self.pfps = pfps
        self.actions = actions
        self.checks = checks
        """The checks' bits (rows form), None where the sender ran the spec's own code."""
        self.shape = shape
        self.parts = parts
        self.rows = rows
        """Ids into ``parts`` (rows form)."""
        self.states = states
        """The states (states form)."""

    def __len__(self) -> int:
        return len(self.fps)

    @property
    def keys(self) -> list:
        """Every candidate's key."""
        return self.keys_at(np.arange(len(self.fps)))

    def keys_at(self, idx: np.ndarray) -> list:
        """The keys of the candidates at ``idx``: in the rows form they are built only when asked for, since
        most candidates of a large level are states their owner has seen, whose keys nobody reads."""
        if self._keys is not None:
            keys = self._keys
            return [keys[i] for i in idx.tolist()]
        pkeys = self._parent_keys
        return [pkeys[p] + digit(s) for p, s in zip(self._pidx[idx].tolist(), self._sub[idx].tolist())]


def _dtype_for(raw: bytes, n: int) -> Any:
    """The unsigned type of ``n`` items packed in ``raw`` (each chunk column takes the smallest it can)."""
    if n == 0:
        return np.uint8
    return {1: np.uint8, 2: np.uint16, 4: np.uint32}[len(raw) // n]


def unpack_rows(blob: bytes) -> Batch:
    """A chunk written by :func:`pack_rows`."""
    (fmt, shape, parts, n, fps, pidx, sub, action, fired, fired_bits, joined, lengths, ppfps, local, itemsize,
     width) = pickle.loads(blob)
    if fmt != ROWS_FORMAT:
        raise ValueError(f"candidates in rows form version {fmt}, this build reads {ROWS_FORMAT}")
    pidx_a = np.frombuffer(pidx, _dtype_for(pidx, n))
    ends = np.cumsum(np.frombuffer(lengths, _dtype_for(lengths, len(ppfps) // 8)), dtype=np.int64).tolist()
    joined = zlib.decompress(joined)
    pkeys = [joined[a:b] for a, b in zip([0] + ends[:-1], ends)]
    checks = np.zeros(n, np.int64)
    checks[np.frombuffer(fired, np.uint32)] = np.frombuffer(fired_bits, np.int64)
    rows = np.frombuffer(zlib.decompress(local), {1: np.uint8, 2: np.uint16, 4: np.uint32}[itemsize]
                         ).reshape(width, n).T
    return Batch(np.frombuffer(fps, np.int64), None, np.frombuffer(ppfps, np.int64)[pidx_a],
                 np.frombuffer(action, _dtype_for(action, n)).astype(np.int64), checks, shape, parts, rows,
                 parent_keys=pkeys, pidx=pidx_a, sub=np.frombuffer(sub, _dtype_for(sub, n)))


def states_batch(cands: list) -> Batch:
    """A chunk of ``(fp, key, parent fp, action, state)`` tuples (the states form) as a batch."""
    n = len(cands)
    return Batch(np.fromiter((c[0] for c in cands), np.int64, n), [c[1] for c in cands],
                 np.fromiter((c[2] for c in cands), np.int64, n), np.fromiter((c[3] for c in cands), np.int64, n),
                 None, states=[c[4] for c in cands])


class Winners:
    """The candidates a shard keeps: for each fingerprint it has not seen, the one with the smallest key, in
    key order (discovery order)."""

    def __init__(self, batches: list[Batch], visited: np.ndarray) -> None:
        self.batches = batches
        self.starts = np.cumsum([0] + [len(b) for b in batches])
        """Where each batch's candidates begin, end to end (its last item: how many there are)."""
        fps = np.concatenate([b.fps for b in batches]) if batches else np.zeros(0, np.int64)
        # A fingerprint the shard has seen has no winner whatever its key, so those candidates are dropped
        # first, and only the others' keys are built and sorted.
        unseen = np.flatnonzero(~in_sorted(visited, fps)) if len(visited) else np.arange(len(fps))
        if len(unseen) == 0:
            self.where = np.zeros(0, np.int64)
            self.fps = self.pfps = self.actions = np.zeros(0, np.int64)
            self.keys: list = []
            return
        starts = self.starts
        bounds = np.searchsorted(unseen, starts)
        keys: list = []
        for k, b in enumerate(batches):
            if bounds[k + 1] > bounds[k]:
                keys += b.keys_at(unseen[bounds[k]:bounds[k + 1]] - starts[k])
        # Sorted as fixed-width byte strings, which numpy compares padded with zeros: the keys of one level are
        # paths of as many digits, and no digit is the prefix of another, so no key is another's prefix and the
        # padding never decides.
        order = np.argsort(np.array(keys), kind="stable")
        _u, first = np.unique(fps[unseen][order], return_index=True)
        chosen = order[np.sort(first)]
        win = unseen[chosen]
        self.where = win
        """Each winner's index in the batches' candidates, end to end."""
        self.fps = fps[win]
        self.keys = [keys[i] for i in chosen.tolist()]
        self.pfps = np.concatenate([b.pfps for b in batches])[win]
        self.actions = np.concatenate([b.actions for b in batches])[win]

    def __len__(self) -> int:
        return len(self.fps)

    def _by_batch(self, where: np.ndarray | None = None) -> list[tuple[Batch, np.ndarray, np.ndarray]]:
        """For each batch with winners (of ``where``, default all): (batch, positions among them, indices in
        the batch)."""
        where = self.where if where is None else where
        starts = self.starts
        batch_of = np.searchsorted(starts, where, side="right") - 1
        order = np.argsort(batch_of, kind="stable")
        bounds = np.searchsorted(batch_of[order], np.arange(len(self.batches) + 1))
        out = []
        for k, b in enumerate(self.batches):
            mine = order[bounds[k]:bounds[k + 1]]
            if len(mine):
                out.append((b, mine, where[mine] - starts[k]))
        return out

    def checks(self) -> np.ndarray | None:
        """The winners' check bits, or None if a sender ran the spec's own code (then the spec's code checks)."""
        out = np.zeros(len(self), np.int64)
        for b, mine, idx in self._by_batch():
            if b.checks is None:
                return None
            out[mine] = b.checks[idx]
        return out

    def states(self, positions: list[int] | None = None) -> list:
        """The winners' states (those at ``positions``, default all), built from their rows (by the shape) or
        as they were shipped."""
        where = None if positions is None else self.where[np.asarray(positions, np.int64)]
        out: list = [None] * (len(self) if where is None else len(where))
        for b, mine, idx in self._by_batch(where):
            if b.states is not None:
                for m, i in zip(mine.tolist(), idx.tolist()):
                    out[m] = b.states[i]
            else:
                build = assembler(b.shape)
                parts = b.parts
                for m, r in zip(mine.tolist(), b.rows[idx].tolist()):
                    out[m] = build(r, parts)
        return out

    def rows(self, shape: Any, ids_of: Callable[[list], np.ndarray], row_of: Callable[[Any], tuple]) -> np.ndarray:
        """The winners as rows of this process's tables, whose layout has ``shape`` (plain): ``ids_of(parts)``
        interns a chunk's parts, ``row_of(state)`` takes a state apart (one shipped as a state, or of a chunk
        written with another shape)."""
        out = np.empty((len(self), shape_width(shape) or 0), np.int32)
        for b, mine, idx in self._by_batch():
            if b.states is None and b.shape == shape:
                out[mine] = ids_of(b.parts)[b.rows[idx]]
                continue
            if b.states is not None:
                states = [b.states[i] for i in idx.tolist()]
            else:
                build = assembler(b.shape)
                states = [build(r, b.parts) for r in b.rows[idx].tolist()]
            for m, s in zip(mine.tolist(), states):
                out[m] = row_of(s)
        return out
