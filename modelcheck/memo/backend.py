"""The memo backend: levels expanded by the C loop over rows of component ids (see :mod:`modelcheck.memo`).

It speaks the level driver's protocol (:mod:`modelcheck.search.backend`), so
counts, stops, traces, checkpoints and reports are decided where they are for
every other engine.  A row's fingerprint is its state's own, so the driver
keeps the parent records and replays traces with the readable spec as
always, a checkpoint of a run on the tables resumes on any engine and any
checkpoint resumes here, and a run whose tables learn too much hands its
boundary to the spec's own code instead of starting again (:class:`GivesWay`).

Anything the tries cannot say (spec code raising, a non-canonical value, an
action returning something else than states) is handed to the readable
spec on the whole state, which reports it exactly as the local engine does;
a shape the layout did not foresee raises :class:`MemoUnsupported`, and the
check runs again on the local engine.
"""

# modelcheck: compile

from __future__ import annotations

import copy
import gc
import math
import os
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from modelcheck.build import compiled
from modelcheck.errors import SpecRuntimeError
from modelcheck.memo import kernel as kn
from modelcheck.memo.allowlist import review
from modelcheck.memo.layout import MAX_FINGERPRINT_NODES, Layout, LayoutMismatch, LayoutTooLarge, derive_layout
from modelcheck.memo.split import split_guard
from modelcheck.memo.orbits import OrbitTrees
from modelcheck.memo.steps import StepTrees
from modelcheck.memo.tries import MISSING, BadResult, Learner, NotDeterministic, TracedOf, Tries
from modelcheck.memo.view import NotAProjection, projection
from modelcheck.memo.values import Interner, MixedTypes, MixedWatch, NotCanonical
from modelcheck.memo.verify import Leaves, Sampler, difference
from modelcheck.model.bound import BoundModel
from modelcheck.model.fingerprint import fingerprint, fingerprints, is_canonical, record_classes
from modelcheck.search import discovery
from modelcheck.search.backend import EdgeBlock, FrontierWrite, GivesWay, LevelCommit, LevelReport, LevelRequest, SpecFailure
from modelcheck.search.memory import collections_paused, current_rss_bytes
from modelcheck.search.checkpoint import write_frontier_rows
from modelcheck.search.successor_rules import check_steps, parent_expander
from modelcheck.spec.renaming import ModelValueRenaming

CHUNK = 4096
"""Parents per call of the C loop: the driver hears from the level (and Ctrl-C is seen) this often."""
FINE_CHUNK = 64
"""Parents a level expands between reports near ``--max-states`` (see :meth:`MemoBackend._chunk`)."""
MISSES = 256
"""Branches not learnt yet that one call of the C loop notes before it returns them to be learnt."""
PROBE = 64
"""Parents whose bindings are walked past the first one with a miss, only to note their misses too: one
return to Python learns the branches of many parents (a branch learnt meanwhile for another parent is
walked on, not learnt twice).  With 64, Kip320 returns 9,264 times instead of 35,136.  Those parents'
successors are not built nor their checks walked (a miss there waits for the parent's own turn): with
them, 5,625 returns, but a tenth more time in the C loop."""
LEAF_BANK_BYTES = 64 << 20
"""The most memory a level's kept leaves take (twice: the parents' and the new states'); past it a level's
states keep none and walk every tree.  Kip320 with three replicas needs 17 MiB, AsyncIsr with four 32."""
EARLY_PROBATION = 1_000
"""Successors generated before the tables may give up early, at a level's end, on a spec they plainly do not
suit (more than :data:`EARLY_LIMIT` evaluations a successor)."""
EARLY_LIMIT = 1.5
"""Evaluations of the spec's code per successor past which the tables give up at once.  At the first level end
past 1,000 successors the registered specs learn at most 1.03 a successor (Kip101 and truncate-to-hw at
1,812, then 0.46 at 7,383; Kip320 with three replicas 0.73 at 2,910), while the message-set specs learn more
than two (PaxosCommit 2.51 at 1,288, MultiPaxos 2.36 at 1,858), and on MultiPaxos an evaluation on traced
parts costs about 100 µs where the spec's own code takes 62 µs a successor: waiting only adds to the bill."""
SETTLED_PROBATION = 10_000
"""Successors generated before the tables give up, at a level's end, above :data:`SETTLED_LIMIT`."""
SETTLED_LIMIT = 1.0
"""The early limit once the tables have seen :data:`SETTLED_PROBATION` successors: past 5,000 the Kafka specs
stay at or below one evaluation in two and go on falling."""
PROBATION = 200_000
"""Successors generated before the tables decide, once, whether they learn too much to be worth it."""
LEARN_LIMIT = 0.25
"""Evaluations of the spec's code per successor generated past which the spec's own code is faster: an evaluation
on traced parts costs several times a successor by the spec's own code, and a run that learns one for every few
successors (a message set read whole by every action) gains nothing from the tables."""
MASK64 = (1 << 64) - 1
MAX_CHECKS = 29
"""Invariants, ``sometimes`` properties and liveness predicates on the tables: each is a bit of a candidate's
int32 flags in the C loop, above its two own bits."""
SAMPLE_STATES = 1000
"""States explored with the readable spec before the search, to read the layout off more than the initial states."""
ORBIT_CACHE_SLOTS = 1 << 20
"""With symmetry: (own fingerprint, orbit fingerprint) pairs the C loop keeps (16 MiB), emptied when three quarters
full.  A state is generated several times (Kip320 with three replicas: 128,727 distinct states met among 328,998
successors), and its orbit costs a call of the spec's ``signature`` and ``permute`` each time it is not cached."""


class MemoUnsupported(Exception):
    """This spec or run cannot use the memo engine; the check runs on the local engine (``reason`` says why)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class MemoGivesWay(MemoUnsupported, GivesWay):
    """The tables learn too much to pay: everything up to the level under way is sound, so the spec's own code
    goes on from that level's boundary (:class:`~modelcheck.search.backend.GivesWay`); a caller without a
    fallback starts the check again, as for any :class:`MemoUnsupported`."""

    def __init__(self, reason: str, states: Callable[[], Iterable[Any]]) -> None:
        GivesWay.__init__(self, f"the memo tables stopped ({reason})", states)
        self.reason = reason


def build_reason() -> str | None:
    """Why the memo tables cannot run in this installation, or None.

    The C loop is built by ``modelcheck compile`` for the source it was built
    from: after the source changes (an upgrade, a checkout) and until the next
    build it runs interpreted, which it refuses to do; the check then takes the
    spec's own code, several times slower, and says so.  A run that turned
    compiled modules off (``MODELCHECK_INTERPRETED``) is as the user asked:
    :func:`option_reason` names it, and the check says nothing.
    """
    if not kn.COMPILED and not os.environ.get(compiled.DISABLE_ENV):
        return "their C loop is not built for this source (run `modelcheck compile`)"
    return None


def option_reason(model: BoundModel) -> str | None:
    """Why this run's options keep it off the memo tables (the run is as the user asked), or None."""
    if not kn.COMPILED:
        return build_reason() or f"compiled modules are turned off ({compiled.DISABLE_ENV})"
    return None


def spec_reason(model: BoundModel) -> str | None:
    """Why this spec cannot run on the memo tables whatever the options, or None (none so far: what the tables
    cannot hold is found while they are built, :class:`MemoUnsupported`)."""
    return None


def checked_functions(model: BoundModel) -> list[Callable]:
    """The spec functions a check runs on the tables: its actions, constraint, invariants and properties."""
    spec = model.spec
    fns = [a.fn for a in model.actions] + [p.fn for p in (*model.invariants, *model.sometimes, *model.step_properties)]
    fns += [spec.fingerprint_view] if model.view is not None else []
    fns += [spec.action_constraint] if spec.action_constraint is not None else []
    return fns + ([spec.state_constraint] if spec.state_constraint is not None else [])


def state_classes(model: BoundModel) -> list[type]:
    """The classes of the initial states and of the records inside them (their methods are spec code too)."""
    return record_classes(model.init_states())


def _changed(obj: Any, before: Any) -> bool:
    """Whether a watched container differs from its copy taken before the search, as the spec's code could
    tell: ``True`` where ``1`` was, ``-0.0`` where ``0.0`` was and a dict's order are changes too."""
    return not _alike(obj, before)


def _alike(a: Any, b: Any) -> bool:
    """Equal, of the same types throughout, floats of the same sign, dicts in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (a != a and b != b)
    if isinstance(a, dict):
        return len(a) == len(b) and all(_alike(k, j) and _alike(v, w) for (k, v), (j, w) in zip(a.items(), b.items()))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_alike(x, y) for x, y in zip(a, b))
    if isinstance(a, (set, frozenset)):
        if a != b:
            return False
        alike = {x: x for x in b}
        return all(_alike(x, alike[x]) for x in a)
    return a == b


def sample_states(model: BoundModel, limit: int = SAMPLE_STATES) -> list:
    """The first ``limit`` states of a breadth-first walk with the readable spec (for the layout)."""
    seen: set = set()
    out: list = []
    frontier = []
    for s in model.init_states():
        if s not in seen:
            seen.add(s)
            out.append(s)
            frontier.append(s)
    while frontier and len(out) < limit:
        nxt = []
        for s in frontier:
            for _ai, _b, t in model.successors(s):
                if t not in seen and len(out) < limit:
                    seen.add(t)
                    out.append(t)
                    nxt.append(t)
        frontier = nxt
    return out


class RowsExpansion:
    """What :meth:`MemoBackend.expand_rows` found: the successors new to the batch, in discovery order."""

    __slots__ = ("rows", "parent", "action", "fp", "checks", "generated", "deadlock", "failure")

    def __init__(self, rows: np.ndarray, parent: np.ndarray, action: np.ndarray, fp: np.ndarray,
                 checks: np.ndarray, generated: np.ndarray, deadlock: int | None,
                 failure: tuple[int, SpecFailure] | None) -> None:
        self.rows = rows
        """(n, width) int32: ids of the tables' interner."""
        self.parent = parent
        """int32: each one's parent, an index into the rows expanded (ascending)."""
        self.action = action
        self.fp = fp
        """int64."""
        self.checks = checks
        """int64: bit k set where check k fired on it (an invariant violated, a property reached)."""
        self.generated = generated
        """Per action: successors generated, repeats and states outside the model included."""
        self.deadlock = deadlock
        """The first parent without a successor (when deadlock is checked), or None."""
        self.failure = failure
        """(parent, failure): the first parent on which the spec's code failed; its later parents were not
        expanded."""


class MemoBackend:
    """Expands levels with the memo tries and the C loop.  All run state lives on the instance."""

    name = "local"
    verbose = False
    keeps_parents = False

    def __init__(self, model: BoundModel, samples: list | None = None, simd: bool = True, threads: int = 1,
                 only_helpers: bool = False, own_ring: bool = False, verify: str = "sample",
                 verify_seed: int | None = None, may_give_up: bool = True, share: float = 1.0) -> None:
        """``simd=False`` keeps the C loop on its portable code where the CPU has AVX2 (the tests compare
        the two).  ``threads`` > 1 runs ``threads - 1`` helper threads beside this one (``--workers``):
        see :func:`modelcheck.memo.kernel.crew_new`, which also says what ``only_helpers`` and ``own_ring``
        are for.  ``verify`` is how many parents' answers are checked against the spec's own code
        (:class:`modelcheck.memo.verify.Sampler`: a sample, every one, or none), ``verify_seed`` seeds the
        sample.  ``may_give_up``: stop (for the spec's own code) where the tables learn too much to pay
        (:data:`LEARN_LIMIT`); not where the tables were asked for (``--memo``)."""
        self.model = model
        self.may_give_up = may_give_up
        self.share = share
        """The part of the run's successors these tables expand (a Spark worker's, about one over the workers):
        whether learning pays is judged on the run's successors, as one process would judge it."""
        self.generated_total = 0
        self.sampler = Sampler(verify, verify_seed)
        self.simd = simd
        self.threads = threads
        spec = model.spec
        found = review(checked_functions(model), state_classes(model), model.c, model.bindings)
        if found.refusal is not None:
            raise MemoUnsupported(found.refusal)
        self.watched = [(where, obj, copy.deepcopy(obj)) for where, obj in found.mutables]
        """Module-level containers the spec's code reads, with their contents before the search: an evaluation
        that changes one keeps state between evaluations (a memoising dict), and the tables stop."""
        samples = samples if samples is not None else sample_states(model)
        changed = self._watched_change()  # the layout's walk ran the spec's code too
        if changed is not None:
            self.restore_watched()
            raise MemoUnsupported(changed)
        self.compares_none = found.compares_none
        """Where the spec's code first compares with ``is None``: then the tables stop once a state part holds
        None (its traced part is not None itself, so the comparison would take the other branch)."""
        whole: frozenset = frozenset()
        self.layout: Layout = derive_layout(samples, whole)
        self.interner = Interner(is_canonical)
        while True:
            try:
                for s in samples:
                    self.layout.row(s, self.interner)
                break
            except LayoutMismatch as m:  # a part whose shape changes across the sample: one component
                whole |= {m.path}
                self.layout = derive_layout(samples, whole)
        self.width = self.layout.width
        try:
            self.fp_prog = self.layout.fingerprint_program(self._view_projection(samples[0]))
        except LayoutTooLarge as big:
            raise MemoUnsupported(f"a state of {big.nodes} records and tuples (the tables take at most "
                                  f"{MAX_FINGERPRINT_NODES})") from None
        self.mixed = MixedWatch(self.width)
        self.initial_rows: list[tuple] = []
        functions: list[tuple[Callable, tuple, str]] = []
        self.action_of: list[int] = []
        splits = [split_guard(a.fn) for a in model.actions]
        self.split_actions = [a.name for a, sp in zip(model.actions, splits) if sp is not None]
        for ai, (a, bs) in enumerate(zip(model.actions, model.bindings)):
            for b in bs:
                functions.append((a.fn if splits[ai] is None else splits[ai][1], b, "action"))
                self.action_of.append(ai)
        self.n_bindings = len(functions)
        self.constraint_fn = -1
        if spec.state_constraint is not None:
            self.constraint_fn = len(functions)
            functions.append((spec.state_constraint, (), "predicate"))
        self.first_check = len(functions)
        self.checks = [("invariant", inv.name) for inv in model.invariants]
        self.checks += [("sometimes", p.name) for p in model.sometimes]
        self.first_predicate = len(self.checks)
        """The first check that is a liveness predicate (bit 0 of a new state's mask)."""
        predicates = model.temporal_predicates if model.liveness_properties else []
        self.n_predicates = len(predicates)
        self.checks += [("predicate", f"predicate {k}") for k in range(len(predicates))]
        if len(self.checks) > MAX_CHECKS:
            raise MemoUnsupported(f"{len(self.checks)} invariants, properties and liveness predicates "
                                  f"(at most {MAX_CHECKS})")
        functions += [(inv.fn, (), "predicate") for inv in model.invariants]
        functions += [(p.fn, (), "predicate") for p in model.sometimes]
        functions += [(p, (), "predicate") for p in predicates]
        # A split action's bindings walk the guard's tree first, then the effect's (``split``).
        self.guard_of = np.full(max(1, self.n_bindings), -1, np.int32)
        for b in range(self.n_bindings):
            sp = splits[self.action_of[b]]
            if sp is not None:
                self.guard_of[b] = len(functions)
                functions.append((sp[0], functions[b][1], "predicate"))
        # Each state keeps a leaf per slot (see ``kernel``): its bindings' (slots 0 .. B-1), then its
        # constraint's and its checks' (its own: B .. slots-1).
        self.n_own = (self.constraint_fn >= 0) + len(self.checks)
        self.slots = self.n_bindings + self.n_own
        self.leaf_rows = LEAF_BANK_BYTES // (4 * self.slots) if self.slots else 0
        self.scratch_leaf = np.full(max(1, self.slots), -1, np.int32)
        self.functions = functions
        self.tries = Tries(len(functions), self.width)
        self.learner = Learner(self.layout, self.tries, self.interner, model.c, functions, model.state_type)
        self.steps = (StepTrees(self.layout, self.interner, model.c, [(p.name, p.fn) for p in model.step_properties],
                                model.state_type) if model.step_properties else None)
        """The step properties' trees (None without step properties): every transition the C loop keeps is
        walked through them (:mod:`modelcheck.memo.steps`)."""
        self.steps_done = 0
        """The level's transitions (edges) already walked through the step properties' trees."""
        self.action_constraint = (StepTrees(self.layout, self.interner, model.c,
                                            [("action_constraint", spec.action_constraint)], model.state_type)
                                  if spec.action_constraint is not None else None)
        """The action constraint's tree over pair rows (None without one): the C loop walks it in pass 2."""
        self.ac_tries = self.action_constraint.tries if self.action_constraint else Tries(1, 2 * self.width)
        self.steps_reported: set = set()
        self.pending_steps: list = []
        """Step violations found since the last report: (position, the parent's fingerprint, names)."""
        self.crew = kn.crew_new(threads - 1, only_helpers, own_ring) if threads > 1 else None
        """Helper threads (or None): they run passes 1 and 2 of parents ahead of this thread's C loop."""
        self._crew_running = False
        self._crew_final = (0, 0, 0, 0)
        self._crew_orbits = 0
        """With symmetry: the orbits the helper threads took by the orbit trees, once they are stopped."""
        self._crew_new_level = True
        self._claims = np.zeros(0, np.int32)
        """The level's claims on its parents (this thread's, a helper's, ready): read by the C loop."""
        if self.crew is not None:
            self.tries.before_replace = self._park
            self.ac_tries.before_replace = self._park
            self.interner.before_replace = self._park
        self.poll: Callable[[], None] = lambda: None
        self.rows = self._rows_buf = np.zeros((0, self.width), np.int32)
        self.row_leaf = self._leaf_buf = np.zeros((0, self.slots), np.int32)
        self.cur_fps = np.zeros(0, np.int64)
        """The fingerprints of ``rows`` (the C loop starts each parent's successors' sums from its own)."""
        self.n_out = 0
        self.out_parent = np.zeros(0, np.int32)
        self.out_action = np.zeros(0, np.int32)
        self.out_fp = np.zeros(0, np.uint64)
        self.out_checks = np.zeros(0, np.int64)
        self.vkeys = np.zeros(1 << 16, np.uint64)
        self.vcount = 0
        self.cand = np.zeros((256, self.width), np.int32)
        self.cand_action = np.zeros(256, np.int32)
        self.cand_fp = np.zeros(256, np.uint64)
        self.cand_flag = np.zeros(256, np.int32)
        self.cand_mask = np.zeros(256, np.uint64)
        self.cand_own = np.zeros((256, self.n_own), np.int32)
        self.recording = False
        self.edge_src = np.zeros(1024, np.int32)
        self.edge_dst = np.zeros(1024, np.uint64)
        self.edge_label = np.zeros(1024, np.int32)
        """With liveness: the level's transitions (parent rank, target, binding), ``S_N_EDGES`` of them."""
        self.edge_rows = np.zeros((1024 if self.steps else 1, self.width), np.int32)
        self.edge_step = np.zeros(1024 if self.steps else 1, np.int32)
        """With step properties: each transition's target row and its index among its parent's successors."""
        self.action_of_arr = np.array(self.action_of or [0], np.int32)
        self.miss_fn = np.zeros(MISSES, np.int32)
        self.miss_parent = np.zeros(MISSES, np.int32)
        self.miss_rows = np.zeros((MISSES, self.width), np.int32)
        self.miss_node = np.zeros(MISSES, np.int32)
        self.miss_depth = np.zeros(MISSES, np.int32)
        self.orbit_cache = np.zeros(2 * ORBIT_CACHE_SLOTS + 1 if model.orbit_fingerprint else 3, np.int64)
        """With symmetry: the C loop's memo of orbit fingerprints by own fingerprint (``kernel.ORBIT_CACHE``)."""
        self.orbit_error: BaseException | None = None
        """What the spec's symmetry functions raised in the last orbit asked for by the C loop."""
        self.orbits = self._orbit_trees() if model.orbit_fingerprint else None
        """With symmetry: the trees of the spec's ``signature`` and ``permute`` (:mod:`modelcheck.memo.orbits`)."""
        self.o_tries = self.orbits.tries if self.orbits else Tries(1, self.width)
        if self.crew is not None and self.orbits is not None:
            # The helpers walk the orbit trees and read the keys' ranks, which a new key renumbers in place.
            self.o_tries.before_replace = self._park
            self.orbits.order.before_change = self._park
        self.o_row = np.zeros(max(1, self.width), np.int32)
        self.o_nfp = np.zeros(max(1, int(self.fp_prog[0])), np.uint64)
        """Scratch for the C loop: a renamed row and its node fingerprints."""
        self._o_rank_none = np.full(1, -1, np.int64)
        self._table: np.ndarray | None = None
        self._table_of: tuple | None = None
        self._froze = False
        self._forget_level()

    def _view_projection(self, sample: Any) -> Any:
        """The parts of the state the run's VIEW keeps (:mod:`modelcheck.memo.view`), or None without a view."""
        if self.model.view is None:
            return None
        log: list[int] = []
        traced = [TracedOf(k, self.interner.values, log) for k in range(self.layout.width)]
        state = self.layout.traced_state(self.layout.row(sample, self.interner), traced)
        try:
            return projection(self.layout, self.model.view, state, log)
        except NotAProjection as why:
            raise MemoUnsupported(f"the spec's VIEW is not a tuple of parts of the state: {why}") from None
        except Exception as exc:  # noqa: BLE001 - the spec's own code reports it, on plain values
            raise MemoUnsupported(f"the spec's VIEW failed on traced parts ({type(exc).__name__})") from None

    # -- the backend protocol -----------------------------------------------------------

    def start(self, states: Any, fps: np.ndarray, visited: np.ndarray, poll: Callable[[], None],
              parents: Any = None) -> None:
        """Start at a boundary: the initial level, a resumed checkpoint's or another backend's frontier."""
        self.poll = poll
        with collections_paused():
            form = getattr(states, "rows_form", None)
            if form is not None and form.fits(self.layout.root):
                # A checkpoint's frontier written as rows of this layout: each distinct part interned once.
                ids = np.array([self._interned(v) for v in form.values], np.int32)
                self.rows = ids[form.rows] if len(form.rows) else np.empty((0, self.width), np.int32)
                self.initial_rows = [tuple(r) for r in self.rows.tolist()]
                # ``states`` are these rows' states, assembled by the same shape: their fingerprints are the rows'.
                own = fingerprints(list(states), len(states), self.model.fingerprint).view(np.uint64)
            else:
                self.initial_rows = [self._row_of(s) for s in states]
                self.rows = np.array(self.initial_rows, np.int32).reshape(-1, self.width)
                own = np.array([self._row_fp(r) for r in self.rows], np.uint64)
            self._watch()
            self.row_leaf = np.full((min(len(self.rows), self.leaf_rows), self.slots), -1, np.int32)
        if not np.array_equal(own.view(np.int64), np.asarray(fps, np.int64)):
            raise MemoUnsupported("a state's fingerprint by its row is not its own")
        # ``visited`` (sorted, distinct) holds the frontier's fingerprints too; ``_visit`` adds any it lacks.
        self._grow_visited(len(visited) + len(own))
        self.vcount += kn.rehash(np.ascontiguousarray(visited, np.int64).view(np.uint64), self.vkeys)
        for fp in own.tolist():
            self._visit(fp)
        self.cur_fps = own.view(np.int64)

    def write_frontier(self, directory: str) -> FrontierWrite:
        """The frontier as it is held, rows of part ids, into a checkpoint's data directory (every engine reads
        them back as states)."""
        part = write_frontier_rows(directory, 0, self.layout.root, self.interner.values, self.rows,
                                   np.arange(len(self.rows), dtype=np.int64))
        return FrontierWrite(self.cur_fps.copy(), [part])

    def _frontier_states(self) -> Iterator[Any]:
        values = self.interner.values
        state = self.layout.state
        for row in self.rows.tolist():
            yield state(tuple(row), values)

    def _row_fp(self, row: np.ndarray) -> int:
        """The fingerprint of ``row`` (unsigned), as the C loop takes it: its state's own."""
        return self.model.fingerprint(self.layout.state(tuple(row.tolist()), self.interner.values)) & MASK64

    def _row_of(self, s: Any) -> tuple:
        return self._refused_as_unsupported(self.layout.row, s, self.interner)

    def row_of(self, s: Any) -> tuple:
        """State ``s`` as a row of this process's tables (:class:`MemoUnsupported` where they cannot hold it)."""
        return self._row_of(s)

    def _interned(self, v: Any) -> int:
        return self._refused_as_unsupported(self.interner, v)

    @staticmethod
    def _refused_as_unsupported(fn: Callable, *args: Any) -> Any:
        """``fn(*args)``, a state or part the tables cannot hold raised as :class:`MemoUnsupported`."""
        try:
            return fn(*args)
        except LayoutMismatch as m:
            raise MemoUnsupported(f"a state's {'.'.join(map(str, m.path))} changed shape") from None
        except NotCanonical:
            raise MemoUnsupported("a state is not canonical") from None
        except MixedTypes as m:
            raise MemoUnsupported(m.reason()) from None

    def _visit(self, fp: int) -> None:
        self._grow_visited(1)
        size = len(self.vkeys)
        h = kn.slot(fp, size)
        while int(self.vkeys[h]) not in (0, fp):
            h = h + 1 if h + 1 < size else 0
        if int(self.vkeys[h]) == 0:
            self.vkeys[h] = fp
            self.vcount += 1

    def detail(self) -> str:
        return (f"memo: {self.learner.evaluations:,} evaluations, {self.tries.n_nodes:,} nodes, "
                f"{self.tries.n_leaves:,} leaves, {len(self.interner.values):,} values")

    def engine_report(self) -> dict | None:
        return {
            "successors": "memo tables",
            "components": self.width,
            "split_actions": self.split_actions,
            "layout": self.layout.describe(),
            "evaluations": self.learner.evaluations + sum(t.evaluations for t in (self.steps, self.action_constraint)
                                                          if t is not None),
            "tree_nodes": self.tries.n_nodes,
            "leaves": self.tries.n_leaves,
            "values": len(self.interner.values),
            "table_bytes": self.tries.nbytes(),
            "visited_bytes": int(self.vkeys.nbytes),
            "threads": self.threads,
            "verified": self.sampler.report(),
            **(self._crew_report() if self.threads > 1 else {}),
            **({"orbits": self._orbit_report()} if self.orbits is not None else {}),
        }

    def orbit_notes(self) -> list[str]:
        """The one line a run prints where the orbit trees stood aside for a reason of the spec's code (the
        allowlist, learning that did not pay, an error on traced parts), or nothing."""
        trees = self.orbits
        if trees is None or trees.why is None or trees.by_design:
            return []  # a reason of the symmetry's kind, not of the spec's code, is in --json only
        return [f"the orbit trees stood aside ({trees.why}); the spec's own signature and permute took the orbits"]

    def _orbit_report(self) -> dict:
        """With symmetry: whether the orbit trees took the orbits, how much they learnt, and why not."""
        trees = self.orbits
        return {"trees": trees.why is None, "why": trees.why, "evaluations": trees.evaluations,
                "asked": self._orbits_asked(), "keys": trees.order.count, "signature_items": trees.sorted}

    def _orbits_asked(self) -> int:
        """Orbits asked of the orbit trees so far: by the C loop where its cache missed, and by the helpers."""
        helpers = kn.crew_orbits(self.crew) if self.crew is not None else self._crew_orbits
        return int(self.S[kn.S_ORBIT_ASKED]) + helpers

    def _crew_report(self) -> dict:
        """Parents prepared and given back by the helper threads, and by this thread ahead of its turn."""
        counts = self._helper_counts()
        return {"helper_parents": dict(zip(("prepared", "given_back"), counts[:2])),
                "committer_ahead": dict(zip(("prepared", "given_back"), counts[2:]))}

    def memory_bytes(self) -> int | None:
        return current_rss_bytes()

    def new_state_parent(self, n: int) -> Any:
        return int(self.out_parent[n - 1])

    def commit(self, bound: Any) -> LevelCommit:
        self._park()
        n_actions = len(self.model.actions)
        n = self.n_out
        gen = self.gen_by_action.copy()
        par = self.out_parent[:n]
        act = self.out_action[:n]
        fps = self.out_fp[:n].view(np.int64)
        done = int(self.S[kn.S_I])  # parents 0 .. done-1 were expanded
        edges = masks = None
        if self.recording:
            m = int(self.S[kn.S_N_EDGES])
            label_dtype = np.int16 if len(self.model.label_action) < 2**15 else np.int32
            edges = EdgeBlock(self.edge_src[:m].copy(), self.edge_dst[:m].view(np.int64).copy(),
                              self.edge_label[:m].astype(label_dtype))
            masks = (self.out_checks[:n] >> self.first_predicate) & ((1 << self.n_predicates) - 1)
        self._verify(min(done, bound + 1) if bound is not None else done)
        if bound is not None:
            if bound + 1 < done:
                gen -= self._recount(bound + 1, done)
            keep = par <= bound
            par, act, fps = par[keep], act[keep], fps[keep]
            if edges is not None:
                edges = edges.where(edges.src <= bound)
                masks = masks[keep]
        self._worth_it(int(gen.sum()))
        distinct = np.bincount(act, minlength=n_actions) if len(act) else np.zeros(n_actions, np.int64)
        spare = None
        if bound is None:
            # The new level's rows are read where they were written; the parents' buffers take the next
            # level's (writing into memory already touched spares the page faults of a fresh array).
            spare = (self._rows_buf, self._leaf_buf)
            self._rows_buf, self._leaf_buf = self.out_rows, self.out_leaf
            self.rows = self.out_rows[:n]
            self.row_leaf = self.out_leaf[:min(n, len(self.out_leaf))]
            self.cur_fps = fps.copy()
        commit = LevelCommit([int(g) for g in gen[:n_actions]], [int(d) for d in distinct[:n_actions]],
                             len(fps), fps.copy(), par.copy(), edges=edges,
                             masks=masks.copy() if masks is not None else None)
        self._forget_level(spare)
        return commit

    def _worth_it(self, generated: int) -> None:
        """Decide, at level ends, whether the tables learn too much: at once past :data:`EARLY_PROBATION`
        successors if they learn more than :data:`EARLY_LIMIT` a successor (:data:`SETTLED_LIMIT` past
        :data:`SETTLED_PROBATION`), and once, at the first level's
        end past :data:`PROBATION`, if more than :data:`LEARN_LIMIT`.  Then they stop, and the check runs on
        the spec's own code from this level's boundary (:class:`MemoGivesWay`: it is called before the level
        is committed, and its parents, ``rows``, are still that boundary's frontier)."""
        before = self.generated_total / self.share
        self.generated_total += generated
        seen = self.generated_total / self.share
        if not self.may_give_up or before >= PROBATION or seen < min(EARLY_PROBATION, PROBATION):
            return
        evaluations = self.learner.evaluations
        if seen >= PROBATION:
            limit = LEARN_LIMIT
        else:
            limit = min(SETTLED_LIMIT, EARLY_LIMIT) if seen >= SETTLED_PROBATION else EARLY_LIMIT
        if evaluations > limit * seen:
            share = f"one in {round(1 / limit)}" if limit < 1 else f"{limit:g} a successor"
            raise MemoGivesWay(f"they learnt {evaluations:,} evaluations for the first "
                               f"{self.generated_total:,} successors, more than {share}, "
                               "where the spec's own code is faster; a set of messages that most actions read "
                               "whole is the usual cause: MessageSpace keeps one bit a message "
                               "(docs/writing-specs.md, 'Making it fast')", self._frontier_states)

    def _verify(self, n: int) -> None:
        """Check the sampled parents among the level's first ``n`` against the spec's own code."""
        leaves = None
        for i in self.sampler.pick(n):
            leaves = leaves or Leaves(self.tries)
            found = difference(self, self.rows[i], leaves, self.row_leaf[i] if i < len(self.row_leaf) else None)
            if found is None and (self.steps is not None or self.action_constraint is not None):
                found = self._verify_steps(i)
            if found is None and self.orbits is not None and self.model.view is None:
                found = self._verify_orbit(i)
            if found is not None:
                raise MemoUnsupported(f"the tables differ from the spec's own code: {found}")

    def abandon(self) -> None:
        self._park()
        self._forget_level()

    def close(self) -> None:
        self._park()
        if self.crew is not None:
            self._crew_final = kn.crew_counts(self.crew)
            self._crew_orbits = kn.crew_orbits(self.crew)
        self.crew = None  # its threads end with it
        if self._froze:
            gc.unfreeze()
            self._froze = False
        self.rows = self._rows_buf = np.zeros((0, self.width), np.int32)
        self.row_leaf = self._leaf_buf = np.zeros((0, self.slots), np.int32)
        self._forget_level()
        self.out_parent = np.zeros(0, np.int32)
        self.out_action = np.zeros(0, np.int32)
        self.out_fp = np.zeros(0, np.uint64)
        self.out_checks = np.zeros(0, np.int64)
        self._fit_out(0)

    def check_path(self, path: list[int]) -> None:
        """Before the driver replays ``path`` (fingerprints from an initial state on) with the spec's own code:
        every step of it is one the spec's own code takes, or the fault is the tables' (raised as
        :class:`MemoUnsupported`), never the spec's "not deterministic", which the replay would report."""
        rows = []
        for s in self.model.init_states():
            row = np.array(self._row_of(s), np.int32)
            if self._row_fp(row) == path[0] & MASK64:
                rows.append(row)
                break
        for target in path[1:]:
            if not rows:
                break
            nxt = next((t for t in self._successor_rows(rows[-1]) if self._row_fp(t) == target & MASK64), None)
            if nxt is None:
                raise MemoUnsupported("a step the tables took is not one of their own successors")
            if self.model.spec.action_constraint is not None:
                s, t = (self.layout.state(tuple(r.tolist()), self.interner.values) for r in (rows[-1], nxt))
                if not self.model.action_allowed(s, t):
                    raise MemoUnsupported("a step the tables took is one the spec's action constraint rejects, "
                                          "by the spec's own code")
            rows.append(nxt)
        leaves = Leaves(self.tries)
        for row in rows[:-1]:
            found = difference(self, row, leaves)
            if found is not None:
                raise MemoUnsupported(f"the tables differ from the spec's own code: {found}")

    # -- batches apart from any level (Spark's executors) ---------------------------------------

    def interned_parts(self, values: list) -> np.ndarray:
        """The ids of ``values`` (parts another process's tables made) in this process's tables."""
        return np.array([self._interned(v) for v in values], np.int32)

    def expand_rows(self, rows: np.ndarray, fps: np.ndarray, unreached: frozenset, violated: frozenset
                    ) -> "RowsExpansion":
        """Expand ``rows`` (ids of this process's tables, in discovery order) apart from any level.

        A Spark executor's task expands the new states of its shard this way:
        its successors are those new to the batch (the frontier's own states
        and repeats of an earlier parent's stay behind, as a task's map-side
        dedup leaves them), and the shard that owns each decides whether it is
        new to the run.  The checks are evaluated on each (their bits kept, not
        reported), the sampled parents verified against the spec's own code, and
        the tables give way (:class:`MemoGivesWay`) where they learn too much,
        as on a level.
        """
        rows = np.ascontiguousarray(rows, np.int32).reshape(-1, self.width)
        try:
            self.mixed.receive(self.interner, self.tries, rows)
        except MixedTypes as m:
            raise MemoUnsupported(m.reason()) from None
        self._forget_level()
        self.rows = rows
        self.cur_fps = np.ascontiguousarray(fps, np.int64)
        self.row_leaf = np.full((min(len(rows), self.leaf_rows), self.slots), -1, np.int32)
        self.vkeys = np.zeros(1 << 16, np.uint64)
        self.vcount = 0
        self._grow_visited(len(rows))
        self.vcount += kn.rehash(self.cur_fps.view(np.uint64), self.vkeys)
        deadlock = failure = None
        for report in self.expand(LevelRequest(0, unreached, violated), report_checks=False):
            if report.deadlocks and deadlock is None:
                deadlock = report.deadlocks[0][0]
            if report.failures:
                failure = (report.failures[0][0], report.failures[0][2])
        self._park()
        n = self.n_out
        self._verify(int(self.S[kn.S_I]))
        generated = self.gen_by_action[:len(self.model.actions)].copy()
        self._worth_it(int(generated.sum()))
        out = RowsExpansion(self.out_rows[:n].copy(), self.out_parent[:n].copy(), self.out_action[:n].copy(),
                            self.out_fp[:n].view(np.int64).copy(), self.out_checks[:n].copy(), generated,
                            deadlock, failure)
        self._forget_level()
        return out

    def check_bits(self, kind: str) -> dict[str, int]:
        """The bit of each check of ``kind`` ("invariant" or "sometimes") in :attr:`RowsExpansion.checks`."""
        return {name: 1 << k for k, (kd, name) in enumerate(self.checks) if kd == kind}

    # -- helpers -----------------------------------------------------------------------------

    def _successor_rows(self, row: np.ndarray) -> Iterator[np.ndarray]:
        """The successor rows of ``row`` in the spec's order, by the tries (learning what is missing)."""
        for b in range(self.n_bindings):
            code = self.binding_code(b, row)
            count, entries = self.tries.leaf_entries(code)
            for s in range(count):
                e = entries[s * self.width:(s + 1) * self.width]
                yield np.where(e >= 0, e, row[np.where(e >= 0, 0, ~e)]).astype(np.int32)

    def binding_code(self, b: int, row: Any) -> int:
        """The leaf of binding ``b`` for ``row`` (its guard's first, for a split action), learning what is missing."""
        g = int(self.guard_of[b])
        if g >= 0 and not self.tries.count_of(self.code_of(g, row)):
            return self.tries.empty_leaf()
        return self.code_of(b, row)

    def code_of(self, f: int, row: Any) -> int:
        """Function ``f``'s leaf for ``row`` (learning what is missing)."""
        code = self.tries.walk(f, row if type(row) is tuple else tuple(row.tolist()))[0]
        if code != MISSING:
            return code
        try:
            code = self.learner.learn(f, row)
        except MixedTypes as m:
            raise MemoUnsupported(m.reason()) from None
        self._watch()
        return code

    def _watch(self) -> None:
        """Stop the tables where what was just learnt breaks their rules: an evaluation changed a
        module-level container the spec's code reads, or a component can hold two equal values of different
        types (:class:`~modelcheck.memo.values.MixedWatch`)."""
        try:
            self.mixed.update(self.interner, self.tries, self.initial_rows)
        except MixedTypes as m:
            raise MemoUnsupported(m.reason()) from None
        broken = self._watched_changed()
        if broken is not None:
            raise MemoUnsupported(broken)

    def _watched_changed(self) -> str | None:
        """Why what was just learnt cannot stand, for the rules not about types: a module-level container the
        spec's code reads changed during an evaluation, or a state part holds None where the code compares
        with ``is None``; or None."""
        changed = self._watched_change()
        if changed is not None:
            return changed
        if self.compares_none is not None and None in self.interner.plain:
            return (f"{self.compares_none}: `is None` where a state part can hold None (the part the tables hand "
                    "the code stands for None but is not None itself)")
        return None

    def _watched_change(self) -> str | None:
        """Where a watched module-level container no longer holds what it held when the search began, or None."""
        for where, obj, before in self.watched:
            if _changed(obj, before):
                return (f"{where}: a module-level {type(obj).__name__} changed while the spec's code ran (state "
                        "kept from one evaluation to the next)")
        return None

    def restore_watched(self) -> None:
        """Put back what the watched module-level containers held when the search began: a check that starts
        again on the spec's own code after the tables stopped for a change there then begins where a run on
        the spec's own code would have (what the tables' evaluations added is the tables' doing, not the
        spec's run)."""
        for _where, obj, before in self.watched:
            if _changed(obj, before):
                again = copy.deepcopy(before)
                if isinstance(obj, (dict, set)):
                    obj.clear()
                    obj.update(again)
                else:  # a list or a bytearray
                    obj[:] = again

    def _recount(self, lo: int, hi: int) -> np.ndarray:
        """Per action: the successors generated by parents ``lo .. hi-1`` (all learnt: they were expanded)."""
        out = np.zeros(len(self.model.actions), np.int64)
        for i in range(lo, hi):
            row = tuple(self.rows[i].tolist())
            for b in range(self.n_bindings):
                out[self.action_of[b]] += self.tries.count_of(self.binding_code(b, row))
        return out

    def _forget_level(self, spare: tuple | None = None) -> None:
        """Start a level's outputs afresh: into the buffers ``spare`` if given (the per-state arrays
        ``out_parent``, ``out_action`` and ``out_fp`` are kept: what a level keeps of them is copied)."""
        n_actions = max(1, len(self.model.actions))
        self.n_out = 0
        if spare is not None:
            self.out_rows, self.out_leaf = spare
        else:
            self.out_rows = np.zeros((0, self.width), np.int32)
            self.out_leaf = np.zeros((0, self.slots), np.int32)
        self._fit_out(len(self.out_parent))
        self.gen_by_action = np.zeros(n_actions, np.int64)
        self.new_by_action = np.zeros(n_actions, np.int64)
        asked = int(self.S[kn.S_ORBIT_ASKED]) if hasattr(self, "S") else 0
        self.S = np.zeros(kn.S_N_SCALARS, np.int64)
        self.S[kn.S_ORBIT_ASKED] = asked  # the C loop's count of orbits asked for, kept over levels

    def _helper_counts(self) -> tuple[int, int, int, int]:
        """(parents the helper threads prepared, parents they gave back, the same two for the parents this
        thread prepared ahead into its own ring) so far."""
        return kn.crew_counts(self.crew) if self.crew is not None else self._crew_final

    def _park(self) -> None:
        """Park the helper threads (before an array they read is replaced, or a level ends)."""
        if self._crew_running:
            kn.crew_stop(self.crew)
            self._crew_running = False

    def _grow_visited(self, more: int) -> None:
        size = kn.grown_size(len(self.vkeys), self.vcount + more)
        if size == len(self.vkeys):
            return
        keys = np.zeros(size, np.uint64)
        kn.rehash(self.vkeys, keys)
        self.vkeys = keys

    def _grow_out(self, more: int) -> None:
        self._fit_out(max(self.n_out + more, 2 * len(self.out_parent), 1024))

    def _fit_out(self, size: int) -> None:
        """Give every output array room for ``size`` states (the C loop's capacity is ``out_parent``'s)."""
        for name in ("out_rows", "out_leaf", "out_parent", "out_action", "out_fp", "out_checks"):
            a = getattr(self, name)
            want = min(size, self.leaf_rows) if name == "out_leaf" else size
            if len(a) < want:
                b = np.empty((want,) + a.shape[1:], a.dtype)
                keep = min(self.n_out, len(a))
                b[:keep] = a[:keep]
                setattr(self, name, b)

    def _successor_count(self, i: int) -> int:
        """How many successors parent ``i`` has (refused with the local engine's error past the limit)."""
        try:
            n = sum(self.tries.count_of(self.binding_code(b, self.rows[i])) for b in range(self.n_bindings))
        except Exception:  # noqa: BLE001 - a branch the spec fails on: the C loop's miss reports it
            return 2 * len(self.cand_action)
        discovery.check_successor_count(n, self.model.spec.name)
        return n

    def _grow_edges(self, more: int) -> None:
        """Room for ``more`` transitions past those of the level so far (keeping them)."""
        n = int(self.S[kn.S_N_EDGES])
        size = max(n + more, 2 * len(self.edge_src))
        for name in ("edge_src", "edge_dst", "edge_label") + (("edge_rows", "edge_step") if self.steps else ()):
            a = getattr(self, name)
            b = np.empty((size,) + a.shape[1:], a.dtype)
            b[:n] = a[:n]
            setattr(self, name, b)

    def _grow_cand(self, need: int) -> None:
        size = max(need, 2 * len(self.cand_action))
        self.cand = np.zeros((size, self.width), np.int32)
        self.cand_action = np.zeros(size, np.int32)
        self.cand_fp = np.zeros(size, np.uint64)
        self.cand_flag = np.zeros(size, np.int32)
        self.cand_mask = np.zeros(size, np.uint64)
        self.cand_own = np.zeros((size, self.n_own), np.int32)

    def _arrays(self) -> dict[int, np.ndarray]:
        """The arrays the C loop reads, by their slots in its table (:func:`modelcheck.memo.kernel.array_table`)."""
        t = self.tries
        return {
            kn.ROWS: self.rows, kn.COMP: t.comp, kn.EDGES: t.edges, kn.ROOT: t.root, kn.LEAVES: t.leaves,
            kn.ENTRIES: t.entries, kn.ACTION_OF: self.action_of_arr, kn.VKEYS: self.vkeys, kn.OUT_ROWS: self.out_rows,
            kn.OUT_PARENT: self.out_parent, kn.OUT_ACTION: self.out_action, kn.OUT_FP: self.out_fp, kn.CAND: self.cand,
            kn.CAND_ACTION: self.cand_action, kn.CAND_FP: self.cand_fp, kn.CAND_FLAG: self.cand_flag,
            kn.GEN_BY_ACTION: self.gen_by_action, kn.NEW_BY_ACTION: self.new_by_action, kn.MISS_FN: self.miss_fn,
            kn.MISS_PARENT: self.miss_parent, kn.MISS_ROWS: self.miss_rows, kn.MISS_NODE: self.miss_node,
            kn.MISS_DEPTH: self.miss_depth, kn.GUARD_OF: self.guard_of, kn.ROW_LEAF: self.row_leaf,
            kn.OUT_LEAF: self.out_leaf, kn.CAND_MASK: self.cand_mask, kn.CAND_OWN: self.cand_own,
            kn.TRUE_MASK: t.true_mask, kn.SCRATCH_LEAF: self.scratch_leaf, kn.ROW_FP: self.cur_fps,
            kn.FP_PROG: self.fp_prog, kn.VFP: self.interner.fps, kn.EDGE_SRC: self.edge_src, kn.EDGE_DST: self.edge_dst,
            kn.EDGE_LABEL: self.edge_label, kn.OUT_CHECKS: self.out_checks, kn.EDGE_ROWS: self.edge_rows,
            kn.EDGE_STEP: self.edge_step, kn.ORBIT_CACHE: self.orbit_cache, kn.AC_COMP: self.ac_tries.comp,
            kn.AC_EDGES: self.ac_tries.edges, kn.AC_ROOT: self.ac_tries.root, kn.AC_LEAVES: self.ac_tries.leaves,
            kn.O_COMP: self.o_tries.comp, kn.O_EDGES: self.o_tries.edges, kn.O_ROOT: self.o_tries.root,
            kn.O_LEAVES: self.o_tries.leaves, kn.O_ENTRIES: self.o_tries.entries,
            kn.O_RANK: self.orbits.order.rank if self.orbits else self._o_rank_none, kn.O_ROW: self.o_row,
            kn.O_NFP: self.o_nfp,
        }

    # -- one level ------------------------------------------------------------------------

    def expand(self, request: LevelRequest, report_checks: bool = True) -> Iterator[LevelReport]:
        """Expand the frontier (``rows``).  ``report_checks=False`` reports no violation and no property
        reached: the checks are still evaluated and kept with each new state (``out_checks``) for a caller
        that decides later which states count (:meth:`expand_rows`)."""
        model = self.model
        S = self.S
        n = len(self.rows)
        self.rows = np.ascontiguousarray(self.rows, np.int32)
        self.row_leaf = np.ascontiguousarray(self.row_leaf, np.int32)
        if len(self.out_parent) < n:
            self._grow_out(max(n, 1024))
        # Every invariant is evaluated on every new state (as the local engine does, so a failing one fails
        # alike); only those not yet violated are reported.  A property is evaluated until reached.
        enabled = 0
        report = 0
        when_true = 0
        for k, (kind, name) in enumerate(self.checks):
            if kind == "predicate":  # a liveness predicate: its bit is kept with each new state, not reported
                enabled |= 1 << k
                when_true |= 1 << k
            elif kind == "invariant":
                enabled |= 1 << k
                if name not in request.violated:
                    report |= 1 << k
            elif name in request.unreached:
                when_true |= 1 << k
                enabled |= 1 << k
                report |= 1 << k
            else:
                when_true |= 1 << k
        S[kn.S_K] = self.width
        S[kn.S_W] = self.slots
        S[kn.S_LEAF_ROWS] = len(self.row_leaf)
        S[kn.S_B] = self.n_bindings
        S[kn.S_CONSTRAINT_FN] = self.constraint_fn
        S[kn.S_FIRST_CHECK] = self.first_check
        S[kn.S_N_CHECKS] = len(self.checks)
        S[kn.S_CHECK_WHEN_TRUE] = when_true
        S[kn.S_CHECK_ENABLED] = enabled
        S[kn.S_CHECK_REPORT] = report if report_checks else 0
        S[kn.S_DEADLOCK] = 1 if model.check_deadlock else 0
        S[kn.S_PROBE] = PROBE
        S[kn.S_SIMD] = 1 if self.simd else 0
        S[kn.S_RECORD] = 1 if request.record or self.steps else 0
        S[kn.S_EDGE_ROWS] = 1 if self.steps else 0
        S[kn.S_ACTION_CONSTRAINT] = 1 if self.action_constraint else 0
        self.recording = request.record
        self.steps_done = 0
        self.steps_reported = set(request.violated)
        self.pending_steps = []
        S[kn.S_I] = 0
        S[kn.S_N_OUT] = 0
        S[kn.S_GENERATED] = 0
        deadlock_reported = False
        self._claims = np.zeros(n, np.int32)
        self._crew_new_level = True
        wanted = request.new_states_wanted
        hi = 0
        while hi < n:
            lo = hi
            hi = min(n, lo + self._chunk(lo, wanted))
            S[kn.S_HI] = hi
            while int(S[kn.S_I]) < hi:
                violations: list = []
                deadlocks: list = []
                sometimes: dict = {}
                failures: list = []
                status = self._run()
                if self.steps is not None:
                    failure = self._walk_steps()
                    if failure is not None:
                        failures.append(failure)
                        yield self._report(failure[0] - 1, violations, deadlocks, sometimes, failures)
                        return
                if status == kn.ORBIT_FAILED:
                    i = int(S[kn.S_I])
                    failures.append((i, int(self.cur_fps[i]), self._orbit_failure()))
                    yield self._report(i - 1, violations, deadlocks, sometimes, failures)
                    return
                if status == kn.ORBIT_MISS:
                    self._learn_orbit(int(S[kn.S_EV_CAND]))
                    continue
                if status == kn.PAIR_MISS:
                    failure = self._learn_action_constraint(int(S[kn.S_EV_PARENT]), int(S[kn.S_EV_CAND]))
                    if failure is not None:
                        i = int(S[kn.S_I])
                        failures.append((i, int(self.cur_fps[i]), failure))
                        yield self._report(i - 1, violations, deadlocks, sometimes, failures)
                        return
                    continue
                if status == kn.MISS:
                    failure = self._learn_miss()
                    if failure is not None:
                        i = int(S[kn.S_I])
                        failures.append((i, int(self.cur_fps[i]), failure))
                        yield self._report(i - 1, violations, deadlocks, sometimes, failures)
                        return
                    continue
                if status == kn.EVENT:
                    i = int(S[kn.S_EV_PARENT])
                    if S[kn.S_EV_DEADLOCK] and not deadlock_reported:
                        self._confirm(i, {}, {})
                        deadlocks.append((i, int(self.cur_fps[i])))
                        deadlock_reported = True
                        S[kn.S_DEADLOCK] = 0
                    if S[kn.S_EV_MASK]:
                        self._events(i, violations, sometimes)
                    yield self._report(i, violations, deadlocks, sometimes, failures)
            self.poll()
            yield self._report(hi - 1, [], [], {}, [])

    def _chunk(self, done: int, wanted: int | None) -> int:
        """How many parents to expand before the next report: :data:`CHUNK`, or :data:`FINE_CHUNK` where a
        chunk at this level's rate of new states a parent would pass the ``wanted`` new states at which the
        driver stops.  Parents expanded past the stop are expanded for nothing, and their successors are
        then counted again in Python (:meth:`_recount`)."""
        if wanted is None:
            return CHUNK
        rate = self.n_out / done if done else 1.0
        return FINE_CHUNK if self.n_out + rate * CHUNK >= wanted else CHUNK

    def _run(self) -> int:
        S = self.S
        while True:
            self.tries.flush()
            self.ac_tries.flush()
            self.o_tries.flush()
            trees = self.orbits
            on = trees is not None and trees.why is None
            S[kn.S_ORBIT_TREES] = trees.n if on else 0
            S[kn.S_ORBIT_SORTED] = trees.sorted if on else 0
            S[kn.S_ORBIT_FIRST_PERM] = trees.first_perm if on else 0
            S[kn.S_ORBIT_NPERMS] = len(trees.perms) if on else 0
            S[kn.S_N_OUT] = self.n_out
            S[kn.S_VCOUNT] = self.vcount
            # The arrays are replaced together: rows, row_leaf and cur_fps; out_*; cand_*; vkeys; the counts per
            # level; the tries'.
            which = (self.rows, self.row_leaf, self.cur_fps, self.out_rows, self.out_leaf, self.cand, self.vkeys,
                     self.gen_by_action, self.tries.version, self.interner.fps, self.edge_src, self.out_checks,
                     self.ac_tries.version, self.o_tries.version, trees.order.rank if trees else None)
            if self._table_of is None or any(a is not b for a, b in zip(which, self._table_of)):
                self._park()
                arrs = self._arrays()
                self._table = kn.array_table(arrs)
                # Keeps the arrays alive while the C loop has their addresses.
                self._table_of = which + tuple(arrs.values())
            # With symmetry the helpers take orbits by the trees alone: where those stand aside, this thread
            # takes every parent (a helper would give each back).
            crew = self.crew if trees is None or on else None
            if crew is not None and not self._crew_running:
                kn.crew_go(crew, self._table, S, self._claims, self._crew_new_level)
                self._crew_new_level = False
                self._crew_running = True
            elif crew is None:
                self._park()
            status = kn.expand(self._table, S, crew,
                               (self._orbit, self._learn_orbit_now if on else None) if trees is not None else None)
            self.n_out = int(S[kn.S_N_OUT])
            self.vcount = int(S[kn.S_VCOUNT])
            if status == kn.GROW_VISITED:
                self._grow_visited(len(self.cand_action))
            elif status == kn.GROW_OUT:
                self._grow_out(len(self.cand_action))
            elif status == kn.GROW_EDGES:
                self._grow_edges(len(self.cand_action))
            elif status == kn.GROW_CAND:
                self._grow_cand(self._successor_count(int(S[kn.S_I])))
            else:
                return status

    def _learn_action_constraint(self, i: int, c: int) -> SpecFailure | None:
        """Learn the action constraint's branch the C loop missed on parent ``i``'s candidate ``c`` (in the
        scratch arrays); the failure the spec's own code reports on that parent where the constraint fails."""
        pair = np.concatenate((self.rows[i], self.cand[c])).reshape(1, -1)
        try:
            self._pair_learning("the action constraint", self.action_constraint.holds, 0, pair)
        except MemoUnsupported:
            raise
        except (Exception, NotCanonical, BadResult):  # noqa: BLE001 - the spec's own code names it
            self._watch()
            return self._readable_failure(self.rows[i])
        self._watch()
        return None

    def _orbit_trees(self) -> OrbitTrees:
        """The orbit trees of this run, or standing aside from the start with the reason."""
        model = self.model
        sym = model.spec.symmetry
        trees = OrbitTrees(self.layout, self.interner, model.c, sym.permute, sym.signature, model.permutations,
                           model.state_type)
        if trees.why is None and model.view is not None:
            trees.why = "a VIEW is fingerprinted (the orbit is the view's)"
        if trees.why is None and isinstance(sym.permute, ModelValueRenaming):
            trees.why = "Symmetry.over renames model values in every part of a state: a leaf per state"
        trees.by_design = trees.why is not None
        if trees.why is None:
            found = review([f for f in (sym.permute, sym.signature) if f is not None], constants=self.model.c)
            if found.refusal is not None:
                trees.why = found.refusal
            else:
                self.watched += [(where, obj, copy.deepcopy(obj)) for where, obj in found.mutables]
                self.compares_none = self.compares_none or found.compares_none
        return trees

    def _learn_orbit(self, c: int) -> None:
        """Learn the orbit trees' branches the C loop missed for candidate ``c`` (in the scratch arrays), or
        stand the orbit trees aside (then the C loop asks the spec's own code for every orbit)."""
        trees = self.orbits
        S = self.S
        try:
            trees.learn(int(S[kn.S_ORBIT_MISS_FN]), tuple(self.cand[c].tolist()),
                        (int(S[kn.S_ORBIT_MISS_NODE]), int(S[kn.S_ORBIT_MISS_DEPTH])), self._orbits_asked())
        except Exception as exc:  # noqa: BLE001 - the spec's own code says what it means, on plain values
            trees.why = f"the spec's symmetry functions failed on traced parts ({type(exc).__name__})"
        self._watch()

    def _learn_orbit_now(self, row: tuple, f: int, node: int, depth: int) -> bool:
        """Called by the C loop where an orbit tree's walk of ``row`` missed: learn the branch and put it into
        the arrays the loop is reading, where that needs no array replaced (True: the loop walks again);
        else False (the loop returns ``ORBIT_MISS`` and :meth:`_learn_orbit` takes it from there)."""
        trees = self.orbits
        interner = self.interner
        if (trees.why is not None or len(interner.values) + self.width + 8 > len(interner.fps)
                or trees.order.count + trees.n + 2 >= len(trees.order.rank)):
            return False  # learning might replace the values' fingerprints or the ranks the loop reads
        try:
            trees.learn(f, row, (node, depth), self._orbits_asked())
        except Exception:  # noqa: BLE001 - learnt again by _learn_orbit, which stands the trees aside
            return False
        if trees.why is not None or self.o_tries.would_replace() or self._watched_changed() is not None:
            return False
        self.o_tries.flush()
        return True

    def _orbit(self, row: tuple, h: int) -> int | None:
        """The orbit fingerprint of ``row``'s state, whose own fingerprint is ``h`` (the C loop asks where its
        cache misses and its orbit trees cannot say); None where the spec's symmetry functions fail (kept in
        :attr:`orbit_error`)."""
        try:
            return self.model.orbit_fingerprint(self.layout.state(row, self.interner.values), h)
        except BaseException as exc:  # noqa: BLE001 - reported after the C loop returns
            self.orbit_error = exc
            return None

    def _orbit_failure(self) -> SpecFailure:
        """What the spec's symmetry raised on a successor, as the local engine reports it; anything else the
        spec's own code reports, on the whole run."""
        exc, self.orbit_error = self.orbit_error, None
        if isinstance(exc, SpecRuntimeError):
            return SpecFailure.of(exc)
        if exc is None or isinstance(exc, Exception):
            raise MemoUnsupported(f"a successor's orbit could not be taken on the tables "
                                  f"({type(exc).__name__ if exc else 'no error'})") from None
        raise exc

    def _learn_miss(self) -> SpecFailure | None:
        """Learn the branches the C loop missed; a spec failure (from the readable path) if the spec fails
        on one of the first parent not kept (a later parent's failure waits until that parent's turn)."""
        S = self.S
        first = int(S[kn.S_I])
        n = int(S[kn.S_N_MISS])
        fns, rows = self.miss_fn[:n].tolist(), self.miss_rows[:n].tolist()
        nodes, depths, parents = self.miss_node[:n].tolist(), self.miss_depth[:n].tolist(), self.miss_parent[:n].tolist()
        for j in range(n):
            try:
                self.learner.learn(fns[j], tuple(rows[j]), (nodes[j], depths[j]))
            except LayoutMismatch as m:
                raise MemoUnsupported(f"a successor's {'.'.join(map(str, m.path))} changed shape") from None
            except NotDeterministic:
                raise MemoUnsupported("two runs of a spec function on states that agree on what it read "
                                      "read different components (is it deterministic?)") from None
            except MixedTypes as m:
                raise MemoUnsupported(m.reason()) from None
            except (Exception, NotCanonical, BadResult):  # noqa: BLE001 - the readable path names it
                if parents[j] == first:
                    self._watch()
                    return self._readable_failure(self.rows[first])
        self._watch()
        self._freeze_learnt()
        return None

    def _freeze_learnt(self) -> None:
        """Keep the objects alive now (the interned values, the traced parts, the tables) out of the cyclic
        garbage collector's passes until :meth:`close`.

        Learning allocates enough to trigger collections, and each full one walks
        every live object: on AsyncIsr with four replicas, 0.9 s of collections
        (of about 10 s), 0.02 s with this.  Nothing here makes cycles, and objects
        frozen are still freed by their reference counts.  A process that froze
        objects itself (``gc.freeze()`` before the check) is left as it is.
        """
        if gc.isenabled() and (self._froze or gc.get_freeze_count() == 0):
            gc.freeze()
            self._froze = True

    def _readable_failure(self, parent_row: np.ndarray) -> SpecFailure:
        """The failure the local engine reports on this parent: its successors, constraint and checks, readably."""
        model = self.model
        s = self.layout.state(tuple(parent_row.tolist()), self.interner.values)
        try:
            for ai, _b, t in model.successors(s):
                model.check_state(t, f"action {model.actions[ai].name}")
                if model.in_model(t) and model.action_allowed(s, t):
                    model.failed_invariants(t)
                    for p in model.sometimes:
                        model.property_holds(p, t)
        except SpecRuntimeError as err:
            return SpecFailure.of(err)
        raise MemoUnsupported("the spec failed on traced components but not on plain ones")

    def _events(self, i: int, violations: list, sometimes: dict) -> None:
        """The checks that fired on the new states of parent ``i`` (its candidates are in the scratch arrays)."""
        nc = int(self.S[kn.S_EV_CAND])
        seen: set = set()
        first: dict[int, int] = {}
        report = int(self.S[kn.S_CHECK_REPORT])
        for c in range(nc):
            flag = int(self.cand_flag[c])
            fp = int(self.cand_fp[c])
            if (flag & 3) != 3 or fp in seen:
                continue
            seen.add(fp)
            bits = (flag >> 2) & report
            k = 0
            while bits:
                if bits & 1 and k not in first:
                    first[k] = c
                bits >>= 1
                k += 1
        by_cand: dict[int, list[str]] = {}
        for k, c in first.items():
            kind, name = self.checks[k]
            self.S[kn.S_CHECK_REPORT] &= ~(1 << k)  # the driver takes the first in a level
            if kind == "invariant":
                by_cand.setdefault(c, []).append(name)
            else:
                sometimes[name] = (i, c)
                self.S[kn.S_CHECK_ENABLED] &= ~(1 << k)
        self._confirm(i, {c: names for c, names in by_cand.items()},
                      {c: name for name, (_i, c) in sometimes.items()})
        for c in sorted(by_cand):
            fp = int(np.uint64(self.cand_fp[c]).view(np.int64))
            violations.append(((i, c), fp, tuple(by_cand[c])))

    def _confirm(self, i: int, violated: dict[int, list[str]], reached: dict[int, str]) -> None:
        """Check with the spec's own code what the tables report: parent ``i``'s successors, and that the
        candidates named violate those invariants (and reach those properties)."""
        found = difference(self, self.rows[i])
        model = self.model
        for c, names in list(violated.items()) + [(c, [name]) for c, name in reached.items()]:
            if found is not None:
                break
            t = self.layout.state(tuple(int(x) for x in self.cand[c]), self.interner.values)
            failed = {p.name for p in model.failed_invariants(t)}
            for name in names:
                if c in violated and name in violated[c] and name not in failed:
                    found = f"invariant {name} holds on {t!r:.160} by the spec's own code, the tables say violated"
                elif c in reached and reached[c] == name and not model.property_holds(
                        next(p for p in model.sometimes if p.name == name), t):
                    found = f"property {name} does not hold on {t!r:.160} by the spec's own code, the tables say it does"
        if found is not None:
            raise MemoUnsupported(f"the tables differ from the spec's own code: {found}")

    def _report(self, through: int, violations: list, deadlocks: list, sometimes: dict,
                failures: list) -> LevelReport:
        steps, self.pending_steps = self.pending_steps, []
        return LevelReport(through, int(self.S[kn.S_GENERATED]), self.n_out, violations, deadlocks, sometimes,
                           failures, steps)

    # -- step properties ---------------------------------------------------------------------

    def _walk_steps(self) -> tuple[int, int, SpecFailure] | None:
        """Walk the transitions the C loop kept since the last walk through the step properties' trees.

        The first violation of each property not yet reported is confirmed by
        the spec's own code and kept for the next report.  Returns (parent,
        its fingerprint, failure) where the spec's code fails on a step (its
        own code reports it, on plain states); without liveness the
        transitions are dropped once walked.
        """
        S = self.S
        lo, n = self.steps_done, int(S[kn.S_N_EDGES])
        if n > lo:
            src = self.edge_src[lo:n]
            pairs = self.steps.pair_rows(self.rows, src, self.edge_rows[lo:n])
            try:
                found = self._first_violations(pairs)
            except MemoUnsupported:
                raise
            except (Exception, NotCanonical, BadResult):  # noqa: BLE001 - the spec's own code names it
                self._watch()
                failure = self._step_failure(src)
                # The steps of the parents before the failing one are checked as the local engine checks them.
                before = np.flatnonzero(src < failure[0])
                try:
                    found = self._first_violations(pairs[before])
                except MemoUnsupported:
                    raise
                except (Exception, NotCanonical, BadResult):  # noqa: BLE001 - fails traced, not plain
                    raise MemoUnsupported("a step property failed on traced components but not on plain ones") \
                        from None
                self._steps_found(found, src[before], lo + before, pairs[before])
                return failure
            self._watch()
            self._steps_found(found, src, lo + np.arange(n - lo), pairs)
        if self.recording:
            self.steps_done = n
        else:
            S[kn.S_N_EDGES] = 0
        return None

    def _first_violations(self, pairs: np.ndarray) -> dict[int, list[str]]:
        return self._pair_learning("a step property", self.steps.first_violations, pairs, self.steps_reported)

    @staticmethod
    def _pair_learning(what: str, fn: Callable, *args: Any) -> Any:
        """``fn(*args)``, a walk of pair trees that may learn; what breaks the tables' rules while learning
        ``what`` is raised as :class:`MemoUnsupported` (the spec's own errors pass through)."""
        try:
            return fn(*args)
        except NotDeterministic:
            raise MemoUnsupported(f"two runs of {what} on steps that agree on what it read "
                                  "read different components (is it deterministic?)") from None
        except MixedTypes as m:
            raise MemoUnsupported(m.reason()) from None

    def _steps_found(self, found: dict[int, list[str]], src: np.ndarray, edges: np.ndarray, pairs: np.ndarray) -> None:
        """Confirm the violations ``found`` (pair index -> names) and keep them for the next report."""
        for j in sorted(found):
            i, c = int(src[j]), int(self.edge_step[edges[j]])
            names = self._confirm_step(i, pairs[j], found[j])
            self.steps_reported.update(names)
            self.pending_steps.append(((i, c), int(self.cur_fps[i]), tuple(names)))

    def _step_failure(self, src: np.ndarray) -> tuple[int, int, SpecFailure]:
        """The spec's code failed on a traced step: the first parent among ``src`` whose steps fail by the
        spec's own code, and its failure, as the local engine reports it."""
        model = self.model
        expand = parent_expander(model, False)
        for i in dict.fromkeys(src.tolist()):
            s = self.layout.state(tuple(self.rows[i].tolist()), self.interner.values)
            fp = int(self.cur_fps[i])
            codes: list = []
            ts: list = []
            try:
                expand(s, codes, ts)
                fps = [model.fingerprint(t) if t is not None else 0 for t in ts]
            except SpecRuntimeError as err:
                return i, fp, SpecFailure.of(err)
            _found, failed = check_steps(model, [s], [fp], [len(ts)], ts, fps, set())
            if failed is not None:
                return i, fp, SpecFailure.of(failed[1])
        raise MemoUnsupported("a step property failed on traced components but not on plain ones")

    def _confirm_step(self, i: int, pair: np.ndarray, names: list[str]) -> list[str]:
        """The step properties the tables say this pair row violates, as the spec's own code says it."""
        found = difference(self, self.rows[i])
        if found is None:
            s = self.layout.state(tuple(pair[:self.width].tolist()), self.interner.values)
            t = self.layout.state(tuple(pair[self.width:].tolist()), self.interner.values)
            own = {p.name for p in self.model.failed_steps(s, t)}
            if not set(names) <= own:
                found = (f"step property {', '.join(sorted(set(names) - own))} holds on the step from {s!r:.160} "
                         f"to {t!r:.160} by the spec's own code, the tables say violated")
        if found is not None:
            raise MemoUnsupported(f"the tables differ from the spec's own code: {found}")
        return names

    def _verify_orbit(self, i: int) -> str | None:
        """Parent ``i``'s orbit fingerprint, which the C loop took (by the orbit trees where they could say),
        against the spec's own code's."""
        s = self.layout.state(tuple(self.rows[i].tolist()), self.interner.values)
        try:
            own = (self.model.orbit_fingerprint(s, fingerprint(s)) & MASK64) or 1
        except Exception as exc:  # noqa: BLE001 - the tables took this orbit: they differ from the spec's code
            return f"the orbit of {s!r:.200}: the spec's own code raises {type(exc).__name__}, the tables did not"
        if own != int(self.cur_fps[i]) & MASK64:
            return f"the orbit of {s!r:.200}: its fingerprint by the tables is not the spec's own code's"
        return None

    def _verify_steps(self, i: int) -> str | None:
        """Parent ``i``'s steps by the pair trees and by the spec's own code: the action constraint's verdict on
        each successor inside the state constraint, and the step properties each allowed step violates."""
        model = self.model
        row = self.rows[i]
        s = self.layout.state(tuple(row.tolist()), self.interner.values)
        s_fp = int(self.cur_fps[i])
        for _a, _b, t in model.successors(s):
            if not model.in_model(t):
                continue
            pair = np.concatenate((row, np.array(self._row_of(t), np.int32))).reshape(1, -1)
            if self.action_constraint is not None:
                own_allowed = model.action_allowed(s, t)
                allowed = bool(self.action_constraint.holds(0, pair)[0])
                if own_allowed != allowed:
                    return (f"the action constraint on the step from {s!r:.160} to {t!r:.160}: the tables gave "
                            f"{allowed}, the spec's own code {own_allowed}")
                if not allowed:
                    continue
            if self.steps is None or model.fingerprint(t) == s_fp:
                continue
            own = {p.name for p in model.failed_steps(s, t)}
            tables = self.steps.failed(pair[0])
            if own != tables:
                return (f"the step from {s!r:.160} to {t!r:.160} violates {sorted(own) or 'nothing'} by the spec's "
                        f"own code, {sorted(tables) or 'nothing'} by the tables")
        return None
