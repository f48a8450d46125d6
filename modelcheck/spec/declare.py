"""The spec API: what a model is, as plain Python functions.

A spec is, as in Stateright, a handful of pure functions:

* ``init(c)`` returns (or yields) the initial states for constants ``c``, all
  of one type: the spec's state type;
* actions ``fn(c, s, *params)`` return the successors of state ``s`` (``None``
  when disabled, one state, or a ``list`` of states when several disjuncts of
  the TLA+ action are satisfied: each counts as one generated state, as in TLC);
* invariants ``fn(c, s) -> bool`` that must hold in every reachable state;

The engine accepts exactly these results: a bool from an invariant, a
property or a constraint, and from an action None, a state of the spec's state
type or an iterable of such states.  Anything else stops the check with an
error naming the function (:mod:`modelcheck.model.validate`), so that a
forgotten ``all(`` or ``return`` cannot make a check pass.
* optionally: ``sometimes`` properties (must hold in *some* reachable state, to
  catch vacuous passes), a state constraint, an action constraint and a
  symmetry (replica permutations).

Decorators (:func:`action`, :func:`invariant`, :func:`sometimes`) only attach
metadata to the function.  :class:`Spec` collects them and rejects malformed
declarations when it is built, so a broken spec fails when loaded, with a
clear message, not half-way through a search.

States must be *canonical*: built only from ``int``, ``bool``, ``tuple``
(NamedTuples included) and ``frozenset``.  Their built-in ``hash()`` is then
stable across processes and machines, which is what lets Spark executors and
worker processes agree on fingerprints (``hash()`` of ``str`` and of ``None``
is salted per process and is refused).
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any, Callable, Iterable, Sequence

import attrs

from modelcheck.spec.constants import ConstantInfo, constant_infos
from modelcheck.errors import SpecDefinitionError

State = Any
"""A canonical state: nested ints, bools, tuples and frozensets."""

_ACTION = "__modelcheck_action__"
_PREDICATE = "__modelcheck_predicate__"


@attrs.frozen
class Domain:
    """A finite set a parameter ranges over, computed from the constants.

    ``values(c)`` gives the values (ints, in a deterministic order) and ``show``
    turns one into the label users read in traces (``r1`` for replica 0).
    """

    name: str
    """What the parameter is (``replica``)."""
    values: Callable[[Any], Iterable[int]]
    """The finite domain for constants ``c``, in a fixed order."""
    show: Callable[[int], str] = str
    """How one value is written in an action label."""


@attrs.frozen
class ActionMeta:
    """Metadata attached by :func:`action`."""

    name: str
    params: tuple[tuple[str, Domain], ...]
    description: str


@attrs.frozen
class PredicateMeta:
    """Metadata attached by :func:`invariant` and :func:`sometimes`."""

    name: str
    kind: str
    description: str


def action(name: str, description: str = "", **params: Domain) -> Callable[[Callable], Callable]:
    """Mark ``fn(c, s, **params)`` as an action named ``name`` with parameter domains.

    Only attaches metadata; :class:`Spec` validates it.  The parameters are
    keyword names of the function, each drawn from a :class:`Domain`; the
    engine calls the function once for every combination, in a fixed order.
    """

    def mark(fn: Callable) -> Callable:
        doc = description or (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
        setattr(fn, _ACTION, ActionMeta(name, tuple(params.items()), doc))
        return fn

    return mark


def _predicate(kind: str, name: str, description: str) -> Callable[[Callable], Callable]:
    def mark(fn: Callable) -> Callable:
        doc = description or (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
        setattr(fn, _PREDICATE, PredicateMeta(name, kind, doc))
        return fn

    return mark


def invariant(name: str, description: str = "") -> Callable[[Callable], Callable]:
    """Mark ``fn(c, s) -> bool`` as an invariant: it must hold in every reachable state."""
    return _predicate("always", name, description)


def sometimes(name: str, description: str = "") -> Callable[[Callable], Callable]:
    """Mark ``fn(c, s) -> bool`` as a property that must hold in at least one reachable state.

    A check where it is never reached warns that the model may be vacuous
    (e.g. the bound on records is so low that nothing is ever committed).
    """
    return _predicate("sometimes", name, description)


@attrs.frozen
class Action:
    """One named action of a spec, with its parameter domains."""

    name: str
    """The action's name as traces show it (mirrors the TLA+ name)."""
    fn: Callable[..., Any]
    """``fn(c, s, *params)`` returning None, a state, or a list of states."""
    params: tuple[tuple[str, Domain], ...]
    """Parameter names and their domains, in call order."""
    description: str
    """One line on what the action models."""

    def bindings(self, c: Any) -> list[tuple[int, ...]]:
        """Every parameter combination for constants ``c``, in the fixed order."""
        if not self.params:
            return [()]
        return list(itertools.product(*(tuple(d.values(c)) for _, d in self.params)))

    def label(self, binding: Sequence[int]) -> str:
        """The action as a trace shows it, e.g. ``FollowerReplicate(r2, r1)``."""
        if not self.params:
            return self.name
        shown = ", ".join(d.show(v) for (_, d), v in zip(self.params, binding))
        return f"{self.name}({shown})"

    def label_params(self, binding: Sequence[int]) -> dict[str, str]:
        """The parameters by name, as shown to users (for JSON traces)."""
        return {pname: d.show(v) for (pname, d), v in zip(self.params, binding)}


@attrs.frozen
class Predicate:
    """A named state predicate: an invariant ("always") or a "sometimes" property."""

    name: str
    fn: Callable[[Any, State], bool]
    kind: str
    description: str


@attrs.frozen
class Symmetry:
    """Interchangeable model values (e.g. replicas): how to permute a state.

    ``size(c)`` is the number of interchangeable values and
    ``permute(c, s, perm)`` renames value ``i`` to ``perm[i]`` everywhere in ``s``.
    The engine fingerprints a state as the smallest fingerprint over its orbit,
    as TLC does with SYMMETRY.

    ``signature(c, s, i)``, optional, is a key of value ``i`` that renaming
    carries along (its own log, HW, role...; never another value's index).
    With it only the permutations that sort the values by key are tried,
    instead of all n! (see :mod:`modelcheck.model.symmetry`); the preflight walk
    checks that it is carried along.
    """

    size: Callable[[Any], int]
    permute: Callable[[Any, State, tuple[int, ...]], State]
    signature: Callable[[Any, State, int], Any] | None = None

    def permutations(self, c: Any) -> list[tuple[int, ...]]:
        """All permutations of the interchangeable values, identity first."""
        return list(itertools.permutations(range(self.size(c))))


def _qualname(fn: Callable) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def _check_callable(spec_name: str, what: str, fn: Any, nargs: int) -> None:
    if not callable(fn):
        raise SpecDefinitionError(f"spec {spec_name}: {what} is not callable: {fn!r}")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*range(nargs))
    except TypeError:
        raise SpecDefinitionError(
            f"spec {spec_name}: {what} {_qualname(fn)} must take {nargs} positional "
            f"arguments, its signature is {sig}"
        ) from None


class Spec:
    """A model: constants, initial states, actions, invariants and options.

    Built once, when its module is imported; the constructor validates every
    declaration so that a malformed spec is rejected with a clear message.
    Instances hold no run state, so any number of checks can share one.
    """

    def __init__(
        self,
        *,
        name: str,
        title: str,
        constants: type,
        init: Callable[[Any], Iterable[State]],
        actions: Sequence[Callable],
        invariants: Sequence[Callable] = (),
        default_invariants: Sequence[str] | None = None,
        sometimes: Sequence[Callable] = (),
        state_constraint: Callable[[Any, State], bool] | None = None,
        action_constraint: Callable[[Any, State, State], bool] | None = None,
        symmetry: Symmetry | None = None,
        deadlock_expected: bool = False,
        view: Callable[[Any, State], dict[str, Any]] | None = None,
        lanes: Callable[[Any, State], dict[str, dict[str, Any]]] | None = None,
        description: str = "",
        reference: str | None = None,
    ) -> None:
        self.name = name
        self.title = title
        self.description = description
        self.constants_class = constants
        self.init = init
        self.state_constraint = state_constraint
        self.action_constraint = action_constraint
        self.symmetry = symmetry
        self.deadlock_expected = deadlock_expected
        self.view = view
        self.lanes = lanes
        self.reference = reference
        """How the engine finds this spec again in another process (``module:attr``)."""
        if not name or not isinstance(name, str):
            raise SpecDefinitionError(f"a spec needs a non-empty name, got {name!r}")
        try:
            self.constant_infos: tuple[ConstantInfo, ...] = constant_infos(constants)
        except (TypeError, attrs.exceptions.NotAnAttrsClassError) as exc:
            raise SpecDefinitionError(f"spec {name}: constants must be an attrs class of constant() fields: {exc}") from None
        _check_callable(name, "init", init, 1)
        self.actions: tuple[Action, ...] = tuple(self._collect_action(fn) for fn in actions)
        if not self.actions:
            raise SpecDefinitionError(f"spec {name}: declares no actions")
        self._unique("action", [a.name for a in self.actions])
        self.invariants: tuple[Predicate, ...] = tuple(
            self._collect_predicate(fn, "always") for fn in invariants
        )
        self.sometimes: tuple[Predicate, ...] = tuple(
            self._collect_predicate(fn, "sometimes") for fn in sometimes
        )
        self._unique("property", [p.name for p in self.invariants + self.sometimes])
        names = [p.name for p in self.invariants]
        if default_invariants is None:
            default_invariants = names
        for inv in default_invariants:
            if inv not in names:
                raise SpecDefinitionError(f"spec {name}: default invariant {inv!r} is not declared")
        self.default_invariants: tuple[str, ...] = tuple(default_invariants)
        if state_constraint is not None:
            _check_callable(name, "state_constraint", state_constraint, 2)
        if action_constraint is not None:
            _check_callable(name, "action_constraint", action_constraint, 3)
        if symmetry is not None and not isinstance(symmetry, Symmetry):
            raise SpecDefinitionError(f"spec {name}: symmetry must be a modelcheck.Symmetry")
        if view is not None:
            _check_callable(name, "view", view, 2)
        if lanes is not None:
            _check_callable(name, "lanes", lanes, 2)

    def _unique(self, what: str, names: list[str]) -> None:
        seen: set[str] = set()
        for n in names:
            if n in seen:
                raise SpecDefinitionError(f"spec {self.name}: {what} name {n!r} is declared twice")
            seen.add(n)

    def _collect_action(self, fn: Callable) -> Action:
        meta = getattr(fn, _ACTION, None)
        if not isinstance(meta, ActionMeta):
            raise SpecDefinitionError(
                f"spec {self.name}: {_qualname(fn)} is listed as an action but is not "
                "decorated with @action(name, ...)"
            )
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
        if sig is not None:
            pnames = list(sig.parameters)
            expected = [p for p, _ in meta.params]
            if pnames[2:] != expected or len(pnames) < 2:
                raise SpecDefinitionError(
                    f"spec {self.name}: action {meta.name} ({_qualname(fn)}) must take "
                    f"(c, s{''.join(', ' + p for p in expected)}); its signature is {sig}"
                )
        for pname, dom in meta.params:
            if not isinstance(dom, Domain):
                raise SpecDefinitionError(
                    f"spec {self.name}: parameter {pname} of action {meta.name} needs a Domain, got {dom!r}"
                )
        return Action(meta.name, fn, meta.params, meta.description)

    def _collect_predicate(self, fn: Callable, kind: str) -> Predicate:
        meta = getattr(fn, _PREDICATE, None)
        if not isinstance(meta, PredicateMeta) or meta.kind != kind:
            deco = "@invariant" if kind == "always" else "@sometimes"
            raise SpecDefinitionError(
                f"spec {self.name}: {_qualname(fn)} is listed as a {kind!r} property but is not "
                f"decorated with {deco}(name)"
            )
        _check_callable(self.name, f"property {meta.name}", fn, 2)
        return Predicate(meta.name, fn, kind, meta.description)

    def invariant(self, name: str) -> Predicate:
        """Look up an invariant by name (KeyError if absent)."""
        for p in self.invariants:
            if p.name == name:
                return p
        raise KeyError(name)

    def action_named(self, name: str) -> Action:
        """Look up an action by name (KeyError if absent)."""
        for a in self.actions:
            if a.name == name:
                return a
        raise KeyError(name)

    def describe_state(self, c: Any, s: State) -> dict[str, Any]:
        """The state as named variables, for traces; falls back to the raw value."""
        if self.view is not None:
            return self.view(c, s)
        if hasattr(s, "_asdict"):
            return {k: _plain(v) for k, v in s._asdict().items()}
        return {"state": _plain(s)}

    def __repr__(self) -> str:
        return f"<Spec {self.name}>"


def _plain(v: Any) -> Any:
    """A JSON-friendly copy of a canonical value (frozensets become sorted lists)."""
    if isinstance(v, frozenset):
        return sorted((_plain(x) for x in v), key=repr)
    if isinstance(v, tuple):
        if hasattr(v, "_asdict"):
            return {k: _plain(x) for k, x in v._asdict().items()}
        return [_plain(x) for x in v]
    return v
