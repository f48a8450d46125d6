"""``exists`` and ``either``: TLC's count of states generated (one per witness and per satisfied disjunct).

A counter ``x`` from 0 to 2 whose one action is ``\\E w \\in 0..2 : w >= x /\\ x' = min(x + 1, 2)``, and
whose other is ``(x = 0 /\\ x' = 1) \\/ (x < 2 /\\ x' = x + 1)``.  By hand: from 0 the first gives three
successors (witnesses 0, 1, 2; all the state 1), from 1 two (witnesses 1, 2), from 2 one (witness 2, a
stuttering step); the second gives two from 0 (both disjuncts: the state 1 twice), one from 1 and none
from 2.  So 3 distinct states, 1 + 6 + 3 = 10 generated, depth 3, on every path and by the naive explorer.
"""

from __future__ import annotations

from typing import NamedTuple

import attrs
import pytest

import modelcheck
from modelcheck import Spec, action, constant, either, exists, invariant
from naive import naive_explore


class S(NamedTuple):
    x: int


@attrs.frozen
class C:
    Top: int = constant(2, "the counter's bound", minimum=1, maximum=5)


@action("Witness")
def witness(c: C, s: S):
    return exists(range(c.Top + 1), lambda w: S(min(s.x + 1, c.Top)) if w >= s.x else None)


@action("Disjuncts")
def disjuncts(c: C, s: S):
    return either(S(1) if s.x == 0 else None, S(s.x + 1) if s.x < c.Top else None)


@invariant("InRange")
def in_range(c: C, s: S) -> bool:
    return 0 <= s.x <= c.Top


SPEC = Spec(name="branching-toy", title="exists and either", constants=C, init=lambda c: [S(0)],
            actions=[witness, disjuncts], invariants=[in_range], deadlock_expected=True)


@pytest.mark.parametrize("memo", [None, False])
def test_one_successor_per_witness_and_per_disjunct(memo):
    r = modelcheck.check(SPEC, memo=memo)
    assert (r.distinct_states, r.states_generated, r.depth) == (3, 10, 3)
    assert {a.name: a.generated for a in r.action_stats} == {"Witness": 6, "Disjuncts": 3}
    assert naive_explore(SPEC, C()) == {"distinct": 3, "generated": 10, "depth": 3}


def test_the_helpers_keep_order_and_repeats():
    assert exists([3, 1, 2], lambda w: [w, w] if w != 1 else None) == [3, 3, 2, 2]
    assert either(None, 1, [2, 3], []) == [1, 2, 3]
    assert exists([], lambda w: w) == [] and either() == []
