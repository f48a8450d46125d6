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

from collections import deque

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
    """Raise if a state's answers change when its frozensets are built in another order.

    Equal frozensets can iterate in different orders (the order follows how
    each was built), and the checker treats equal states as one: which of
    them it expands depends on the engine (the first met; another process's
    copy; the memo tables' value).  A spec whose successors or invariants
    follow the order (``next(iter(s))``, ``tuple(s)``, a float sum, a loop
    that returns at the first match) has no one answer, so each sampled
    state is expanded again with every frozenset in it rebuilt in reverse
    order, and the two must agree; so must the action constraint and each
    step property on a step from it, with either of the step's states
    rebuilt, and with ``--symmetry`` the state's orbit fingerprint (the
    symmetry's ``signature`` and ``permute`` read the state too).
    """
    for s in states:
        twin = _rebuilt(s)
        if not _iterates_otherwise(s, twin):
            where = _step_order_dependence(model, s, s)
            if where is not None:
                _order_error(model, where)
            continue
        if model.orbit_fingerprint is not None and model.view is None:
            h = fingerprint(s)
            try:
                moved = model.orbit_fingerprint(s, h) != model.orbit_fingerprint(twin, h)
            except SpecRuntimeError:
                moved = False  # the search reports it, with its trace
            if moved:
                _order_error(model, "the symmetry's signature or permute")
        first = [(ai, b, t) for ai, b, t in model.successors(s)]
        second = [(ai, b, t) for ai, b, t in model.successors(twin)]
        where = None
        for x, y in zip(first + [None] * len(second), second + [None] * len(first)):
            if x != y:
                ref = x or y
                where = f"action {model.actions[ref[0]].label(ref[1])}"
                break
        if where is None:
            for inv in model.invariants + model.sometimes:
                what = f"invariant {inv.name}" if inv.kind == "always" else f"property {inv.name}"
                if model._holds(what, inv.fn, model.c, s) != model._holds(what, inv.fn, model.c, twin):
                    where = what
                    break
        if where is None:
            where = _step_order_dependence(model, s, twin)
        if where is not None:
            _order_error(model, where)


def _step_order_dependence(model: BoundModel, s: State, twin: State) -> str | None:
    """The action constraint or the first step property whose verdict on a step of ``s`` changes when the
    step's states are built in another order (``twin`` is ``s`` rebuilt, or ``s`` itself), or None.  Only the
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
        t_twin = _rebuilt(t)
        for what, fn in checked:
            try:
                verdict = model._holds(what, fn, model.c, s, t)
                if twin is not s and model._holds(what, fn, model.c, twin, t) != verdict:
                    return what
                if _iterates_otherwise(t, t_twin) and model._holds(what, fn, model.c, s, t_twin) != verdict:
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
            own = [m for m in ("__eq__", "__ne__", "__hash__") if m in vars(klass)]
            if own:
                raise StateError(
                    f"spec {model.spec.name}: the state's record class {cls.__qualname__} defines {own[0]}; the "
                    "checker fingerprints states by their values, so a record's equality must be the tuple's "
                    "(to fingerprint part of a state, declare a view: Spec(fingerprint_view=...))",
                    spec=model.spec.name, where=f"{cls.__qualname__}.{own[0]}")


def _rebuilt(v: object) -> object:
    """``v`` with every frozenset in it built again from its items in reverse order."""
    t = type(v)
    if t is frozenset:
        return frozenset(reversed([_rebuilt(x) for x in v]))
    if isinstance(v, tuple):
        items = [_rebuilt(x) for x in v]
        return tuple(items) if t is tuple else t(*items)
    return v


def _orders(v: object) -> list:
    """The items of every frozenset in ``v``, in the order each iterates (depth first)."""
    out: list = []
    stack = [v]
    while stack:
        x = stack.pop()
        if type(x) is frozenset:
            out.append(tuple(x))
            stack.extend(x)
        elif isinstance(x, tuple):
            stack.extend(x)
    return out


def _iterates_otherwise(a: object, b: object) -> bool:
    return _orders(a) != _orders(b)


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
    check_signature(model, states)
    return symmetry_warnings(model, states)
