"""``modelcheck.check()``: the one entry for checking a spec, from Python or from the command line.

The command line, ``graph``, ``render-known`` and the tests all go through
:func:`check`, so option conflicts, the preflight walk and the choice of
search are the same for every caller::

    import modelcheck
    r = modelcheck.check("kip320", constants={"Replicas": 2})
    r.result, r.distinct_states, r.states_generated, r.depth     # "holds", 5973, 11839, 18
    r = modelcheck.check("truncate-to-hw", invariants=["StrongIsr"])
    r.violation.trace                                            # steps: action, parameters, state
    r.write_trace("out/")                                        # the files of ``check --out``

The search modules are imported inside :func:`check`, after the compiled
modules' finder is in place (:mod:`modelcheck.build.compiled`), so importing
this module installs nothing and a check runs the compiled build where one
is current.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable, Mapping, Sequence

import attrs

from modelcheck.errors import UsageError
from modelcheck.model.blame import SOURCE_ATTR, real_interrupts
from modelcheck.options import CheckOptions, option_conflict
from modelcheck.output.results import CheckResult, run_path
from modelcheck.search.progress import ProgressSink, stderr_sink
from modelcheck.spec.constants import build_constants
from modelcheck.spec.declare import Spec
from modelcheck.spec.loader import EXTENDED, extend_from_file, load_spec, loaded_module, spec_reference

ENGINES = ("local", "spark")

MAX_WORKERS = 256
"""Worker processes one run may start (each holds a share of the visited set and a copy of the model)."""

_DEFAULTS = {
    "engine": "local", "workers": 1, "master": None, "partitions": None, "checkpoint": None,
    "checkpoint_every": 600.0, "resume": None, "max_memory_mb": None, "max_states": None,
    "seed": None, "walks": None, "walk_seconds": None,
}
"""Defaults of the options :func:`modelcheck.options.option_conflict` looks at, by its parameter names."""
_CONFLICT_NAMES = {"checkpoint": "checkpoint_dir"}


FAIRNESS_CHOICES = ("spec", "none")
"""What ``fairness=`` (``--fairness``) accepts: the spec's fairness, or none."""


def check(spec: str | Spec, constants: Mapping[str, Any] | None = None, **options: Any) -> CheckResult:
    """Check ``spec`` and return what was found, as ``modelcheck check --json`` prints it.

    ``spec`` is a registered name (``"kip320"``), a file (``"path/to/spec.py"``,
    optionally ``":ATTR"``), a module (``"pkg.module:SPEC"``) or a :class:`Spec`.
    ``constants`` maps constant names to values (Python values, or text as on
    the command line); the rest keep their defaults.  The options are those of
    :func:`prepare`.  Bad input raises :class:`~modelcheck.errors.UsageError`
    (or a relative); an exception in spec code raises
    :class:`~modelcheck.errors.SpecRuntimeError` with the trace that leads to it.
    """
    return prepare(spec, constants, **options).run()


def prepare(
    spec: str | Spec,
    constants: Mapping[str, Any] | None = None,
    *,
    invariants: Sequence[str] | None = None,
    properties: Sequence[str] | None = None,
    fairness: str = "spec",
    extend: Sequence[str] = (),
    deadlock: bool | None = None,
    max_depth: int | None = None,
    max_states: int | None = None,
    continue_after_violation: bool = False,
    symmetry: bool = False,
    engine: str = "local",
    workers: int = 1,
    master: str | None = None,
    partitions: int | None = None,
    checkpoint: str | None = None,
    checkpoint_every: float = 600.0,
    resume: str | None = None,
    max_memory_mb: int | None = None,
    simulate: bool = False,
    seed: int | None = None,
    walks: int | None = None,
    walk_seconds: float | None = None,
    progress: ProgressSink | bool = False,
    progress_seconds: float = 5.0,
    preflight: bool = True,
    spark_context: Any = None,
    verbose: bool = False,
    worker_timeout: float | None = None,
    memo: bool | None = None,
    memo_verify: bool = False,
    memo_seed: int | None = None,
) -> "PreparedCheck":
    """Validate a check's spec, constants and options, and choose its search, without running it.

    The search: exhaustive breadth-first search in this process, in
    ``workers`` processes, or on Spark (``engine="spark"``, or a ``master``
    URL; ``spark_context`` reuses a running SparkContext); or random walks
    (``simulate=True``, reproducible with ``seed``).  Every exhaustive search
    gives identical results.  ``checkpoint``/``resume`` name a directory of
    level-boundary checkpoints, any search resuming any other's.
    ``progress``: True prints TLC-shaped progress lines on stderr; a callable
    receives each :class:`~modelcheck.search.progress.Progress`.  An option
    the chosen search would ignore is refused, as on the command line.
    ``memo``: the one-process search runs the spec through its memo tables
    (:mod:`modelcheck.memo`) when it can (None), always (True: an error if it
    cannot) or never (False: every successor computed by the spec's code).
    On the tables, a sample of each level's states is expanded again by the
    spec's own code and compared (:mod:`modelcheck.memo.verify`; its seed
    is ``memo_seed``, random when None, and reported in the result);
    ``memo_verify`` compares every state.
    ``fairness``: the liveness properties are checked under the spec's fairness (``"spec"``) or none
    (``"none"``: a property that holds only thanks to fairness then shows its lasso).
    """
    from modelcheck.build import compiled

    compiled.activate()  # before the first spec or engine module is imported
    given = {name: value for name, value in dict(
        engine=engine, workers=workers, master=master, partitions=partitions, checkpoint=checkpoint,
        checkpoint_every=checkpoint_every, resume=resume, max_memory_mb=max_memory_mb, max_states=max_states,
        seed=seed, walks=walks, walk_seconds=walk_seconds).items() if value != _DEFAULTS[name]}
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    if master is not None:
        engine = "spark"
    conflict = option_conflict({_CONFLICT_NAMES.get(k, k): v for k, v in given.items()},
                               simulate=simulate, engine=engine)
    if conflict:
        raise UsageError(conflict)
    if type(workers) is not int or not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"workers must be a whole number from 1 to {MAX_WORKERS}, got {workers!r}")
    if fairness not in FAIRNESS_CHOICES:
        raise UsageError(f"fairness must be one of: {', '.join(FAIRNESS_CHOICES)}; got {fairness!r}")
    if memo and simulate:
        raise UsageError("--memo applies to the exhaustive search (--simulate walks with the spec's own code)")
    if memo_verify and memo is False:
        raise UsageError("--memo-verify checks the memo tables, and --no-memo turns them off: use one of them")
    if memo_seed is not None and (type(memo_seed) is not int or memo_seed < 0):
        raise UsageError(f"memo_seed must be a whole number of at least 0, got {memo_seed!r}")
    if memo and worker_timeout is not None:
        raise UsageError("--worker-timeout is for worker processes, and --memo runs --workers as threads on the "
                         "memo tables: use one of them")
    if worker_timeout is not None and workers == 1:
        raise UsageError("--worker-timeout applies with --workers N (N > 1) only")
    for name, value, least in (("progress_seconds", progress_seconds, 0), ("checkpoint_every", checkpoint_every, 0),
                               ("worker_timeout", worker_timeout if worker_timeout is not None else 1, 1),
                               ("walk_seconds", walk_seconds if walk_seconds is not None else 0, 0)):
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < least:
            raise UsageError(f"{name} must be a finite number of at least {least:g}, got {value!r}")
    notes: list[str] = []
    cores = os.cpu_count() or 1
    if workers > cores:
        notes.append(f"{workers} workers on {cores} cores: more workers than cores is slower, not faster")
    with real_interrupts():  # importing a spec runs its code: a Ctrl-C there is still the user's
        base = spec if isinstance(spec, Spec) else load_spec(spec)
        loaded = base
        for path in extend:
            loaded = extend_from_file(loaded, path)
    consts = build_constants(loaded, constants or {})
    known = [p.name for p in loaded.invariants]
    for name in invariants or ():
        if name not in known:
            raise UsageError(f"unknown invariant {name!r} for spec {loaded.name}; it declares: {', '.join(known)}")
    if symmetry and loaded.symmetry is None:
        raise UsageError(f"spec {loaded.name} declares no symmetry; drop --symmetry")
    named_properties = bool(properties)
    no_properties = (  # the option that keeps temporal properties out of this run, and why
        ("--symmetry", "a fair cycle of the reduced graph need not be one of the real graph") if symmetry
        else ("--engine spark", "its executors do not record the behaviour graph yet") if engine == "spark"
        else ("--simulate", "random walks cannot show that something never happens") if simulate
        else None)
    if properties is None and invariants is None and loaded.default_properties:
        if no_properties:
            notes.append(f"the spec's default properties ({', '.join(loaded.default_properties)}) are not "
                         f"checked with {no_properties[0]}")
        else:
            properties = loaded.default_properties
    properties = tuple(properties or ())
    declared = [p.name for p in loaded.properties] + list(loaded.property_groups)
    for name in properties:
        if name not in declared:
            raise UsageError(f"unknown property {name!r} for spec {loaded.name}; "
                             + (f"it declares: {', '.join(declared)}" if declared else "it declares none"))
    if len(set(properties)) != len(properties):
        raise UsageError("a property is named twice")
    properties = loaded.expand_properties(properties)  # a group (a refinement) is checked as its parts
    if properties and no_properties:
        option, reason = no_properties
        raise UsageError(f"--property cannot be checked with {option} ({reason}); check it with the local engine")
    if named_properties and invariants is None:
        invariants = ()  # as a TLC model that lists only PROPERTY: name invariants to check them too
        if loaded.default_invariants:
            notes.append(f"with --property alone the spec's invariants ({', '.join(loaded.default_invariants)}) "
                         "are not checked; add --invariant NAME for each to check them too")
    options = CheckOptions(
        invariants=tuple(invariants) if invariants is not None else None,
        check_deadlock=deadlock,
        max_depth=max_depth,
        max_states=max_states,
        continue_after_violation=continue_after_violation,
        symmetry=symmetry,
        progress_seconds=progress_seconds,
        checkpoint_dir=checkpoint or resume,
        checkpoint_every=checkpoint_every,
        resume=resume,
        max_memory_mb=max_memory_mb,
        properties=properties,
        fairness=fairness,
    )
    reference = None
    if engine == "spark" and not simulate:
        reference = EXTENDED.join([spec_reference(base, spec if isinstance(spec, str) else None),
                                   *(os.path.abspath(p) for p in extend)])
    return PreparedCheck(
        notes=tuple(notes),
        spec=loaded, constants=consts, options=options, engine=engine, workers=workers, master=master,
        partitions=partitions, reference=reference, simulate=simulate, seed=seed or 0, walks=walks,
        walk_seconds=walk_seconds, sink=_sink(progress), preflight=preflight, spark_context=spark_context,
        verbose=verbose, worker_timeout=worker_timeout, spec_mode=_spec_mode(spec, loaded), memo=memo,
        memo_verify=memo_verify, memo_seed=memo_seed)


def _spec_mode(given: str | Spec, loaded: Spec) -> str | None:
    """How the spec's module runs: ``compiled`` or ``interpreted (why)``; None when that is not known.

    A user's spec (a file or a module outside the project) with no build of
    its current source gets one started in the background
    (:mod:`modelcheck.build.user_specs`).
    """
    import sys

    from modelcheck.build import compiled, user_specs

    name = loaded_module(given) if isinstance(given, str) else (loaded.reference or "").partition(":")[0] or None
    if name is None or name not in sys.modules:
        return None
    if name == "modelcheck" or name.startswith("modelcheck."):
        return compiled.spec_mode(name)
    module = sys.modules[name]
    source = getattr(module, SOURCE_ATTR, None) or getattr(module, "__file__", None)
    if not source or not str(source).endswith(".py"):
        return "compiled" if compiled.is_compiled(module) else None
    package = name.rpartition(".")[0]
    extra = ((package, os.path.dirname(source)),) if package else ()
    settled = user_specs.settled_mode(module)
    if settled is not None:
        return settled
    return f"interpreted ({user_specs.request_build(user_specs.UserModule(name, os.path.abspath(source), extra))})"


@attrs.frozen
class PreparedCheck:
    """A validated check, ready to run: what :func:`prepare` chose."""

    notes: tuple[str, ...]
    """Warnings about the options themselves (the command line prints them before the search)."""
    spec: Spec
    constants: Any
    options: CheckOptions
    engine: str
    """``local`` or ``spark`` (``local`` with ``workers`` > 1 runs in worker processes)."""
    workers: int
    master: str | None
    partitions: int | None
    reference: str | None
    """How Spark executors import the spec again."""
    simulate: bool
    seed: int
    walks: int | None
    walk_seconds: float | None
    sink: ProgressSink | None
    preflight: bool
    spark_context: Any
    verbose: bool
    worker_timeout: float | None = None
    """Seconds a worker may use no CPU while it owes a reply before the run ends (None: the default)."""
    spec_mode: str | None = None
    """``compiled`` or ``interpreted (why)`` for the check's header; None when not known (a spec object)."""
    memo: bool | None = None
    """The one-process search through the memo tables: when possible (None), required (True) or never (False)."""
    memo_verify: bool = False
    """Compare every state's answers on the memo tables with the spec's own code (not only a sample)."""
    memo_seed: int | None = None
    """The seed of the sample of states compared with the spec's own code (None: a random one, reported)."""

    @property
    def invariants(self) -> tuple[str, ...]:
        """The invariants checked (the spec's defaults unless some were named)."""
        return self.options.invariants if self.options.invariants is not None else self.spec.default_invariants

    @property
    def properties(self) -> tuple[str, ...]:
        """The liveness and step properties checked."""
        return self.options.properties

    def run(self, announce: Callable[[str], None] | None = None) -> CheckResult:
        """Run the preflight walk, then the search; the result, with the spec it came from.

        ``announce``, if given, is called with :attr:`CheckResult.run_path`'s line
        once the search's path is chosen, before the search, and again if the
        memo tables give way during it.
        """
        with real_interrupts():  # spec code runs from here on: a Ctrl-C is still the user's
            return self._run(announce)

    def _parallelism(self, backend: Any) -> tuple[str, int | None]:
        """How ``backend`` runs side by side: (``threads``, ``processes`` or ``spark executors``, how many)."""
        if self.engine == "spark":
            return "spark executors", None
        from modelcheck.memo.backend import MemoBackend

        if isinstance(backend, MemoBackend):
            return "threads", self.workers  # the C loop's thread and workers - 1 helper threads
        return ("processes", self.workers) if self.workers > 1 else ("threads", 1)

    def _path(self, backend: Any, why_not: str | None, announce: Callable[[str], None] | None) -> dict[str, Any]:
        """The fields of :class:`CheckResult` that say what ran; announced before the search when asked."""
        kind, count = self._parallelism(backend)
        fields = {"successors": "memo tables" if why_not is None else "the spec's own code",
                  "successors_why": why_not, "parallelism": kind, "parallel_count": count,
                  "spec_code": self.spec_mode}
        if announce is not None:
            announce(run_path(fields["successors"], why_not, kind, count, self.spec_mode))
        return fields

    def _run(self, announce: Callable[[str], None] | None = None) -> CheckResult:
        from modelcheck.model.bound import BoundModel
        from modelcheck.model.preflight import preflight as run_preflight

        model = BoundModel(self.spec, self.constants, self.options)
        # A short sample walk first: non-deterministic actions, non-canonical states and
        # invariants that --symmetry would make unsound are reported before the search.
        warnings = run_preflight(model) if self.preflight else []
        if self.simulate:
            from modelcheck.search.simulate import simulate as run_simulation

            walk_model = BoundModel(self.spec, self.constants, attrs.evolve(self.options, max_depth=None))
            path = {"successors": "the spec's own code", "successors_why": "--simulate walks with the spec's own code",
                    "parallelism": "threads", "parallel_count": 1, "spec_code": self.spec_mode}
            if announce is not None:
                announce(run_path(*path.values()))
            result = run_simulation(walk_model, seed=self.seed, walks=self.walks, seconds=self.walk_seconds,
                                    max_depth=self.options.max_depth or 100, progress=self.sink)
            result = attrs.evolve(result, **path)
        else:
            from modelcheck.search.driver import LevelDriver

            from modelcheck.memo.backend import MemoUnsupported

            notice = _stderr_notice if self.sink is not None else None
            backend, note, why_not = self._backend(model)
            path = self._path(backend, why_not, announce)
            try:
                driver = LevelDriver(model, backend, self.sink, notice,
                                     fallback=None if self.memo else (lambda: self._spec_backend(model)))
                result = driver.run()
                executor_notes = getattr(driver.backend, "successor_notes", lambda: [])()
                if executor_notes and self.memo:
                    raise UsageError(f"--memo: {executor_notes[0]}")
                warnings += executor_notes + getattr(driver.backend, "orbit_notes", lambda: [])()
                nowhere = getattr(driver.backend, "tables_everywhere_off", lambda: None)()
                if nowhere is not None:
                    path = self._path(driver.backend, nowhere, None)
                if driver.handed_over is not None:
                    level, reason = driver.handed_over
                    path = self._path(driver.backend, f"{reason} at level {level + 1}", None)
            except MemoUnsupported as why:
                if self.memo:
                    raise UsageError(f"--memo: spec {self.spec.name} cannot run on the memo tables: {why.reason}")
                getattr(backend, "restore_watched", lambda: None)()
                note = f"the memo tables stopped ({why.reason}); checked again with the spec's own code"
                why_not = f"the memo tables stopped: {why.reason}"
                model = BoundModel(self.spec, self.constants, self.options)
                backend = self._spec_backend(model)
                path = self._path(backend, why_not, announce)
                result = LevelDriver(model, backend, self.sink, notice).run()
            if note:
                warnings.append(note)
            result = attrs.evolve(result, **path)
        return attrs.evolve(result, warnings=tuple(warnings) + result.warnings, spec_object=self.spec,
                            constants_object=self.constants)

    def _tables_refused(self, model: Any) -> tuple[str | None, str | None]:
        """Why the spec's own code computes the successors before any memo tables are built (None: the tables
        may), and the note to print; ``--memo`` makes a reason an error.  Spark's executors each build their own
        tables and may still find a reason of their own, which the run reports."""
        if self.memo is False:
            return "--no-memo", None
        from modelcheck.memo.backend import build_reason, option_reason, spec_reason

        built = build_reason()
        reason = built or option_reason(model)
        if reason is not None:
            if self.memo:
                raise UsageError(f"--memo: this run cannot use the memo tables: {reason}")
            return reason, _not_used_note(reason) if built else None
        reason = spec_reason(model)
        if reason is not None:
            if self.memo:
                raise UsageError(f"--memo: spec {self.spec.name} cannot run on the memo tables: {reason}")
            return reason, _not_used_note(reason)
        return None, None

    def _backend(self, model: Any) -> tuple[Any, str | None, str | None]:
        """The backend for this check, a note when the memo tables could not be used for the spec (printed),
        and why the spec's own code computes the successors (None where the memo tables do)."""
        if self.engine == "spark":
            from modelcheck.spark_explore.backend import SparkBackend

            assert self.reference is not None
            why_not, note = self._tables_refused(model)
            tables = None if why_not is not None else ("every" if self.memo_verify else "sample", self.memo_seed,
                                                       not self.memo)
            return (SparkBackend(model, self.reference, master=self.master, partitions=self.partitions,
                                 sc=self.spark_context, verbose=self.verbose, tables=tables), note, why_not)
        if self.workers > 1 and self.worker_timeout is not None and self.memo is not False:
            return self._spec_backend(model), None, "--worker-timeout runs --workers as processes"
        why_not, note = self._tables_refused(model)
        if why_not is not None:
            return self._spec_backend(model), note, why_not
        from modelcheck.memo.backend import MemoBackend, MemoUnsupported

        try:
            return MemoBackend(model, threads=self.workers, verify="every" if self.memo_verify else "sample",
                               verify_seed=self.memo_seed, may_give_up=not self.memo), None, None
        except MemoUnsupported as why:
            reason = why.reason
        except Exception:  # noqa: BLE001 - the spec fails in its first states: the spec's own code reports it
            return self._spec_backend(model), None, "the spec fails in its first states"
        if self.memo:
            raise UsageError(f"--memo: spec {self.spec.name} cannot run on the memo tables: {reason}")
        return self._spec_backend(model), _not_used_note(reason), reason

    def _spec_backend(self, model: Any) -> Any:
        """The backend that runs the spec's own code: this process, or ``--workers`` processes."""
        if self.workers > 1:
            from modelcheck.search.workers.coordinator import WorkersBackend

            backend = WorkersBackend(model, self.workers)
            if self.worker_timeout is not None:
                backend.stall_seconds = self.worker_timeout
            return backend
        from modelcheck.search.local import LocalBackend

        return LocalBackend(model)


def _not_used_note(reason: str) -> str:
    """The one line a run prints when the memo tables are not used for a reason of the spec or the build."""
    return f"the memo tables are not used: {reason}; the spec's own code computes every successor"


def _stderr_notice(message: str) -> None:
    print(f"Warning: {message}", file=sys.stderr, flush=True)


def _sink(progress: ProgressSink | bool) -> ProgressSink | None:
    if progress is True:
        return stderr_sink()
    if progress is False or progress is None:
        return None
    if not callable(progress):
        raise UsageError("progress must be True, False or a function taking a Progress")
    return progress

