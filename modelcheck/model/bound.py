"""A spec bound to its constants and options: the one object engines explore.

Engines (local BFS, worker processes, Spark executors, random simulation) all
need the same few operations: the initial states, the successors of a state
with the action that produced each, fingerprints, invariants and constraints.
:class:`BoundModel` provides them once, with every call into spec code wrapped
so that an exception inside a spec becomes a :class:`SpecRuntimeError` naming
the spec and the function.  It holds no run state, so two checks can run in one
process, and it can be rebuilt on another machine from (spec reference,
constants dict, options).
"""

# modelcheck: compile

from __future__ import annotations

from typing import Any, Callable, Iterator

from modelcheck.errors import SpecRuntimeError, StateError
from modelcheck.model.expander import Expansion, compile_expander, loop_expander
from modelcheck.model.fingerprint import check_canonical
from modelcheck.options import CheckOptions
from modelcheck.output.results import TraceStep
from modelcheck.spec.declare import Action, Predicate, Spec, State
from modelcheck.model.symmetry import min_over_all, min_over_sorted


def _cached(canonical_fp: Callable[[State, int], int], limit: int = 200_000) -> Callable[[State], int]:
    """Memoise an orbit fingerprint by the state's own fingerprint (bounded; cleared when full).

    With symmetry every successor costs a signature per value, a permuted copy
    and its hash, yet the same concrete state is generated again and again
    (TLC's "states generated" is several times the distinct count).  The cache
    is keyed by ``hash(s)``, which the orbit fingerprint reuses when the state
    is already in sorted order: a lookup costs one hash of the state and no
    comparison of states.  Two states with one 64-bit hash would share an entry,
    the same (negligible) risk as two states sharing a fingerprint in the
    visited set.  It holds the current neighbourhood only: it is emptied when
    it reaches ``limit``.
    """
    cache: dict[int, int] = {}

    def fp(s: State) -> int:
        h = hash(s)
        got = cache.get(h)
        if got is None:
            if len(cache) >= limit:
                cache.clear()
            got = cache[h] = canonical_fp(s, h)
        return got

    return fp


class BoundModel:
    """A spec with fixed constants and options."""

    def __init__(self, spec: Spec, consts: Any, options: CheckOptions) -> None:
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
        self.fingerprint: Callable[[State], int] = hash
        if options.symmetry and spec.symmetry is not None:
            sym = spec.symmetry
            self.permutations = sym.permutations(consts)
            if sym.signature is not None:
                orbit_fp = min_over_sorted(consts, sym.permute, sym.signature, len(self.permutations[0]))
            else:
                orbit_fp = min_over_all(consts, sym.permute, self.permutations)
            self.fingerprint = _cached(orbit_fp)
        # The successor function in two forms (see modelcheck.model.expander): a list of
        # (action, binding, result), and the compiled one that fills two columns.
        self.expand: Callable[[State], Expansion] = loop_expander(spec.name, self.actions, self.bindings, consts)
        self.expand_into: Callable[[State, list, list], None] = compile_expander(
            spec.name, self.actions, self.bindings, consts)

    # -- calls into spec code, each wrapped so failures name their origin ----

    def _call(self, where: str, fn: Callable, *args: Any) -> Any:
        try:
            return fn(*args)
        except SpecRuntimeError:
            raise
        except Exception as exc:  # noqa: BLE001 - any spec bug becomes a clear error
            raise SpecRuntimeError(
                f"spec {self.spec.name}: {where} raised {type(exc).__name__}: {exc}",
                spec=self.spec.name,
                where=where,
            ) from exc

    def init_states(self) -> list[State]:
        """The initial states, checked to be canonical (duplicates kept, as TLC counts them)."""
        states = self._call("init", lambda: list(self.spec.init(self.c)))
        if not states:
            raise SpecRuntimeError(
                f"spec {self.spec.name}: init produced no states", spec=self.spec.name, where="init"
            )
        for s in states:
            self.check_state(s, "init")
        return states

    def check_state(self, s: State, where: str) -> None:
        """Refuse an unhashable or non-canonical state with a clear error."""
        check_canonical(s, spec=self.spec.name, where=where)
        try:
            hash(s)
        except TypeError as exc:
            raise StateError(
                f"spec {self.spec.name}: {where} produced an unhashable state: {exc}",
                spec=self.spec.name,
                where=where,
            ) from None

    def first_bad_state(self, states: list, action_indices: list[int]) -> tuple[int, SpecRuntimeError]:
        """The position of the first unhashable or non-canonical state in ``states``, and its error.

        For an engine whose batch fingerprinting raised TypeError: the error
        names the action that produced the state (``action_indices``, parallel
        to ``states``), and the position tells which parent to stop at.
        """
        for k, t in enumerate(states):
            try:
                self.check_state(t, f"action {self.actions[action_indices[k]].name}")
            except SpecRuntimeError as err:
                return k, err
        raise AssertionError("fingerprinting raised TypeError, yet every successor is hashable")

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
                    if not fn(c, s):
                        return False
            except Exception:  # noqa: BLE001 - named by failed_invariants
                return False
            return True

        return holds

    def failed_invariants(self, s: State) -> list[Predicate]:
        """Every checked invariant that ``s`` violates.

        Called on every new state, so the common case (all hold) makes no
        per-call wrapper; a raising invariant is still named in the error.
        """
        c = self.c
        inv = None
        try:
            failed = None
            for inv in self.invariants:
                if not inv.fn(c, s):
                    if failed is None:
                        failed = []
                    failed.append(inv)
        except Exception as exc:  # noqa: BLE001 - any spec bug becomes a clear error
            raise SpecRuntimeError(
                f"spec {self.spec.name}: invariant {inv.name} raised {type(exc).__name__}: {exc}",
                spec=self.spec.name,
                where=f"invariant {inv.name}",
            ) from exc
        return failed or []

    def in_model(self, s: State) -> bool:
        """TLC's CONSTRAINT: states outside it are neither stored nor explored."""
        sc = self.spec.state_constraint
        return True if sc is None else bool(self._call("state_constraint", sc, self.c, s))

    def action_allowed(self, s: State, t: State) -> bool:
        """TLC's ACTION_CONSTRAINT on one transition."""
        ac = self.spec.action_constraint
        return True if ac is None else bool(self._call("action_constraint", ac, self.c, s, t))

    def step(self, ai: int, binding: tuple[int, ...], t: State) -> TraceStep:
        """A trace step for a successor produced by action ``ai`` with ``binding``."""
        act = self.actions[ai]
        return TraceStep(act.label(binding), act.name, act.label_params(binding), t)
