"""The tables' answers checked against the spec's own code while a check runs (defence in depth).

The allowlist (:mod:`modelcheck.memo.allowlist`) keeps off the tables the
code known to be able to tell a traced part from its value; this module
checks the answers themselves.  After each level, a sample of its parents is
expanded again by the spec's own code on the plain state the tables hold
for it, and compared with what the tables say of it: every successor (its
action, its value and the types of its parts, in the spec's order), the
state constraint, each invariant and each ``sometimes`` property.  A
difference stops the tables: the check runs again on the spec's own code,
with one line naming the action, the state and both answers.

Which parents: every parent while fewer than :data:`FIRST` have been
checked (the first levels, where most branches are learnt), then
:data:`RATE` of each level's, drawn by a generator seeded per run (the seed
is in ``--json``, and ``seed=`` in the API repeats a run's draw);
mode ``every`` (``--memo-verify``) checks every parent.
"""

# modelcheck: compile

from __future__ import annotations

import math
import random
from typing import Any

from modelcheck.memo.values import MixedTypes, same_types


FIRST = 256
"""Parents checked whole before sampling starts."""
RATE = 1 / 2048
"""The share of each later level's parents checked."""
SHOWN = 160
"""Characters of a state shown in a difference's line."""


class Sampler:
    """Which parents of each level to check; all run state lives on the instance."""

    MODES = ("sample", "every", "off")
    """``off`` is for tests that break the tables on purpose, to show that another check catches it."""

    def __init__(self, mode: str, seed: int | None) -> None:
        if mode not in self.MODES:
            raise ValueError(f"verify mode {mode!r}")
        self.mode = mode
        self.every = mode == "every"
        self.seed = seed if seed is not None else random.SystemRandom().randrange(1 << 31)
        self.rng = random.Random(self.seed)
        self.checked = 0

    def pick(self, n: int) -> list[int]:
        """Indices of the level's first ``n`` parents to check (``n`` = those expanded)."""
        if self.mode == "off":
            return []
        if self.every or self.checked + n <= FIRST:
            chosen = list(range(n))
        else:
            whole = max(0, FIRST - self.checked)
            rest = n - whole
            k = min(rest, max(1, math.ceil(rest * RATE)))
            chosen = list(range(whole)) + sorted(whole + i for i in self.rng.sample(range(rest), k))
        self.checked += len(chosen)
        return chosen

    def report(self) -> dict:
        return {"mode": self.mode, "seed": self.seed, "parents": self.checked}


class Leaves:
    """The tries' leaves as Python lists, read once for a batch of comparisons (the tries only grow, and
    nothing is learnt while a level's sample is compared, except by the walks below, which read these
    lists only for leaves they reach: a leaf learnt meanwhile is read from the tries)."""

    def __init__(self, tries: Any) -> None:
        tries.flush()
        self.tries = tries
        n = tries.n_leaves
        self.n = n
        self.count = tries.leaves["count"][:n].tolist()
        self.start = tries.leaves["start"][:n].tolist()
        self.entries = tries.entries

    def changes(self, code: int) -> list[list[tuple[int, int]]]:
        n = -2 - code
        if n >= self.n:
            return self.tries.changes(code)[1]
        count, start = self.count[n], self.start[n]
        end = self.start[n + 1] if n + 1 < self.n else self.tries.n_entries
        if end == start:
            return []
        e = self.entries[start:end].tolist()
        out = []
        at = 0
        for _s in range(count):
            k = e[at]
            out.append([(e[at + 1 + 2 * j], e[at + 2 + 2 * j]) for j in range(k)])
            at += 1 + 2 * k
        return out

    def holds(self, code: int) -> bool:
        n = -2 - code
        return bool(self.count[n] if n < self.n else self.tries.count_of(code))


def difference(backend: Any, row: Any, leaves: Leaves | None = None, slots: Any = None) -> str | None:
    """How the tables' answers on the state of ``row`` differ from the spec's own code's, or None.

    Successors are compared as rows of component ids: the spec's own
    successors are interned (ids are keyed by value and types, so equal rows
    are the same values of the same types), the tables' are the parent's row
    with each leaf's changes written in.  ``slots`` are the leaves the C loop
    kept for this state while it expanded it (``MemoBackend.row_leaf``), so
    that what is compared is the answer it used, kept leaves and all; a slot
    it did not fill is walked here.
    """
    model = backend.model
    leaves = leaves if leaves is not None else Leaves(backend.tries)
    row = tuple(int(x) for x in row)
    s = backend.layout.state(row, backend.interner.values)
    try:
        theirs = [(ai, t) for ai, _b, t in model.successors(s)]
    except Exception as err:  # noqa: BLE001 - any error of the spec's own code is a difference here
        return f"on {_shown(s)}, the spec's own code raised {type(err).__name__}"
    mine = []
    guard_of = backend.guard_of
    action_of = backend.action_of
    kept = slots.tolist() if slots is not None else None
    for b in range(backend.n_bindings):
        v = kept[b] if kept is not None else -1
        if v >= 0:  # 4 * leaf + 1 (an effect with successors), + 3 (without), + 0 (its guard fails)
            if v & 3 != 1:
                continue
            code = -2 - (v >> 2)
        else:
            g = int(guard_of[b])
            if g >= 0 and not leaves.holds(backend.code_of(g, row)):
                continue
            code = backend.code_of(b, row)
        for changes in leaves.changes(code):
            child = list(row)
            for comp, value in changes:
                child[comp] = value if value >= 0 else row[~value]  # ~j: the parent's component j
            mine.append((action_of[b], tuple(child)))
    names = [a.name for a in model.actions]
    values = backend.interner.values
    for k in range(max(len(mine), len(theirs))):
        a = mine[k] if k < len(mine) else None
        b = theirs[k] if k < len(theirs) else None
        if a is not None and b is not None and a[0] == b[0]:
            u = backend.layout.state(a[1], values)
            if b[1] == u and same_types(u, b[1]):
                continue
        action = names[(a or b)[0]]
        if a is not None and b is not None and a[0] == b[0]:
            try:
                return f"action {action} on {_shown(s)}: successor {k + 1}: " \
                       f"{_delta(backend, a[1], backend.layout.row(b[1], backend.interner))}"
            except (MixedTypes, Exception):  # noqa: BLE001 - the spec's successor cannot be held by the tables
                pass
        shown = _shown(backend.layout.state(a[1], values)) if a else "no successor"
        return (f"action {action} on {_shown(s)}: the tables gave {shown}, the spec's own code "
                f"{_shown(b[1]) if b else 'no successor'} (successor {k + 1})")
    checks = []
    if backend.constraint_fn >= 0:
        checks.append(("the state constraint", backend.constraint_fn, lambda: model.in_model(s)))
    for k, (kind, name) in enumerate(backend.checks):
        f = backend.first_check + k
        if kind == "invariant":
            inv = next(i for i in model.invariants if i.name == name)
            checks.append((f"invariant {name}", f, lambda inv=inv: inv not in model.failed_invariants(s)))
        elif kind == "predicate":
            j = k - backend.first_predicate
            checks.append((f"liveness {name}", f, lambda j=j: bool((model.state_mask()(s) >> j) & 1)))
        else:
            p = next(p for p in model.sometimes if p.name == name)
            checks.append((f"property {name}", f, lambda p=p: model.property_holds(p, s)))
    for slot, (what, f, own) in enumerate(checks):
        leaf = kept[backend.n_bindings + slot] if kept is not None else -1
        tables = leaves.holds(-2 - leaf if leaf >= 0 else backend.code_of(f, row))
        try:
            spec = own()
        except Exception as err:  # noqa: BLE001
            return f"{what} on {_shown(s)}: the spec's own code raised {type(err).__name__}, the tables gave {tables}"
        if spec != tables:
            return f"{what} on {_shown(s)}: the tables gave {tables}, the spec's own code {spec}"
    return None


def _delta(backend: Any, tables: tuple, own: tuple) -> str:
    """Where two rows differ: the first few components, each with both values (and their types)."""
    values = backend.interner.values
    parts = []
    for k, (x, y) in enumerate(zip(tables, own)):
        if x != y:
            path = ".".join(str(p) for p in backend.layout.paths[k]) or "state"
            a, b = values[x], values[y]
            parts.append(f"{path} is {_typed(a)} on the tables, {_typed(b)} by the spec's own code")
    return "; ".join(parts[:3])


def _typed(v: Any) -> str:
    return f"{_shown(v)} ({type(v).__name__})"


def _shown(s: Any) -> str:
    text = repr(s)
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."
