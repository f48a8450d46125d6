"""The spec API: what a model is, as plain Python functions.

A spec is, as in Stateright, a handful of pure functions:

* ``init(c)`` returns (or yields) the initial states for constants ``c``, all
  of one type: the spec's state type;
* actions ``fn(c, s, *params)`` return the successors of state ``s`` (``None``
  when disabled, one state, or a ``list`` of states when several disjuncts of
  the TLA+ action are satisfied: each counts as one generated state, as in TLC);
* invariants ``fn(c, s) -> bool`` that must hold in every reachable state,
  each optionally with a companion ``explain(c, s) -> Witness`` that says, for
  a state that violates it, which cells break it and why (called only then);
* optionally: ``sometimes`` properties (must hold in *some* reachable state, to
  catch vacuous passes), a state constraint, an action constraint, a
  symmetry (replica permutations), TLC's ``VIEW`` (``fingerprint_view``: what
  is fingerprinted instead of the whole state), and how a state is shown:
  ``view``, ``lanes`` (one row per replica) and ``messages`` (what one
  transition sends and delivers between actors, for sequence diagrams).

The engine accepts exactly these results: a bool from an invariant, a
property or a constraint, and from an action None, a state of the spec's state
type or an iterable of such states.  Anything else stops the check with an
error naming the function (:mod:`modelcheck.model.validate`), so that a
forgotten ``all(`` or ``return`` cannot make a check pass.

Decorators (:func:`action`, :func:`invariant`, :func:`sometimes`) only attach
metadata to the function.  :class:`Spec` collects them and rejects malformed
declarations when it is built, so a broken spec fails when loaded, with a
clear message, not half-way through a search.

States must be *canonical*: built only from ``int``, ``bool``, ``float``,
``str``, ``None``, ``tuple`` (NamedTuples included) and ``frozenset``, the
values :func:`modelcheck.model.fingerprint.fingerprint` accepts.  Their
fingerprints are then the same in every process and on every machine, which
is what lets Spark executors and worker processes agree on them.
"""

from __future__ import annotations

import inspect
import os
import itertools
from typing import Any, Callable, Iterable, Sequence

import attrs

from modelcheck.spec.constants import ConstantInfo, constant_infos
from modelcheck.spec.functions import Function
from modelcheck.spec.renaming import ModelValueRenaming
from modelcheck.spec.tla_values import text_or_repr
from modelcheck.spec.temporal import Fairness, PropertyGroup, TemporalProperty, property_meta
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
    label: str | None = None


@attrs.frozen
class PredicateMeta:
    """Metadata attached by :func:`invariant` and :func:`sometimes`."""

    name: str
    kind: str
    description: str
    explain: Callable | None = None


@attrs.frozen
class Witness:
    """Why an invariant fails in one state: one sentence, and the cells that break it.

    Returned by an invariant's companion ``explain(c, s)`` (see
    :func:`invariant`), which is called only on a state that violates it, so
    the invariant itself stays a plain, fast ``bool``.  The sentence names
    what a reader must look at ("record 0@e1 at offset 0 is below leader r1's
    HW 1 but missing on r3, which is in the quorum ISR"); each culprit is a
    cell of the spec's ``lanes`` (``lane``, ``field`` and, for a log, the
    ``offset``) or a variable of its ``view`` (``variable``, a dotted name),
    so renderers can mark exactly those cells without knowing the protocol.
    """

    sentence: str
    culprits: tuple[dict, ...] = ()

    def to_json(self) -> dict:
        """``{"explanation": sentence, "culprits": [...]}``, as trace files and ``--json`` carry it."""
        return {"explanation": self.sentence, "culprits": [dict(c) for c in self.culprits]}


def culprit(lane: str | None = None, field: str | None = None, offset: int | None = None,
            variable: str | None = None) -> dict:
    """One culprit cell: a lane's field (a log's ``offset`` in it), or a view variable by dotted name."""
    out: dict[str, Any] = {}
    if lane is not None:
        out["lane"] = lane
    if field is not None:
        out["field"] = field
    if offset is not None:
        out["offset"] = offset
    if variable is not None:
        out["variable"] = variable
    return out


def action(name: str, description: str = "", label: str | None = None,
           **params: Domain) -> Callable[[Callable], Callable]:
    """Mark ``fn(c, s, **params)`` as an action named ``name`` with parameter domains.

    Only attaches metadata; :class:`Spec` validates it.  The parameters are
    keyword names of the function, each drawn from a :class:`Domain`; the
    engine calls the function once for every combination, in a fixed order.

    Traces name each parameter (``FollowerReplicate(follower=r3, leader=r1)``),
    because positional labels read ambiguously when two parameters share a
    domain.  ``label``, optional, is a format string over the parameters'
    shown values to use instead (``"produce({acks})"``); so no parameter may
    be called ``label`` or ``description``.
    """

    def mark(fn: Callable) -> Callable:
        doc = description or (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
        setattr(fn, _ACTION, ActionMeta(name, tuple(params.items()), doc, label))
        return fn

    return mark


def _predicate(kind: str, name: str, description: str, explain: Callable | None = None) -> Callable[[Callable], Callable]:
    def mark(fn: Callable) -> Callable:
        doc = description or (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
        setattr(fn, _PREDICATE, PredicateMeta(name, kind, doc, explain))
        return fn

    return mark


def invariant(name: str, description: str = "", explain: Callable | None = None) -> Callable[[Callable], Callable]:
    """Mark ``fn(c, s) -> bool`` as an invariant: it must hold in every reachable state.

    ``explain(c, s) -> Witness``, optional, says why a state violates it (the
    cells that break it and one sentence).  It is called only on a violating
    state, when a counterexample is reported, so the invariant stays a plain
    ``bool`` on the search's hot path.
    """
    return _predicate("always", name, description, explain)


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
    label_format: str | None = None
    """A spec-declared label (``"produce({acks})"``) over the shown parameters; None names each one."""

    def bindings(self, c: Any) -> list[tuple[int, ...]]:
        """Every parameter combination for constants ``c``, in the fixed order."""
        if not self.params:
            return [()]
        return list(itertools.product(*(tuple(d.values(c)) for _, d in self.params)))

    def label(self, binding: Sequence[int]) -> str:
        """The action as a trace shows it, e.g. ``FollowerReplicate(follower=r2, leader=r1)``."""
        return self.label_of(self.label_params(binding))

    def label_of(self, shown: dict[str, str]) -> str:
        """The label for parameters already shown by name (a trace step's ``params``)."""
        if self.label_format is not None:
            return self.label_format.format(**shown)
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{p}={shown[p]}' for p, _ in self.params)})"

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
    explain: Callable[[Any, State], Witness] | None = None
    """The companion that says why a violating state breaks it (invariants only; optional)."""

    def witness(self, c: Any, s: State) -> Witness | None:
        """Why ``s`` violates this invariant, or None when it declares no ``explain``."""
        if self.explain is None:
            return None
        w = self.explain(c, s)
        if isinstance(w, str):
            return Witness(w)
        if w is not None and not isinstance(w, Witness):
            raise SpecDefinitionError(
                f"explain of invariant {self.name} must return a Witness or a string, got {type(w).__name__}")
        return w


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

    @classmethod
    def over(cls, values: Callable[[Any], frozenset],
             signature: Callable[[Any, State, int], Any] | None = None) -> Symmetry:
        """TLC's ``SYMMETRY Permutations(RM)``: ``values(c)`` is the set of model values (strs) to permute.

        No permute function to write: every permutation renames those strs
        wherever they occur in a state, in tuples, NamedTuples, frozensets and
        :class:`~modelcheck.spec.functions.Function` (keys and values, its
        pairs sorted again), so a state built of those is renamed exactly
        (:mod:`modelcheck.spec.renaming`).  A function over the model values
        must be a ``Function``, not bare pairs: a plain tuple keeps its order.
        Value ``i`` of a permutation is the ``i``-th of ``sorted(values(c))``.
        A state part of another kind is refused when renamed, and a
        ``values(c)`` that is not a non-empty set of strs when the check starts.
        Every one of the ``n!`` renamings of a state is tried, as TLC does,
        unless a ``signature`` (as above, over that numbering) is given.
        """
        renaming = ModelValueRenaming(values)
        return cls(renaming.size, renaming, signature)


def _same_function(a: Callable, b: Any) -> bool:
    """The same definition (same qualified name in the same source file), even if imported twice."""
    code_a, code_b = getattr(a, "__code__", None), getattr(b, "__code__", None)
    return (code_a is not None and code_b is not None and a.__qualname__ == getattr(b, "__qualname__", None)
            and os.path.realpath(code_a.co_filename) == os.path.realpath(code_b.co_filename))


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
        messages: Callable[[Any, State, State, str, dict[str, str]], list[dict]] | None = None,
        properties: Sequence[Callable] = (),
        fairness: Sequence[Fairness] = (),
        description: str = "",
        reference: str | None = None,
        fingerprint_view: Callable[[Any, State], Any] | None = None,
        fingerprint_view_when: Callable[[Any], bool] | None = None,
        default_properties: Sequence[str] = (),
    ) -> None:
        self._arguments = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        """What the spec was declared with, for :meth:`extend`."""
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
        self.messages = messages
        """``messages(c, s, t, action_name, params)``: what the step s -> t sends and delivers (see
        :mod:`modelcheck.counterexamples.messages`); drawn as a sequence diagram."""
        self.reference = reference
        """How the engine finds this spec again in another process (``module:attr``)."""
        self.fingerprint_view = fingerprint_view
        """TLC's ``VIEW``: ``fingerprint_view(c, s)``, a canonical value, is what is fingerprinted and compared for
        "seen" instead of the whole state, so states with one view are one state (the first one found is kept
        and explored).  None: the whole state.  (``view`` is how a state is *shown*, an unrelated thing.)"""
        self.fingerprint_view_when = fingerprint_view_when
        """``fingerprint_view_when(c)``: whether the view is in force for constants ``c`` (None: always), as a TLC
        model may comment its VIEW line out."""
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
        collected: list[TemporalProperty] = []
        self.property_groups: dict[str, tuple[str, ...]] = {}
        """Groups of properties checked under one name (a refinement's parts), by name: their members' names."""
        for fn in properties:
            if isinstance(fn, PropertyGroup):
                members = [self._collect_property(m) for m in fn.members]
                if not members:
                    raise SpecDefinitionError(f"spec {name}: property group {fn.name!r} has no members")
                self.property_groups[fn.name] = tuple(m.name for m in members)
                collected += members
            else:
                collected.append(self._collect_property(fn))
        self.properties: tuple[TemporalProperty, ...] = tuple(collected)
        self._unique("property", [p.name for p in self.invariants + self.sometimes] +
                     [p.name for p in self.properties] + list(self.property_groups))
        self.fairness_actions: tuple[tuple[Fairness, tuple[int, ...]], ...] = tuple(
            self._collect_fairness(f) for f in fairness)
        """Each fairness condition with the indices of its actions (several: their disjunction)."""
        self.fairness: tuple[tuple[Fairness, int], ...] = tuple((f, ais[0]) for f, ais in self.fairness_actions)
        """Each fairness condition with the index of its (first) action."""
        names = [p.name for p in self.invariants]
        if default_invariants is None:
            default_invariants = names
        for inv in default_invariants:
            if inv not in names:
                raise SpecDefinitionError(f"spec {name}: default invariant {inv!r} is not declared")
        self.default_invariants: tuple[str, ...] = tuple(default_invariants)
        declared = [p.name for p in self.properties] + list(self.property_groups)
        for prop in default_properties:
            if prop not in declared:
                raise SpecDefinitionError(f"spec {name}: default property {prop!r} is not declared")
        self.default_properties: tuple[str, ...] = self.expand_properties(default_properties)
        """The liveness and step properties a check runs when it names neither invariants nor properties, as a
        TLC model's PROPERTY lines."""
        if state_constraint is not None:
            _check_callable(name, "state_constraint", state_constraint, 2)
        if action_constraint is not None:
            _check_callable(name, "action_constraint", action_constraint, 3)
        if symmetry is not None and not isinstance(symmetry, Symmetry):
            raise SpecDefinitionError(f"spec {name}: symmetry must be a modelcheck.Symmetry")
        if view is not None:
            _check_callable(name, "view", view, 2)
        if fingerprint_view is not None:
            _check_callable(name, "fingerprint_view", fingerprint_view, 2)
        if fingerprint_view_when is not None:
            if fingerprint_view is None:
                raise SpecDefinitionError(f"spec {name}: fingerprint_view_when is given without a fingerprint_view")
            _check_callable(name, "fingerprint_view_when", fingerprint_view_when, 1)
        if lanes is not None:
            _check_callable(name, "lanes", lanes, 2)
        if messages is not None:
            _check_callable(name, "messages", messages, 5)

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
        if meta.label is not None:
            try:
                meta.label.format(**{p: p for p, _ in meta.params})
            except (KeyError, IndexError, ValueError) as exc:
                raise SpecDefinitionError(
                    f"spec {self.name}: label {meta.label!r} of action {meta.name} names an unknown parameter "
                    f"or is malformed ({exc}); its parameters are: {', '.join(p for p, _ in meta.params) or 'none'}"
                ) from None
        return Action(meta.name, fn, meta.params, meta.description, meta.label)

    def _collect_predicate(self, fn: Callable, kind: str) -> Predicate:
        meta = getattr(fn, _PREDICATE, None)
        if not isinstance(meta, PredicateMeta) or meta.kind != kind:
            deco = "@invariant" if kind == "always" else "@sometimes"
            raise SpecDefinitionError(
                f"spec {self.name}: {_qualname(fn)} is listed as a {kind!r} property but is not "
                f"decorated with {deco}(name)"
            )
        _check_callable(self.name, f"property {meta.name}", fn, 2)
        if meta.explain is not None:
            _check_callable(self.name, f"explain of {meta.name}", meta.explain, 2)
        return Predicate(meta.name, fn, kind, meta.description, meta.explain)

    def _collect_property(self, fn: Callable) -> TemporalProperty:
        meta = property_meta(fn)
        if meta is None:
            raise SpecDefinitionError(
                f"spec {self.name}: {_qualname(fn)} is listed as a property but is not decorated with "
                "@liveness(name), @step_property(name) or @initial_property(name)")
        _check_callable(self.name, f"property {meta.name}", fn, {"liveness": 1, "initial": 2}.get(meta.kind, 3))
        if meta.explain is not None:
            _check_callable(self.name, f"explain of {meta.name}", meta.explain, 3)
        return TemporalProperty(meta.name, meta.kind, fn, meta.description, meta.explain)

    def _collect_fairness(self, f: Any) -> tuple[Fairness, tuple[int, ...]]:
        if not isinstance(f, Fairness):
            raise SpecDefinitionError(
                f"spec {self.name}: fairness must list weak(action) or strong(action) conditions, got {f!r}")
        found = tuple(self._fair_action(fn) for fn in f.actions)
        fns = [self.actions[ai].fn for ai in found]
        return attrs.evolve(f, action=fns[0], more=tuple(fns[1:])), found

    def _fair_action(self, fn: Any) -> int:
        """The index of the action a fairness condition names: by the function itself, by the same function
        imported again under another module name (an extension file importing the spec's module), or by the
        action's name as a string."""
        for match in (lambda a: a.fn is fn, lambda a: a.name == fn, lambda a: _same_function(a.fn, fn)):
            found = [ai for ai, a in enumerate(self.actions) if match(a)]
            if len(found) == 1:  # (closures of one factory are "the same definition": identity decides)
                return found[0]
        shown = repr(fn) if isinstance(fn, str) else _qualname(fn)
        raise SpecDefinitionError(f"spec {self.name}: fairness names {shown}, which is not one of the spec's actions")

    def extend(self, *, invariants: Sequence[Callable] = (), sometimes: Sequence[Callable] = (),
               properties: Sequence[Callable] = (), fairness: Sequence[Fairness] | None = None,
               default_invariants: Sequence[str] | None = None,
               default_properties: Sequence[str] | None = None) -> Spec:
        """This spec with more invariants, ``sometimes`` and temporal properties, or other fairness; the rest kept.

        New invariants join the default ones unless ``default_invariants``
        says otherwise; new properties are checked when named (``--property``)
        or listed in ``default_properties``.  ``fairness`` replaces the
        spec's.  The new spec has the same name, so its results and traces
        read as the spec's; its functions' modules are part of a checkpoint's
        identity, as the spec's own are.
        """
        args = dict(self._arguments)
        args["invariants"] = (*args["invariants"], *invariants)
        args["sometimes"] = (*args["sometimes"], *sometimes)
        args["properties"] = (*args["properties"], *properties)
        if fairness is not None:
            args["fairness"] = tuple(fairness)
        if default_invariants is None:
            added = [self._collect_predicate(fn, "always").name for fn in invariants]
            default_invariants = (*self.default_invariants, *added)
        args["default_invariants"] = tuple(default_invariants)
        if default_properties is not None:
            args["default_properties"] = tuple(default_properties)
        args["reference"] = None  # another process finds it by the reference of what was extended, and how
        return Spec(**args)

    def expand_properties(self, names: Iterable[str]) -> tuple[str, ...]:
        """``names`` with each group's name replaced by its members' names (each name once, in order).

        A group is a refinement or another formula the checker decides in
        parts; naming it checks every part, as TLC checks one ``PROPERTY``.
        """
        out: list[str] = []
        for n in names:
            for m in self.property_groups.get(n, (n,)):
                if m not in out:
                    out.append(m)
        return tuple(out)

    def property(self, name: str) -> TemporalProperty:
        """Look up a liveness or step property by name (KeyError if absent)."""
        for p in self.properties:
            if p.name == name:
                return p
        raise KeyError(name)

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
    """A JSON-friendly copy of a canonical value (frozensets become sorted lists, a Function an object)."""
    if isinstance(v, frozenset):
        return sorted((_plain(x) for x in v), key=repr)
    if isinstance(v, Function):
        return {k if isinstance(k, str) else text_or_repr(k): _plain(x) for k, x in v.pairs}
    if isinstance(v, tuple):
        if hasattr(v, "_asdict"):
            return {k: _plain(x) for k, x in v._asdict().items()}
        return [_plain(x) for x in v]
    return v
