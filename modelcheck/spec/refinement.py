"""Refinement: a spec implements another one under a mapping of its states (TLA+'s ``INSTANCE ... WITH``).

A TLA+ module states that it implements an abstract spec by instantiating it
with expressions over its own variables and checking the instance's
``Spec`` as a property::

    TD == INSTANCE SyncTerminationDetection      \\* terminationDetected <- terminationDetected, ...
    TDSpec == TD!Spec                              \\* PROPERTY TDSpec in the model

Here the same is a *mapping*, ``mapping(c, s) -> abstract state``, from a
concrete state to a state of the abstract :class:`~modelcheck.spec.declare.Spec`,
and :func:`refines` turns it into a group of properties, checked under one
name (``--property TDSpec``) as TLC checks ``TD!Spec`` in parts:

* ``TDSpec.Init`` (an initial-state property): every initial state maps to
  one of the abstract spec's initial states (``Init => TD!Init``);
* ``TDSpec.Next`` (a step property): every step maps to a step of one of
  the abstract spec's actions (the mapped successor is among that action's
  successors of the mapped state) or to a stuttering step (both states map
  to one abstract state): ``[][TD!Next]_TD!vars``;
* ``TDSpec.Fairness`` (a liveness property, when the abstract spec declares
  fairness): each of its ``weak``/``strong`` conditions holds of the mapped
  behaviour, under the concrete spec's own fairness.  ``WF_vars(A)`` is
  checked as ``[]<>~ENABLED <<A>> \\/ []<><<A>>`` over the mapped states, where
  ``ENABLED <<A>>`` holds in a concrete state when A has a non-stuttering
  successor from its image, and a concrete step is an ``<<A>>`` step when
  its image is one (:func:`~modelcheck.spec.temporal.weakly_fair`).

A counterexample is printed as the concrete trace, with the abstract one
beside it (the ``Why:`` of the text output, and ``explanation`` in the
JSON): each step's image and the abstract action it maps to, and for the
step that maps to none, both abstract states and where the abstract
spec's actions lead from the first.

The abstract spec's invariants, constraints, symmetry and deadlock setting
play no part (TLC does not use them either when it checks ``TD!Spec``);
its ``init`` and actions are run on the mapped states.  Its states must be
canonical, as every spec's are; the mapping must return one of them.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from modelcheck.errors import SpecDefinitionError
from modelcheck.spec.declare import Spec, State
from modelcheck.spec.temporal import (Formula, PropertyGroup, all_of, initial_property, liveness,
                                      step_property, strongly_fair, weakly_fair)

Mapping_ = Callable[[Any, State], State]

CACHE_LIMIT = 200_000
"""Abstract states whose successors are kept (the cache is emptied when full): a refinement's abstract spec is
usually small, and a concrete check visits each abstract state many times."""

SHOWN_SUCCESSORS = 8
"""How many of the abstract spec's steps from the mapped state a failed step's explanation lists."""


class Refinement(PropertyGroup):
    """``Spec => Abstract!Spec`` under a mapping: an initial-state, a step and (with fairness) a liveness property.

    Made by :func:`refines`; list it in the concrete spec's ``properties``
    (or ``spec.extend(properties=[...])``) and check it by its name.
    """

    def __init__(self, abstract: Spec, mapping: Mapping_, constants: Callable[[Any], Any],
                 name: str, description: str) -> None:
        self.abstract = abstract
        self.mapping = mapping
        self.constants = constants
        self._consts: dict[Any, Any] = {}
        self._steps: dict[tuple[Any, Any], tuple[tuple[int, tuple, State], ...]] = {}
        self._inits: dict[Any, frozenset] = {}
        members: list[Callable] = [self._init_property(name), self._step_property(name)]
        if abstract.fairness_actions:
            members.append(self._fairness_property(name))
        super().__init__(name, description or f"refines {abstract.title} under a mapping of the states", members)

    # -- the abstract spec, run on mapped states -------------------------------------------------

    def abstract_constants(self, c: Any) -> Any:
        """The abstract spec's constants for the concrete constants ``c`` (computed once per ``c``)."""
        try:
            return self._consts[c]
        except KeyError:
            pass
        except TypeError:  # unhashable constants: not cached
            return _constants_of(self.abstract, self.constants(c))
        ac = self._consts[c] = _constants_of(self.abstract, self.constants(c))
        return ac

    def image(self, c: Any, s: State) -> State:
        """The abstract state ``s`` maps to."""
        return self.mapping(c, s)

    def initial_states(self, ac: Any) -> frozenset:
        """The abstract spec's initial states (a set)."""
        got = self._inits.get(ac)
        if got is None:
            got = self._inits[ac] = frozenset(self.abstract.init(ac))
        return got

    def steps(self, ac: Any, a: State) -> tuple[tuple[int, tuple, State], ...]:
        """Every step of the abstract spec from ``a``: (action index, binding, successor), in the spec's order."""
        key = (ac, a)
        got = self._steps.get(key)
        if got is not None:
            return got
        out = []
        for ai, act in enumerate(self.abstract.actions):
            for b in act.bindings(ac):
                r = act.fn(ac, a, *b)
                if r is None:
                    continue
                for t in (r if isinstance(r, list) else [r]):
                    out.append((ai, tuple(b), t))
        if len(self._steps) >= CACHE_LIMIT:
            self._steps.clear()
        got = self._steps[key] = tuple(out)
        return got

    def is_step(self, ac: Any, a: State, b: State, actions: Sequence[int] | None = None,
                binding: tuple | None = None) -> bool:
        """Whether ``a -> b`` is a non-stuttering step of the abstract spec (of ``actions`` only, if given)."""
        return a != b and any(t == b and (actions is None or ai in actions) and (binding is None or bb == binding)
                              for ai, bb, t in self.steps(ac, a))

    def is_enabled(self, ac: Any, a: State, actions: Sequence[int], binding: tuple | None = None) -> bool:
        """``ENABLED <<A>>_vars`` at ``a`` for the disjunction of ``actions`` (one ``binding`` of one, if given)."""
        return any(t != a and ai in actions and (binding is None or bb == binding) for ai, bb, t in self.steps(ac, a))

    def label(self, ac: Any, a: State, b: State) -> str:
        """The abstract action ``a -> b`` is a step of, as a trace shows it, or why it is none."""
        if a == b:
            return "stuttering"
        for ai, bb, t in self.steps(ac, a):
            if t == b:
                return self.abstract.actions[ai].label(bb)
        return f"no step of {self.abstract.title}"

    # -- the three properties -------------------------------------------------------------------

    def _init_property(self, name: str) -> Callable:
        def holds(c: Any, s: State) -> bool:
            ac = self.abstract_constants(c)
            return self.image(c, s) in self.initial_states(ac)

        def explain(c: Any, states: Sequence[State], loop_start: int | None) -> str:
            ac = self.abstract_constants(c)
            a = self.image(c, states[-1])
            return (f"the initial state maps to {self.show(ac, a)}, which is not an initial state of "
                    f"{self.abstract.title}")

        return initial_property(f"{name}.Init", f"every initial state maps to an initial state of "
                                f"{self.abstract.title}", explain=explain)(holds)

    def _step_property(self, name: str) -> Callable:
        def holds(c: Any, s: State, t: State) -> bool:
            a, b = self.image(c, s), self.image(c, t)
            return a == b or self.is_step(self.abstract_constants(c), a, b)

        def explain(c: Any, states: Sequence[State], loop_start: int | None) -> str:
            ac = self.abstract_constants(c)
            images = [self.image(c, s) for s in states]
            a, b = images[-2], images[-1]
            lines = [f"step {len(states) - 1} -> {len(states)} maps {self.show(ac, a)} to {self.show(ac, b)}, "
                     f"which is neither a step of {self.abstract.title} nor stuttering; from the first state:"]
            found = [(ai, bb, t) for ai, bb, t in self.steps(ac, a) if t != a]
            for ai, bb, t in found[:SHOWN_SUCCESSORS]:
                lines.append(f"  {self.abstract.actions[ai].label(bb)} leads to {self.show(ac, t)}")
            if len(found) > SHOWN_SUCCESSORS:
                lines.append(f"  ... and {len(found) - SHOWN_SUCCESSORS} more")
            if not found:
                lines.append(f"  no action of {self.abstract.title} is enabled")
            lines += self.abstract_trace(ac, images, loop_start)
            return "\n".join(lines)

        return step_property(f"{name}.Next", f"every step maps to a step of {self.abstract.title} or to "
                             "stuttering", explain=explain)(holds)

    def _fairness_property(self, name: str) -> Callable:
        conditions = self.fairness_conditions()

        def formula(c: Any) -> Formula:
            ac = self.abstract_constants(c)
            parts = []
            for kind, _text, ais, binding in conditions(ac):
                parts.append((weakly_fair if kind == "weak" else strongly_fair)(
                    lambda c, s, ais=ais, binding=binding: self.is_enabled(
                        self.abstract_constants(c), self.image(c, s), ais, binding),
                    lambda c, s, t, ais=ais, binding=binding: self.is_step(
                        self.abstract_constants(c), self.image(c, s), self.image(c, t), ais, binding)))
            return all_of(parts)

        def explain(c: Any, states: Sequence[State], loop_start: int | None) -> str:
            ac = self.abstract_constants(c)
            images = [self.image(c, s) for s in states]
            loop = images[loop_start:] if loop_start is not None else images[-1:]
            pairs = list(zip(loop, loop[1:] + loop[:1])) if loop_start is not None else []
            broken = []
            for kind, text, ais, binding in conditions(ac):
                enabled = [self.is_enabled(ac, a, ais, binding) for a in loop]
                taken = any(self.is_step(ac, a, b, ais, binding) for a, b in pairs)
                if not taken and (all(enabled) if kind == "weak" else any(enabled)):
                    if loop_start is None:
                        where = "in the last state's image, where the behaviour stutters forever"
                    else:
                        where = (f"in {'every' if all(enabled) else 'some'} mapped state of the loop "
                                 f"(states {loop_start + 1} to {len(states)})")
                    broken.append(f"{text} is violated: it is enabled {where}, and never taken")
            lines = ["; ".join(broken) or f"the mapped behaviour violates the fairness of {self.abstract.title}"]
            lines += self.abstract_trace(ac, images, loop_start)
            return "\n".join(lines)

        names = ", ".join(f.describe(*(self.abstract.actions[ai].name for ai in ais))
                          for f, ais in self.abstract.fairness_actions)
        return liveness(f"{name}.Fairness", f"the mapped behaviour satisfies {self.abstract.title}'s fairness, "
                        f"{names}", explain=explain)(formula)

    def fairness_conditions(self) -> Callable[[Any], list[tuple[str, str, tuple[int, ...], tuple | None]]]:
        """For abstract constants: each fairness condition as (kind, text, action indices, binding or None)."""
        abstract = self.abstract

        def conditions(ac: Any) -> list[tuple[str, str, tuple[int, ...], tuple | None]]:
            out = []
            for f, ais in abstract.fairness_actions:
                if f.each:
                    act = abstract.actions[ais[0]]
                    word = "WF" if f.kind == "weak" else "SF"
                    for b in act.bindings(ac):
                        out.append((f.kind, f"{word}_vars({act.label(tuple(b))})", ais, tuple(b)))
                else:
                    out.append((f.kind, f.describe(*(abstract.actions[ai].name for ai in ais)), ais, None))
            return out

        return conditions

    # -- showing abstract states ----------------------------------------------------------------

    def show(self, ac: Any, a: State) -> str:
        """An abstract state as TLA+ writes a record: ``[active |-> <<FALSE, TRUE>>, terminationDetected |-> FALSE]``."""
        from modelcheck.counterexamples.text import show

        return show(self.abstract.describe_state(ac, a))

    def abstract_trace(self, ac: Any, images: Sequence[State], loop_start: int | None) -> list[str]:
        """The mapped trace, one line per concrete state: its image and the abstract action of the step to it."""
        lines = [f"{self.abstract.title} under the mapping (state by state):"]
        for i, a in enumerate(images):
            step = "Initial predicate" if i == 0 else self.label(ac, images[i - 1], a)
            lines.append(f"  State {i + 1}: <{step}> {self.show(ac, a)}")
        if loop_start is not None and images:
            lines.append(f"  Back to state {loop_start + 1} <{self.label(ac, images[-1], images[loop_start])}>")
        return lines


def _constants_of(abstract: Spec, given: Any) -> Any:
    """The abstract spec's constants object from what ``constants(c)`` gave: one, a dict of values, or None."""
    cls = abstract.constants_class
    if given is None:
        return cls()
    if isinstance(given, Mapping):
        return cls(**given)
    if not isinstance(given, cls):
        raise SpecDefinitionError(f"refinement of {abstract.name}: constants(c) must give a {cls.__name__} or a "
                                  f"dict of its fields, got {type(given).__name__}")
    return given


def refines(abstract: Spec, mapping: Mapping_, *, constants: Callable[[Any], Any] | Mapping[str, Any] | None = None,
            name: str = "Refines", description: str = "") -> Refinement:
    """The properties that make a spec a refinement of ``abstract`` under ``mapping`` (TLA+'s ``PROPERTY TD!Spec``).

    ``mapping(c, s)`` is the abstract state a concrete state ``s`` stands for
    (the ``WITH`` substitutions of the ``INSTANCE``); ``constants`` the
    abstract spec's constants: a function of the concrete constants
    (returning the abstract constants object or a dict of its fields), a
    fixed dict, or None for the abstract spec's defaults.  ``name`` is what
    ``--property`` names: it checks ``NAME.Init``, ``NAME.Next`` and, when
    the abstract spec declares fairness, ``NAME.Fairness``
    (see :mod:`modelcheck.spec.refinement`).
    """
    if not isinstance(abstract, Spec):
        raise SpecDefinitionError(f"refines() takes the abstract Spec first, got {abstract!r}")
    if not callable(mapping):
        raise SpecDefinitionError(f"refines({abstract.name}, ...): the mapping must be a function (c, s) -> state")
    if not name or not isinstance(name, str):
        raise SpecDefinitionError(f"refines({abstract.name}, ...): name must be a non-empty string")
    if constants is None or isinstance(constants, Mapping):
        fixed = dict(constants or {})

        def constants_of(c: Any) -> Any:
            return fixed
    elif callable(constants):
        constants_of = constants
    else:
        raise SpecDefinitionError(f"refines({abstract.name}, ...): constants must be a function of the concrete "
                                  f"constants, a dict or None, got {constants!r}")
    return Refinement(abstract, mapping, constants_of, name, description)
