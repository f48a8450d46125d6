"""The memo tables against the readable spec, on every reachable state.

After a check has grown the trees, every reachable state (found by a plain
breadth-first search with the readable spec, independent of the tables) is
looked up in them: its successors by the trees must be the readable
successor function's, as a multiset of (action, state), in the same order;
the state constraint and every invariant and ``sometimes`` property must
give the readable verdict.  A branch not learnt yet is learnt on the way
(an unreachable branch of the check is a reachable one here only if the
check missed states, which the counts would show).
"""

from __future__ import annotations

from typing import Any

import attrs

from modelcheck.memo.backend import MemoBackend
from modelcheck.memo.tries import MISSING
from modelcheck.model.bound import BoundModel
from modelcheck.search.driver import LevelDriver


@attrs.frozen
class CrossCheck:
    """What :func:`crosscheck` compared."""

    states: int
    """Reachable states compared (found by the readable spec)."""
    distinct: int
    """Distinct states the check on the tables found (the same number, unless one of them is wrong)."""
    successors: int
    """Successors compared (duplicates included)."""
    predicates: int
    """Constraint, invariant and property verdicts compared."""
    evaluations: int
    """Spec evaluations the trees took (the check's and this comparison's)."""
    mismatches: tuple[str, ...]
    """The first differences found (empty when the tables agree everywhere)."""


def crosscheck(model: BoundModel, limit: int = 20) -> CrossCheck:
    """Run the check on the memo tables, then compare them with the readable spec on every reachable state.

    States are compared as rows of component ids: two rows are equal exactly
    when the states are equal with the same types all the way down (ids are
    interned by value and types) and have the layout's shape.
    """
    backend = MemoBackend(model, verify="off")  # this compares every state itself, after the run
    result = LevelDriver(model, backend).run()
    tries, learner = backend.tries, backend.learner
    layout, intern = backend.layout, backend.interner
    mismatches: list[str] = []
    n_states = n_succ = n_pred = 0
    names = [a.name for a in model.actions]
    leaves: dict[int, list[tuple]] = {}

    def row_of(s: Any) -> tuple:
        return layout.row(s, intern)

    def code(f: int, row: tuple) -> int:
        c = tries.walk(f, row)[0]
        return c if c != MISSING else learner.learn(f, row)

    def successors(row: tuple) -> list[tuple[int, tuple]]:
        out = []
        for b in range(backend.n_bindings):
            c = backend.binding_code(b, row)
            entries = leaves.get(c)
            if entries is None:
                count, flat = tries.leaf_entries(c)
                flat = flat.tolist()
                w = backend.width
                entries = leaves[c] = [tuple(flat[j * w:(j + 1) * w]) for j in range(count)]
            for e in entries:
                out.append((backend.action_of[b], tuple([x if x >= 0 else row[~x] for x in e])))
        return out

    def verdict(f: int, row: tuple) -> bool:
        return bool(tries.count_of(code(f, row)))

    checks = [(k, kind, name, backend.functions[backend.first_check + k][0])
              for k, (kind, name) in enumerate(backend.checks)]
    seen = set()
    frontier = []
    for s in model.init_states():
        if model.in_model(s) and s not in seen:
            seen.add(s)
            frontier.append(s)
    while frontier and len(mismatches) < limit:
        nxt = []
        for s in frontier:
            n_states += 1
            row = row_of(s)
            readable = [(ai, t) for ai, _b, t in model.successors(s)]
            want = [(ai, row_of(t)) for ai, t in readable]
            got = successors(row)
            n_succ += len(readable)
            if want != got:
                mismatches.append(f"state {s}: successors {_show(want, names)} by the spec, "
                                  f"{_show(got, names)} by the tables")
            for (_ai, t), (_ai2, t_row) in zip(readable, want):
                ok = model.in_model(t)
                if backend.constraint_fn >= 0:
                    n_pred += 1
                    if verdict(backend.constraint_fn, t_row) != ok:
                        mismatches.append(f"state {t}: the constraint is {ok} by the spec, not by the tables")
                if ok and t not in seen:
                    seen.add(t)
                    nxt.append(t)
            for k, kind, name, fn in checks:
                n_pred += 1
                if verdict(backend.first_check + k, row) != (fn(model.c, s) is True):
                    mismatches.append(f"state {s}: {kind} {name} differs between the spec and the tables")
        frontier = nxt
    return CrossCheck(n_states, result.distinct_states, n_succ, n_pred, learner.evaluations,
                      tuple(mismatches[:limit]))


def _show(pairs: list, names: list[str]) -> str:
    return "[" + ", ".join(f"{names[ai]}" for ai, _t in pairs) + "]"
