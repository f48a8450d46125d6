"""The C loop of the component-memo search (compiled by ``modelcheck compile``; C in ``kernel.pxd``).

:func:`expand` takes a level's parents ``S_I .. S_HI`` (rows of component
ids) and, for each parent in order, does three passes:

1. every (action, binding)'s tree is walked to its leaf (a split action's
   guard tree first, :mod:`.split`), and the leaf's
   successor entries are written out as candidate rows (ids, or the parent's
   component for a ``~k`` entry);
2. each candidate's state constraint is walked, its fingerprint taken, and
   for those not in the visited set, the checks (invariants, ``sometimes``
   properties) are walked;
3. the parent is kept: counts, new states into the visited set and the
   output arrays.

Each state of a level keeps a leaf per slot (``ROW_LEAF``, ``S_W`` ints a
state): per binding ``4 * leaf + 1`` (its effect's leaf; ``+ 3`` where that
leaf has no successor; for a split action whose guard fails, ``4 * the guard's
leaf``), then the leaves of its own
constraint and checks, or -1 where unknown.  A leaf's mask (``LEAF_MASK``)
has a bit per component its path read; a new state keeps its parent's leaf
where the step changed none of them (for an effect, nor any component a
path on which its guard held read: ``TRUE_MASK``), so its walk is skipped:
most steps change few components, and most trees read few.  Only
the first ``len(ROW_LEAF)`` states of a level keep leaves (a memory bound);
the rest walk every tree, with their leaves in ``SCRATCH_LEAF``.

Passes 1 and 2 change nothing (but the parent's leaves), so when a walk reaches a branch not learnt
yet the parent is not kept: the loop notes the function and the row, walks
up to ``S_PROBE`` more parents' bindings only to note their misses too
(their successors are not built, nor their checks walked: nothing of them
is kept), and returns
``MISS`` with ``S_I`` at the first parent not kept; the caller learns the
branches (:meth:`modelcheck.memo.tries.Learner.learn`) and calls again: a
parent is expanded whole or not at all, in order.  The same holds for the arrays
being too small (``GROW_*``).  After a parent with a new state whose checks
fired, or without successors (when deadlocks are checked), it returns
``EVENT`` with that parent's candidates still in the scratch arrays.

With an action constraint (``S_ACTION_CONSTRAINT``), pass 2 walks its tree
(``AC_*``: a tree over the parent's row and the successor's side by side,
:mod:`.steps`) for each successor inside the state constraint; a successor
it rejects is generated but not kept, as one outside the state constraint.
A walk that reaches a branch not learnt returns ``PAIR_MISS`` with ``S_I``
at the parent (not kept) and ``S_EV_CAND`` the successor, still in the
scratch arrays: the caller learns that branch and calls again.

With symmetry, a successor's fingerprint is its orbit's: pass 2 takes the
state's own fingerprint, for a successor inside the model, to the orbit
cache (``ORBIT_CACHE``: own fingerprint -> orbit fingerprint, a pure
function's memo, emptied when three quarters full; its last item is its
count) and asks the caller's ``orbit`` function where it misses.  Everything
after (the visited set, the new states, the events) sees orbits.  With
``S_ORBIT_TREES`` (the number of interchangeable values) a cache miss first
walks the orbit trees (``O_*``, :mod:`.orbits`): the spec's ``signature`` per
value (``S_ORBIT_SORTED``), whose leaves are key ids ranked by ``O_RANK``, and
its ``permute`` per renaming (from ``S_ORBIT_FIRST_PERM``, ``S_ORBIT_NPERMS``
of them), the renamed row fingerprinted in ``O_ROW`` and ``O_NFP``; only
where the keys tie or have no rank is ``orbit`` called, and a walk that
reaches a branch not learnt returns ``ORBIT_MISS`` as ``PAIR_MISS`` returns,
with the tree and where its walk stopped in ``S_ORBIT_MISS_FN``,
``S_ORBIT_MISS_NODE`` and ``S_ORBIT_MISS_DEPTH``.  ``S_ORBIT_ASKED`` counts
the cache misses.

Recording (``S_RECORD``), every transition of a kept parent inside the model
but a stuttering one is written out as an edge (parent rank, target
fingerprint, binding) for liveness; with ``S_EDGE_ROWS`` also the target's row
and its index among the parent's successors, for the step properties, whose
trees read a parent's row and a successor's side by side (:func:`walk_rows`).

Since passes 1 and 2 write nothing but the parent's leaves and its
candidates, helper threads (:func:`crew_new`, ``--workers``) run them on
parents ahead of the loop, into rings of their own; the loop takes a
parent's candidates from a helper where they are ready and runs pass 3 on
them as on its own, so that what is kept, and in which order, is decided
here alone.

A row's fingerprint is its state's own (:mod:`modelcheck.model.fingerprint`):
``FP_PROG`` lists the records and tuples the layout split, in post-order
(:meth:`modelcheck.memo.layout.Layout.fingerprint_program`), each the tuple
fingerprint of its items, a component's being ``VFP[id]`` (its value's); a
successor recomputes only those above the components its step changed.  So
the visited set and the parent records hold the fingerprints every other
engine computes.

The statuses, the order of the arrays and the slots of the scalars array
are defined once, below, as Python constants; ``modelcheck compile`` makes
the C enums ``kernel.pxd`` uses (``MC_DONE``.., ``MC_ROWS``.., ``S_I``..)
from these lines (the ``# modelcheck: c enum`` markers,
:mod:`modelcheck.build.c_enums`), into the build's own directory.  Python is
the source rather than C because the constants are read by name throughout
the engine (:mod:`.backend`), which an import-time parse of the C would turn
into names no reader or tool could see, and because the array types are
numpy's, each written beside its array's name here.  The made header is
never in the source tree: it comes from the text whose digest names the
build, so a build cannot be compiled against other constants than this
file's, and an edit here leaves the module interpreted until it is rebuilt.
"""

# modelcheck: compile

from __future__ import annotations

import numpy as np

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module

    COMPILED: bool = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra
    COMPILED = False

# modelcheck: c enum MC_
DONE, MISS, GROW_VISITED, GROW_OUT, GROW_CAND, EVENT, GROW_EDGES, ORBIT_FAILED, PAIR_MISS, ORBIT_MISS = range(10)
"""What :func:`expand` returns (see above)."""
# modelcheck: c enum MC_
(ROWS, COMP, EDGES, ROOT, LEAVES, ENTRIES, ACTION_OF, VKEYS, OUT_ROWS, OUT_PARENT,
 OUT_ACTION, OUT_FP, CAND, CAND_ACTION, CAND_FP, CAND_FLAG, GEN_BY_ACTION, NEW_BY_ACTION, MISS_FN, MISS_PARENT,
 MISS_ROWS, MISS_NODE, MISS_DEPTH, GUARD_OF, ROW_LEAF, OUT_LEAF, CAND_MASK, CAND_OWN, TRUE_MASK,
 SCRATCH_LEAF, ROW_FP, FP_PROG, VFP, EDGE_SRC, EDGE_DST, EDGE_LABEL, OUT_CHECKS, EDGE_ROWS, EDGE_STEP,
 ORBIT_CACHE, AC_COMP, AC_EDGES, AC_ROOT, AC_LEAVES, O_COMP, O_EDGES, O_ROOT, O_LEAVES, O_ENTRIES, O_RANK,
 O_ROW, O_NFP, N_ARRAYS) = range(53)
"""The order of the arrays handed to :func:`expand` (``MC_ROWS`` .. in C)."""
# modelcheck: c enum
(S_I, S_HI, S_N_OUT, S_VCOUNT, S_STATUS, S_W, S_SIMD, S_LEAF_ROWS, S_GENERATED, S_K, S_B,
 S_CONSTRAINT_FN, S_FIRST_CHECK, S_N_CHECKS, S_CHECK_WHEN_TRUE, S_CHECK_ENABLED, S_DEADLOCK, S_EV_PARENT,
 S_EV_CAND, S_EV_MASK, S_EV_DEADLOCK, S_RECORD, S_N_EDGES, S_CHECK_REPORT, S_N_MISS, S_PROBE,
 S_EDGE_ROWS, S_ACTION_CONSTRAINT, S_ORBIT_TREES, S_ORBIT_SORTED, S_ORBIT_FIRST_PERM, S_ORBIT_NPERMS, S_ORBIT_ASKED,
 S_ORBIT_MISS_FN, S_ORBIT_MISS_NODE, S_ORBIT_MISS_DEPTH, S_N_SCALARS) = range(37)
"""The slots of the scalars array (int64): inputs, outputs and where to resume."""

GOLDEN = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


LEAF = np.dtype([("start", np.int32), ("count", np.int32), ("mask", np.uint64)], align=True)
"""A leaf of the tries (the C loop's ``mc_leaf``): where its entries start, how many, the mask of its path."""

_DTYPE = {
    ROWS: np.int32, COMP: np.int32, EDGES: np.int64, ROOT: np.int32, LEAVES: LEAF, ENTRIES: np.int32,
    ACTION_OF: np.int32, VKEYS: np.uint64, OUT_ROWS: np.int32, OUT_PARENT: np.int32, OUT_ACTION: np.int32,
    OUT_FP: np.uint64, CAND: np.int32, CAND_ACTION: np.int32, CAND_FP: np.uint64, CAND_FLAG: np.int32,
    GEN_BY_ACTION: np.int64, NEW_BY_ACTION: np.int64, MISS_FN: np.int32, MISS_PARENT: np.int32,
    MISS_ROWS: np.int32, MISS_NODE: np.int32, MISS_DEPTH: np.int32, GUARD_OF: np.int32, ROW_LEAF: np.int32,
    OUT_LEAF: np.int32, CAND_MASK: np.uint64, CAND_OWN: np.int32, TRUE_MASK: np.uint64, SCRATCH_LEAF: np.int32,
    ROW_FP: np.int64, FP_PROG: np.int32, VFP: np.uint64, EDGE_SRC: np.int32, EDGE_DST: np.uint64,
    EDGE_LABEL: np.int32, OUT_CHECKS: np.int64, EDGE_ROWS: np.int32, EDGE_STEP: np.int32, ORBIT_CACHE: np.int64,
    AC_COMP: np.int32, AC_EDGES: np.int64, AC_ROOT: np.int32, AC_LEAVES: LEAF, O_COMP: np.int32, O_EDGES: np.int64,
    O_ROOT: np.int32, O_LEAVES: LEAF, O_ENTRIES: np.int32, O_RANK: np.int64, O_ROW: np.int32, O_NFP: np.uint64,
}
DTYPES = tuple(_DTYPE[j] for j in range(N_ARRAYS))
"""Each array's type, in the order above (each written beside its array's name, so no second order to keep)."""


def array_table(arrs: dict[int, np.ndarray]) -> np.ndarray:
    """The table :func:`expand` reads the arrays from: their addresses, then their lengths in items.

    ``arrs`` maps each array's slot (:data:`ROWS` ..) to the array, so that
    no caller repeats the order.  Checked here (type, contiguity), once per
    change of an array, so that the C loop can take raw addresses.  The
    caller keeps the arrays alive while the table is used.
    """
    if sorted(arrs) != list(range(N_ARRAYS)):
        raise ValueError(f"the memo kernel takes {N_ARRAYS} arrays, one per slot, got slots {sorted(arrs)}")
    table = np.empty(2 * N_ARRAYS, np.int64)
    for j, dtype in enumerate(DTYPES):
        a = arrs[j]
        if a.dtype != dtype or not a.flags.c_contiguous or not a.flags.writeable:
            raise ValueError(f"memo kernel array {j}: {a.dtype}, contiguous {a.flags.c_contiguous}; wants {dtype}")
        table[j] = a.__array_interface__["data"][0]
        table[N_ARRAYS + j] = a.size
    return table


def expand(table: np.ndarray, scalars: np.ndarray, crew: object = None, orbit: object = None) -> int:
    """Expand parents ``scalars[S_I]`` .. ``scalars[S_HI]``; the status (see the module docstring).

    ``crew`` is None or helper threads (:func:`crew_new`) that :func:`crew_go`
    gave this table: they run passes 1 and 2 of parents ahead, and this call
    takes their candidates where they are ready.  ``orbit`` (with symmetry,
    and then without a crew) is called as ``orbit(row, h)`` for a successor
    inside the model whose own fingerprint ``h`` (signed) is not in the
    ``ORBIT_CACHE`` yet (and the orbit trees cannot say), and returns its
    orbit's fingerprint, or None where the spec's code failed
    (``ORBIT_FAILED``, ``S_I`` at that parent).  It may be a pair
    ``(orbit, learn)``: then where an orbit tree's walk misses,
    ``learn(row, tree, node, depth)`` is called first, and returns True
    where it put the branch into the arrays the loop reads (their addresses
    unchanged), so that the walk goes on, or False for ``ORBIT_MISS``.
    """
    if not COMPILED:
        raise RuntimeError("the memo kernel runs compiled only (modelcheck compile)")
    return mc_memo_expand(table, scalars, crew, orbit)


def walk_rows(root: int, comp: np.ndarray, edges: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    """``out[j]``: the code each row of ``rows`` (int32, 2-d, C-contiguous) reaches from ``root`` in the tree
    whose nodes read ``comp`` and whose edge table is ``edges``: a leaf (``<= -2``) or -1 at a branch not learnt."""
    if not COMPILED:
        raise RuntimeError("the memo kernel runs compiled only (modelcheck compile)")
    mc_walk_rows(root, comp, edges, rows, out)


def crew_new(n: int, only_helpers: bool = False, own_ring: bool = False) -> object:
    """``n`` helper threads for :func:`expand`, parked until :func:`crew_go` (stopped when the handle is freed).

    They run C only and never take the interpreter's lock, so they go on
    while this thread learns in Python.  ``only_helpers`` is for tests: the
    caller's loop then waits for a helper to take each parent instead of
    taking it itself, so that every parent is prepared (or given back) by a
    helper whatever the timing.  ``own_ring`` is for tests too: the helpers
    take no parent, and every parent passes through the ring the caller's
    loop otherwise fills only with parents it prepares ahead while it waits
    for a helper, so that this path runs on every parent.
    """
    if not COMPILED:
        raise RuntimeError("the memo kernel runs compiled only (modelcheck compile)")
    return mc_crew_new(n, (1 if only_helpers else 0) | (2 if own_ring else 0))


def crew_stop(crew: object) -> None:
    """Park the helpers: before any array they read is replaced or freed (a table grown, a new level)."""
    mc_crew_stop(crew)


def crew_go(crew: object, table: np.ndarray, scalars: np.ndarray, claims: np.ndarray, new_level: bool) -> None:
    """Let the helpers run on the arrays of ``table``; ``claims`` is the level's (int32, one per parent,
    zeros at its start); ``new_level`` starts their rings afresh."""
    mc_crew_go(crew, table, scalars, claims, 1 if new_level else 0)


def crew_counts(crew: object) -> tuple[int, int, int, int]:
    """(parents the helpers prepared, parents they gave back to the caller, the same two for the caller's
    own ring: parents it prepared ahead while it waited for a helper) so far."""
    return tuple(int(mc_crew_count(crew, k)) for k in range(4))


def crew_orbits(crew: object) -> int:
    """With symmetry: the orbits the helpers (and the caller's own ring) took by the orbit trees so far, which
    the caller's count of orbits asked for (``S_ORBIT_ASKED``) does not hold."""
    return int(mc_crew_count(crew, 4))


def slot(key: int, size: int) -> int:
    """The first slot of ``key`` in an open-addressing table of ``size`` slots (as the C loop finds it)."""
    return (((key * GOLDEN) & MASK64) * size) >> 64


def grown_size(size: int, count: int) -> int:
    """The size of a table that ``count`` keys fill at most three quarters: ``size`` grown by halves.

    Growing by half at three quarters full keeps a table at least half full,
    so eight-byte keys cost at most 16 bytes each (doubling at half full
    costs 16 to 32).  Linear probing at three quarters full takes 2.5 probes
    for a key present and 8.5 for one absent, in one or two cache lines.
    """
    while count * 4 > size * 3:
        size += size // 2
    return size


def rehash(old: np.ndarray, new: np.ndarray) -> int:
    """Insert the non-zero keys of ``old`` into the empty, larger table ``new`` (the visited set)."""
    if COMPILED:
        return mc_rehash(old, new)
    size = len(new)
    for key in old[old != 0].tolist():
        h = slot(key, size)
        while int(new[h]):
            h = h + 1 if h + 1 < size else 0
        new[h] = key
    return int(np.count_nonzero(old))


def pair_rehash(old: np.ndarray, new: np.ndarray) -> int:
    """Insert the pairs of the edge table ``old`` (int64: key, value per slot) into the empty, larger ``new``."""
    if COMPILED:
        return mc_pair_rehash(old, new)
    keys = old[0::2]
    nz = np.flatnonzero(keys)
    return pair_insert(new, keys[nz], old[1::2][nz])


def pair_insert(edges: np.ndarray, keys: np.ndarray, vals: np.ndarray) -> int:
    """Put ``keys[j] -> vals[j]`` (int64, keys positive) into the edge table, which has room for them.

    Slot ``h`` of the table is ``edges[2h]`` (the key, 0 if empty) and
    ``edges[2h + 1]`` (its value): the C loop finds both in one cache line.
    """
    if COMPILED:
        return mc_pair_insert(edges, keys, vals)
    size = len(edges) // 2
    for key, val in zip(keys.tolist(), vals.tolist()):
        h = slot(key, size)
        while int(edges[2 * h]) not in (0, key):
            h = h + 1 if h + 1 < size else 0
        edges[2 * h] = key
        edges[2 * h + 1] = val
    return len(keys)


def put_list(arr: np.ndarray, at: int, values: list, start: int = 0) -> int:
    """Write ``values[start:]`` into ``arr`` (int32, int64 or uint64) from item ``at`` on; how many.

    Learnt nodes and leaves reach the C tables this way in one call per list,
    where a numpy array made of the list and then copied cost two.
    """
    if COMPILED:
        return mc_put_list(arr, at, values, start)
    n = len(values) - start
    if n < 0 or at < 0 or at + n > len(arr):
        raise ValueError("memo kernel: put_list out of the array's bounds")
    arr[at:at + n] = np.array([v & MASK64 for v in values[start:]] if arr.dtype == np.uint64 else values[start:],
                              arr.dtype)
    return n


def put_leaves(leaves: np.ndarray, at: int, starts: list, counts: list, masks: list) -> int:
    """Write leaf records (:data:`LEAF`) from item ``at`` on: ``starts[j]``, ``counts[j]``, ``masks[j]``."""
    if COMPILED:
        return mc_put_leaves(leaves, at, starts, counts, masks)
    n = len(starts)
    if len(counts) != n or len(masks) != n:
        raise ValueError("memo kernel: put_leaves: lists of different lengths")
    if at < 0 or at + n > len(leaves):
        raise ValueError("memo kernel: put_leaves out of the array's bounds")
    part = leaves[at:at + n]
    part["start"] = starts
    part["count"] = counts
    part["mask"] = np.array([m & MASK64 for m in masks], np.uint64)
    return n


def pair_insert_codes(edges: np.ndarray, pending: dict, comps: list) -> int:
    """Put the edges ``pending`` (key -> child code) into the edge table, which has room for them, each value
    the child's code and, for an inner child, the component it reads 32 bits above (``comps[code]``)."""
    if COMPILED:
        return mc_pair_insert_codes(edges, pending, comps)
    vals = [code if code < 0 else (comps[code] << 32) | code for code in pending.values()]
    return pair_insert(edges, np.fromiter(pending.keys(), np.int64, len(pending)), np.array(vals, np.int64))
