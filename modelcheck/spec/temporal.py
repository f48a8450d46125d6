"""Temporal properties, step properties and fairness, declared as plain functions.

A TLA+ spec says ``Spec == Init /\\ [][Next]_vars /\\ WF_vars(A) /\\ SF_vars(B)``
and checks properties such as ``<>P`` or ``P ~> Q`` under it.  Here:

* **Fairness** is a list given to :class:`~modelcheck.spec.declare.Spec`:
  ``weak(action)`` is ``WF_vars(\\E b: A(b))`` over every binding of the
  action's parameters (one condition for the whole action, as the published
  Kafka specs declare it); ``weak(action, each=True)`` is
  ``\\A b: WF_vars(A(b))``, one condition per binding, which is stronger (it
  forbids neglecting any single instance); ``strong`` likewise for ``SF``.
  ``weak(a, b, ...)`` is ``WF_vars(A \\/ B \\/ ...)``, one condition over the
  disjunction of every binding of every listed action (TLA+'s
  ``WF_vars(System)`` with ``System == A \\/ \\E i: B(i)``): if some instance
  of some listed action is enabled from some point on, some such step
  eventually occurs.  That is weaker than weak fairness of each (one action
  may be taken forever while the other waits) and stronger in another way
  (the disjunction may be continuously enabled while each disjunct is
  enabled only now and then); ``each=True`` takes a single action.
  As in TLA+, a fair action is one whose *non-stuttering* steps count: an
  action that only returns the state it was given is not enabled.
* **Liveness properties** are functions of the constants returning a
  formula over state predicates ``p(c, s) -> bool``::

      @liveness("EventuallySomeLeader", "some replica eventually presumes leadership")
      def eventually_some_leader(c):
          return eventually(lambda c, s: any(rs.leader == r for r, rs in enumerate(s.replica_state)))

  with :func:`eventually` (``<>P``), :func:`always_eventually` (``[]<>P``),
  :func:`eventually_always` (``<>[]P``), :func:`leads_to` (``P ~> Q``), and
  :func:`all_of` / :func:`any_of` to combine them; quantifying over a domain
  is Python: ``all_of(leads_to(p(r), q(r)) for r in range(c.Replicas))``.
* **Step properties** ``fn(c, s, t) -> bool`` must hold on every step
  ``s -> t`` of every behaviour (TLA+ ``[][P]_vars``; stuttering steps are not
  checked, as ``[P]_vars`` allows them).
* **Initial-state properties** ``fn(c, s) -> bool`` must hold of every
  initial state: what TLC checks for a state predicate listed under
  ``PROPERTY`` (such as the ``Init`` of a spec the model refines).
* **Action-level liveness**: :func:`always_eventually_step` (``[]<><A>_vars``
  for a step predicate ``a(c, s, t)``) and the fairness conditions built
  from it, :func:`weakly_fair` and :func:`strongly_fair` (``WF_vars(A)`` and
  ``SF_vars(A)`` as properties to check, not assumptions), which is what
  checking a refinement's fairness needs (:mod:`modelcheck.spec.refinement`).

Behaviours are infinite: one that reaches a state where no action is enabled
stutters there forever, and so may one that reaches a state where no *fair*
action is enabled (see :mod:`modelcheck.search.liveness`).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable, Sequence, Union

import attrs

StatePredicate = Callable[[Any, Any], bool]
StepPredicate = Callable[[Any, Any, Any], bool]

_PROPERTY = "__modelcheck_property__"


@attrs.frozen
class Eventually:
    """``<>p``: some state of the behaviour satisfies ``p``."""

    p: StatePredicate


@attrs.frozen
class AlwaysEventually:
    """``[]<>p``: ``p`` holds infinitely often."""

    p: StatePredicate


@attrs.frozen
class EventuallyAlways:
    """``<>[]p``: from some point on, ``p`` holds forever."""

    p: StatePredicate


@attrs.frozen
class LeadsTo:
    """``p ~> q``: whenever ``p`` holds, ``q`` holds then or later."""

    p: StatePredicate
    q: StatePredicate


@attrs.frozen
class AllOf:
    """Every part holds (``/\\``, and ``\\A x \\in S`` over a finite domain)."""

    parts: tuple["Formula", ...]


@attrs.frozen
class AnyOf:
    """Some part holds (``\\/``, and ``\\E x \\in S``): one behaviour must satisfy one part."""

    parts: tuple["Formula", ...]


@attrs.frozen
class AlwaysEventuallyStep:
    """``[]<><A>_vars``: infinitely many steps satisfy the step predicate ``a(c, s, t)``.

    Only non-stuttering steps count (``s != t``), as in ``<<A>>_vars``; a
    behaviour that ends stuttering forever takes no such step.
    """

    a: StepPredicate


Formula = Union[Eventually, AlwaysEventually, EventuallyAlways, LeadsTo, AllOf, AnyOf, AlwaysEventuallyStep]
FORMULAS = (Eventually, AlwaysEventually, EventuallyAlways, LeadsTo, AllOf, AnyOf, AlwaysEventuallyStep)


def eventually(p: StatePredicate) -> Eventually:
    """``<>p``."""
    return Eventually(p)


def always_eventually(p: StatePredicate) -> AlwaysEventually:
    """``[]<>p``."""
    return AlwaysEventually(p)


def eventually_always(p: StatePredicate) -> EventuallyAlways:
    """``<>[]p``."""
    return EventuallyAlways(p)


def leads_to(p: StatePredicate, q: StatePredicate) -> LeadsTo:
    """``p ~> q``."""
    return LeadsTo(p, q)


def always_eventually_step(a: StepPredicate) -> AlwaysEventuallyStep:
    """``[]<><A>_vars``: infinitely many non-stuttering steps ``s -> t`` with ``a(c, s, t)``.

    Deciding it needs each recorded transition's two states, which the
    liveness decision rebuilds by running the spec's actions once more over
    the recorded graph (a Python pass as long as a search without the memo
    tables): use it for models of up to a few hundred thousand states.
    """
    return AlwaysEventuallyStep(a)


def weakly_fair(enabled: StatePredicate, taken: StepPredicate) -> AnyOf:
    """``WF_vars(A)`` as a property: ``[]<>~ENABLED <<A>>_vars \\/ []<><<A>>_vars``.

    ``enabled(c, s)`` is ``ENABLED <<A>>_vars`` (some non-stuttering A-step
    leaves ``s``) and ``taken(c, s, t)`` whether ``s -> t`` is an A-step.
    Unlike :func:`weak`, which *assumes* fairness of one of the spec's own
    actions, this *checks* that every fair behaviour of the spec satisfies
    it: how a refinement checks the abstract spec's fairness over the mapped
    states.
    """
    return AnyOf((AlwaysEventually(_negated(enabled)), AlwaysEventuallyStep(taken)))


def strongly_fair(enabled: StatePredicate, taken: StepPredicate) -> AnyOf:
    """``SF_vars(A)`` as a property: ``<>[]~ENABLED <<A>>_vars \\/ []<><<A>>_vars`` (see :func:`weakly_fair`)."""
    return AnyOf((EventuallyAlways(_negated(enabled)), AlwaysEventuallyStep(taken)))


def _negated(p: StatePredicate) -> StatePredicate:
    def not_p(c: Any, s: Any) -> bool:
        return not p(c, s)

    not_p.__qualname__ = f"not {getattr(p, '__qualname__', repr(p))}"
    return not_p


def all_of(*parts: Formula | Iterable[Formula]) -> AllOf:
    """The conjunction of formulas (given as arguments or as one iterable, e.g. a generator)."""
    return AllOf(_flatten(parts))


def any_of(*parts: Formula | Iterable[Formula]) -> AnyOf:
    """The disjunction of formulas (given as arguments or as one iterable)."""
    return AnyOf(_flatten(parts))


def _flatten(parts: tuple) -> tuple:
    if len(parts) == 1 and not isinstance(parts[0], FORMULAS):
        return tuple(parts[0])
    return tuple(parts)


@attrs.frozen
class PropertyMeta:
    """Metadata attached by :func:`liveness` and :func:`step_property`."""

    name: str
    kind: str
    description: str
    explain: Callable | None = None


def _property(kind: str, name: str, description: str, explain: Callable | None = None) -> Callable[[Callable], Callable]:
    def mark(fn: Callable) -> Callable:
        doc = description or (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
        setattr(fn, _PROPERTY, PropertyMeta(name, kind, doc, explain))
        return fn

    return mark


def liveness(name: str, description: str = "", explain: Callable | None = None) -> Callable[[Callable], Callable]:
    """Mark ``fn(c) -> Formula`` as a temporal property, checked under the spec's fairness.

    ``explain``, optional, is ``explain(c, states, loop_start) -> str``: what a
    counterexample means (a lasso of ``states``, looping back to
    ``states[loop_start]``, or stuttering in its last state when None),
    printed with it; it runs only on a counterexample.
    """
    return _property("liveness", name, description, explain)


def step_property(name: str, description: str = "", explain: Callable | None = None) -> Callable[[Callable], Callable]:
    """Mark ``fn(c, s, t) -> bool`` as a property of every step ``s -> t`` (TLA+ ``[][P]_vars``).

    ``explain(c, states, loop_start) -> str``, optional, says why the trace's
    last step breaks it (``loop_start`` is None); it runs only on a counterexample.
    """
    return _property("step", name, description, explain)


def initial_property(name: str, description: str = "",
                     explain: Callable | None = None) -> Callable[[Callable], Callable]:
    """Mark ``fn(c, s) -> bool`` as a property of every initial state.

    TLC checks a state predicate listed under ``PROPERTY`` on the initial
    states only (``Init => P``), unlike an invariant, which must hold in
    every reachable state: that is what the ``Init`` of a refined spec is.
    ``explain(c, states, loop_start) -> str``, optional, says why the one
    initial state in ``states`` breaks it.
    """
    return _property("initial", name, description, explain)


@attrs.frozen
class TemporalProperty:
    """A named liveness or step property of a spec."""

    name: str
    kind: str
    """``liveness``, ``step`` or ``initial``."""
    fn: Callable[..., Any]
    """``fn(c) -> Formula`` for liveness, ``fn(c, s, t) -> bool`` for a step property, ``fn(c, s) -> bool`` for an
    initial-state property."""
    description: str
    explain: Callable[..., Any] | None = None
    """``explain(c, states, loop_start) -> str``: what a counterexample means, or None."""

    def explanation(self, c: Any, states: Sequence[Any], loop_start: int | None = None) -> str | None:
        """The ``explain`` sentence for a counterexample, or None when the property declares none."""
        if self.explain is None:
            return None
        out = self.explain(c, tuple(states), loop_start)
        return None if out is None else str(out)


class PropertyGroup:
    """Several properties checked under one name, as one TLA+ formula whose parts the checker decides apart.

    ``Spec(properties=[...])`` takes a group as it takes a property: its
    members are declared as properties of their own, and naming the group
    (``--property NAME``, ``properties=[NAME]``, ``default_properties``)
    checks them all.  A refinement (:func:`modelcheck.spec.refinement.refines`)
    is one: ``TDSpec`` is an initial-state, a step and a liveness property.
    """

    name: str
    description: str
    members: tuple[Callable[..., Any], ...]

    def __init__(self, name: str, description: str, members: Sequence[Callable[..., Any]]) -> None:
        self.name = name
        self.description = description
        self.members = tuple(members)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


@attrs.frozen
class Fairness:
    """A fairness condition: ``WF`` or ``SF`` of an action (all its bindings, or each one) or of a disjunction."""

    kind: str
    """``weak`` or ``strong``."""
    action: Callable[..., Any]
    """The (first) action function (as listed in the spec's actions)."""
    each: bool = False
    """One condition per parameter binding (``\\A b: WF(A(b))``) instead of one for the action."""
    more: tuple[Callable[..., Any], ...] = ()
    """Further actions: the condition is over the disjunction of every binding of every action
    (``WF_vars(A \\/ B)``): enabled when some instance of some of them is, taken when any of them is."""

    @property
    def actions(self) -> tuple[Callable[..., Any], ...]:
        """Every action of the condition, the first one first."""
        return (self.action, *self.more)

    def describe(self, action_name: str | None = None, *more_names: str) -> str:
        """``WF_vars(A)``, ``\\A b: WF_vars(A(b))`` or ``WF_vars(A \\/ B)``.

        ``action_name`` names the first action (or, with ``each``, one instance of it); the further
        actions are named by ``more_names`` when given, else by their ``@action`` names.
        """
        kind = "WF" if self.kind == "weak" else "SF"
        first = action_name if action_name is not None else _action_name(self.action)
        if self.each:
            return f"\\A b: {kind}_vars({first}(b))"
        names = [first, *(more_names if len(more_names) == len(self.more) else map(_action_name, self.more))]
        return f"{kind}_vars({_OR.join(names)})"


_OR = " \\/ "


def _action_name(fn: Callable[..., Any] | str) -> str:
    """The name ``@action`` gave ``fn`` (as traces show it), or its Python name; a name is itself."""
    if isinstance(fn, str):
        return fn
    meta = getattr(fn, "__modelcheck_action__", None)
    name = getattr(meta, "name", None)
    return name if isinstance(name, str) else getattr(fn, "__qualname__", repr(fn))


def _fairness(kind: str, actions: tuple, each: bool) -> Fairness:
    from modelcheck.errors import SpecDefinitionError

    word = "weak" if kind == "weak" else "strong"
    if not actions:
        raise SpecDefinitionError(f"{word}() needs at least one action")
    for a in actions:
        if isinstance(a, bool) or not (callable(a) or isinstance(a, str)):
            raise SpecDefinitionError(f"{word}() takes actions, as functions or names (and each= by keyword), "
                                      f"got {a!r}")
    if each and len(actions) > 1:
        raise SpecDefinitionError(
            f"{word}(..., each=True) takes a single action, got {len(actions)}: fairness of each instance of "
            f"several actions is one {word}(action, each=True) per action")
    return Fairness(kind, actions[0], bool(each), tuple(actions[1:]))


def weak(action: Callable[..., Any], *more: Callable[..., Any], each: bool = False) -> Fairness:
    """Weak fairness: an action continuously enabled from some point on is eventually taken.

    With several actions, of their disjunction: ``weak(a, b)`` is ``WF_vars(A \\/ B)``.
    """
    return _fairness("weak", (action, *more), each)


def strong(action: Callable[..., Any], *more: Callable[..., Any], each: bool = False) -> Fairness:
    """Strong fairness: an action enabled infinitely often is taken infinitely often.

    With several actions, of their disjunction: ``strong(a, b)`` is ``SF_vars(A \\/ B)``.
    """
    return _fairness("strong", (action, *more), each)


def predicates_of(formula: Formula) -> list[Callable]:
    """Every state predicate of a formula, in a fixed order (each one bit of a state's mask)."""
    out: list[Callable] = []

    def walk(f: Formula) -> None:
        if isinstance(f, (AllOf, AnyOf)):
            for part in f.parts:
                walk(part)
        elif isinstance(f, LeadsTo):
            out.extend((f.p, f.q))
        elif isinstance(f, (Eventually, AlwaysEventually, EventuallyAlways)):
            out.append(f.p)
        elif not isinstance(f, AlwaysEventuallyStep):  # a step predicate: not a bit of a state's mask
            raise TypeError(f"not a temporal formula: {f!r}")

    walk(formula)
    return out


def step_predicates_of(formula: Formula) -> list[Callable]:
    """Every distinct step predicate of a formula (of its ``[]<><A>_vars`` parts), in a fixed order."""
    out: list[Callable] = []

    def walk(f: Formula) -> None:
        if isinstance(f, (AllOf, AnyOf)):
            for part in f.parts:
                walk(part)
        elif isinstance(f, AlwaysEventuallyStep) and not any(f.a is a for a in out):
            out.append(f.a)

    walk(formula)
    return out


def property_meta(fn: Callable) -> PropertyMeta | None:
    meta = getattr(fn, _PROPERTY, None)
    return meta if isinstance(meta, PropertyMeta) else None
