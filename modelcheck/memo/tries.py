# cython: annotation_typing=False
# (The annotations are for readers and type checkers; the C types Cython uses are in tries.pxd.)
"""The memo tables: every (action, binding) and predicate of a spec as a decision tree over component ids.

Why this is exact: a function is evaluated by the readable spec on a state
whose components are :class:`~modelcheck.memo.traced.Traced`, which log the
order in which the evaluation first uses each one: ``k1, k2, ..., km``.  A
pure function's run, up to its first use of a component not among
``k1 .. kj``, depends only on the values of ``k1 .. kj``; so every state
that agrees with this one on them uses ``k(j+1)`` next, and every state
that agrees on all ``m`` gets the same result.  The tree records that path:
inner nodes read ``k1``, then (under this state's value of ``k1``) ``k2``,
and so on, down to the result; a component the result holds unchanged
(its :class:`Traced` itself) becomes "the parent's component k".  An
action that fails its first guard costs one step of the tree, and a state
that reaches a branch not learnt yet costs one evaluation.

The trees live in flat numpy arrays that the C loop (:mod:`.kernel`) walks:
inner node ``n`` reads component ``comp[n]``; the edge from ``n`` for
component id ``v`` is in an open-addressing table keyed by
``(n << 32 | v) + 1``, each key beside its code; a code ``>= 0`` is an
inner node, ``-1`` is "not learnt yet", ``<= -2`` is leaf ``-2 - code``.
A leaf (``leaves[l]``) holds ``count`` successors, each as its changes:
how many, then a (component, entry) pair each, an entry being an id or
``~k`` for the parent's component ``k`` (a component left out is the
parent's, unchanged; :meth:`Tries.leaf_entries` gives them back ``width``
entries each); a predicate's leaf holds no entries and ``count`` is its
value (0 or 1).  Its ``mask``
has bit ``k % 64`` set for each component ``k`` read on the way to it: a
state whose step from its parent changed none of them reaches the parent's
leaf without walking (the C loop keeps each state's leaves for its
successors).  So leaves are not shared: one per path.
"""

# modelcheck: compile

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from modelcheck.memo.kernel import LEAF, grown_size, pair_insert_codes, pair_rehash, put_leaves, put_list, slot
from modelcheck.memo.layout import Layout
from modelcheck.memo.traced import Traced, value_of
from modelcheck.memo.values import Interner

MISSING = -1
MASK_ALL = (1 << 64) - 1

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module

    COMPILED: bool = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra
    COMPILED = False


class BadResult(Exception):
    """An action returned something other than None, a state or a list of states (the readable path names it)."""


def _edge_key(n: int, v: int) -> int:
    """The edge table's key for inner node ``n`` and component id ``v`` (never 0, the empty slot)."""
    return ((n << 32) | v) + 1


def _path_mask(path: list) -> int:
    """Bit ``k % 64`` for each component ``k`` of ``path`` (``mc_path_mask`` in C when compiled)."""
    m = 0
    for k in path:
        m |= 1 << (k & 63)
    return m


def _grown(a: np.ndarray, need: int) -> np.ndarray:
    """``a``, or a copy half as large again (or ``need``) when it cannot hold ``need`` items."""
    if need <= len(a):
        return a
    out = np.zeros(max(need, len(a) + len(a) // 2), dtype=a.dtype)
    out[:len(a)] = a
    return out


class Tries:
    """The decision trees of ``n_functions`` functions over rows of ``width`` component ids.

    What is learnt goes first into Python buffers (the edges into a dict,
    the nodes and leaves into arrays of ints) and reaches the numpy arrays
    the C loop reads at :meth:`flush`, in one copy per batch: a numpy
    element store costs more than the rest of a node's bookkeeping.
    """

    def __init__(self, n_functions: int, width: int) -> None:
        self.width = width
        self.comp = np.zeros(256, np.int32)
        self.n_nodes = 0
        self.edges = np.zeros(2 << 12, np.int64)
        """The edge table: slot ``h`` is ``edges[2h]`` (the key, 0 if empty) and ``edges[2h + 1]`` (the
        child's code, and for an inner child the component it reads, 32 bits above: the C loop's next step
        then needs no load from ``comp``; :func:`~modelcheck.memo.kernel.pair_insert_codes`)."""
        self.root = np.full(n_functions, MISSING, np.int32)
        self.true_mask = np.zeros(max(1, n_functions), np.uint64)
        """Per predicate, the union of the masks of its leaves that hold (the C loop keeps a split action's
        effect's leaf while none of them changed: its guard still holds)."""
        self._true_masks = [0] * n_functions
        """``true_mask`` as Python ints: a mask already covered costs no numpy store."""
        self.leaves = np.zeros(256, LEAF)
        """Per leaf: where its entries start, their count (a predicate's: its value), its mask."""
        self.n_leaves = 0
        self.entries = np.zeros(1024, np.int32)
        self.n_entries = 0
        self._empty: int | None = None
        self._pending: dict[int, int] = {}
        """Edges learnt since the last :meth:`flush` (key -> code), not yet in the C table."""
        self._flushed = (0, 0, 0)
        """(nodes, leaves, entries) already in the numpy arrays."""
        self._new_counts: list[int] = []
        self._new_starts: list[int] = []
        self._new_entries: list[int] = []
        self._new_masks: list[int] = []
        """The counts, starts, entries and masks of the leaves learnt since the last flush: lists, since
        an ``array("i")`` parses each int it is given with ``PyArg_Parse`` (2.4 % of Kip320's instructions)."""
        self.n_edges = 0
        self.version = 0
        """Changes whenever an array is replaced (the C loop must be handed the new ones)."""
        self.comps: list[int] = []
        """``comp`` again, and ``roots`` is ``root``: Python lists for the walks made in Python."""
        self.roots: list[int] = [MISSING] * n_functions
        self._pending_roots: dict[int, int] = {}
        """Roots learnt since the last :meth:`flush`: written into ``root`` last, after what they lead to."""
        self.before_replace: Callable[[], None] | None = None
        """Called before :meth:`flush` replaces an array: helper threads of the C loop read the arrays while
        learning goes on, and must be parked before one is replaced (they would walk past its end)."""

    # -- building --------------------------------------------------------------------------

    def node(self, k: int) -> int:
        self.comps.append(k)
        self.n_nodes += 1
        return self.n_nodes - 1

    def set_root(self, f: int, code: int) -> None:
        self.roots[f] = code
        self._pending_roots[f] = code

    def leaf(self, count: int, entries: tuple = ()) -> int:
        """The code of a new leaf with these contents (its mask: every component, until :meth:`set_mask`).

        Leaves are not shared, not even equal ones: each has the mask of its
        own path (a dict of the leaves with successors also cost more memory,
        hundreds of MiB on AsyncIsr, than their duplicates in ``entries``).
        """
        code = -2 - self.n_leaves
        self._new_counts.append(count)
        self._new_starts.append(self.n_entries)  # a predicate's leaf has a count but no entries
        out = self._new_entries
        before = len(out)
        w = self.width
        for s in range(len(entries) // w if w else 0):  # stored as its changes (see the module docstring)
            at = len(out)
            out.append(0)
            for k in range(w):
                v = entries[s * w + k]
                if v != ~k:
                    out.append(k)
                    out.append(v)
            out[at] = (len(out) - at - 1) >> 1
        self._new_masks.append(MASK_ALL)
        self.n_entries += len(out) - before
        self.n_leaves += 1
        return code

    def empty_leaf(self) -> int:
        """A leaf without successors, for the walks made in Python (one, made when first asked for)."""
        if self._empty is None:
            self._empty = self.leaf(0)
        return self._empty

    def set_mask(self, code: int, path: list[int], holds_in: int = -1) -> None:
        """Leaf ``code``, just made, is reached by reading the components ``path`` (a leaf made before keeps
        its mask: every component for the shared :meth:`empty_leaf`); a predicate's leaf that holds
        adds it to ``true_mask[holds_in]``."""
        j = -2 - code - self._flushed[1]
        if j < 0 or code == self._empty:
            return
        m = mc_path_mask(path) if COMPILED else _path_mask(path)
        self._new_masks[j] = m
        if holds_in >= 0 and m & ~self._true_masks[holds_in]:
            self._true_masks[holds_in] |= m
            self.true_mask[holds_in] = self._true_masks[holds_in]

    def edge(self, n: int, v: int) -> int:
        """The code under inner node ``n`` for component id ``v`` (MISSING if not learnt)."""
        key = _edge_key(n, v)
        code = self._pending.get(key)
        if code is not None:
            return code
        edges = self.edges
        size = len(edges) >> 1
        h = slot(key, size)
        while True:
            kk = edges.item(2 * h)
            if kk == key:
                code = edges.item(2 * h + 1)
                return code if code < 0 else code & 0xFFFFFFFF
            if kk == 0:
                return MISSING
            h += 1
            if h == size:
                h = 0

    def pending_edge(self, n: int, v: int) -> int:
        """The code under inner node ``n`` for id ``v`` if learnt since the last :meth:`flush`, else MISSING."""
        return self._pending.get(_edge_key(n, v), MISSING)

    def set_edge(self, n: int, v: int, code: int) -> None:
        """Learn a new edge (into the C table at the next :meth:`flush`)."""
        key = _edge_key(n, v)
        if key not in self._pending:
            self.n_edges += 1
        self._pending[key] = code

    def would_replace(self) -> bool:
        """Whether :meth:`flush` would replace an array (to grow it) rather than write into the ones it has."""
        return (self.n_nodes > len(self.comp) or self.n_leaves > len(self.leaves)
                or self.n_entries > len(self.entries)
                or grown_size(len(self.edges) >> 1, self.n_edges) != len(self.edges) >> 1)

    def flush(self) -> None:
        """Put what was learnt since the last flush into the arrays the C loop reads (growing them first)."""
        nodes, leaves, n_entries = self._flushed
        size = grown_size(len(self.edges) >> 1, self.n_edges)
        if self.before_replace is not None and self.would_replace():
            self.before_replace()
        # What a new edge or root leads to is written before it: a helper thread walking meanwhile meets
        # either nothing (a branch not learnt) or what is complete.
        if self.n_nodes > nodes:
            self.comp = self._room(self.comp, self.n_nodes)
            put_list(self.comp, nodes, self.comps, nodes)
        if self.n_leaves > leaves:
            self.leaves = self._room(self.leaves, self.n_leaves)
            put_leaves(self.leaves, leaves, self._new_starts, self._new_counts, self._new_masks)
            self.entries = self._room(self.entries, self.n_entries)
            put_list(self.entries, n_entries, self._new_entries)
            self._new_counts = []
            self._new_starts = []
            self._new_entries = []
            self._new_masks = []
        self._flushed = (self.n_nodes, self.n_leaves, self.n_entries)
        if self._pending:
            if size != len(self.edges) >> 1:
                edges = np.zeros(2 * size, np.int64)
                pair_rehash(self.edges, edges)
                self.edges = edges
                self.version += 1
            pair_insert_codes(self.edges, self._pending, self.comps)
            self._pending.clear()
        if self._pending_roots:
            for f, code in self._pending_roots.items():
                self.root[f] = code
            self._pending_roots.clear()

    def _room(self, a: np.ndarray, need: int) -> np.ndarray:
        """``a``, or a larger copy if it cannot hold ``need`` items (the version changes)."""
        b = _grown(a, need)
        if b is not a:
            self.version += 1
        return b

    # -- reading ---------------------------------------------------------------------------

    def walk(self, f: int, row: Any) -> tuple[int, int | None, list[int]]:
        """(code reached, the last inner node passed, the components read on the way)."""
        code = self.roots[f]
        last = None
        reads: list[int] = []
        comp = self.comps
        while code >= 0:
            last = code
            k = comp[code]
            reads.append(k)
            code = self.edge(code, row[k])
        return code, last, reads

    def count_of(self, code: int) -> int:
        """Leaf ``code``'s count: its successors, or a predicate's value."""
        self.flush()
        return int(self.leaves[-2 - code]["count"])

    def changes(self, code: int) -> tuple[int, list[list[tuple[int, int]]]]:
        """(count, each successor's changes to its parent's row as ``(component, id)`` pairs) of a leaf."""
        self.flush()
        n = -2 - code
        start, count = int(self.leaves["start"][n]), int(self.leaves["count"][n])
        end = int(self.leaves["start"][n + 1]) if n + 1 < self.n_leaves else self.n_entries
        if end == start:  # a predicate's leaf (its count is its value) or an action's without successors
            return count, []
        e = self.entries[start:end].tolist()
        out = []
        at = 0
        for _s in range(count):
            n_changes = e[at]
            out.append([(e[at + 1 + 2 * j], e[at + 2 + 2 * j]) for j in range(n_changes)])
            at += 1 + 2 * n_changes
        return count, out

    def leaf_entries(self, code: int) -> tuple[int, np.ndarray]:
        """(count, each successor's ``width`` entries: an id, or ``~k`` for the parent's component ``k``)."""
        self.flush()
        n = -2 - code
        start, count = int(self.leaves["start"][n]), int(self.leaves["count"][n])
        w = self.width
        out = np.empty(count * w, np.int32)
        end = int(self.leaves["start"][n + 1]) if n + 1 < self.n_leaves else self.n_entries
        if end == start:  # a predicate's leaf (its count is its value) or an action's without successors
            return count, out[:0]
        e = self.entries
        at = start
        for s in range(count):
            dense = [~k for k in range(w)]
            changes = int(e[at])
            for j in range(changes):
                dense[int(e[at + 1 + 2 * j])] = int(e[at + 2 + 2 * j])
            out[s * w:(s + 1) * w] = dense
            at += 1 + 2 * changes
        return count, out

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.comp, self.edges, self.root, self.leaves, self.entries))

    @property
    def leaf_count(self) -> np.ndarray:
        """Each leaf's count (a view, for the tests and the walks made in Python)."""
        return self.leaves["count"]

    @property
    def leaf_mask(self) -> np.ndarray:
        """Each leaf's mask (a view)."""
        return self.leaves["mask"]


def plain_value(x: Any) -> Any:
    """A result's plain value, each :class:`Traced` inside its tuples and frozensets noted as used (the
    result depends on the component's value although nothing read it during the evaluation).  Other
    containers are returned as they are: a caller that needs the value itself refuses those."""
    t = type(x)
    if t is Traced:
        return value_of(x)
    if t is tuple:
        return tuple([plain_value(v) for v in x])
    if t is frozenset:
        return frozenset([plain_value(v) for v in x])
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        return t(*[plain_value(v) for v in x])
    return x


class TracedOf(dict):
    """Component ``k``'s :class:`Traced` of each value id, made when first asked for."""

    def __init__(self, k: int, values: list, log: list) -> None:
        super().__init__()
        self.k = k
        self.values = values
        self.log = log

    def __missing__(self, v: int) -> Traced:
        t = self[v] = Traced(self.values[v], self.k, self.log)
        return t


class NotDeterministic(Exception):
    """An evaluation did not first read what an earlier one on the same path read."""


class Learner:
    """Grows the trees of a spec's functions by evaluating the readable spec on traced states."""

    def __init__(self, layout: Layout, tries: Tries, interner: Interner, c: Any,
                 functions: list[tuple[Callable, tuple, str]], state_type: type,
                 value_id: Callable[[Any, int], int] | None = None) -> None:
        self.layout = layout
        self.tries = tries
        self.intern = interner
        self.c = c
        self.functions = functions  # (fn, extra args, kind: "action", "predicate" or "value")
        self.state_type = state_type
        self.value_id = value_id
        """For functions of kind "value": the id a leaf holds for a result (its plain value) of function ``f``,
        as ``value_id(result, f)``."""
        self.evaluations = 0
        self.log: list[int] = []
        # Per component k, the Traced of each value id met there (made on first use).
        self.traced: list[TracedOf] = [TracedOf(k, interner.values, self.log) for k in range(layout.width)]

    def learn(self, f: int, row: Any, at: tuple[int, int] | None = None) -> int:
        """Grow function ``f``'s tree along ``row`` down to a leaf; its code.

        One evaluation of the readable function on the row's state, each
        component traced: its result is the leaf, the order in which it first
        used components is the path.  Raises whatever the spec raises,
        :class:`NotCanonical`, :class:`BadResult` or :class:`LayoutMismatch`
        (the caller gives those to the readable path, which reports them as it
        always does), or :class:`NotDeterministic`.
        """
        tries = self.tries
        if type(row) is not tuple:
            row = tuple(row.tolist())
        if at is None:
            code, last, reads = tries.walk(f, row)
            if code != MISSING:
                return code
            depth = len(reads)
        else:  # where the C loop's walk stopped: (the last inner node passed or -1, how many)
            # What the C loop missed can only have been learnt since, for another row of this batch, and is
            # then still pending (the C table is filled between batches): only the pending edges are looked up.
            comps = tries.comps
            node, depth = at
            last = None if node < 0 else node
            code = tries.roots[f] if last is None else tries.pending_edge(last, row[comps[last]])
            while code >= 0:  # learnt meanwhile: walk on
                last = code
                depth += 1
                code = tries.pending_edge(code, row[comps[code]])
            if code != MISSING:
                return code
        fn, args, kind = self.functions[f]
        log = self.log
        log.clear()
        self.evaluations += 1
        s = self.layout.traced_state(row, self.traced)
        r = fn(self.c, s, *args)
        if kind == "action":
            code = self._action_leaf(r, s)
        elif kind == "value":
            code = tries.leaf(self.value_id(plain_value(r), f))
        else:
            if type(r) is Traced:
                r = value_of(r)
            if r is not True and r is not False:
                raise BadResult(r)
            code = tries.leaf(1 if r else 0)
        path = mc_first_uses(log, tries.width) if COMPILED else list(dict.fromkeys(log))
        if len(path) < depth or (last is not None and path[depth - 1] != tries.comps[last]):
            raise NotDeterministic(f"{path} after {depth} reads")
        tries.set_mask(code, path, f if kind == "predicate" and r else -1)
        comps = tries.comps
        below = [tries.node(k) for k in path[depth:]]  # the new inner nodes, then the leaf, each under the last
        below.append(code)
        for target in below:
            if last is None:
                tries.set_root(f, target)
            else:
                tries.set_edge(last, row[comps[last]], target)
            last = target
        return code

    def _action_leaf(self, r: Any, s: Any) -> int:
        if r is None:
            return self.tries.leaf(0)
        ts = r if type(r) is list else (r,)
        entries: list[int] = []
        entry_of = self.layout.child_entry_of
        intern = self.intern
        for t in ts:
            if type(t) is not self.state_type:
                raise BadResult(t)
            entry_of(t, entries, intern, s)
        return self.tries.leaf(len(ts), tuple(entries))
