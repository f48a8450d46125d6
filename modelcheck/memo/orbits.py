"""Orbits on the memo tables: the spec's ``signature`` and ``permute`` as decision trees.

With ``--symmetry`` every successor's fingerprint is its orbit's, which the
spec's own code (:mod:`modelcheck.model.symmetry`) takes as follows: with a
``signature``, sort the values by their keys; if no two keys are equal,
the orbit's fingerprint is that of ``permute(s, p)`` for the renaming ``p``
that sorts them (``s``'s own where that is the identity); otherwise, and
without a ``signature``, the smallest over several renamings.  Asking that of
the spec's Python for each state met costs more than expanding the state.

Both functions are pure functions of the state, so the argument of
:mod:`modelcheck.memo.tries` makes each a decision tree over the state's
components, exactly: ``signature(c, s, r)`` for each value ``r``, with the
signature's plain value at its leaves (a component the key holds without
reading it, such as a replica's log, is read when the result is taken), and
``permute(c, s, p)`` for each renaming ``p``, an action with one successor
whose components are mostly the parent's, moved.  A signature that returns
a tuple display is learnt as one tree per item
(:func:`modelcheck.memo.split.split_items`): its leaves add up where one
tree's would multiply, and keys compare as their items' ranks in turn.  The C loop walks them
where its orbit cache misses (``kernel.mc_orbit_tables``), sorts the
values by their keys' ranks, and fingerprints the renamed row; with two
keys equal, it takes the smallest over the renamings that sort them, as
the spec's own code does.  A walk that meets a branch not learnt has
Python learn it (:meth:`OrbitTrees.learn`) from the loop's call back, and
the walk goes on where the branch could be written into the arrays the
loop reads without moving them (else the loop returns and runs the parent
again); only a key without a rank (or a ``permute`` leaf that is not one
state) has the C loop ask the spec's own code for that state's orbit.

Sorting needs the keys' order, which Python defines.  Each distinct key
gets a rank, its place among the keys met so far, kept by comparing it
with them as Python does; ranks stand for Python's order only where that
order is total: keys built of ints, bools, floats other than NaN, strs,
None and tuples (records included), with the same kind of thing at each
position of every key met (:class:`KeyOrder`).  Any other key has no rank,
and its states are canonicalised by the spec's own code.

What the trees say is checked as everything the tables say: sampled
states' orbit fingerprints are compared with the spec's own code's
(:class:`~modelcheck.memo.backend.MemoBackend`), and where learning does
not pay (a ``permute`` that reads most of the state has a leaf per
state), the route stands aside for the rest of the run with its reason.
"""

from __future__ import annotations

import bisect
from typing import Any, Callable, Sequence

import numpy as np

from modelcheck.memo.layout import Layout
from modelcheck.memo.split import split_items
from modelcheck.memo.tries import Learner, Tries
from modelcheck.memo.values import Interner

NO_RANK = -1

GIVE_WAY_AFTER = 20_000
"""Orbits asked for before the route judges whether learning pays."""

GIVE_WAY_RATIO = 0.5
"""Evaluations per orbit asked for above which the route stands aside: a learning evaluation costs about
two of the spec's own orbit computations."""

MAX_VALUES = 6
"""The most interchangeable values whose renamings get trees (720 of them)."""

_TUPLE_METHODS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__")


def _kind(v: Any) -> str | None:
    """What Python compares ``v`` as, for a key whose order ranks may stand for; None for anything else."""
    t = type(v)
    if t is int or t is bool or t is str:
        return "str" if t is str else "number"
    if t is float:
        return None if v != v else "number"
    if v is None:
        return "none"
    if t is tuple or (issubclass(t, tuple) and hasattr(t, "_fields")
                      and all(getattr(t, m) is getattr(tuple, m) for m in _TUPLE_METHODS)):
        return "tuple"
    return None


class KeyOrder:
    """Ranks of the keys met, in Python's order, where that order is total; with ``items``, of each item of a
    signature split into its items (:func:`modelcheck.memo.split.split_items`), each item ranked among the
    values met at its own position.

    A key is ranked only if each of its positions (a path of tuple indices)
    holds the same kind of thing as every ranked key's: then comparing two
    ranked keys never raises and is a total preorder (numbers as numbers,
    strs as strs, tuples item by item then by length, two Nones equal), so
    a key's place among the others, found by bisection, is its rank.  Keys
    Python finds equal share an id (dict lookup is by ``==``), so equal
    ranks mean equal keys.  Id 0 is every key without a rank.  The items'
    ids are numbered together, so that one array holds every id's rank.
    """

    def __init__(self, items: int = 1) -> None:
        self.ids: list[dict[Any, int]] = [{} for _ in range(items)]
        self.sorted_keys: list[list[Any]] = [[] for _ in range(items)]
        self.sorted_ids: list[list[int]] = [[] for _ in range(items)]
        self.kinds: list[dict[tuple, str]] = [{} for _ in range(items)]
        self.count = 0
        """How many ids were given out."""
        self.rank = np.full(64, NO_RANK, np.int64)
        self.before_change: Callable[[], None] | None = None
        """Called before a new key renumbers :attr:`rank` in place (helper threads read it: they are parked)."""

    def _kinds_of(self, v: Any, path: tuple, item: int, out: dict[tuple, str]) -> bool:
        kind = _kind(v)
        if kind is None or self.kinds[item].get(path, kind) != kind or out.get(path, kind) != kind:
            return False
        out[path] = kind
        if kind == "tuple":
            for i, x in enumerate(v):
                if not self._kinds_of(x, path + (i,), item, out):
                    return False
        return True

    def id_of(self, key: Any, item: int = 0) -> int:
        """The id of ``key`` (of item ``item``), ranked among the keys met there; 0 where it cannot be ranked."""
        ids = self.ids[item]
        try:
            got = ids.get(key)
        except TypeError:  # unhashable
            return 0
        if got is not None:
            return got
        kinds: dict[tuple, str] = {}
        if not self._kinds_of(key, (), item, kinds):
            return 0
        if self.before_change is not None:
            self.before_change()
        self.kinds[item].update(kinds)
        self.count += 1
        new = ids[key] = self.count
        sorted_keys, sorted_ids = self.sorted_keys[item], self.sorted_ids[item]
        at = bisect.bisect_left(sorted_keys, key)
        sorted_keys.insert(at, key)
        sorted_ids.insert(at, new)
        if new >= len(self.rank):
            grown = np.full(2 * new, NO_RANK, np.int64)
            grown[:len(self.rank)] = self.rank
            self.rank = grown
        self.rank[np.array(sorted_ids, np.int64)] = np.arange(len(sorted_ids), dtype=np.int64)
        return new


def lehmer_index(p: Sequence[int]) -> int:
    """``p``'s place in ``itertools.permutations(range(len(p)))`` (lexicographic order)."""
    n = len(p)
    out = 0
    for i in range(n):
        smaller = sum(1 for j in range(i + 1, n) if p[j] < p[i])
        f = 1
        for k in range(2, n - i):
            f *= k
        out += smaller * f
    return out


class OrbitTrees:
    """The trees of one run's ``signature`` (one per value, or one per value and item where the signature
    splits into items) and ``permute`` (one per renaming).  All run state lives on the instance."""

    def __init__(self, layout: Layout, interner: Interner, c: Any, permute: Callable,
                 signature: Callable | None, perms: Sequence[tuple[int, ...]], state_type: type) -> None:
        self.n = len(perms[0])
        self.perms = [tuple(p) for p in perms] if self.n <= MAX_VALUES else []
        items = (split_items(signature) or [signature]) if signature is not None else []
        self.sorted = len(items)
        """The trees per value of the signature (its items; 1 where it is not split), 0 without one: value
        ``r``'s key is the ranks of trees ``r * sorted`` to ``r * sorted + sorted - 1``, compared in turn."""
        self.order = KeyOrder(max(1, self.sorted))
        functions: list[tuple[Callable, tuple, str]] = []
        if self.perms:
            functions += [(item, (r,), "value") for r in range(self.n) for item in items]
        self.first_perm = len(functions)
        functions += [(permute, (p,), "action") for p in self.perms]
        self.tries = Tries(max(1, len(functions)), layout.width)
        self.learner = Learner(layout, self.tries, interner, c, functions, state_type, value_id=self._key_id)
        self.why: str | None = None
        """Why the route stands aside (then every orbit is the spec's own code's), or None."""
        self.by_design = False
        """Whether :attr:`why` is a reason of the symmetry's kind, known before the search (no note printed)."""
        if self.n > MAX_VALUES:
            self.why = f"{self.n} interchangeable values, more than {MAX_VALUES}"
        elif [lehmer_index(p) for p in self.perms] != list(range(len(self.perms))):
            self.why = "the renamings are not every permutation in order"
        self.by_design = self.why is not None

    def _key_id(self, key: Any, f: int) -> int:
        return self.order.id_of(key, f % self.sorted)

    @property
    def evaluations(self) -> int:
        return self.learner.evaluations

    def learn(self, f: int, row: tuple, at: tuple[int, int], asked: int) -> None:
        """Grow tree ``f`` along ``row`` from where the C loop's walk stopped (``at``: the last inner node
        passed or -1, and how many), unless learning has not paid for the ``asked`` orbits the C loop asked
        of the trees so far (its cache's misses): then stand aside.  Raises what the spec's code raises on
        traced parts and the learner's refusals."""
        if self.why is None and asked >= GIVE_WAY_AFTER and self.learner.evaluations > GIVE_WAY_RATIO * asked:
            self.why = (f"{self.learner.evaluations:,} evaluations of the spec's signature and permute for "
                        f"{asked:,} orbits")
        if self.why is None:
            self.learner.learn(f, row, at)
