"""Deciding liveness on the behaviour graph: fair lassos that violate a temporal property.

The breadth-first search records every transition of the state graph as an
edge (source state, target state, label: the action and its binding) and,
for each state, which of the properties' state predicates hold (one bit
each).  A liveness property ``F`` is violated when some *fair* behaviour
satisfies ``not F``.  A behaviour of a finite graph that matters here is a
lasso: a stem from an initial state and a cycle repeated forever, or a final
state where the behaviour stutters forever.

``not F`` is put in disjunctive normal form over four kinds of atoms, the
negations of the supported forms:

* ``[]~P`` (from ``<>P``): every state of the behaviour, stem included;
* ``<>[]~P`` (from ``[]<>P``): every state of the cycle;
* ``[]<>~P`` (from ``<>[]P``): some state of the cycle;
* ``<>(P /\\ []~Q)`` (from ``P ~> Q``): from some state where P holds and Q
  does not, Q never holds again;
* ``<>[]~<A>`` (from ``[]<><A>_vars``, a step predicate): no step of the
  cycle satisfies A.  Each recorded transition has one bit per step
  predicate (:attr:`BehaviourGraph.step_bits`), and the cycle is searched
  among the transitions where A's bit is clear.

A clause (a conjunction of atoms) is searched in a product of the state
graph with one bit per ``~>`` atom, set (nondeterministically, at a state
where its P holds and its Q does not) once that atom's obligation has
started; from then on its Q must not hold.  The cycle must lie in the layer
where every bit is set, within the states allowed by the ``<>[]`` atoms; the
strongly connected components of that region (``scipy.sparse.csgraph``)
are tested for fairness the standard way (a Streett condition):

* weak fairness of a set of labels A is met by a component that contains an
  A-step, or a state where no A-step is enabled; a component where A is
  enabled in every state and never taken violates it, and so does every
  part of it;
* strong fairness is met by a component with an A-step, or without any
  state where A is enabled; otherwise the states where A is enabled are
  removed and the rest is searched again.

A behaviour may also end by stuttering forever in a state where no fair
action is enabled (a deadlock state included), as in TLC.  Steps that leave
the state unchanged are stuttering steps: they neither count as taking an
action nor make it enabled (TLA+'s ``<<A>>_vars``).

The lasso's loop is the shortest fair cycle through the states the clause
needs, inside the chosen component (the one nearest to the initial states),
and its stem a shortest path to the loop's nearest state.  A reader learns
more from two steps that repeat than from four that happen to contain them,
so the loop is searched breadth-first from each state of the component, in
the product of the component with one bit per need (a state the ``[]<>``
atoms want, a fair action taken or disabled, a strongly fair action
enabled), within a budget (:data:`LOOP_SEARCH_EDGES`): past it, or with too
many needs, the loop is the walk from the component's nearest state to each
need in turn and back, which is fair but may be longer.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import attrs
import numpy as np

from modelcheck.spec.temporal import (AllOf, AlwaysEventually, AlwaysEventuallyStep, AnyOf, Eventually,
                                      EventuallyAlways, Formula, LeadsTo)

# Atoms of a negated formula, over predicate bits.
NEVER = "never"  # []~P
PERSIST = "persist"  # <>[]~P
RECUR = "recur"  # []<>~P
TRIGGER = "trigger"  # <>(P /\ []~Q)
NO_STEP = "no-step"  # <>[]~<A>: no step of the cycle satisfies A


@attrs.frozen
class Lasso:
    """A counterexample behaviour: states by index, and where its loop starts (None: it stutters at the end)."""

    states: tuple[int, ...]
    loop_start: int | None


def negated_clauses(formula: Formula, bit_of: Callable[[Callable], int],
                    step_of: Callable[[Callable], int] | None = None) -> list[list[tuple]]:
    """``not formula`` in disjunctive normal form: a list of clauses, each a list of atoms over predicate bits.

    ``step_of`` gives a step predicate's index among the graph's per-transition bits (needed only when the
    formula has ``[]<><A>_vars`` parts)."""
    if isinstance(formula, AlwaysEventuallyStep):
        if step_of is None:
            raise TypeError("a formula over steps needs the transitions' step bits")
        return [[(NO_STEP, step_of(formula.a))]]
    if isinstance(formula, Eventually):
        return [[(NEVER, bit_of(formula.p))]]
    if isinstance(formula, AlwaysEventually):
        return [[(PERSIST, bit_of(formula.p))]]
    if isinstance(formula, EventuallyAlways):
        return [[(RECUR, bit_of(formula.p))]]
    if isinstance(formula, LeadsTo):
        return [[(TRIGGER, bit_of(formula.p), bit_of(formula.q))]]
    if isinstance(formula, AllOf):  # not (a /\ b) = not a \/ not b
        return [clause for part in formula.parts for clause in negated_clauses(part, bit_of, step_of)]
    if isinstance(formula, AnyOf):  # not (a \/ b) = not a /\ not b
        clauses: list[list[tuple]] = [[]]
        for part in formula.parts:
            clauses = [c + d for c in clauses for d in negated_clauses(part, bit_of, step_of)]
        return clauses
    raise TypeError(f"not a temporal formula: {formula!r}")


PRODUCT_BYTES_PER_EDGE = 48
"""What a clause's product graph takes per step at its peak: the step lists (int64 ends), their
concatenation and the sparse matrix built from them."""
PRODUCT_BYTES_PER_STATE = 40
"""Per state and layer: validity, the breadth-first order, predecessors and distances."""
COMPONENT_BYTES_PER_EDGE = 40
"""One round of the fair-component search per transition: the steps inside the region and their matrix."""
COMPONENT_BYTES_PER_STATE = 48


class BehaviourGraph:
    """The state graph as the search recorded it, ready for repeated fair-cycle searches.

    ``src``/``dst`` are state indices (0 .. n-1, initial states first) of the
    non-stuttering transitions, ``labels`` their labels, ``masks`` each
    state's predicate bits, ``fairness`` the spec's conditions as
    (``weak``/``strong``, labels) pairs.
    """

    def __init__(self, n: int, initial: int, src: np.ndarray, dst: np.ndarray, labels: np.ndarray,
                 masks: np.ndarray, fairness: Sequence[tuple[str, Sequence[int]]], n_labels: int) -> None:
        self.n = n
        self.initial = initial
        self.room: Callable[[int], None] = lambda extra_bytes: None
        """Asked before each bulk allocation of a search (see :func:`~modelcheck.search.liveness_check.check_liveness`)."""
        keep = src != dst
        self.src = np.asarray(src[keep], dtype=np.int64)
        self.dst = np.asarray(dst[keep], dtype=np.int64)
        self.labels = np.asarray(labels[keep], dtype=np.int64)
        self.masks = np.asarray(masks, dtype=np.int64)
        self.step_bits: list[np.ndarray] = []
        """Per step predicate, a bool per transition (in the order of ``src``/``dst``): does the step satisfy it."""
        self.fairness = []
        for kind, labs in fairness:
            in_class = np.zeros(max(n_labels, 1), dtype=bool)
            in_class[list(labs)] = True
            edge_in = in_class[self.labels] if len(self.labels) else np.zeros(0, dtype=bool)
            enabled = np.zeros(n, dtype=bool)
            enabled[self.src[edge_in]] = True
            self.fairness.append((kind, edge_in, enabled))

    def bit(self, k: int) -> np.ndarray:
        return ((self.masks >> k) & 1).astype(bool)

    def find(self, clause: Sequence[tuple]) -> Lasso | None:
        """A fair lasso satisfying every atom of ``clause``, or None."""
        return _ClauseSearch(self, clause).run()


class _ClauseSearch:
    """One clause's product graph and fair-component search."""

    def __init__(self, g: BehaviourGraph, clause: Sequence[tuple]) -> None:
        self.g = g
        n = g.n
        base_ok = np.ones(n, dtype=bool)
        self.cycle_ok = np.ones(n, dtype=bool)
        self.recur: list[np.ndarray] = []
        self.triggers: list[tuple[np.ndarray, np.ndarray]] = []
        self.edge_ok = np.ones(len(g.src), dtype=bool)
        """The transitions the cycle may use (those that satisfy no ``<>[]~<A>`` atom's A)."""
        for atom in clause:
            if atom[0] == NEVER:
                base_ok &= ~g.bit(atom[1])
            elif atom[0] == PERSIST:
                self.cycle_ok &= ~g.bit(atom[1])
            elif atom[0] == RECUR:
                self.recur.append(~g.bit(atom[1]))
            elif atom[0] == NO_STEP:
                self.edge_ok &= ~g.step_bits[atom[1]]
            else:
                self.triggers.append((g.bit(atom[1]), g.bit(atom[2])))
        self.base_ok = base_ok
        self.k = len(self.triggers)
        self.layers = 1 << self.k
        self.full = self.layers - 1

    def _valid(self, layer: int) -> np.ndarray:
        ok = self.base_ok.copy()
        for i, (_p, q) in enumerate(self.triggers):
            if layer >> i & 1:
                ok &= ~q
        return ok

    def run(self) -> Lasso | None:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import breadth_first_order

        g, n, L = self.g, self.g.n, self.layers
        valid = [self._valid(t) for t in range(L)]
        inside = [valid[t][g.src] & valid[t][g.dst] for t in range(L)]
        steps = sum(int(np.count_nonzero(ok)) for ok in inside)
        g.room(PRODUCT_BYTES_PER_EDGE * steps + PRODUCT_BYTES_PER_STATE * n * L)
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        for t, ok in enumerate(inside):  # steps inside a layer
            rows.append(g.src[ok] + t * n)
            cols.append(g.dst[ok] + t * n)
        for t in range(L):  # an obligation starts: same state, one more bit set
            for i, (p, q) in enumerate(self.triggers):
                if t >> i & 1:
                    continue
                u = t | (1 << i)
                at = np.flatnonzero(valid[t] & valid[u] & p & ~q)
                rows.append(at + t * n)
                cols.append(at + u * n)
        source = L * n  # a virtual node before every initial state
        starts = np.flatnonzero(valid[0][: g.initial])
        rows.append(np.full(len(starts), source, dtype=np.int64))
        cols.append(starts)
        size = L * n + 1
        r = np.concatenate(rows) if rows else np.empty(0, np.int64)
        c = np.concatenate(cols) if cols else np.empty(0, np.int64)
        graph = csr_matrix((np.ones(len(r), dtype=np.int8), (r, c)), shape=(size, size))
        order, pred = breadth_first_order(graph, source, directed=True, return_predecessors=True)
        g.room(0)
        dist = _distances(order, pred, size)
        self.pred = pred
        self.source = source
        base = self.full * n
        reached = dist[base: base + n] >= 0
        region = reached & valid[self.full] & self.cycle_ok
        found = self._fair_component(region, dist[base: base + n])
        stutter = self._stuttering(region, dist[base: base + n])
        choices = [x for x in (found, stutter) if x is not None]
        if not choices:
            return None
        kind, entry, cycle = min(choices, key=lambda x: (x[3], x[0] != "stutter"))[:3]
        stem = self._stem(base + entry)
        if kind == "stutter":
            return Lasso(tuple(stem), None)
        return Lasso(tuple(stem + cycle[1:]), len(stem) - 1)

    # -- ending by stuttering -----------------------------------------------------------------

    def _stuttering(self, region: np.ndarray, dist: np.ndarray) -> tuple | None:
        """The nearest state of the region where the behaviour may stutter forever, fairly."""
        ok = region.copy()
        for _kind, _edge_in, enabled in self.g.fairness:
            ok &= ~enabled
        for allowed in self.recur:  # the infinite part is this one state
            ok &= allowed
        at = np.flatnonzero(ok)
        if not len(at):
            return None
        best = int(at[np.argmin(dist[at])])
        return ("stutter", best, [best], int(dist[best]))

    # -- ending in a fair cycle ------------------------------------------------------------------

    def _fair_component(self, region: np.ndarray, dist: np.ndarray) -> tuple | None:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        g = self.g
        active = region.copy()
        while active.any():
            g.room(COMPONENT_BYTES_PER_EDGE * len(g.src) + COMPONENT_BYTES_PER_STATE * g.n)
            inside = active[g.src] & active[g.dst] & self.edge_ok
            es, ed, el = g.src[inside], g.dst[inside], np.flatnonzero(inside)
            nodes = np.flatnonzero(active)
            index = np.full(g.n, -1, dtype=np.int64)
            index[nodes] = np.arange(len(nodes))
            m = csr_matrix((np.ones(len(es), dtype=np.int8), (index[es], index[ed])), shape=(len(nodes),) * 2)
            count, comp_of = connected_components(m, directed=True, connection="strong")
            comp = np.full(g.n, -1, dtype=np.int64)
            comp[nodes] = comp_of
            sizes = np.bincount(comp_of, minlength=count)
            same = comp[es] == comp[ed]  # steps inside a component
            ok = sizes > 1  # a single state with no step to itself has no cycle
            for allowed in self.recur:
                ok &= np.bincount(comp_of, weights=allowed[nodes], minlength=count) > 0
            remove = np.zeros(g.n, dtype=bool)
            refine = np.zeros(count, dtype=bool)
            for kind, edge_in, enabled in g.fairness:
                taken = np.zeros(count, dtype=bool)
                taken[comp[es[same & edge_in[el]]]] = True
                enabled_count = np.bincount(comp_of, weights=enabled[nodes], minlength=count)
                if kind == "weak":
                    ok &= taken | (enabled_count < sizes)
                else:
                    bad = ~taken & (enabled_count > 0)
                    refine |= bad & ok
                    bad_nodes = bad[comp_of] & enabled[nodes]
                    remove[nodes[bad_nodes]] = True
            fair = ok & ~refine
            if fair.any():
                # The nearest state of any fair component (one pass, however many components there are).
                candidates = nodes[fair[comp_of]]
                entry = int(candidates[np.argmin(dist[candidates])])
                members = nodes[comp_of == comp[entry]]
                cycle = self._shortest_loop(members, dist, self._cycle(entry, members))
                return ("cycle", cycle[0], cycle, int(dist[cycle[0]]))
            keep = refine[comp_of] & ~remove[nodes]
            nxt = np.zeros(g.n, dtype=bool)
            nxt[nodes[keep]] = True
            active = nxt
        return None

    def _cycle(self, entry: int, members: np.ndarray) -> list[int]:
        """A cycle from ``entry`` through the component that meets every fairness and acceptance need."""
        g = self.g
        inside = np.zeros(g.n, dtype=bool)
        inside[members] = True
        steps = inside[g.src] & inside[g.dst] & self.edge_ok
        es, ed, el = g.src[steps], g.dst[steps], np.flatnonzero(steps)
        targets: list[tuple[str, Any]] = []
        for allowed in self.recur:
            targets.append(("state", np.flatnonzero(allowed & inside)))
        for kind, edge_in, enabled in g.fairness:
            taken = edge_in[el]
            if taken.any():  # take one: then the cycle meets the condition whatever it passes through
                targets.append(("step", (es[taken], ed[taken])))
            elif kind == "weak":
                targets.append(("state", np.flatnonzero(inside & ~enabled)))
        path = [entry]
        for what, target in targets:
            if what == "state":
                if path[-1] in set(target.tolist()):
                    continue
                path += self._walk(path[-1], target, es, ed)[1:]
            else:
                a, b = target
                path += self._walk(path[-1], a, es, ed, then=(a, b))[1:]
        if len(path) == 1 or path[-1] != entry:  # back to the entry (at least one step: a cycle)
            if len(path) == 1:
                nxt = int(ed[np.flatnonzero(es == entry)[0]])
                path.append(nxt)
            if path[-1] != entry:
                path += self._walk(path[-1], np.array([entry]), es, ed)[1:]
        return path[:-1] if path[-1] == entry and len(path) > 1 else path

    def _shortest_loop(self, members: np.ndarray, dist: np.ndarray, walk: list[int]) -> list[int]:
        """The shortest fair accepting cycle of the component found within the budget, rotated to start at
        its state nearest to the initial states (so the stem to it is shortest); ``walk``, a fair cycle
        already built, bounds the search and is kept when nothing shorter is found.

        Each need of the clause is a bit: a ``[]<>`` atom's state visited; a
        weakly fair class taken or disabled somewhere; a strongly fair class
        taken, and (a bit that counts against) enabled.  A cycle is fair and
        accepting when its bits say so.  Breadth-first search over (state,
        bits) from each state in turn, nearest first, finds the shortest
        such cycle through it; a search goes only as deep as could beat
        the best cycle so far, and the searches stop at the budget."""
        g = self.g
        best = _rotate(walk, dist)
        if len(best) <= 2:
            return best
        local = np.full(g.n, -1, dtype=np.int64)
        local[members] = np.arange(len(members))
        inside = (local[g.src] >= 0) & (local[g.dst] >= 0)
        edge_ok = getattr(self, "edge_ok", None)
        if edge_ok is not None:  # the transitions a cycle may use, as the component search had them
            inside &= edge_ok
        es, ed, el = local[g.src[inside]], local[g.dst[inside]], np.flatnonzero(inside)
        m = len(members)
        state_bits = np.zeros(m, dtype=np.int64)
        step_bits = np.zeros(len(es), dtype=np.int64)
        need = 0
        strong_pairs: list[tuple[int, int]] = []
        bit = 0
        for allowed in self.recur:
            state_bits |= allowed[members].astype(np.int64) << bit
            need |= 1 << bit
            bit += 1
        for kind, edge_in, enabled in g.fairness:
            on = enabled[members]
            if not on.any():
                continue  # never enabled in the component: met by every cycle of it
            taken = edge_in[el].astype(np.int64)
            if kind == "weak":
                state_bits |= (~on).astype(np.int64) << bit
                step_bits |= taken << bit
                need |= 1 << bit
                bit += 1
            else:
                step_bits |= taken << bit
                state_bits |= on.astype(np.int64) << (bit + 1)
                strong_pairs.append((1 << bit, 1 << (bit + 1)))
                bit += 2
        if bit > LOOP_SEARCH_MAX_BITS:
            return best
        order = np.argsort(es, kind="stable")
        es, ed, step_bits = es[order], ed[order], step_bits[order]
        indptr = np.searchsorted(es, np.arange(m + 1))

        def accepting(masks: np.ndarray) -> np.ndarray:
            ok = (masks & need) == need
            for taken_bit, enabled_bit in strong_pairs:
                ok &= ((masks & taken_bit) != 0) | ((masks & enabled_bit) == 0)
            return ok

        budget = LOOP_SEARCH_EDGES
        for start in np.argsort(dist[members], kind="stable"):
            if budget <= 0 or len(best) <= 2:
                break
            cycle, spent = _shortest_cycle_through(int(start), len(best) - 1, indptr, ed, step_bits, state_bits,
                                                   accepting, bit, budget, g.room)
            budget -= spent
            if cycle is not None:
                best = _rotate([int(members[i]) for i in cycle], dist)
        return best

    def _walk(self, start: int, goals: np.ndarray, es: np.ndarray, ed: np.ndarray,
              then: tuple[np.ndarray, np.ndarray] | None = None) -> list[int]:
        """A shortest path inside the component from ``start`` to a goal (then one step of ``then`` from it)."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import breadth_first_order

        n = self.g.n
        m = csr_matrix((np.ones(len(es), dtype=np.int8), (es, ed)), shape=(n, n))
        order, pred = breadth_first_order(m, start, directed=True, return_predecessors=True)
        goal_set = np.zeros(n, dtype=bool)
        goal_set[goals] = True
        hit = next((int(v) for v in order if goal_set[v]), None)
        if hit is None:
            raise AssertionError("a component's state is unreachable from inside it")
        path = [hit]
        while path[-1] != start:
            path.append(int(pred[path[-1]]))
        path.reverse()
        if then is not None:
            a, b = then
            path.append(int(b[np.flatnonzero(a == hit)[0]]))
        return path

    def _stem(self, node: int) -> list[int]:
        """Base states from an initial state to product node ``node`` (steps that only set a bit dropped)."""
        n = self.g.n
        out: list[int] = []
        v = node
        while v != self.source:
            s = int(v % n)
            if not out or out[-1] != s:
                out.append(s)
            v = int(self.pred[v])
        out.reverse()
        return out


LOOP_SEARCH_EDGES = 1_000_000
"""How many (state, bits) steps the search for the shortest loop may take over all its starting states (about
0.1 s, and :data:`LOOP_SEARCH_BYTES_PER_EDGE` each at the peak of one level); past it the best loop found so
far is kept, at worst the first walk's."""
LOOP_SEARCH_BYTES_PER_EDGE = 64
"""One breadth-first level of the loop search per step it takes: parents, edges, targets, masks and keys."""
LOOP_SEARCH_MAX_BITS = 12
"""More needs than this (4,096 bit patterns per state) and the loop is not searched for: the walk is kept."""


def _rotate(cycle: list[int], dist: np.ndarray) -> list[int]:
    """The same cycle, starting at its state nearest to the initial states (the first such in it)."""
    k = min(range(len(cycle)), key=lambda i: (int(dist[cycle[i]]), i))
    return cycle[k:] + cycle[:k]


def _shortest_cycle_through(start: int, limit: int, indptr: np.ndarray, ed: np.ndarray, step_bits: np.ndarray,
                            state_bits: np.ndarray, accepting: Callable[[np.ndarray], np.ndarray],
                            bits: int, budget: int, room: Callable[[int], None]) -> tuple[list[int] | None, int]:
    """A shortest cycle from ``start`` back to it, of at most ``limit`` steps, whose bits are accepting (the
    states from ``start``, without repeating it at the end), or None; and how many steps the search took.
    A level that would take the search past ``budget`` steps ends it (None), so that one start in a huge
    component cannot cost more than the budget allows; ``room`` is asked before each level.

    Breadth-first, one level at a time in numpy: a node is a (state, bits)
    pair, as a key ``state << bits | mask``; each level keeps each new key's
    parent so that the cycle is read back."""
    keys = np.array([start << bits | int(state_bits[start])], dtype=np.int64)
    levels: list[tuple[np.ndarray, np.ndarray]] = [(keys, np.array([-1], dtype=np.int64))]
    seen = keys.copy()
    low = (1 << bits) - 1
    spent = 0
    for depth in range(1, limit + 1):
        frontier = levels[-1][0]
        states = frontier >> bits
        lo, hi = indptr[states], indptr[states + 1]
        counts = hi - lo
        total = int(counts.sum())
        if total == 0 or spent + total > budget:
            return None, spent + total
        room(LOOP_SEARCH_BYTES_PER_EDGE * total)
        spent += total
        parent = np.repeat(np.arange(len(frontier), dtype=np.int64), counts)
        edge = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(lo, counts)
        target = ed[edge]
        masks = (frontier[parent] & low) | step_bits[edge] | state_bits[target]
        closing = (target == start) & accepting(masks)
        if closing.any():
            k = int(np.flatnonzero(closing)[0])
            path = []
            i = int(parent[k])
            for level in range(len(levels) - 1, -1, -1):
                lk, lp = levels[level]
                path.append(int(lk[i] >> bits))
                i = int(lp[i])
            path.reverse()
            return path, spent
        new = target << bits | masks
        new, first = np.unique(new, return_index=True)
        fresh = ~np.isin(new, seen, assume_unique=True)
        new, first = new[fresh], first[fresh]
        if not len(new):
            return None, spent
        levels.append((new, parent[first]))
        seen = np.union1d(seen, new)
    return None, spent


def _distances(order: np.ndarray, pred: np.ndarray, size: int) -> np.ndarray:
    """Each node's number of steps from the search's source (-1 if unreached), from its predecessors.

    A breadth-first order lists the nodes level by level, and each node's
    predecessor's place in it never decreases along it (a queue: a node's
    successors are listed when it is taken from the queue), so each level
    ends where the predecessors reach past the level before: one bisection
    a level.  Should the order not be so (a predecessor listed after its
    node, or out of the queue's order), each round settles the nodes whose
    predecessor is settled (one level a round), in numpy rather than a
    Python loop over every node."""
    dist = np.full(size, -1, dtype=np.int64)
    dist[order[0]] = 0
    if len(order) > 1:
        place = np.empty(size, dtype=np.int64)
        place[order] = np.arange(len(order), dtype=np.int64)
        pred_place = place[pred[order[1:]]]
        if bool(np.all(pred_place[1:] >= pred_place[:-1])) and bool(np.all(pred_place < np.arange(1, len(order)))):
            bounds = [0, 1]  # level k holds order[bounds[k]:bounds[k + 1]]
            while bounds[-1] < len(order):
                bounds.append(1 + int(np.searchsorted(pred_place, bounds[-1], side="left")))
            sizes = np.diff(np.array(bounds, dtype=np.int64))
            dist[order] = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
            return dist
    rest = order[1:]
    while len(rest):
        before = pred[rest]
        ready = dist[before] >= 0
        dist[rest[ready]] = dist[before[ready]] + 1
        rest = rest[~ready]
    return dist


def check_formula(graph: BehaviourGraph, formula: Formula, bit_of: Callable[[Callable], int],
                  step_of: Callable[[Callable], int] | None = None) -> Lasso | None:
    """A fair lasso violating ``formula``, or None when every fair behaviour satisfies it."""
    for clause in negated_clauses(formula, bit_of, step_of):
        lasso = graph.find(clause)
        if lasso is not None:
            return lasso
    return None


def masks_of(states: Iterable[Any], predicates: Sequence[Callable], c: Any) -> np.ndarray:
    """Each state's predicate bits (for tests and small graphs; the search computes them as it goes)."""
    out = []
    for s in states:
        m = 0
        for k, p in enumerate(predicates):
            if p(c, s):
                m |= 1 << k
        out.append(m)
    return np.array(out, dtype=np.int64)
