"""Adversarial checks of TLC's VIEW (``Spec(fingerprint_view=...)``) on the memo tables against the spec's own code.

Many small specs over one NamedTuple state (ints, a bool, a str, a nested record, a fixed-length tuple, a log
that grows, a frozenset), each with a view of a different shape, written as a user would.  For each, the default
path (the tables, or the spec's own code when they stand aside) must give what ``memo=False`` gives: verdict,
distinct and generated counts, depth, per-action stats and the violation trace.  The views that return parts of
the state (a projection) are expected to run on the tables; the others may stand aside.  A randomized test draws
small specs and projection views with a fixed seed.

The specs' functions are all module-level: a lambda defined inside a test function makes the tables review that
function too (and stand aside on what it uses), which would hide the cases from the tables.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import attrs
import pytest

import modelcheck
from modelcheck import Domain, Spec, action, constant, either, invariant


class Rec(NamedTuple):
    a: int
    b: bool
    tag: str


class S(NamedTuple):
    x: int
    y: int
    flag: bool
    name: str
    r: Rec
    per_replica: tuple[int, int]
    log: tuple[int, ...]
    members: frozenset


class V(NamedTuple):
    x: int
    a: int


@attrs.frozen
class C:
    K: int = constant(1, "a switch the views read")
    I: int = constant(0, "an index the views read")


INIT = S(0, 0, False, "a", Rec(0, False, "p"), (0, 0), (), frozenset())


def init(c: C):
    return [INIT]


def init_two(c: C):
    """Two initial states that differ only in the flag (the first is kept under a view that drops it)."""
    return [INIT._replace(flag=True), INIT]


@action("IncX")
def inc_x(c: C, s: S):
    return s._replace(x=s.x + 1) if s.x < 2 else None


@action("IncY")
def inc_y(c: C, s: S):
    return s._replace(y=s.y + 1) if s.y < 1 else None


@action("Flip")
def flip(c: C, s: S):
    """Changes the flag alone."""
    return s._replace(flag=not s.flag)


@action("Rename")
def rename(c: C, s: S):
    """Changes the name alone."""
    return s._replace(name="b") if s.name == "a" else None


@action("BumpA")
def bump_a(c: C, s: S):
    return s._replace(r=s.r._replace(a=s.r.a + 1)) if s.r.a < 2 else None


@action("FlipB")
def flip_b(c: C, s: S):
    return s._replace(r=s.r._replace(b=not s.r.b))


@action("Retag")
def retag(c: C, s: S):
    return s._replace(r=Rec(s.r.a, s.r.b, "q")) if s.r.tag == "p" else None


@action("Rep", replica=Domain("replica", lambda c: range(2)))
def rep(c: C, s: S, replica: int):
    if s.per_replica[replica] >= 1:
        return None
    per = tuple(v + 1 if i == replica else v for i, v in enumerate(s.per_replica))
    return s._replace(per_replica=per)


@action("Append")
def append(c: C, s: S):
    return s._replace(log=s.log + (s.x,)) if len(s.log) < 2 else None


@action("Pop")
def pop(c: C, s: S):
    return s._replace(log=s.log[:-1]) if s.log else None


@action("Join")
def join(c: C, s: S):
    return s._replace(members=s.members | {s.x}) if s.x not in s.members else None


@action("Fork")
def fork(c: C, s: S):
    """From x = 0: x = 1 with the flag up (found first), then x = 1 with the flag down."""
    if s.x != 0:
        return None
    return either(s._replace(x=1, flag=True), s._replace(x=1, flag=False))


@action("ForkLow")
def fork_low(c: C, s: S):
    """From x = 0: x = 1 with the flag down (found first), then up."""
    if s.x != 0:
        return None
    return either(s._replace(x=1, flag=False), s._replace(x=1, flag=True))


@action("Cont")
def cont(c: C, s: S):
    """Only from a state whose flag is up: which representative was kept decides whether y moves."""
    return s._replace(y=s.y + 1, x=0) if s.flag and s.x == 1 and s.y < 1 else None


@action("Swap")
def swap(c: C, s: S):
    return s._replace(x=s.y, y=s.x) if s.x != s.y else None


@action("Spread")
def spread(c: C, s: S):
    """Several successors that differ only in fields views like to drop."""
    return [s._replace(name=n, r=s.r._replace(tag=t)) for n in ("a", "b") for t in ("p", "q")
            if (n, t) != (s.name, s.r.tag)]


ACTIONS = {fn.__modelcheck_action__.name: fn for fn in (
    inc_x, inc_y, flip, rename, bump_a, flip_b, retag, rep, append, pop, join, fork, fork_low, cont, swap, spread)}


@invariant("XSmall", "x stays below 2")
def x_small(c: C, s: S) -> bool:
    return s.x < 2


@invariant("NotBoth", "never the flag up with r.a = 1")
def not_both(c: C, s: S) -> bool:
    return not (s.flag and s.r.a == 1)


@invariant("LogShort", "the log holds at most one entry")
def log_short(c: C, s: S) -> bool:
    return len(s.log) < 2


@invariant("YZero", "y stays 0")
def y_zero(c: C, s: S) -> bool:
    return s.y == 0


INVARIANTS = [x_small, not_both, log_short, y_zero]


def helper_projection(s: S):
    return (s.r, s.x)


def helper_computed(s: S):
    return (s.x + s.r.a, s.flag)


def canon(s: S):
    return (tuple(sorted(s.members)), tuple(sorted((k, v) for k, v in enumerate(s.per_replica))))


# (id, actions, view, constants, invariants, is a plain projection (expected on the tables), init)
P, X = True, False
CASES = [
    # -- projections: tuples, reordered, records, nesting, nested fields, the whole state, one field
    ("tuple-decl-order", "IncX IncY Flip BumpA Fork", lambda c, s: (s.x, s.y, s.r), {}, [], P),
    ("tuple-reordered", "IncX IncY Flip BumpA Fork", lambda c, s: (s.r, s.y, s.x), {}, [], P),
    ("namedtuple", "IncX BumpA FlipB Flip", lambda c, s: V(s.x, s.r.a), {}, [], P),
    ("namedtuple-reordered-fields", "IncX BumpA FlipB Flip", lambda c, s: V(s.r.a, s.x), {}, [], P),
    ("nested-tuples", "IncX IncY BumpA FlipB Flip", lambda c, s: ((s.x, (s.y,)), (s.r.a, (s.r.b, s.flag))), {}, [], P),
    ("nested-field", "IncX BumpA FlipB Retag", lambda c, s: s.r.a, {}, [], P),
    ("nested-field-in-tuple", "IncX BumpA FlipB Retag", lambda c, s: (s.r.tag, s.r.b), {}, [], P),
    ("nested-record-whole", "IncX BumpA FlipB Flip", lambda c, s: s.r, {}, [], P),
    ("whole-state", "IncX IncY Flip BumpA Append", lambda c, s: s, {}, [], P),
    ("whole-state-in-tuple", "IncX Flip BumpA", lambda c, s: (s,), {}, [], P),
    ("single-field", "IncX IncY Flip", lambda c, s: s.x, {}, [], P),
    ("single-bool", "IncX Flip Fork Cont", lambda c, s: s.flag, {}, [], P),
    ("single-str", "Rename IncX Spread", lambda c, s: s.name, {}, [], P),
    ("per-replica", "Rep Flip IncX", lambda c, s: s.per_replica, {}, [], P),
    ("per-replica-0", "Rep Flip IncX", lambda c, s: s.per_replica[0], {}, [], P),
    ("per-replica-1", "Rep Flip IncX", lambda c, s: s.per_replica[1], {}, [], P),
    ("per-replica-swapped", "Rep Flip", lambda c, s: (s.per_replica[1], s.per_replica[0]), {}, [], P),
    ("per-replica-neg-index", "Rep Flip", lambda c, s: s.per_replica[-1], {}, [], P),
    ("members", "Join IncX Flip", lambda c, s: s.members, {}, [], P),
    ("empty-view", "IncX Flip", lambda c, s: (), {}, [], P),
    # -- dropping a field an action changes alone; the representative kept decides what follows
    ("drop-flag", "IncX IncY Flip Fork Cont", lambda c, s: (s.x, s.y, s.name, s.r), {}, [], P),
    ("drop-flag-fork-first-up", "Fork Cont", lambda c, s: (s.x, s.y), {}, [], P),
    ("drop-flag-fork-first-down", "ForkLow Cont", lambda c, s: (s.x, s.y), {}, [], P),
    ("drop-flag-both-forks", "ForkLow Fork Cont IncY", lambda c, s: (s.y, s.x), {}, [], P),
    ("drop-flag-two-inits", "IncX Cont", lambda c, s: (s.x, s.y), {}, [], P, init_two),
    ("drop-name", "Rename IncX Flip", lambda c, s: (s.x, s.flag), {}, [], P),
    ("drop-spread", "Spread IncX BumpA", lambda c, s: (s.x, s.r.a), {}, [], P),
    ("drop-nested-b", "FlipB BumpA Retag", lambda c, s: (s.r.a, s.r.tag), {}, [], P),
    ("drop-per-replica-1", "Rep IncX", lambda c, s: (s.x, s.per_replica[0]), {}, [], P),
    # -- a log that grows, kept or dropped
    ("log-kept", "Append Pop IncX", lambda c, s: (s.x, s.log), {}, [], P),
    ("log-dropped", "Append Pop IncX", lambda c, s: (s.x,), {}, [], P),
    ("log-alone", "Append Pop IncX", lambda c, s: s.log, {}, [], P),
    ("log-whole-state", "Append Pop IncX Flip", lambda c, s: s, {}, [], P),
    ("log-star-unpacked", "Append Pop IncX", lambda c, s: (*s.log, s.x), {}, [], X),
    ("log-tuple-of", "Append Pop IncX", lambda c, s: (tuple(s.log), s.x), {}, [], X),
    ("log-genexp", "Append Pop IncX", lambda c, s: tuple(v for v in s.log), {}, [], X),
    ("log-last-slice", "Append Pop IncX", lambda c, s: s.log[-1:], {}, [], X),
    ("log-full-slice", "Append Pop IncX", lambda c, s: (s.log[:], s.x), {}, [], X),
    ("members-genexp", "Join IncX", lambda c, s: tuple(v for v in s.members), {}, [], X),
    ("per-replica-genexp", "Rep IncX", lambda c, s: tuple(v for v in s.per_replica), {}, [], P),
    ("per-replica-range-const", "Rep IncX", lambda c, s: tuple(s.per_replica[i] for i in range(c.K)), {"K": 1}, [], P),
    ("per-replica-slice", "Rep IncX", lambda c, s: (s.per_replica[:1], s.x), {}, [], P),
    ("nested-record-slice", "BumpA FlipB Retag", lambda c, s: s.r[:2], {}, [], P),
    ("per-replica-by-log-len", "Rep Append IncX", lambda c, s: s.per_replica[len(s.log) % 2], {}, [], X),
    ("log-len", "Append Pop IncX", lambda c, s: len(s.log), {}, [], X),
    ("log-slice", "Append Pop IncX", lambda c, s: s.log[:1], {}, [], X),
    ("log-first-or-none", "Append Pop IncX", lambda c, s: s.log[0] if s.log else -1, {}, [], X),
    # -- computed views, helpers, a field twice, constants, conditionals
    ("x-mod-2", "IncX IncY Flip", lambda c, s: s.x % 2, {}, [], X),
    ("x-plus-y", "IncX IncY Swap", lambda c, s: s.x + s.y, {}, [], X),
    ("x-plus-zero", "IncX IncY Flip", lambda c, s: s.x + 0, {}, [], X),
    ("int-of-x", "IncX IncY Flip", lambda c, s: int(s.x), {}, [], X),
    ("frozenset-of-fields", "IncX IncY Swap", lambda c, s: frozenset((s.x, s.y)), {}, [], X),
    ("x-and-zero", "IncX IncY Flip", lambda c, s: (s.x, 0), {}, [], X),
    ("canonical-sorted", "Join IncX Rep", lambda c, s: canon(s), {}, [], X),
    ("helper-projection", "IncX BumpA Flip", lambda c, s: helper_projection(s), {}, [], P),
    ("helper-computed", "IncX BumpA Flip", lambda c, s: helper_computed(s), {}, [], X),
    ("x-twice", "IncX IncY Flip", lambda c, s: (s.x, s.x), {}, [], X),
    ("r-and-r-a", "BumpA FlipB", lambda c, s: (s.r, s.r.a), {}, [], X),
    ("const-in-view", "IncX Flip", lambda c, s: (s.x, c.K), {}, [], X),
    ("const-only", "IncX Flip", lambda c, s: c.K, {}, [], X),
    ("const-choice-1", "IncX IncY Flip", lambda c, s: (s.x, s.y) if c.K else (s.y,), {"K": 1}, [], P),
    ("const-choice-0", "IncX IncY Flip", lambda c, s: (s.x, s.y) if c.K else (s.y,), {"K": 0}, [], P),
    ("const-index-0", "Rep Flip", lambda c, s: s.per_replica[c.I], {"I": 0}, [], P),
    ("const-index-1", "Rep Flip", lambda c, s: s.per_replica[c.I], {"I": 1}, [], P),
    ("cond-on-flag", "IncX BumpA FlipB Flip Fork", lambda c, s: s.r.a if s.flag else s.r.b, {}, [], X),
    ("cond-on-flag-parts", "IncX IncY Flip", lambda c, s: (s.x, s.y) if s.flag else (s.y, s.x), {}, [], X),
    ("or-of-fields", "IncX IncY Swap", lambda c, s: s.x or s.y, {}, [], X),
    ("and-of-fields", "IncX Flip Fork", lambda c, s: s.flag and s.x, {}, [], X),
    ("max-of-fields", "IncX IncY Swap", lambda c, s: max(s.x, s.y), {}, [], X),
    ("min-of-per-replica", "Rep IncX", lambda c, s: min(s.per_replica), {}, [], X),
    ("index-by-value", "Rep IncX", lambda c, s: s.per_replica[s.x % 2], {}, [], X),
    ("built-tuple-index-by-flag", "IncX IncY Flip", lambda c, s: (s.x, s.y)[s.flag], {}, [], X),
    ("built-tuple-index-const", "IncX IncY Flip", lambda c, s: (s.x, s.y)[1], {}, [], P),
    ("positional-index", "IncX IncY Flip", lambda c, s: (s[1], s[0]), {}, [], P),
    ("namedtuple-slice", "IncX IncY Flip Rename", lambda c, s: s[:2], {}, [], P),
    ("star-unpack", "Rep IncX Flip", lambda c, s: (*s.per_replica, s.x), {}, [], P),
    ("reversed-per-replica", "Rep Flip", lambda c, s: s.per_replica[::-1], {}, [], P),
    ("replace-normalises-flag", "IncX Flip Fork Cont", lambda c, s: s._replace(flag=False), {}, [], X),
    ("record-rebuilt-const", "BumpA FlipB Retag", lambda c, s: Rec(s.r.a, False, s.r.tag), {}, [], X),
    ("record-rebuilt-parts", "BumpA FlipB Retag", lambda c, s: Rec(s.r.a, s.r.b, s.r.tag), {}, [], P),
    ("x-equals-one", "IncX IncY", lambda c, s: s.x == 1, {}, [], X),
    ("members-sorted", "Join IncX", lambda c, s: tuple(sorted(s.members)), {}, [], X),
    ("next-of-members", "Join IncX", lambda c, s: min(s.members, default=-1), {}, [], X),
    ("str-upper", "Rename IncX", lambda c, s: s.name.upper(), {}, [], X),
    ("fstring", "Rename IncX", lambda c, s: f"{s.name}", {}, [], X),
    # -- invariant violations under a view: the same trace on both paths
    ("inv-x-small-drop-flag", "Fork Flip IncX", lambda c, s: (s.x,), {}, ["XSmall"], P),
    ("inv-not-both-drop-b", "IncX BumpA FlipB Flip", lambda c, s: (s.flag, s.r.a), {}, ["NotBoth"], P),
    ("inv-y-zero-fork", "Fork Cont IncX", lambda c, s: (s.y, s.x), {}, ["YZero"], P),
    ("inv-y-zero-forklow", "ForkLow Cont Fork", lambda c, s: (s.x, s.y), {}, ["YZero"], P),
    ("inv-y-zero-two-inits", "IncX Cont", lambda c, s: (s.x, s.y), {}, ["YZero"], P, init_two),
    ("inv-log-short-dropped", "Append Pop IncX", lambda c, s: s.x, {}, ["LogShort"], P),
    ("inv-log-short-kept", "Append Pop IncX", lambda c, s: (s.log, s.x), {}, ["LogShort"], P),
    ("inv-nested-field", "BumpA Flip Spread", lambda c, s: s.r.a, {}, ["NotBoth"], P),
    ("inv-computed", "IncX IncY Flip Fork", lambda c, s: s.x + s.y, {}, ["XSmall"], X),
    ("inv-x-small-per-replica", "Rep IncX Flip", lambda c, s: (s.per_replica[1], s.x), {}, ["XSmall"], P),
    ("inv-two", "IncX BumpA Flip Fork", lambda c, s: (s.r.a, s.x), {}, ["NotBoth", "XSmall"], P),
]

TALLY: dict[str, set] = {"cases": set(), "tables": set(), "projection": set(), "projection-on-tables": set()}


def _spec(case_id: str, names: str, view, init_fn=init) -> Spec:
    return Spec(name=f"view-adv-{case_id}", title=case_id, constants=C, init=init_fn,
                actions=[ACTIONS[n] for n in names.split()], invariants=INVARIANTS, default_invariants=[],
                deadlock_expected=True, fingerprint_view=view)


def _summary(r) -> tuple:
    trace = None
    if r.violation is not None:
        trace = [(step.action, dict(step.params), step.state) for step in r.violation.trace]
    return (r.result, r.distinct_states, r.states_generated, r.depth, tuple(r.action_stats), trace)


def _compare(spec, consts, invariants, workers=1):
    off = modelcheck.check(spec, consts, invariants=invariants, memo=False)
    on = modelcheck.check(spec, consts, invariants=invariants, workers=workers)
    where = f"default path: {on.successors} ({on.successors_why})"
    assert _summary(on) == _summary(off), where
    if invariants:
        assert (on.violation is None) == (off.violation is None), where
    return on, off


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_default_path_agrees_with_the_specs_own_code(case, workers):
    case_id, names, view, consts, invariants, projection, *rest = case
    spec = _spec(f"{case_id}-w{workers}", names, view, *rest)
    on, _ = _compare(spec, consts, invariants, workers)
    key = (case_id, workers)
    TALLY["cases"].add(key)
    if on.successors == "memo tables":
        TALLY["tables"].add(key)
    if projection:
        TALLY["projection"].add(key)
        assert on.successors == "memo tables", f"{case_id}: a projection view stood aside: {on.successors_why}"
        TALLY["projection-on-tables"].add(key)


HOLDS = ("inv-y-zero-forklow", "inv-log-short-dropped", "inv-nested-field")


def test_the_violation_cases_violate():
    """The invariant cases are not vacuous: each finds its violation (on the spec's own code), but the one where
    the representative kept (ForkLow's, flag down) cannot reach y = 1, and the one whose view drops the log (an
    Append from x is not new, so the log never grows past one entry), and the one whose view drops the flag (a
    Flip is never new, so the flag never rises)."""
    for case_id, names, view, consts, invariants, _, *rest in CASES:
        if invariants:
            r = modelcheck.check(_spec(case_id, names, view, *rest), consts, invariants=invariants, memo=False)
            expected = "holds" if case_id in HOLDS else "violated"
            assert r.result == expected, case_id
            assert expected == "holds" or len(r.violation.trace) >= 2, case_id


def test_views_change_the_counts():
    """The dropping cases do merge states: without the view the counts differ."""
    for case_id in ("drop-flag", "drop-flag-fork-first-up", "log-dropped", "drop-spread"):
        case_id, names, view, consts, invariants, _, *rest = next(c for c in CASES if c[0] == case_id)
        with_view = modelcheck.check(_spec(case_id, names, view, *rest), consts, memo=False)
        without = modelcheck.check(_spec(case_id, names, None, *rest), consts, memo=False)
        assert with_view.distinct_states < without.distinct_states, case_id


# ---------------------------------------------------------------------------------------------- randomized


class R2(NamedTuple):
    a: int
    b: int


class T(NamedTuple):
    x: int
    y: int
    z: int
    w: int
    r: R2


class W(NamedTuple):
    p: object
    q: object


PATHS = [(0,), (1,), (2,), (3,), (4,), (4, 0), (4, 1)]
"""Positions of the parts a random view may keep: x, y, z, w, r, r.a, r.b."""


def t_init(c: C):
    return [T(0, 0, 0, 0, R2(0, 0))]


def _get(s: T, path):
    v = s
    for i in path:
        v = v[i]
    return v


def _set(s: T, path, value):
    if len(path) == 1:
        return T(*[value if i == path[0] else v for i, v in enumerate(s)])
    r = R2(*[value if i == path[1] else v for i, v in enumerate(s.r)])
    return s._replace(r=r)


INT_PATHS = [(0,), (1,), (2,), (3,), (4, 0), (4, 1)]


def _make_action(name: str, guard_path, guard_kind: int, guard_value: int, target, update_kind: int, k: int, src):
    def step(c: C, s: T):
        g = _get(s, guard_path)
        if guard_kind == 0 and g >= guard_value:
            return None
        if guard_kind == 1 and g != guard_value:
            return None
        cur = _get(s, target)
        if update_kind == 0:
            new = (cur + 1) % 3
        elif update_kind == 1:
            new = k
        elif update_kind == 2:
            new = _get(s, src)
        else:
            return [_set(s, target, k), _set(s, target, (cur + 1) % 3)]
        return _set(s, target, new)

    return action(name)(step)


def _build(shape, s: T):
    kind, body = shape
    if kind == "part":
        return _get(s, body)
    if kind == "record":
        return W(_build(body[0], s), _build(body[1], s))
    return tuple(_build(sub, s) for sub in body)


def _make_view(shape):
    def view(c: C, s: T):
        return _build(shape, s)

    return view


def _random_shape(rng: random.Random):
    paths = rng.sample(PATHS, rng.randint(1, 4))
    paths = [p for i, p in enumerate(paths) if not any(q[:len(p)] == p or p[:len(q)] == q for q in paths[:i])]
    parts = [("part", p) for p in paths]
    if len(parts) == 1 and rng.random() < 0.4:
        return parts[0]
    while len(parts) > 1 and rng.random() < 0.5:
        i = rng.randrange(len(parts) - 1)
        pair = parts[i:i + 2]
        parts[i:i + 2] = [("record", pair) if rng.random() < 0.3 else ("tuple", pair)]
    if len(parts) == 1 and rng.random() < 0.5:
        return parts[0]
    return ("tuple", parts)


def _random_case(rng: random.Random, n: int) -> tuple[Spec, object]:
    actions = []
    for j in range(rng.randint(3, 6)):
        actions.append(_make_action(
            f"A{j}", rng.choice(INT_PATHS), rng.randrange(3), rng.randint(1, 2), rng.choice(INT_PATHS),
            rng.randrange(4), rng.randint(0, 2), rng.choice(INT_PATHS)))
    shape = _random_shape(rng)
    spec = Spec(name=f"view-adv-random-{n}", title="random", constants=C, init=t_init, actions=actions,
                deadlock_expected=True, fingerprint_view=_make_view(shape))
    return spec, shape


RANDOM_CASES = 160


@pytest.mark.slow
def test_random_specs_and_projection_views():
    rng = random.Random(20240611)
    on_tables = 0
    for n in range(RANDOM_CASES):
        spec, shape = _random_case(rng, n)
        workers = 2 if n % 8 == 0 else 1
        try:
            on, _ = _compare(spec, {}, [], workers)
        except AssertionError as exc:
            raise AssertionError(f"random case {n}, view {shape}: {exc}") from None
        on_tables += on.successors == "memo tables"
    TALLY["random"] = {on_tables}
    assert on_tables >= RANDOM_CASES * 0.9, f"only {on_tables}/{RANDOM_CASES} random cases ran on the tables"


def test_zz_tally():
    """Last in the file: how many cases ran (and on the tables); every projection case did."""
    if len(TALLY["cases"]) < 2 * len(CASES):
        pytest.skip("run with the whole file to tally")
    print(f"\n{len(TALLY['cases'])} case runs, {len(TALLY['tables'])} on the memo tables, "
          f"{len(TALLY['projection-on-tables'])}/{len(TALLY['projection'])} projections on the tables")
    assert TALLY["projection-on-tables"] == TALLY["projection"]
