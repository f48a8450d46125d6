"""An independent, deliberately naive oracle for liveness and step properties.

It shares no code with :mod:`modelcheck.search.liveness`: the whole state
graph is built with plain dicts (every full state kept, every action called
directly, as ``tests/naive.py`` does for counts), and a property is decided
under the spec's fairness with networkx, from the textbook definitions:

* A *behaviour* is infinite: a path from an initial state that either loops
  forever through a cycle of real steps, or ends by stuttering forever in one
  state.  A step ``s -> s`` is a stuttering step: it neither takes nor enables
  an action, so it is dropped from the graph.  An *A-step* is a step ``s -> t``
  that some instance of A produces (``t`` is among A's results from ``s``); a
  state *enables* A when A has a step from it.
* A behaviour ending in a cycle is *fair* when, for every condition over a set
  of labels A: weak: some state of the cycle does not enable A, or the cycle
  has an A-step; strong: no state of the cycle enables A, or the cycle has an
  A-step.  A behaviour that stutters forever in ``s`` is fair when no
  condition's A is enabled in ``s`` (a deadlock state included).
* ``P ~> Q`` is violated by a fair behaviour with a state where P holds after
  which (that state included) Q never holds; ``<>P`` by one where P never
  holds; ``[]<>P`` by one whose cycle has no P state; ``<>[]P`` by one whose
  cycle has a state without P.  ``all_of``/``any_of`` are ``/\\``/``\\/``.

The negated formula is put in disjunctive normal form; for each clause the
oracle enumerates the product of the state graph with one bit per ``~>``
obligation (set where P holds and Q does not, after which Q must never hold),
takes the states whose fully-set copy is reachable, and looks for a fair
strongly connected set inside the states the clause allows on the cycle by
the recursive Streett decomposition: a component where a weak condition is
enabled everywhere and never taken is dropped; where a strong condition is
enabled somewhere and never taken, its enabling states are removed and the
rest decomposed again.  Every lasso it returns is checked against the
definitions above (:func:`is_behaviour`, :func:`is_fair`, :func:`violates`),
which the tests also apply to the engine's lassos.

Slow and simple on purpose: a few thousand states is its size.
"""

from __future__ import annotations

from collections import deque
from itertools import product
from typing import Any, Callable, Iterable

import attrs
import networkx as nx

from modelcheck.spec.temporal import AllOf, AlwaysEventually, AnyOf, Eventually, EventuallyAlways, LeadsTo

Label = tuple  # (action name, binding)


@attrs.frozen
class Lasso:
    """A behaviour: ``states`` (indices into the graph) and where its loop starts.

    ``loop_start`` None: it stutters forever in the last state.  Otherwise the
    cycle is ``states[loop_start:]``, with a step from the last back to
    ``states[loop_start]``.
    """

    states: tuple[int, ...]
    loop_start: int | None


@attrs.define
class Graph:
    """Every reachable state (initial ones first) and every non-stuttering step with its labels."""

    states: list
    index: dict
    initial: int
    succ: list  # succ[i] = {j: set of labels of the steps i -> j}

    def labels(self, i: int, j: int) -> set:
        return self.succ[i].get(j, set())

    def enabled(self, i: int, cls: frozenset) -> bool:
        return any(labs & cls for labs in self.succ[i].values())


def _results(r: Any) -> list:
    if r is None:
        return []
    return list(r) if isinstance(r, list) else [r]


def build_graph(spec: Any, c: Any) -> Graph:
    """The whole state graph, by a plain BFS calling every action on every binding."""
    states: list = []
    index: dict = {}
    queue: deque = deque()

    def add(t: Any) -> int:
        if t not in index:
            index[t] = len(states)
            states.append(t)
            queue.append(t)
        return index[t]

    for s in spec.init(c):
        add(s)
    initial = len(states)
    succ: list = []
    while queue:
        s = queue.popleft()
        i = index[s]
        out: dict = {}
        for act in spec.actions:
            for binding in act.bindings(c):
                for t in _results(act.fn(c, s, *binding)):
                    if spec.state_constraint is not None and not spec.state_constraint(c, t):
                        continue
                    if spec.action_constraint is not None and not spec.action_constraint(c, s, t):
                        continue
                    if t == s:
                        continue  # a stuttering step: neither takes nor enables anything
                    out.setdefault(add(t), set()).add((act.name, tuple(binding)))
        assert len(succ) == i
        succ.append(out)
    return Graph(states, index, initial, succ)


def fairness_classes(spec: Any, c: Any) -> list[tuple[str, frozenset]]:
    """The spec's fairness as (``weak``/``strong``, set of labels) conditions (a disjunction: one set of all)."""
    out = []
    for f, _ai in spec.fairness:
        acts = [a for a in spec.actions if any(a.fn is fn for fn in f.actions)]
        labels = [(act.name, tuple(b)) for act in acts for b in act.bindings(c)]
        if f.each:
            out += [(f.kind, frozenset([lab])) for lab in labels]
        else:
            out.append((f.kind, frozenset(labels)))
    return out


# -- the definitions, on one lasso ---------------------------------------------------------


def _parts(lasso: Lasso) -> tuple[list[int], list[int]]:
    """(states before the repeated part, the repeated part)."""
    if lasso.loop_start is None:
        return list(lasso.states[:-1]), [lasso.states[-1]]
    return list(lasso.states[:lasso.loop_start]), list(lasso.states[lasso.loop_start:])


def _cycle_steps(lasso: Lasso) -> list[tuple[int, int]]:
    if lasso.loop_start is None:
        return []
    cyc = _parts(lasso)[1]
    return [(cyc[k], cyc[(k + 1) % len(cyc)]) for k in range(len(cyc))]


def is_behaviour(g: Graph, lasso: Lasso) -> bool:
    """It starts in an initial state and every step, the loop's closing one included, is a real step."""
    st = lasso.states
    if not st or not 0 <= st[0] < g.initial:
        return False
    steps = list(zip(st, st[1:]))
    if lasso.loop_start is not None:
        if not 0 <= lasso.loop_start < len(st):
            return False
        steps.append((st[-1], st[lasso.loop_start]))
    return all(j in g.succ[i] for i, j in steps)


def is_fair(g: Graph, classes: list[tuple[str, frozenset]], lasso: Lasso) -> bool:
    """Every fairness condition holds on the repeated part (stuttering forever: none is enabled there)."""
    cyc = _parts(lasso)[1]
    steps = _cycle_steps(lasso)
    for kind, cls in classes:
        taken = any(g.labels(i, j) & cls for i, j in steps)
        enabled = [g.enabled(i, cls) for i in cyc]
        if taken:
            continue
        if kind == "weak" and all(enabled):
            return False
        if kind == "strong" and any(enabled):
            return False
    return True


def holds(formula: Any, c: Any, g: Graph, lasso: Lasso) -> bool:
    """The formula on the behaviour, straight from the definitions of <>, []<>, <>[] and ~>."""
    pre, cyc = _parts(lasso)

    def p(pred: Callable, i: int) -> bool:
        return bool(pred(c, g.states[i]))

    if isinstance(formula, Eventually):
        return any(p(formula.p, i) for i in pre + cyc)
    if isinstance(formula, AlwaysEventually):
        return any(p(formula.p, i) for i in cyc)
    if isinstance(formula, EventuallyAlways):
        return all(p(formula.p, i) for i in cyc)
    if isinstance(formula, LeadsTo):
        q_on_cycle = any(p(formula.q, i) for i in cyc)
        for k, i in enumerate(pre):
            if p(formula.p, i) and not (any(p(formula.q, j) for j in pre[k:]) or q_on_cycle):
                return False
        return not any(p(formula.p, i) for i in cyc) or q_on_cycle
    if isinstance(formula, AllOf):
        return all(holds(f, c, g, lasso) for f in formula.parts)
    if isinstance(formula, AnyOf):
        return any(holds(f, c, g, lasso) for f in formula.parts)
    raise TypeError(f"not a formula: {formula!r}")


def violates(formula: Any, c: Any, g: Graph, lasso: Lasso) -> bool:
    return not holds(formula, c, g, lasso)


# -- the search ------------------------------------------------------------------------------


@attrs.define
class Clause:
    """What a violating behaviour must do: a conjunction of negated atoms."""

    never: list = attrs.Factory(list)  # P holds in no state (from <>P)
    cycle_not: list = attrs.Factory(list)  # P holds in no cycle state (from []<>P)
    cycle_some_not: list = attrs.Factory(list)  # some cycle state lacks P (from <>[]P)
    obligations: list = attrs.Factory(list)  # (P, Q): from a P state on, Q never (from P ~> Q)

    def merged(self, other: "Clause") -> "Clause":
        return Clause(self.never + other.never, self.cycle_not + other.cycle_not,
                      self.cycle_some_not + other.cycle_some_not, self.obligations + other.obligations)


def negation(formula: Any) -> list[Clause]:
    """``not formula`` as a disjunction of clauses."""
    if isinstance(formula, Eventually):
        return [Clause(never=[formula.p])]
    if isinstance(formula, AlwaysEventually):
        return [Clause(cycle_not=[formula.p])]
    if isinstance(formula, EventuallyAlways):
        return [Clause(cycle_some_not=[formula.p])]
    if isinstance(formula, LeadsTo):
        return [Clause(obligations=[(formula.p, formula.q)])]
    if isinstance(formula, AllOf):
        return [cl for f in formula.parts for cl in negation(f)]
    if isinstance(formula, AnyOf):
        out = [Clause()]
        for f in formula.parts:
            out = [a.merged(b) for a, b in product(out, negation(f))]
        return out
    raise TypeError(f"not a formula: {formula!r}")


def _fair_sets(g: Graph, classes: list, nodes: set) -> Iterable[set]:
    """Strongly connected sets inside ``nodes`` whose full cycle is fair (Streett decomposition)."""
    sub = nx.DiGraph()
    sub.add_nodes_from(nodes)
    sub.add_edges_from((i, j) for i in nodes for j in g.succ[i] if j in nodes)
    for comp in nx.strongly_connected_components(sub):
        if len(comp) < 2:  # no step stays in a single state: no cycle
            continue
        inner = [(i, j) for i in comp for j in g.succ[i] if j in comp]
        drop = False
        remove: set = set()
        for kind, cls in classes:
            if any(g.labels(i, j) & cls for i, j in inner):
                continue
            enabling = {i for i in comp if g.enabled(i, cls)}
            if kind == "weak" and enabling == comp:
                drop = True  # enabled everywhere, taken nowhere: no cycle inside is fair
            elif kind == "strong" and enabling:
                remove |= enabling  # no fair cycle may pass through these
        if drop:
            continue
        if remove:
            yield from _fair_sets(g, classes, comp - remove)
        else:
            yield comp


def _path(g: Graph, inside: set, a: int, goals: set) -> list[int]:
    """A shortest path from ``a`` to a state of ``goals`` through ``inside`` (``[a]`` if ``a`` is one)."""
    prev = {a: None}
    queue = deque([a])
    while queue:
        i = queue.popleft()
        if i in goals:
            out = [i]
            while prev[out[-1]] is not None:
                out.append(prev[out[-1]])
            return out[::-1]
        for j in g.succ[i]:
            if j in inside and j not in prev:
                prev[j] = i
                queue.append(j)
    raise AssertionError("no path inside a strongly connected set")


def _loop(g: Graph, classes: list, comp: set, entry: int, clause: Clause, c: Any) -> list[int]:
    """A cycle from ``entry`` inside ``comp`` through a step of every condition taken in it, a state
    disabling every weak one not taken, and a state for every ``<>[]`` atom."""
    goals: list[tuple[str, Any]] = []
    for pred in clause.cycle_some_not:
        goals.append(("state", {i for i in comp if not pred(c, g.states[i])}))
    for kind, cls in classes:
        steps = [(i, j) for i in comp for j in g.succ[i] if j in comp and g.labels(i, j) & cls]
        if steps:
            goals.append(("step", steps))
        elif kind == "weak":
            goals.append(("state", {i for i in comp if not g.enabled(i, cls)}))
    walk = [entry]
    for what, target in goals:
        if what == "state":
            walk += _path(g, comp, walk[-1], target)[1:]
        else:
            sources = {i for i, _ in target}
            walk += _path(g, comp, walk[-1], sources)[1:]
            i = walk[-1]
            walk.append(next(j for a, j in target if a == i))
    if len(walk) == 1:
        walk.append(next(j for j in g.succ[entry] if j in comp))
    walk += _path(g, comp, walk[-1], {entry})[1:]
    return walk[:-1]  # the closing step back to entry is implicit


def find_violation(g: Graph, classes: list, clause: Clause, c: Any) -> Lasso | None:
    """A fair behaviour satisfying every part of ``clause``, or None."""
    n = len(g.states)
    k = len(clause.obligations)
    full = frozenset(range(k))

    def val(pred: Callable, i: int) -> bool:
        return bool(pred(c, g.states[i]))

    never_ok = [not any(val(p, i) for p in clause.never) for i in range(n)]

    def valid(i: int, bits: frozenset) -> bool:
        return never_ok[i] and not any(val(clause.obligations[b][1], i) for b in bits)

    # The product: (state, obligations started); a bit is set where its P holds and its Q does not.
    prod = nx.DiGraph()
    start = ("start",)
    prod.add_node(start)
    queue: deque = deque()
    for i in range(g.initial):
        if valid(i, frozenset()):
            prod.add_edge(start, (i, frozenset()))
            queue.append((i, frozenset()))
    seen = set(queue)
    while queue:
        node = queue.popleft()
        i, bits = node
        nxt = [(j, bits) for j in g.succ[i]]
        nxt += [(i, bits | {b}) for b, (p, q) in enumerate(clause.obligations)
                if b not in bits and val(p, i) and not val(q, i)]
        for m in nxt:
            if valid(*m):
                prod.add_edge(node, m)
                if m not in seen:
                    seen.add(m)
                    queue.append(m)
    reached = {i for i, bits in seen if bits == full}  # every obligation started, none answered since
    allowed = {i for i in range(n) if valid(i, full) and not any(val(p, i) for p in clause.cycle_not)}

    def stem_to(i: int) -> list[int]:
        path = nx.shortest_path(prod, start, (i, full))[1:]
        out: list[int] = []
        for j, _bits in path:
            if not out or out[-1] != j:
                out.append(j)
        return out

    for i in sorted(reached & allowed):  # ending by stuttering forever in i
        if all(not g.enabled(i, cls) for _k, cls in classes) and \
                all(not val(p, i) for p in clause.cycle_some_not):
            return Lasso(tuple(stem_to(i)), None)
    for comp in _fair_sets(g, classes, allowed):
        if not all(any(not val(p, i) for i in comp) for p in clause.cycle_some_not):
            continue
        entries = comp & reached
        if entries:
            entry = min(entries)
            stem = stem_to(entry)
            loop = _loop(g, classes, comp, entry, clause, c)
            return Lasso(tuple(stem + loop[1:]), len(stem) - 1)
    return None


def check_formula(g: Graph, classes: list, formula: Any, c: Any) -> Lasso | None:
    """A fair behaviour violating ``formula``, checked against the definitions, or None when it holds."""
    for clause in negation(formula):
        lasso = find_violation(g, classes, clause, c)
        if lasso is not None:
            assert is_behaviour(g, lasso), lasso
            assert is_fair(g, classes, lasso), lasso
            assert violates(formula, c, g, lasso), lasso
            return lasso
    return None


def check_step(g: Graph, fn: Callable, c: Any) -> tuple[int, int] | None:
    """A reachable non-stuttering step ``s -> t`` where ``fn(c, s, t)`` is false, or None."""
    for i, out in enumerate(g.succ):
        for j in out:
            if not fn(c, g.states[i], g.states[j]):
                return i, j
    return None


def check_property(spec: Any, c: Any, name: str, g: Graph | None = None) -> Lasso | tuple | None:
    """A counterexample to the spec's property ``name`` (a lasso, or a step), or None when it holds."""
    g = g if g is not None else build_graph(spec, c)
    prop = spec.property(name)
    if prop.kind == "step":
        return check_step(g, prop.fn, c)
    return check_formula(g, fairness_classes(spec, c), prop.fn(c), c)
