"""The local engine on small models whose results are known by hand or from the literature."""

from __future__ import annotations

import attrs
import pytest

from modelcheck import Spec, action, constant
from modelcheck.spec.constants import make_constants
from conftest import check
from modelcheck.errors import ConstantError, SpecDefinitionError, SpecRuntimeError, StateError
from modelcheck.spec.loader import load_spec
from modelcheck.options import CheckOptions
from conftest import MODELS


def die_hard():
    return load_spec(str(MODELS / "die_hard.py"))


def tcommit():
    return load_spec(str(MODELS / "tcommit.py"))


def test_die_hard_has_16_states_and_a_7_state_solution():
    """TLC on DieHard.tla: 16 distinct states; the shortest way to 4 gallons takes 6 steps."""
    spec = die_hard()
    c = make_constants(spec.constants_class, {})
    holds = check(spec, c, CheckOptions(invariants=("TypeOk",)))
    assert holds.result == "holds"
    assert holds.distinct_states == 16
    # 6 actions, each always enabled, applied to 16 states, plus the initial state.
    assert holds.states_generated == 16 * 6 + 1
    r = check(spec, c)
    assert r.result == "violated"
    (v,) = r.violations
    assert v.name == "NotSolved" and len(v.trace) == 7
    assert v.trace[-1].state.big == 4
    # Every step of the trace is a real transition of the spec.
    for prev, step in zip(v.trace, v.trace[1:]):
        act = spec.action_named(step.action_name)
        assert act.fn(c, prev.state) == step.state


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_tcommit_state_count_matches_the_formula(n):
    """Reachable TCommit states: 2**n with no decision, 3**n - 2**n with an abort, 2**n - 1 with a commit."""
    spec = tcommit()
    r = check(spec, make_constants(spec.constants_class, {"RM": n}))
    assert r.result == "holds"
    assert r.distinct_states == 3**n + 2**n - 1
    assert r.depth == 2 * n + 1
    assert r.sometimes_reached == {"AllCommitted": True}
    assert not r.warnings


def test_tcommit_symmetry_counts_multisets():
    """Under permutations of managers a state is a multiset of 4 local states, minus unreachable ones."""
    n = 3
    spec = tcommit()
    r = check(spec, make_constants(spec.constants_class, {"RM": n}), CheckOptions(symmetry=True))
    # Orbits: multisets over {working, prepared} (n+1), with >=1 aborted over {w, p, a} (C(n+2,2) - (n+1)),
    # with >=1 committed over {p, c} (n).
    from math import comb

    assert r.distinct_states == (n + 1) + (comb(n + 2, 2) - (n + 1)) + n


def test_max_depth_and_max_states_stop_early():
    spec = tcommit()
    c = make_constants(spec.constants_class, {"RM": 3})
    r = check(spec, c, CheckOptions(max_depth=2))
    assert r.result == "incomplete" and r.stopped_by == "max-depth" and r.depth == 2
    # Level 1 is the initial state; level 2 adds Prepare(rm) and the abort of Decide(rm) for each manager.
    assert r.distinct_states == 1 + 3 + 3
    r = check(spec, c, CheckOptions(max_states=5))
    assert r.result == "incomplete" and r.stopped_by == "max-states"


def test_continue_reports_every_violated_invariant():
    spec = die_hard()
    c = make_constants(spec.constants_class, {"Goal": 4})
    r = check(spec, c, CheckOptions(continue_after_violation=True))
    assert [v.name for v in r.violations] == ["NotSolved"]
    assert r.distinct_states == 16  # it explored everything


# -- deadlock and spec errors, with tiny inline specs ---------------------------------


@attrs.frozen
class Size:
    N: int = constant(3, "how far to count", minimum=0, maximum=1000)


def counter_spec(step_fn, **kw):
    @action("Step")
    def step(c, s):
        return step_fn(c, s)

    return Spec(name="counter", title="counter", constants=Size, init=lambda c: [0], actions=[step], **kw)


def test_deadlock_is_reported_with_its_trace():
    spec = counter_spec(lambda c, s: s + 1 if s < c.N else None)
    r = check(spec, Size())
    assert r.result == "deadlock"
    assert [st.state for st in r.violations[0].trace] == [0, 1, 2, 3]
    assert check(spec, Size(), CheckOptions(check_deadlock=False)).result == "holds"


def test_an_action_that_raises_reports_spec_action_and_trace():
    def boom(c, s):
        if s == 2:
            raise ZeroDivisionError("division by zero")
        return s + 1

    spec = counter_spec(boom, deadlock_expected=True)
    with pytest.raises(SpecRuntimeError) as err:
        check(spec, Size(N=5))
    assert "spec counter: action Step raised ZeroDivisionError" in str(err.value)
    assert [st.state for st in err.value.trace] == [0, 1, 2]


@pytest.mark.parametrize("bad,kind", [([1], "list"), ({1}, "set"), ({1: 2}, "dict"), (object(), "object")])
def test_non_canonical_states_are_refused(bad, kind):
    # States are tuples here, so the bad successor has the states' type and reaches the canonical check.
    @action("Step")
    def step(c, s):
        return (s[0] + 1, bad) if s[0] < 1 else None

    spec = Spec(name="counter", title="counter", constants=Size, init=lambda c: [(0, 0)], actions=[step],
                deadlock_expected=True)
    with pytest.raises(StateError) as err:
        check(spec, Size())
    assert f"is a {kind}" in str(err.value)


def test_strings_and_none_are_state_values():
    """Their fingerprints do not depend on the process (unlike ``hash()``), so they may be part of a state."""
    @action("Step")
    def step(c, s):
        return (s[0] + 1, "r1" if s[1] is None else None) if s[0] < 3 else None

    spec = Spec(name="counter", title="counter", constants=Size, init=lambda c: [(0, None)], actions=[step],
                deadlock_expected=True)
    result = check(spec, Size())
    assert (result.distinct_states, result.depth) == (4, 4)


def test_malformed_specs_are_rejected_when_built():
    def not_an_action(c, s):
        return s

    with pytest.raises(SpecDefinitionError, match="not decorated with @action"):
        Spec(name="x", title="x", constants=Size, init=lambda c: [0], actions=[not_an_action])

    @action("A")
    def a(c, s, extra):
        return s

    with pytest.raises(SpecDefinitionError, match="must take \\(c, s\\)"):
        Spec(name="x", title="x", constants=Size, init=lambda c: [0], actions=[a])


def test_constants_are_validated():
    with pytest.raises(ConstantError, match="below its minimum"):
        Size(N=-1)
    with pytest.raises(ConstantError, match="unknown constant"):
        make_constants(Size, {"M": 1})


def test_two_checks_in_one_process_do_not_interfere():
    spec = tcommit()
    a = check(spec, make_constants(spec.constants_class, {"RM": 2}))
    b = check(spec, make_constants(spec.constants_class, {"RM": 3}))
    a2 = check(spec, make_constants(spec.constants_class, {"RM": 2}))
    assert (a.distinct_states, b.distinct_states) == (3**2 + 2**2 - 1, 3**3 + 2**3 - 1)
    assert a2.distinct_states == a.distinct_states and a2.states_generated == a.states_generated


def _with_constraints(spec: Spec, state_constraint=None, action_constraint=None) -> Spec:
    clone = object.__new__(Spec)
    clone.__dict__.update(spec.__dict__)
    clone.state_constraint = state_constraint
    clone.action_constraint = action_constraint
    return clone


def test_state_and_action_constraints_prune_as_tlc_does():
    """CONSTRAINT and ACTION_CONSTRAINT: pruned successors count as generated, are neither stored nor expanded."""
    import itertools

    from naive import naive_explore

    grid = load_spec(str(MODELS / "counter_grid.py"))
    c = make_constants(grid.constants_class, {"Counters": 3, "Max": 4})
    small = _with_constraints(grid, state_constraint=lambda c, s: sum(s.values) <= 5)
    r = check(small, c, CheckOptions())
    # Every vector of 0..4 counters summing to at most 5 is reachable by increments, and nothing else.
    by_hand = sum(1 for v in itertools.product(range(5), repeat=3) if sum(v) <= 5)
    assert r.distinct_states == by_hand == 53  # C(8,3) = 56 sums up to 5, less (5,0,0) and its two rotations
    assert r.depth == 6  # the sum grows by one per increment
    assert r.states_generated == naive_explore(small, c)["generated"]
    # An action constraint that stops counter x0 at 2: fewer states, and pruned successors still count
    # as generated (TLC counts a successor before applying the constraints).
    capped = _with_constraints(grid, state_constraint=small.state_constraint,
                               action_constraint=lambda c, s, t: t.values[0] <= 2)
    r2 = check(capped, c, CheckOptions())
    assert r2.distinct_states == sum(1 for v in itertools.product(range(5), repeat=3) if sum(v) <= 5 and v[0] <= 2)
    assert r2.states_generated == naive_explore(capped, c)["generated"]
    assert r2.distinct_states < r.distinct_states
