"""Renaming model values everywhere in a state: the permutation behind ``Symmetry.over``.

TLC's ``SYMMETRY Permutations(RM)`` needs no help from the spec: TLC knows
every value's structure.  A Python spec's state is built of a few kinds of
values, and renaming is exact on each of them:

* a ``str`` that is one of the set's model values becomes its image; every
  other leaf (other strs, ints, bools, floats, None) stays;
* a plain ``tuple`` (a TLA+ sequence, or a tuple of parts) is renamed item by
  item, its order kept: a sequence's order is its value;
* a NamedTuple (a record) is renamed field by field, its class kept;
* a ``frozenset`` is renamed element by element (its order is no part of it);
* a :class:`~modelcheck.spec.functions.Function` has its keys and values
  renamed and its pairs sorted again, so the result is the one Python value
  that the renamed TLA+ function has.

So the renamed state is the state the spec itself would build for the
renamed behaviour, and two states of one orbit have the same set of renamed
copies: the smallest fingerprint over them is the orbit's, as in TLC.
Anything else (a tuple or frozenset subclass that is not one of these, a
dict...) is refused with the path to it, since a form the renamer does not
know may hold model values in an order it would not fix.  What it cannot see
is a plain tuple the spec keeps *sorted* by model value (a function as bare
pairs, a set as a sorted tuple): renamed, it stays in its old order.  That
never merges two orbits (renaming is injective on Python values), but an
orbit may then be counted more than once; hold such a value as a
``Function`` or a ``frozenset``.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping

from modelcheck.errors import SpecDefinitionError, SpecRuntimeError
from modelcheck.spec.functions import Function

State = Any


class _Refused(Exception):
    """A value the renamer does not know; ``path`` is filled in, innermost first, as it propagates."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind
        self.path: list[str] = []


def _rename(v: Any, m: Mapping[str, str]) -> Any:
    t = type(v)
    if t is str:
        return m.get(v, v)
    if t is int or t is bool or t is float or v is None:
        return v
    if t is Function:
        key = None
        out_pairs = []
        try:
            for key, value in v.pairs:
                out_pairs.append((_rename(key, m), _rename(value, m)))
        except _Refused as e:
            e.path.append(f"[{key!r}]")
            raise
        if all(a[0] is b[0] and a[1] is b[1] for a, b in zip(out_pairs, v.pairs)):
            return v
        return Function(out_pairs)
    if isinstance(v, Function):
        raise _Refused(f"{t.__name__} (a subclass of Function)")
    if isinstance(v, tuple) and (t is tuple or hasattr(t, "_fields") and hasattr(t, "_make")):
        i = 0
        out = []
        try:
            for i, x in enumerate(v):
                out.append(_rename(x, m))
        except _Refused as e:
            e.path.append(f".{t._fields[i]}" if t is not tuple else f"[{i}]")  # type: ignore[attr-defined]
            raise
        if all(a is b for a, b in zip(out, v)):
            return v
        return tuple(out) if t is tuple else t._make(out)  # type: ignore[attr-defined]
    if t is frozenset:
        try:
            out_set = [_rename(x, m) for x in v]
        except _Refused as e:
            e.path.append(" (an element)")
            raise
        return frozenset(out_set)
    raise _Refused(t.__name__)


def rename(value: Any, mapping: Mapping[str, str], *, what: str = "state") -> Any:
    """``value`` with every str that ``mapping`` maps replaced by its image, Functions sorted again.

    ``mapping`` should be a bijection on the model values (a permutation).
    SpecDefinitionError, naming the part, for a value of a kind that cannot be
    renamed safely (see the module's docstring).
    """
    try:
        return _rename(value, mapping)
    except _Refused as e:
        where = what + "".join(reversed(e.path))
        raise SpecDefinitionError(
            f"Symmetry.over cannot rename model values in {where}, a {e.kind}: it renames strs inside tuples, "
            "NamedTuples, frozensets and modelcheck.Function only (a value of another kind may keep model "
            "values in an order it would not fix); hold it as one of those, or write the permute function") from None


def _site(fn: Any) -> str:
    """`` (the values function at path:line)``, or nothing when it has no source: where to look."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_filename.startswith("<"):
        return ""
    return f" (its set of values at {os.path.basename(code.co_filename)}:{code.co_firstlineno})"


class ModelValueRenaming:
    """``permute(c, s, perm)`` for the model values of ``values(c)``: value ``i`` of the sorted set becomes ``perm[i]``.

    The sorted values and one mapping per permutation are kept for the last
    constants seen (a check binds one set of constants; a new one replaces
    them), so a call costs the walk over the state only.
    """

    def __init__(self, values: Callable[[Any], Any]) -> None:
        if not callable(values):
            raise SpecDefinitionError(f"Symmetry.over needs a function of the constants, got {values!r}")
        self.values = values
        self._memo: tuple[Any, tuple[str, ...], dict] = (None, (), {})
        """(constants, their model values sorted, mapping per permutation), replaced as one object."""

    def model_values(self, c: Any) -> tuple[str, ...]:
        """The model values of ``values(c)``, sorted.

        SpecRuntimeError (which the engine reports as it is, naming the
        spec's ``values`` function) when it is not a set of model values.
        """
        memo = self._memo
        if memo[0] is c and memo[0] is not None:
            return memo[1]
        got = self.values(c)
        if not isinstance(got, (frozenset, set)) or not got or not all(type(x) is str for x in got):
            shown = type(got).__name__ if not isinstance(got, (frozenset, set, tuple, list)) else repr(got)
            raise SpecRuntimeError(
                f"Symmetry.over{_site(self.values)} needs a non-empty set of model values (strs, as --const "
                f"'RM={{r1, r2}}' gives them), got {shown}: ints may be counts as well as names, so renaming "
                "them needs a permute function of the spec's own", spec="", where="symmetry")
        ordered = tuple(sorted(got))
        self._memo = (c, ordered, {})
        return ordered

    def size(self, c: Any) -> int:
        """How many model values are interchangeable."""
        return len(self.model_values(c))

    def mapping(self, c: Any, perm: tuple[int, ...]) -> dict[str, str]:
        """The renaming ``perm`` stands for: sorted value ``i`` becomes sorted value ``perm[i]`` (moved ones only)."""
        ordered = self.model_values(c)
        maps = self._memo[2]
        m = maps.get(perm)
        if m is None:
            if sorted(perm) != list(range(len(ordered))):
                raise ValueError(f"{perm} is not a permutation of the {len(ordered)} model values")
            m = maps[perm] = {ordered[i]: ordered[p] for i, p in enumerate(perm) if i != p}
        return m

    def __call__(self, c: Any, s: State, perm: tuple[int, ...]) -> State:
        """``s`` with its model values renamed by ``perm``."""
        return rename(s, self.mapping(c, perm))

    def __repr__(self) -> str:
        return f"<renaming of the model values of {getattr(self.values, '__qualname__', self.values)!r}>"
