"""A spec bound to its constants and options: the one object engines explore.

Engines (local BFS, worker processes, Spark executors, random simulation) all
need the same few operations: the initial states, the successors of a state
with the action that produced each, fingerprints, invariants and constraints.
:class:`BoundModel` provides them once, with every call into spec code wrapped
so that an exception inside a spec (any exception: ``SystemExit`` too)
becomes a :class:`SpecRuntimeError` naming the spec, the function and the
spec's line, and so that a result of the wrong kind (an invariant returning a
generator, an action returning a bool) stops the check instead of making it
silently wrong (:mod:`modelcheck.model.validate`).  It holds no run state, so
two checks can run in one process, and it can be rebuilt on another machine
from (spec reference, constants dict, options).
"""

# modelcheck: compile

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from modelcheck.errors import SpecResultError, SpecRuntimeError, UsageError
from modelcheck.model.blame import call_spec, passes_through, spec_error
from modelcheck.model.expander import Expansion, compile_expander, loop_expander
from modelcheck.model.fingerprint import check_canonical, fingerprint
from modelcheck.spec.opened import recording
from modelcheck.model.validate import as_bool, init_states, predicate_error
from modelcheck.options import CheckOptions
from modelcheck.model.trace import TraceStep
from modelcheck.spec.declare import Action, Predicate, Spec, State
from modelcheck.spec.temporal import FORMULAS, Formula, TemporalProperty, predicates_of
from modelcheck.model.symmetry import min_over_all, min_over_sorted


MAX_PREDICATES = 62
"""State predicates of the liveness properties checked together: each is one bit of a state's int64 mask."""


def _spec_orbit(canonical_fp: Callable[[State, int], int], spec_name: str) -> Callable[[State, int], int]:
    """``canonical_fp(s, h)``, where what the spec's ``permute`` and ``signature`` raise is the spec's error
    (a state that cannot be fingerprinted still raises TypeError, which the engines look for)."""

    def orbit(s: State, h: int) -> int:
        try:
            return canonical_fp(s, h)
        except BaseException as exc:  # noqa: BLE001 - permute and signature are spec code
            if passes_through(exc):
                raise
            raise spec_error(spec_name, "symmetry", exc) from exc

    return orbit


def _state_returning(permute: Callable) -> Callable:
    """The spec's ``permute``, refusing ``None`` (a branch that forgot to return): its fingerprint would stand
    for the orbit, and the run would count orbits wrongly without a word.  A value of another shape stays the
    spec's to answer for, as any value its functions return (a plain tuple equal to the state is that state)."""

    def checked(c: Any, s: State, p: tuple[int, ...]) -> State:
        out = permute(c, s, p)
        if out is None:
            raise TypeError(f"permute returned None, not a state of type {type(s).__name__}")
        return out

    return checked


def _cached(orbit: Callable[[State, int], int], limit: int = 200_000) -> Callable[[State], int]:
    """Memoise an orbit fingerprint by the state's own fingerprint (bounded; cleared when full).

    With symmetry every successor costs a signature per value, a permuted copy
    and its hash, yet the same concrete state is generated again and again
    (TLC's "states generated" is several times the distinct count).  The cache
    is keyed by the state's fingerprint, which the orbit fingerprint reuses when
    the state is already in sorted order: a lookup costs one fingerprint of the
    state and no comparison of states.  Two states with one fingerprint would
    share an entry, the same (negligible) risk as two states sharing a
    fingerprint in the visited set.  It holds the current neighbourhood only:
    it is emptied when it reaches ``limit``.
    """
    cache: dict[int, int] = {}

    def fp(s: State) -> int:
        h = fingerprint(s)
        got = cache.get(h)
        if got is None:
            if len(cache) >= limit:
                cache.clear()
            got = cache[h] = orbit(s, h)
        return got

    return fp


def view_refusal(spec_name: str, options: CheckOptions) -> str | None:
    """Why a check of a spec whose VIEW is in force cannot run with these options (one line), or None.

    A view makes states with one view one state; these options would need
    more than the view's fingerprint, which they do not have yet:
    ``--symmetry`` (the orbit of the view, not of the state), liveness and
    step properties (a step that changes only what the view leaves out
    would look like stuttering; TLC's VIEW is unsound for liveness too).
    Checkpoints need nothing more: they keep the frontier's states (the
    ones the search kept, each standing for its view) and the views'
    fingerprints, and a resume recomputes a sample of those with the view.
    """
    what = ("--symmetry" if options.symmetry
            else "--property" if options.properties
            else None)
    if what is None:
        return None
    return (f"{what} cannot be used with spec {spec_name}'s VIEW (fingerprint_view) yet; "
            "check without it, or with the spec's VIEW turned off if its constants allow that")


def _viewed(view: Callable[[Any, State], Any], consts: Any, spec_name: str) -> Callable[[State], Any]:
    """``view(s)`` for these constants; anything it raises is the spec's error, naming ``fingerprint_view``."""

    def v(s: State) -> Any:
        try:
            return view(consts, s)
        except BaseException as exc:  # noqa: BLE001 - spec code
            if passes_through(exc):
                raise
            raise spec_error(spec_name, "fingerprint_view", exc, view) from exc

    return v


def _view_fingerprint(view: Callable[[State], Any]) -> Callable[[State], int]:
    """The fingerprint of a state under a VIEW: the fingerprint of its view (canonical, as a state is)."""

    def fp(s: State) -> int:
        return fingerprint(view(s))

    return fp


class BoundModel:
    """A spec with fixed constants and options."""

    def __init__(self, spec: Spec, consts: Any, options: CheckOptions) -> None:
        with recording() as opened:
            self._bind(spec, consts, options)
        self.opened_files: frozenset[str] = frozenset(opened)
        """The files spec code opened for reading while binding (data files: part of a checkpoint's identity)."""

    def _bind(self, spec: Spec, consts: Any, options: CheckOptions) -> None:
        self.spec = spec
        self.c = consts
        self.options = options
        names = options.invariants if options.invariants is not None else spec.default_invariants
        self.invariants: tuple[Predicate, ...] = tuple(spec.invariant(n) for n in names)
        self.sometimes: tuple[Predicate, ...] = spec.sometimes
        self.actions: tuple[Action, ...] = spec.actions
        # Parameter combinations are computed once per run: the hot loop then
        # only iterates over prepared tuples.
        self.bindings: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(self._call(f"parameter domains of {a.name}", a.bindings, consts)) for a in spec.actions
        )
        self.check_deadlock = (
            options.check_deadlock if options.check_deadlock is not None else not spec.deadlock_expected
        )
        self.permutations: list[tuple[int, ...]] | None = None
        self.fingerprint: Callable[[State], int] = fingerprint
        self.orbit_fingerprint: Callable[[State, int], int] | None = None
        """With ``--symmetry``: ``(s, fingerprint(s)) ->`` the fingerprint of ``s``'s orbit (what
        :attr:`fingerprint` gives, without its cache: for a caller that has the state's own fingerprint)."""
        if options.symmetry and spec.symmetry is not None:
            sym = spec.symmetry
            self.permutations = self._call("symmetry", sym.permutations, consts)
            permute = _state_returning(sym.permute)
            if sym.signature is not None:
                orbit_fp = min_over_sorted(consts, permute, sym.signature, len(self.permutations[0]))
            else:
                orbit_fp = min_over_all(consts, permute, self.permutations)
            self.orbit_fingerprint = _spec_orbit(orbit_fp, spec.name)
            self.fingerprint = _cached(self.orbit_fingerprint)
        self.view: Callable[[State], Any] | None = None
        """TLC's VIEW in force for this run (the spec's ``fingerprint_view`` over these constants), or None."""
        if spec.fingerprint_view is not None and (spec.fingerprint_view_when is None or self._holds(
                "fingerprint_view_when", spec.fingerprint_view_when, consts)):
            refused = view_refusal(spec.name, options)
            if refused:
                raise UsageError(refused)
            self.view = _viewed(spec.fingerprint_view, consts, spec.name)
            self.fingerprint = _view_fingerprint(self.view)
        self.state_type: type = type(self.init_states()[0])
        """The type of every state: an action's result of another type is refused (modelcheck.model.validate)."""
        # The successor function in two forms (see modelcheck.model.expander): a list of
        # (action, binding, result), and the compiled one that fills two columns.
        self.expand: Callable[[State], Expansion] = loop_expander(
            spec.name, self.actions, self.bindings, consts, state_type=self.state_type)
        self.expand_into: Callable[[State, list, list], None] = compile_expander(
            spec.name, self.actions, self.bindings, consts, state_type=self.state_type)
        # Temporal properties: every (action, binding) pair has a label, in the spec's order (a fairness
        # condition over one instance of an action is a set of one label; over the action, all of its).
        self.label_action: tuple[int, ...] = tuple(ai for ai, bs in enumerate(self.bindings) for _ in bs)
        self.label_binding: tuple[tuple[int, ...], ...] = tuple(b for bs in self.bindings for b in bs)
        self.step_properties = tuple(spec.property(n) for n in options.properties
                                     if spec.property(n).kind == "step")
        self.liveness_properties = tuple(spec.property(n) for n in options.properties
                                         if spec.property(n).kind == "liveness")
        self._expand_labelled: Callable[[State, list, list], None] | None = None
        self.formulas: tuple[Formula, ...] = tuple(self._formula(p) for p in self.liveness_properties)
        """Each liveness property's formula for these constants."""
        preds: list[Callable] = []
        owners: list[str] = []
        for p, f in zip(self.liveness_properties, self.formulas):
            for q in predicates_of(f):
                if not any(q is r for r in preds):
                    preds.append(q)
                    owners.append(p.name)
        if len(preds) > MAX_PREDICATES:
            raise SpecRuntimeError(
                f"spec {spec.name}: the liveness properties checked together use {len(preds)} distinct state "
                f"predicates, more than {MAX_PREDICATES}; check fewer properties at a time",
                spec=spec.name, where="properties")
        self.temporal_predicates: tuple[Callable, ...] = tuple(preds)
        """The distinct state predicates of the checked liveness properties: bit k of a state's mask is the k-th."""
        self._predicate_owner = tuple(owners)

    @property
    def expand_labelled_into(self) -> Callable[[State, list, list], None]:
        """``expand_into`` that appends each successor's label (action and binding) instead of its action."""
        if self._expand_labelled is None:
            self._expand_labelled = compile_expander(self.spec.name, self.actions, self.bindings, self.c,
                                                     labels=True, state_type=self.state_type)
        return self._expand_labelled

    def fairness_classes(self) -> list[tuple[str, str, tuple[int, ...]]]:
        """The fairness in force as (``weak``/``strong``, description, labels) conditions.

        A condition over several actions is one condition over the union of their labels: the
        liveness search (:mod:`modelcheck.search.liveness`) counts a state as enabling it when a
        non-stuttering step with any of those labels leaves it, and a step as taking it when its
        label is one of them, which is exactly ``WF_vars(A \\/ B)`` (or ``SF``).  With the run's
        ``fairness="none"`` there are none.
        """
        if self.options.fairness == "none":
            return []
        out = []
        for f, ais in self.spec.fairness_actions:
            labels = tuple(k for k, a in enumerate(self.label_action) if a in ais)
            if f.each:  # a single action (weak/strong refuse each=True with several)
                kind = "WF" if f.kind == "weak" else "SF"
                for k in labels:
                    out.append((f.kind, f"{kind}_vars({self.label_text(k)})", (k,)))
            else:
                out.append((f.kind, f.describe(*(self.actions[ai].name for ai in ais)), labels))
        return out

    def _formula(self, p: TemporalProperty) -> Formula:
        f = call_spec(self.spec.name, f"property {p.name}", p.fn, self.c)
        if not isinstance(f, FORMULAS):
            raise SpecResultError(
                f"spec {self.spec.name}: property {p.name} returned {type(f).__name__}, not a temporal formula "
                "(eventually, always_eventually, eventually_always, leads_to, all_of, any_of)",
                spec=self.spec.name, where=f"property {p.name}")
        try:
            predicates_of(f)
        except TypeError as exc:
            raise SpecResultError(f"spec {self.spec.name}: property {p.name}: {exc}", spec=self.spec.name,
                                  where=f"property {p.name}") from None
        return f

    def state_mask(self) -> Callable[[State], int]:
        """``mask(s)``: the bits of the liveness predicates that hold on ``s`` (a closure, for the per-state loop)."""
        preds = self.temporal_predicates
        c = self.c

        def mask(s: State) -> int:
            m = 0
            bit = 1
            k = 0
            try:
                for k, p in enumerate(preds):
                    r = p(c, s)
                    if r is True:
                        m |= bit
                    elif r is not False:
                        value = as_bool(r)
                        if value is None:
                            raise predicate_error(self.spec.name, self._predicate_where(k), p, r)
                        if value:
                            m |= bit
                    bit <<= 1
            except SpecRuntimeError:
                raise
            except BaseException as exc:  # noqa: BLE001 - any spec bug becomes a clear error
                if passes_through(exc):
                    raise
                raise spec_error(self.spec.name, self._predicate_where(k), exc, preds[k]) from exc
            return m

        return mask

    def _predicate_where(self, k: int) -> str:
        return f"property {self._predicate_owner[k]}"

    def failed_steps(self, s: State, t: State) -> list[TemporalProperty]:
        """The checked step properties that the step ``s -> t`` violates."""
        return [p for p in self.step_properties if not self._holds(f"property {p.name}", p.fn, self.c, s, t)]

    def step_violations(self, s: State, s_fp: int, successors: Iterable[tuple[int, State | None, int]],
                        reported: set) -> list[tuple[int, tuple[str, ...]]]:
        """The steps of ``s`` that first violate a step property not yet ``reported``, for every backend.

        ``successors`` gives (index among ``s``'s successors, the successor or
        None outside the model, its fingerprint), in order.  Stuttering steps
        are not checked (``[P]_vars`` allows them).  Each property is
        reported once: ``reported`` is updated.  A spec error raises.
        """
        found = []
        for j, t, fp in successors:
            if t is None or fp == s_fp:
                continue
            names = tuple(p.name for p in self.failed_steps(s, t) if p.name not in reported)
            if names:
                found.append((j, names))
                reported.update(names)
        return found

    def label_of(self) -> dict[tuple[int, tuple[Any, ...]], int]:
        """(action index, binding) -> label, for engines that expand with :meth:`expand`."""
        return {(a, b): k for k, (a, b) in enumerate(zip(self.label_action, self.label_binding))}

    def label_text(self, label: int) -> str:
        """An action instance's name with its parameters, e.g. ``BecomeLeader(r1)``."""
        return self.actions[self.label_action[label]].label(self.label_binding[label])

    # -- calls into spec code, each wrapped so failures name their origin ----

    def _call(self, where: str, fn: Callable, *args: Any) -> Any:
        return call_spec(self.spec.name, where, fn, *args)

    def _holds(self, where: str, fn: Callable, *args: Any) -> bool:
        """``fn(*args)``, a spec predicate, as a bool; anything but a bool (or an exception) is the spec's error."""
        r = call_spec(self.spec.name, where, fn, *args)
        if r is True or r is False:
            return r
        value = as_bool(r)
        if value is None:
            raise predicate_error(self.spec.name, where, fn, r)
        return value

    def init_states(self) -> list[State]:
        """The initial states, checked to be canonical and of one type (duplicates kept, as TLC counts them)."""
        init = self.spec.init
        try:  # a generator's body runs inside init_states, so it is inside the wrapper too
            states = init_states(self.spec.name, init, init(self.c))
        except SpecRuntimeError:
            raise
        except BaseException as exc:  # noqa: BLE001 - anything spec code raises is the spec's error
            if passes_through(exc):
                raise
            raise spec_error(self.spec.name, "init", exc, init) from exc
        if not states:
            raise SpecRuntimeError(
                f"spec {self.spec.name}: init produced no states", spec=self.spec.name, where="init"
            )
        for s in states:
            self.check_state(s, "init")
        return states

    def check_state(self, s: State, where: str) -> None:
        """Refuse a state that cannot be fingerprinted (see modelcheck.model.fingerprint) with a clear error."""
        check_canonical(s, spec=self.spec.name, where=where)
        if self.view is not None:  # what is fingerprinted must be canonical, as a state is
            check_canonical(self.view(s), spec=self.spec.name, where=f"fingerprint_view of a state from {where}")

    def first_bad_state(self, states: list, action_indices: list[int]) -> tuple[int, SpecRuntimeError]:
        """The position of the first state in ``states`` that cannot be fingerprinted, and its error.

        For an engine whose batch fingerprinting raised: an unhashable or
        non-canonical state (the error names the action that produced it,
        ``action_indices`` being parallel to ``states``) or one the
        symmetry's spec code fails on.  The position tells which parent to
        stop at.
        """
        for k, t in enumerate(states):
            if t is None:  # a candidate outside the model: never fingerprinted
                continue
            try:
                self.check_state(t, f"action {self.actions[action_indices[k]].name}")
                self.fingerprint(t)
            except SpecRuntimeError as err:
                return k, err
        raise AssertionError("fingerprinting raised, yet every successor can be fingerprinted")

    def successors(self, s: State) -> Iterator[tuple[int, tuple[int, ...], State]]:
        """Every successor of ``s`` as (action index, binding, state), in the spec's order.

        A ``list`` returned by an action counts each element as one generated
        successor (TLC counts once per satisfied disjunct).
        """
        for ai, b, r in self.expand(s):
            if type(r) is list:
                for t in r:
                    yield ai, b, t
            else:
                yield ai, b, r

    def invariants_test(self) -> Callable[[State], bool]:
        """``holds(s)``: whether every checked invariant holds on ``s``, the engines' per-state test.

        False as well when one raises; :meth:`failed_invariants` then names the
        invariants that fail, or raises the error naming the one that raised
        (invariants are pure, so it raises the same way).  A closure over the
        functions and constants, so that the common case (all hold) costs one
        call besides the invariants: a method reading them from the instance
        cost about 400 instructions a state (callgrind).
        """
        fns = tuple(inv.fn for inv in self.invariants)
        c = self.c

        def holds(s: State) -> bool:
            try:
                for fn in fns:
                    if fn(c, s) is not True:
                        return False
            except BaseException as exc:  # noqa: BLE001 - named by failed_invariants
                if passes_through(exc):
                    raise
                return False
            return True

        return holds

    def failed_invariants(self, s: State) -> list[Predicate]:
        """Every checked invariant that ``s`` violates.

        Called on every state :meth:`invariants_test` did not pass, so the
        common case (all hold) makes no per-call wrapper; a raising invariant
        is still named in the error, and one that returns anything but a bool
        (:mod:`modelcheck.model.validate`) too.
        """
        c = self.c
        inv = None
        failed = None
        try:
            for inv in self.invariants:
                r = inv.fn(c, s)
                if r is not True:
                    if r is not False:
                        value = as_bool(r)
                        if value is None:
                            raise predicate_error(self.spec.name, f"invariant {inv.name}", inv.fn, r)
                        if value:
                            continue
                    if failed is None:
                        failed = []
                    failed.append(inv)
        except SpecRuntimeError:
            raise
        except BaseException as exc:  # noqa: BLE001 - any spec bug becomes a clear error
            if passes_through(exc):
                raise
            raise spec_error(self.spec.name, f"invariant {inv.name}", exc, inv.fn) from exc
        return failed or []

    def property_holds(self, p: Predicate, s: State) -> bool:
        """Whether the ``sometimes`` property ``p`` holds on ``s`` (a bool, or the spec's error)."""
        return self._holds(f"property {p.name}", p.fn, self.c, s)

    def in_model(self, s: State) -> bool:
        """TLC's CONSTRAINT: states outside it are neither stored nor explored."""
        sc = self.spec.state_constraint
        return True if sc is None else self._holds("state_constraint", sc, self.c, s)

    def action_allowed(self, s: State, t: State) -> bool:
        """TLC's ACTION_CONSTRAINT on one transition."""
        ac = self.spec.action_constraint
        return True if ac is None else self._holds("action_constraint", ac, self.c, s, t)

    def step(self, ai: int, binding: tuple[int, ...], t: State) -> TraceStep:
        """A trace step for a successor produced by action ``ai`` with ``binding``."""
        act = self.actions[ai]
        return TraceStep(act.label(binding), act.name, act.label_params(binding), t)
