"""A token ring with work counters: liveness and step properties on a spec with parameters and constraints.

Used by tests/test_liveness_workers.py to compare ``--workers N`` with one
process.  It is built by a function so that a test can choose the fairness
and whether the state and action constraints apply (with them, the engines
expand with the plain loop and filter each successor; without, with the
compiled, labelled expander).  It has what the toy specs of fair_toys.py do
not: actions with parameters, an action returning several successors (a
list), a stuttering action, and steps that leave the model.

The node holding the token may work (its counter goes up to ``Max``), pass
the token on, or shift it to any other node that has work; any node may drop
a unit of its work; node 0 may touch its state without changing it.
"""

from __future__ import annotations

from typing import NamedTuple

import attrs

from modelcheck import (Domain, Spec, action, all_of, always_eventually, constant, eventually, eventually_always,
                        invariant, leads_to, liveness, step_property)


class R(NamedTuple):
    tok: int
    c: tuple


@attrs.frozen
class RingConsts:
    N: int = constant(3, "nodes", minimum=2, maximum=6)
    Max: int = constant(2, "a node's most work", minimum=1, maximum=9)
    Bound: int = constant(4, "the state constraint: the total work is at most this", minimum=1, maximum=60)


NODE = Domain("node", lambda c: range(c.N))


def _bump(c: tuple, i: int, d: int) -> tuple:
    return c[:i] + (c[i] + d,) + c[i + 1:]


@action("Pass", i=NODE)
def pass_(c, s, i):
    return R((i + 1) % c.N, s.c) if s.tok == i else None


HOOK = None
"""A test may set ``HOOK(c, s)``, called by every Work (tests/test_liveness_workers.py interrupts a level with it)."""


@action("Work", i=NODE)
def work(c, s, i):
    if HOOK is not None:
        HOOK(c, s)
    return R(s.tok, _bump(s.c, i, 1)) if s.tok == i and s.c[i] < c.Max else None


@action("Drop", i=NODE)
def drop(c, s, i):
    return R(s.tok, _bump(s.c, i, -1)) if s.c[i] > 0 else None


@action("Shift")
def shift(c, s):
    return [R(j, s.c) for j in range(s.tok + 1, c.N) if s.c[j] > 0] or None


@action("Touch")
def touch(c, s):
    return s if s.tok == 0 else None  # a stuttering step


@invariant("LittleWork", "the total work stays below 3")
def little_work(c, s):
    return sum(s.c) < 3


@liveness("TokenReturns", "a token away from node 0 comes back to it")
def token_returns(c):
    return leads_to(lambda c, s: s.tok != 0, lambda c, s: s.tok == 0)


@liveness("WorkDrains", "work, once there, is all dropped later")
def work_drains(c):
    return leads_to(lambda c, s: sum(s.c) > 0, lambda c, s: sum(s.c) == 0)


@liveness("EveryNodePasses", "a node holding the token hands it to the next one later (a conjunction)")
def every_node_passes(c):
    return all_of(leads_to(lambda c, s, i=i: s.tok == i, lambda c, s, i=i: s.tok == (i + 1) % c.N)
                  for i in range(c.N))


@liveness("ZeroHoldsOften", "node 0 holds the token again and again")
def zero_holds_often(c):
    return always_eventually(lambda c, s: s.tok == 0)


@liveness("QuietForever", "from some point on, there is no work")
def quiet_forever(c):
    return eventually_always(lambda c, s: sum(s.c) == 0)


@step_property("MovesByOne", "no counter moves by more than one in a step")
def moves_by_one(c, s, t):
    return all(abs(a - b) <= 1 for a, b in zip(s.c, t.c))


@step_property("LeavesOnlyIdle", "the token leaves a node only when it has no work")
def leaves_only_idle(c, s, t):
    return t.tok == s.tok or s.c[s.tok] == 0


@step_property("NoSkipping", "the token moves to the next node only")
def no_skipping(c, s, t):
    return t.tok == s.tok or t.tok == (s.tok + 1) % c.N


@liveness("Fragile", "fails on a state with total work 3 (a spec error in a predicate)")
def fragile(c):
    return eventually(lambda c, s: 1 // (3 - sum(s.c)) < 0)


@step_property("FragileStep", "fails on a step from total work 2 to 3 (a spec error in a step property)")
def fragile_step(c, s, t):
    return s.c[s.tok] // (3 - sum(t.c)) >= 0 if sum(s.c) == 2 else True


def _in_bound(c, s):
    return sum(s.c) <= c.Bound


def _no_full_return(c, s, t):
    return not (t.tok == 0 and s.tok != 0 and sum(t.c) == c.Bound)


def ring(fairness=(), constrained: bool = True) -> Spec:
    return Spec(name="token_ring", title="A token ring with work counters", constants=RingConsts,
                init=lambda c: [R(0, (0,) * c.N)], actions=[pass_, work, drop, shift, touch],
                invariants=[little_work], default_invariants=[],
                state_constraint=_in_bound if constrained else None,
                action_constraint=_no_full_return if constrained else None,
                properties=[token_returns, work_drains, every_node_passes, zero_holds_often, quiet_forever,
                            moves_by_one, leaves_only_idle, no_skipping, fragile, fragile_step],
                fairness=[f(a) for f, a in fairness])
