"""Checks on a sample of states before the search starts.

Some spec bugs make an exhaustive search silently wrong rather than crash it:
actions whose successors depend on something other than the state
(non-determinism: iteration over a set, a global counter, randomness; answers
that follow the order in which a frozenset iterates), states
that are not canonical, and invariants that are not symmetric although
``--symmetry`` treats permuted states as one.  TLC users learn about these the
hard way; here a short walk from the initial states (a few hundred states, a
fraction of a second) looks for each and reports it as a clear error or warning
before any time is spent.
"""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

import attrs

from modelcheck.errors import SpecRuntimeError, StateError
from modelcheck.model.blame import memory_errors_are_the_specs
from modelcheck.model.bound import BoundModel
from modelcheck.model.fingerprint import fingerprint, record_classes
from modelcheck.spec.declare import State
from modelcheck.model.symmetry import signature_mismatch

SAMPLE_STATES = 300


def sample_states(model: BoundModel, limit: int = SAMPLE_STATES) -> list[State]:
    """The first ``limit`` states of a breadth-first walk (no invariants, no bookkeeping)."""
    seen: set = set()
    out: list[State] = []
    queue: deque = deque()
    for s in model.init_states():
        if s not in seen:
            seen.add(s)
            queue.append(s)
    while queue and len(out) < limit:
        s = queue.popleft()
        try:
            succs = list(model.successors(s))
            for _ai, _b, t in succs:
                model.check_state(t, f"action {model.actions[_ai].label(_b)}")
        except SpecRuntimeError as err:
            if isinstance(err.__cause__, MemoryError):
                raise  # the search would take it for the machine running out of memory
            # The search itself reports this, with the trace that leads there.
            break
        out.append(s)
        try:
            for _ai, _b, t in succs:
                if t not in seen and model.in_model(t):
                    seen.add(t)
                    queue.append(t)
        except SpecRuntimeError:
            break  # the search reports it, with its trace
    return out


def check_determinism(model: BoundModel, states: list[State]) -> None:
    """Raise if expanding the same state twice gives different successors or a different order.

    Traces are rebuilt by replaying the spec, and the Spark and multi-process
    engines expand states in other processes: both rely on this.
    """
    for s in states:
        first = [(ai, b, t) for ai, b, t in model.successors(s)]
        second = [(ai, b, t) for ai, b, t in model.successors(s)]
        if first != second:
            where = "?"
            for x, y in zip(first + [None] * len(second), second + [None] * len(first)):
                if x != y:
                    ref = x or y
                    where = model.actions[ref[0]].label(ref[1])
                    break
            raise SpecRuntimeError(
                f"spec {model.spec.name}: actions are not deterministic: expanding the same state twice "
                f"gave different successors (first difference at {where}); iterate over sorted "
                "values, not sets, and keep no state outside the state",
                spec=model.spec.name,
                where=where,
            )


def check_order_independence(model: BoundModel, states: list[State]) -> None:
    """Raise if a state's answers change when its frozensets iterate in another order.

    Equal frozensets can iterate in different orders (the order follows how
    each was built, and for strs the process's string hashing), and the
    checker treats equal states as one: which of them it expands depends on
    the engine (the first met; another process's copy; the memo tables'
    value).  A spec whose successors or invariants follow the order
    (``next(iter(s))``, ``tuple(s)``, a float sum, a loop that returns at the
    first match) has no one answer, so each sampled state is expanded again
    with every frozenset in it iterating in the other order
    (:class:`_OtherOrder`), and the two must agree; so must the action
    constraint and each step property on a step from it, with either of the
    step's states rebuilt, and with ``--symmetry`` the state's orbit
    fingerprint (the symmetry's ``signature`` and ``permute`` read the
    state too).  The rebuilt sets are of a subclass, which a spec checking
    ``type(x) is frozenset`` (a TypeOK) tells apart; so a difference counts
    only where a control, the same subclass iterating in the same order,
    gives the state's own answers.
    """
    for s in states:
        if not _iterates_otherwise(s):
            where = _step_order_dependence(model, s, s, True)
            if where is not None and _step_order_dependence(model, s, s, False) is None:
                _order_error(model, where)
            continue
        where = _answers_differ(model, s, True)
        if where is not None and _answers_differ(model, s, False) is None:
            _order_error(model, where)


def _answers_differ(model: BoundModel, s: State, reverse: bool) -> str | None:
    """Where ``s`` rebuilt (:func:`_rebuilt`) gets other answers than ``s``: the orbit fingerprint, an action, an
    invariant, the action constraint or a step property; or None."""
    twin = _rebuilt(s, reverse)
    if model.orbit_fingerprint is not None and model.view is None:
        h = fingerprint(s)
        try:
            moved = model.orbit_fingerprint(s, h) != model.orbit_fingerprint(twin, h)
        except (SpecRuntimeError, StateError):
            moved = False  # the search reports it, with its trace
        if moved:
            return "the symmetry's signature or permute"
    first = [(ai, b, t) for ai, b, t in model.successors(s)]
    second = [(ai, b, t) for ai, b, t in model.successors(twin)]
    for x, y in zip(first + [None] * len(second), second + [None] * len(first)):
        if x != y:
            ref = x or y
            return f"action {model.actions[ref[0]].label(ref[1])}"
    for inv in model.invariants + model.sometimes:
        what = f"invariant {inv.name}" if inv.kind == "always" else f"property {inv.name}"
        if model._holds(what, inv.fn, model.c, s) != model._holds(what, inv.fn, model.c, twin):
            return what
    return _step_order_dependence(model, s, twin, reverse)


def _step_order_dependence(model: BoundModel, s: State, twin: State, reverse: bool) -> str | None:
    """The action constraint or the first step property whose verdict on a step of ``s`` changes when the
    step's states are rebuilt (``twin`` is ``s`` rebuilt, or ``s`` itself; ``reverse`` as for
    :func:`_rebuilt`), or None.  Only the
    steps the search evaluates them on count (the action constraint inside the state constraint; step
    properties also inside the action constraint, and not stuttering), and a step on which one fails is left
    to the search, which reports it in its order."""
    predicates = [(f"property {p.name}", p.fn) for p in model.step_properties]
    constraint = model.spec.action_constraint
    if constraint is None and not predicates:
        return None
    for _ai, _b, t in model.successors(s):
        try:
            if not model.in_model(t):
                continue
            checked = [("action_constraint", constraint)] if constraint is not None else []
            if t != s and (constraint is None or model.action_allowed(s, t)):
                checked += predicates
        except SpecRuntimeError:
            continue
        t_twin = _rebuilt(t, reverse)
        for what, fn in checked:
            try:
                verdict = model._holds(what, fn, model.c, s, t)
                if twin is not s and model._holds(what, fn, model.c, twin, t) != verdict:
                    return what
                if _iterates_otherwise(t) and model._holds(what, fn, model.c, s, t_twin) != verdict:
                    return what
            except SpecRuntimeError:
                continue
    return None


def _order_error(model: BoundModel, where: str) -> None:
    raise SpecRuntimeError(
        f"spec {model.spec.name}: {where} depends on the order in which a frozenset iterates (equal "
        "states built in another order give another answer); iterate over sorted values",
        spec=model.spec.name,
        where=where,
    )


def check_record_equality(model: BoundModel, states: list[State]) -> None:
    """Raise if a state's record class defines its own ``__eq__``, ``__ne__`` or ``__hash__``.

    The checker fingerprints a state by its value (the hash of its parts), as
    TLC does, so a class whose own equality or hash leaves out some fields
    would have states merged or told apart against the spec's meaning.  A
    spec that means to fingerprint part of a state declares it as a view.
    """
    for cls in record_classes(states):
        for klass in cls.__mro__:
            if klass in (tuple, object) or klass.__module__ == "typing":
                continue
            if klass.__module__ == "builtins":
                raise StateError(
                    f"spec {model.spec.name}: the state holds a value of class {cls.__qualname__}, a subclass of "
                    f"{klass.__name__}; a state holds plain values (ints, strs, tuples, NamedTuples, frozensets), "
                    "whose equality and fingerprint are the values'", spec=model.spec.name, where=cls.__qualname__)
            own = [m for m in ("__eq__", "__ne__", "__hash__") if m in vars(klass)]
            if own:
                named = cls.__qualname__ if klass is cls else f"{cls.__qualname__} (through {klass.__qualname__})"
                raise StateError(
                    f"spec {model.spec.name}: the state's record class {named} defines {own[0]}; the "
                    "checker fingerprints states by their values, so a record's equality must be the tuple's "
                    "(to fingerprint part of a state, declare a view: Spec(fingerprint_view=...))",
                    spec=model.spec.name, where=f"{cls.__qualname__}.{own[0]}")


class _SameOrder(frozenset):
    """A frozenset of a subclass that iterates as a frozenset does: the control for :class:`_OtherOrder`.

    Named ``frozenset``, so that its ``repr`` is a frozenset's."""

    __slots__ = ()


class _OtherOrder(_SameOrder):
    """A frozenset that iterates in the reverse of its own order: the same value, met in another order.

    Rebuilding a set from its items in another order rarely changes how it
    iterates (a set of strs iterates by hash, which changes from one process
    to the next), so a twin built that way would show an order dependence by
    chance; this one always iterates otherwise (given two items or more).
    """

    __slots__ = ()

    def __iter__(self):  # type: ignore[no-untyped-def]
        return reversed(tuple(frozenset.__iter__(self)))


for _cls in (_SameOrder, _OtherOrder):
    _cls.__name__ = _cls.__qualname__ = "frozenset"


def _rebuilt(v: object, reverse: bool = True) -> object:
    """``v`` with every frozenset in it (of two items or more) made an :class:`_OtherOrder` (``reverse``) or,
    for the control, a :class:`_SameOrder`."""
    t = type(v)
    if t is frozenset:
        items = [_rebuilt(x, reverse) for x in v]
        return (_OtherOrder if reverse else _SameOrder)(items) if len(items) > 1 else frozenset(items)
    if isinstance(v, tuple):
        items = [_rebuilt(x, reverse) for x in v]
        return tuple(items) if t is tuple else t(*items)
    return v


def _iterates_otherwise(v: object) -> bool:
    """Whether ``v`` holds a frozenset of two items or more (which its twin iterates in the other order)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if type(x) is frozenset:
            if len(x) > 1:
                return True
            stack.extend(x)
        elif isinstance(x, tuple):
            stack.extend(x)
    return False


def check_constant_order_independence(model: BoundModel, states: list[State]) -> None:
    """Raise if an action, an invariant or the state constraint answers otherwise when a set-valued constant
    iterates in another order.

    A constant such as TLA+'s ``RM = {r1, r2, r3}`` is naturally a frozenset
    of strs, and Python iterates one in an order that follows string hashing,
    which changes from one process to the next: a spec that loops over it
    unsorted and stops at the first match has no one answer (two runs, or a
    run and its trace's replay, can disagree).  Each sampled state is
    evaluated again with every set-valued constant iterating in the other
    order, and the answers must agree (unless a control, the constants' sets
    of the same subclass in their own order, changes them too: then the spec
    tells the subclass apart, as ``type(x) is frozenset`` does).
    """
    c = model.c
    if not attrs.has(type(c)):
        return
    names = sorted(f.name for f in attrs.fields(type(c)) if _iterates_otherwise(getattr(c, f.name)))
    if not names:
        return
    twin, control = copy.copy(c), copy.copy(c)  # not attrs.evolve: a converter would make the sets plain again
    for name in names:
        object.__setattr__(twin, name, _rebuilt(getattr(c, name), True))
        object.__setattr__(control, name, _rebuilt(getattr(c, name), False))
    checks = [(f"invariant {p.name}" if p.kind == "always" else f"property {p.name}", p.fn)
              for p in (*model.invariants, *model.sometimes)]
    if model.spec.state_constraint is not None:
        checks.append(("state_constraint", model.spec.state_constraint))

    def differs(s: State, other: Any) -> str | None:
        for ai, a in enumerate(model.actions):
            for b in model.bindings[ai]:
                label = f"action {a.label(b)}"
                if model._call(label, a.fn, c, s, *b) != model._call(label, a.fn, other, s, *b):
                    return label
        for what, fn in checks:
            if model._holds(what, fn, c, s) != model._holds(what, fn, other, s):
                return what
        return None

    for s in states:
        try:
            where = differs(s, twin)
            if where is not None and differs(s, control) is not None:
                where = None  # the spec tells the subclass from a frozenset (a TypeOK): not an order
        except SpecRuntimeError:
            continue  # the search reports it, with its trace
        if where is not None:
            raise SpecRuntimeError(
                f"spec {model.spec.name}: {where} depends on the order in which the constant "
                f"{', '.join(names)} iterates (a set of strs iterates in another order in each process); "
                "iterate over sorted values",
                spec=model.spec.name,
                where=where,
            )


def symmetry_warnings(model: BoundModel, states: list[State]) -> list[str]:
    """Warn about checked invariants whose value changes under a replica permutation.

    With ``--symmetry`` only one state per orbit is checked; an invariant that
    is not symmetric could then pass on the representative and fail on a
    permuted copy, so the result would be unsound.
    """
    if model.permutations is None or model.spec.symmetry is None:
        return []
    permute = model.spec.symmetry.permute
    warnings = []
    for inv in model.invariants + model.sometimes:
        where = f"invariant {inv.name}" if inv.kind == "always" else f"property {inv.name}"
        for s in states:
            try:
                value = model._holds(where, inv.fn, model.c, s)
            except SpecRuntimeError:
                break  # the search reports it, with its trace
            if any(model._holds(where, inv.fn, model.c, model._call("symmetry", permute, model.c, s, p)) != value
                   for p in model.permutations[1:]):
                warnings.append(
                    f"--symmetry is unsound for {inv.name}: its value changes when replicas are permuted"
                )
                break
    return warnings


def check_signature(model: BoundModel, states: list[State]) -> None:
    """Raise if the symmetry's signature is not carried along by its permutation.

    A signature that mentions another value's index (or ignores the renaming)
    would make the sorted-permutation fingerprint of one orbit differ between
    its states: the search would count an orbit several times, silently.
    """
    sym = model.spec.symmetry
    if model.permutations is None or sym is None or sym.signature is None:
        return
    for s in states:
        bad = model._call("symmetry", signature_mismatch, model.c, sym.permute, sym.signature, model.permutations, s)
        if bad is not None:
            perm, value = bad
            raise SpecRuntimeError(
                f"spec {model.spec.name}: the symmetry signature of value {value} changes under the "
                f"permutation {perm} (it must describe the value itself, never another value's index); "
                "--symmetry would be unsound",
                spec=model.spec.name,
                where="symmetry signature",
            )


def preflight(model: BoundModel) -> list[str]:
    """Run every sample check; raise on errors, return warnings.

    A ``MemoryError`` raised by spec code on the sample walk is the spec's
    error, reported here (naming the function), not left to the search,
    which would take a bare one for the machine running out of memory.
    """
    with memory_errors_are_the_specs():
        states = sample_states(model)
    check_determinism(model, states)
    check_record_equality(model, states)
    check_order_independence(model, states)
    check_constant_order_independence(model, states)
    check_signature(model, states)
    return symmetry_warnings(model, states)
