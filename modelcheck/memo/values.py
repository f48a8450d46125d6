"""Component values and their ids: equal values of the same types share an id.

Python's equality is looser than a spec's meaning: ``(1, 2) == Record(1, 2)``,
``1 == True``.  Two states that differ only so have the same fingerprint
(``hash``), and the local engine keeps whichever it met first, as a whole
state.  Interning each component's value by equality alone would go
further and hand one component's value (a plain tuple) to another that
holds records, so ids are keyed by the value together with its types, all
the way down.
"""

# modelcheck: compile

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from modelcheck.memo.traced import Traced, value_of
from modelcheck.model.fingerprint import part_fingerprint

_get = object.__getattribute__

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module

    COMPILED: bool = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra
    COMPILED = False


class NotCanonical(Exception):  # noqa: N818 - a reason, raised to the readable path
    """A successor holds a value that is not a canonical state part (the readable path names it)."""


class MixedTypes(Exception):  # noqa: N818 - a reason, the tables stop
    """Two equal values of different types met: ``1`` and ``True``, ``0.0`` and ``-0.0``, a record and a
    plain tuple with the same fields.

    The checker's visited set treats equal states as one (it keeps the first
    met), so the tables may neither give such values two ids (two states
    where the checker has one) nor one (the spec's code would then run on a
    value of the other type than the state it is given holds, and ``str``,
    ``1 / x`` or ``math.copysign`` can tell them apart).  Measured on the
    registered specs, no component ever holds two such values (different
    components do: a replica's HW 0 and a flag False), so rather than a
    second notion of equality the tables stop when one component would
    (:class:`MixedWatch`), and the check runs on the spec's own code, which
    keeps the engine's first-met state as always.
    """

    def __init__(self, first: Any, other: Any) -> None:
        super().__init__(first, other)
        self.first = first
        self.other = other

    def reason(self) -> str:
        """One line naming the two values and their types (and, where the types read alike, the first part
        that differs: ``{1.0, 2}`` against ``{1, 2.0}``)."""
        a, b = _shown(self.first), _shown(self.other)
        where = _first_difference(self.first, self.other) if _type_names(self.first) == _type_names(self.other) \
            else None
        return (f"a state component holds {a} in one state and the equal {b} in another"
                f"{f' ({where})' if where else ''}, which the checker treats as one state")


def _first_difference(a: Any, b: Any) -> str | None:
    """The first part where the equal values ``a`` and ``b`` differ in type, as a few words; None if none."""
    ta, tb = type(a), type(b)
    if ta is not tb or (ta is float and math.copysign(1.0, a) != math.copysign(1.0, b)):
        return f"{a!r} ({ta.__name__}) against {b!r} ({tb.__name__})"
    if isinstance(a, tuple):
        pairs = list(zip(a, b))
    elif ta is frozenset:
        pairs = [(x, next(y for y in b if y == x)) for x in a]
    else:
        return None
    for x, y in pairs:
        found = _first_difference(x, y)
        if found is not None:
            return found
    return None


def _shown(v: Any) -> str:
    text = repr(v)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} ({_type_names(v)})"


def _type_names(v: Any) -> str:
    t = type(v)
    if t is tuple or t is frozenset or isinstance(v, tuple):
        inner = sorted({_type_names(x) for x in v})
        return f"{t.__name__} of {', '.join(inner)}" if inner else t.__name__
    return t.__name__


def typed_key(v: Any) -> tuple:
    """``(types, value)``: equal only for equal values of the same types; traced parts read and unwrapped."""
    t = type(v)
    if t is int:
        return (int, v)
    if t is Traced:
        return typed_key(value_of(v))
    if t is float:
        return ((float, math.copysign(1.0, v)), v)  # 0.0 and -0.0 are equal, and not the same value
    if t is tuple or t is frozenset or (isinstance(v, tuple) and hasattr(t, "_fields")):
        # Loops rather than generators: this runs for every value the interner has not met.
        sigs = []
        plain = []
        unwrapped = False
        for x in v:
            p = typed_key(x)
            sigs.append(p[0])
            plain.append(p[1])
            if p[1] is not x:
                unwrapped = True
        # A tuple's signatures are positional; a set has no positions, so each element's signature goes with
        # the element itself ({1.0, 2} and {1, 2.0} hold the same signatures, on different elements).
        sig = (t, tuple(sigs) if t is not frozenset else frozenset(zip(sigs, plain)))
        if unwrapped:
            v = frozenset(plain) if t is frozenset else tuple(plain) if t is tuple else tuple.__new__(t, plain)
        return (sig, v)
    return (t, v)


def same_types(a: Any, b: Any) -> bool:
    """Whether the equal values ``a`` (plain) and ``b`` have the same types all the way down.

    ``b``'s traced parts count as their values, unread: the probe that found
    ``a`` has already compared them, and a successor often holds a parent's
    component inside a new value (a message carrying the sender's epoch).
    """
    if a is b:
        return True
    t = type(a)
    tb = type(b)
    if tb is Traced:
        b = _get(b, "_v")
        if a is b:
            return True
        tb = type(b)
    if t is not tb:
        return False
    if t is int:
        return True
    if t is float:
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    if t is tuple or (isinstance(a, tuple) and hasattr(t, "_fields")):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if not same_types(x, y):
                return False
        return True
    if t is frozenset:
        for x in a:
            if type(x) is not int:
                return typed_key(a) == typed_key(b)
        for x in b:
            if type(x) is not int:
                return False
        return True
    return typed_key(a) == typed_key(b)


class Interner:
    """Component values by id, and ids by typed value.

    The common case is one dict probe by plain value: the id found is taken
    when its value has the same types (:func:`same_types`); otherwise the
    typed key (:func:`typed_key`) decides.

    Each value's fingerprint as a part of a state is kept beside it
    (``fps[id]``, uint64), for the C loop's row fingerprints.  The array grows
    by doubling; ``before_replace`` (if set) is called before it is replaced,
    since helper threads may be reading it.
    """

    def __init__(self, canonical: Callable[[Any], bool]) -> None:
        self.fps = np.zeros(1024, np.uint64)
        self.before_replace: Callable[[], None] | None = None
        self.values: list = []
        self.ids: dict = {}
        """Typed key -> id, for every value."""
        self.plain: dict = {}
        """Value -> the id of the first value equal to it."""
        self.alias_of: dict = {}
        """For each id equal to another id's value (with other types): the first such id, its class."""
        self.canonical = canonical

    def __call__(self, v: Any) -> int:
        i = self.plain.get(v)
        if i is not None:
            same = mc_same_types(self.values[i], v, Traced, "_v") if COMPILED else -1
            if same == 1 or (same == -1 and same_types(self.values[i], v)):
                return i
        first = i
        key = typed_key(v)
        i = self.ids.get(key)
        if i is None:
            v = key[1]
            if not self.canonical(v):
                raise NotCanonical(v)
            i = len(self.values)
            if i == len(self.fps):
                if self.before_replace is not None:
                    self.before_replace()
                self.fps = np.concatenate([self.fps, np.zeros(len(self.fps), np.uint64)])
            self.fps[i] = part_fingerprint(v)
            self.ids[key] = i
            self.values.append(v)
            self.plain.setdefault(v, i)
            if first is not None:  # equal to an earlier value of other types: see MixedWatch
                self.alias_of.setdefault(first, first)
                self.alias_of[i] = self.alias_of[first]
        return i


class MixedWatch:
    """Keeps two equal values of different types out of one component (see :class:`MixedTypes`).

    Ids are shared by all components, so an id equal to another's value is
    fine as long as no one component can hold both.  Such ids are rare (the
    interner notes them, :attr:`Interner.alias_of`), and where there are
    none this costs nothing.  Where there are, every id a component can hold
    comes from an initial row or from a leaf's entries: an id written there,
    or the parent's component ``j`` copied (``~j``), which can bring any id
    ``j`` can hold.  So the noted ids each component can hold are followed
    through the leaves learnt so far (all of them again when a new such id
    appears, only the new leaves otherwise), and a component that can hold
    two of one class raises :class:`MixedTypes`.

    Both relations are byte matrices (``held[k, a]``: component ``k`` can
    hold the ``a``-th noted id; ``copies[j, k]``: a leaf copies component
    ``j`` into ``k``), so that the scan of the leaves, run after every
    evaluation the tables learn, is a C loop (:func:`scan_changes`).
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self.scanned = 0
        self.aliases = np.zeros(0, np.int64)
        """The noted ids the matrices index, sorted."""
        self.held = np.zeros((width, 0), np.uint8)
        self.copies = np.zeros((width, width), np.uint8)
        self.received: list[set] = [set() for _ in range(width)]
        """Per component, every id of the rows given by :meth:`receive`: sources, as the initial rows are."""
        self.pending = False

    def receive(self, interner: Interner, tries: Any, rows: np.ndarray) -> None:
        """Rows the tables did not make (another process's, a Spark executor's): each id they hold in a
        component is a source there, as an initial row's is."""
        alias_of = interner.alias_of
        if not len(rows):
            return
        bound = len(interner.values)
        for k in range(self.width):
            ids = set(np.flatnonzero(np.bincount(rows[:, k], minlength=bound)).tolist()) - self.received[k]
            if ids:
                self.received[k] |= ids
                if any(x in alias_of for x in ids):
                    self.pending = True
        self.update(interner, tries, ())

    def _mark(self, k: int, ids: Any) -> None:
        """Component ``k`` can hold each of ``ids`` that is noted."""
        if not len(self.aliases):
            return
        xs = np.fromiter(ids, np.int64)
        at = np.minimum(np.searchsorted(self.aliases, xs), len(self.aliases) - 1)
        self.held[k, at[self.aliases[at] == xs]] = 1

    def update(self, interner: Interner, tries: Any, initial_rows: Any) -> None:
        alias_of = interner.alias_of
        if not alias_of:
            return
        grew = self.pending
        self.pending = False
        if len(alias_of) != len(self.aliases):
            grew = True
            self.aliases = np.array(sorted(alias_of), np.int64)
            self.held = np.zeros((self.width, len(self.aliases)), np.uint8)
            self.copies[:] = 0
            self.scanned = 0
            for row in initial_rows:
                for k, x in enumerate(row):
                    self._mark(k, (int(x),))
        if grew:
            for k, ids in enumerate(self.received):
                if ids:
                    self._mark(k, ids)
        tries.flush()
        n = tries.n_leaves
        if n > self.scanned:
            starts = np.ascontiguousarray(tries.leaves["start"][self.scanned:n])
            counts = np.ascontiguousarray(tries.leaves["count"][self.scanned:n])
            entries = tries.entries[:tries.n_entries]
            self.scanned = n
            if COMPILED:
                new = mc_scan_changes(entries, starts, counts, self.copies, self.aliases, self.held, self.width)
            else:
                new = scan_changes(entries, starts, counts, self.copies, self.aliases, self.held)
            grew = grew or new == 1
        if not grew:
            return
        held = self.held.astype(bool)
        into = self.copies.T.astype(np.int64)  # into[k, j]: j is copied into k
        while True:
            more = held | ((into @ held.astype(np.int64)) > 0)
            if (more == held).all():
                break
            held = more
        self.held = held.astype(np.uint8)
        classes = np.array([alias_of[x] for x in self.aliases.tolist()], np.int64)
        for c in np.unique(classes).tolist():
            per_component = held[:, classes == c]
            two = np.flatnonzero(per_component.sum(axis=1) > 1)
            if len(two):
                a, b = self.aliases[classes == c][np.flatnonzero(per_component[two[0]])[:2]].tolist()
                raise MixedTypes(interner.values[a], interner.values[b])


def scan_changes(entries: np.ndarray, starts: np.ndarray, counts: np.ndarray, copies: np.ndarray,
                 aliases: np.ndarray, held: np.ndarray) -> int:
    """What the compiled module's C loop does (``mc_scan_changes`` in values.pxd), for the module run as
    Python: mark in ``copies`` and ``held`` what the successors of the leaves starting at ``starts`` (each
    with ``counts`` successors, stored as their changes ``(k, x)``, up to the next leaf's start) copy and
    write; 1 if anything was new, else 0.  A leaf without entries (a predicate's) is skipped."""
    e = entries.tolist()
    index = {x: a for a, x in enumerate(aliases.tolist())}
    st = starts.tolist()
    grew = 0
    for i, count in enumerate(counts.tolist()):
        at = st[i]
        if at == (st[i + 1] if i + 1 < len(st) else len(e)):
            continue
        for _s in range(count):
            changes = e[at]
            for j in range(changes):
                k, x = e[at + 1 + 2 * j], e[at + 2 + 2 * j]
                if x < 0:
                    if not copies[~x, k]:
                        copies[~x, k] = 1
                        grew = 1
                else:
                    a = index.get(x)
                    if a is not None and not held[k, a]:
                        held[k, a] = 1
                        grew = 1
            at += 1 + 2 * changes
    return grew
