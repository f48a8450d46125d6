"""Checking specs from a test suite: ``assert_holds`` and ``assert_violates`` for pytest (or any runner).

A spec is code, and its tests are checks::

    from modelcheck.testing import assert_holds, assert_violates

    def test_clean_elections_keep_committed_records():
        assert_holds("specs/replog.py", constants={"Replicas": 3})

    def test_an_unclean_election_loses_a_committed_record():
        assert_violates("specs/replog.py", "CommittedSurvives", constants={"Unclean": True}, length=5)

    def test_a_crashed_leader_is_replaced():                      # a liveness property
        assert_holds("specs/replog.py", properties=["LeaderEventuallyElected"])

    def test_an_acknowledged_record_may_never_be_committed():
        assert_violates("specs/replog.py", "AckedEventuallyCommitted")  # a liveness or step property, by name

Each runs :func:`modelcheck.check` (same options, same preflight walk) and
returns its :class:`~modelcheck.output.results.CheckResult`.  When the check
does not come out as asserted, the ``AssertionError`` says what it found
and prints the counterexample as ``modelcheck check`` does (a liveness
counterexample as a lasso: its states, then ``Back to state N`` or
``Stuttering``), so the test report shows why.  A spec error (an exception
in spec code, a wrong return value) is raised as it is, with its trace
added as a note.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from modelcheck.api import check
from modelcheck.errors import SpecRuntimeError, UsageError
from modelcheck.output.results import CheckResult, TraceStep, Violation
from modelcheck.spec.declare import Spec

DEADLOCK = "Deadlock"
"""The name :func:`assert_violates` takes for a deadlock (a reachable state without successor)."""


def assert_holds(spec: str | Spec, constants: Mapping[str, Any] | None = None, *,
                 invariants: Sequence[str] | None = None, **options: Any) -> CheckResult:
    """Check ``spec`` and assert that everything checked holds: invariants, properties, and no deadlock if asked.

    ``options`` are :func:`modelcheck.check`'s (``symmetry=True``,
    ``deadlock=True``, ``workers=2``, ``properties=["Liveness"]``...), with its
    meaning: ``properties`` without ``invariants`` checks the named liveness
    and step properties only, as ``modelcheck check --property`` does; name
    ``invariants`` too to check them in the same run.  A run stopped by
    ``max_states`` or ``max_depth`` does not prove anything and fails the
    assertion.
    """
    __tracebackhide__ = True  # pytest: the failure is the caller's line, not this one
    r = _check(spec, constants, invariants=invariants, **options)
    if r.result != "holds":
        raise AssertionError(f"{_what(r)}: expected every checked {_checked(r)} to hold, but {_found(r)}")
    return r


def assert_violates(spec: str | Spec, name: str | None = None, constants: Mapping[str, Any] | None = None,
                    *, length: int | None = None, invariant: str | None = None, **options: Any) -> CheckResult:
    """Check ``spec`` and assert that ``name`` is violated, by a counterexample of ``length`` states if given.

    ``name`` is one of the spec's invariants, liveness (temporal) properties
    or step properties, or ``"Deadlock"``; ``None``: the spec's default
    invariants, any of them may be violated.  (``invariant=`` is the old
    spelling of ``name`` and still accepted.)

    - An invariant is checked alone.
    - A property is checked alone, with no invariant and without the
      deadlock check: the assertion reads "the spec's behaviours violate
      P", and a violated invariant or a deadlock, which the search finds
      before any property is decided, would otherwise hide P's verdict (a
      state without successor is, for a property, a behaviour that stutters
      there forever).  Pass ``invariants=[...]`` or ``deadlock=True`` to
      check them in the same run; the first violation found must then be P's.
    - ``"Deadlock"`` turns the deadlock check on, with no invariant.

    ``length`` counts states, the initial one included, as ``modelcheck
    check`` prints them: for a step property the offending step is the last;
    for a liveness property, the lasso's stem and one round of its loop (or
    its stem up to the state it stutters in).  A name the spec does not
    declare raises :class:`~modelcheck.errors.UsageError` listing what it
    declares.
    """
    __tracebackhide__ = True
    if invariant is not None:
        if name is not None:
            raise UsageError("assert_violates: give the name once, as name or as invariant=, not both")
        name = invariant
    kind = _kind(spec, name)
    if kind == "deadlock":
        options.setdefault("deadlock", True)
        options.setdefault("invariants", [])
    elif kind == "invariant":
        options.setdefault("invariants", [name])
    elif kind is not None:
        options.setdefault("properties", [name])
        options.setdefault("invariants", [])
        options.setdefault("deadlock", False)
    r = _check(spec, constants, **options)
    v = r.violation
    expected = f"{name} to be violated" if name is not None else "an invariant to be violated"
    if v is None or (name is not None and v.name != name and v.name not in r.spec_object.property_groups.get(name, ())):
        raise AssertionError(f"{_what(r)}: expected {expected}, but {_found(r)}")
    if length is not None and len(v.trace) != length:
        raise AssertionError(f"{_what(r)}: expected a {'lasso' if v.kind == 'liveness' else 'trace'} of "
                             f"{_states(length)}, but {_found(r)}")
    return r


def trace_text(spec: Spec, constants: Any, trace: Sequence[TraceStep]) -> str:
    """A trace as ``modelcheck check`` prints it: the first state in full, then what each step changed."""
    from modelcheck.counterexamples.text import render_text
    from modelcheck.output.json_form import trace_to_json

    return render_text(trace_to_json(spec, constants, trace), only_changes=True)


def counterexample_text(spec: Spec, constants: Any, violation: Violation) -> str:
    """A violation's counterexample as ``modelcheck check`` prints it: its trace, and for a liveness property
    the lasso's last line, ``Back to state N <Action>: ...`` or ``Stuttering: ...``."""
    from modelcheck.counterexamples.tracefile import counterexample_text as text

    return text(spec, constants, violation) + ("\n" if violation.kind == "liveness" else "")


def _kind(spec: str | Spec, name: str | None) -> str | None:
    """What ``name`` is in ``spec``: ``invariant``, ``liveness``, ``step`` or ``deadlock`` (None: no name).

    An unknown name raises one :class:`UsageError` that lists the spec's names by kind.
    """
    __tracebackhide__ = True
    if name is None:
        return None
    if name == DEADLOCK:
        return "deadlock"
    if isinstance(spec, Spec):
        loaded = spec
    else:  # imported as check() imports it (once per process: check() reuses the module)
        from modelcheck.build import compiled
        from modelcheck.model.blame import real_interrupts
        from modelcheck.spec.loader import load_spec

        compiled.activate()  # before the spec's module is imported, as in modelcheck.api.prepare
        with real_interrupts():
            loaded = load_spec(spec)
    if any(p.name == name for p in loaded.invariants):
        return "invariant"
    for p in loaded.properties:
        if p.name == name:
            return p.kind
    if name in loaded.property_groups:
        return "group"
    declared = [(what, [p.name for p in ps]) for what, ps in (
        ("invariants", loaded.invariants),
        ("liveness properties", [p for p in loaded.properties if p.kind == "liveness"]),
        ("step properties", [p for p in loaded.properties if p.kind == "step"]))]
    initial = [p.name for p in loaded.properties if p.kind == "initial"]
    if initial:
        declared.append(("initial-state properties", initial))
    if loaded.property_groups:
        declared.append(("property groups", list(loaded.property_groups)))
    raise UsageError(f"spec {loaded.name} has no invariant or property named {name!r}; it declares "
                     + "; ".join(f"{what}: {', '.join(names) if names else 'none'}" for what, names in declared)
                     + f" (and {DEADLOCK!r} asserts a deadlock)")


def _check(spec: str | Spec, constants: Mapping[str, Any] | None, **options: Any) -> CheckResult:
    __tracebackhide__ = True
    try:
        return check(spec, constants, **options)
    except SpecRuntimeError as err:
        if err.trace:
            err.add_note(f"The behavior up to the failing state ({_states(len(err.trace))}):\n"
                         + "\n".join(f"  State {i}: <{t.action or 'Initial predicate'}> {t.state!r}"
                                     for i, t in enumerate(err.trace, 1)))
        raise


def _states(n: int) -> str:
    return f"{n} state" if n == 1 else f"{n} states"


def _what(r: CheckResult) -> str:
    consts = ", ".join(f"{k}={v}" for k, v in r.constants.items())
    return f"spec {r.spec} ({consts})"


def _checked(r: CheckResult) -> str:
    """What the run checked, as the messages say it."""
    return "invariant and property" if r.properties else "invariant"


def _found(r: CheckResult) -> str:
    """What a check found, with the first counterexample (a lasso for a liveness property)."""
    v: Violation | None = r.violation
    if v is None:
        if r.result == "holds":
            return f"every checked {_checked(r)} holds ({r.distinct_states:,} distinct states, depth {r.depth})"
        return f"the check stopped early ({r.stopped_by}) after {r.distinct_states:,} distinct states"
    if v.kind == "liveness":
        ending = ("stutters forever in its last state" if v.loop_start is None
                  else f"loops back to state {v.loop_start + 1} forever")
        what = f"temporal property {v.name} is violated, by this lasso of {_states(len(v.trace))} (it {ending})"
    elif v.kind == "step":
        what = f"step property {v.name} is violated by the last step of this trace of {_states(len(v.trace))}"
    elif v.kind == "deadlock":
        what = f"a deadlock was reached, by this trace of {_states(len(v.trace))}"
    elif v.kind == "initial":
        what = f"initial-state property {v.name} is violated by this initial state"
    else:
        what = f"{v.name} is violated, by this trace of {_states(len(v.trace))}"
    from modelcheck.output.json_form import explanation_json

    why = explanation_json(r.spec_object, r.constants_object, v).get("explanation") if v.kind != "invariant" else None
    return (f"{what}:\n" + (f"Why: {why}\n" if why else "")
            + counterexample_text(r.spec_object, r.constants_object, v))
