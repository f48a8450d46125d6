"""Checking specs from a test suite: ``assert_holds`` and ``assert_violates`` for pytest (or any runner).

A spec is code, and its tests are checks::

    from modelcheck.testing import assert_holds, assert_violates

    def test_clean_elections_keep_committed_records():
        assert_holds("specs/replog.py", constants={"Replicas": 3})

    def test_an_unclean_election_loses_a_committed_record():
        assert_violates("specs/replog.py", "CommittedSurvives", constants={"Unclean": True}, length=5)

Each runs :func:`modelcheck.check` (same options, same preflight walk) and
returns its :class:`~modelcheck.output.results.CheckResult`.  When the check
does not come out as asserted, the ``AssertionError`` says what it found
and prints the counterexample's trace as ``modelcheck check`` does, so the
test report shows why.  A spec error (an exception in spec code, a wrong
return value) is raised as it is, with its trace added as a note.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from modelcheck.api import check
from modelcheck.errors import SpecRuntimeError
from modelcheck.output.results import CheckResult, TraceStep, Violation
from modelcheck.spec.declare import Spec


def assert_holds(spec: str | Spec, constants: Mapping[str, Any] | None = None, *,
                 invariants: Sequence[str] | None = None, **options: Any) -> CheckResult:
    """Check ``spec`` and assert that every checked invariant holds (and, if asked, no deadlock).

    ``options`` are :func:`modelcheck.check`'s (``symmetry=True``,
    ``deadlock=True``, ``workers=2``...).  A run stopped by ``max_states``
    or ``max_depth`` does not prove anything and fails the assertion.
    """
    __tracebackhide__ = True  # pytest: the failure is the caller's line, not this one
    r = _check(spec, constants, invariants=invariants, **options)
    if r.result != "holds":
        raise AssertionError(f"{_what(r)}: expected every checked invariant to hold, but {_found(r)}")
    return r


def assert_violates(spec: str | Spec, invariant: str | None = None, constants: Mapping[str, Any] | None = None,
                    *, length: int | None = None, **options: Any) -> CheckResult:
    """Check ``spec`` and assert that ``invariant`` is violated, by a shortest trace of ``length`` states if given.

    ``invariant`` is checked alone (``None``: the spec's default invariants,
    any of them may be violated); ``"Deadlock"`` asserts a deadlock (the
    deadlock check is then on).  The trace length counts states, the
    initial one included, as ``modelcheck check`` prints it.
    """
    __tracebackhide__ = True
    if invariant == "Deadlock":
        options.setdefault("deadlock", True)
        options.setdefault("invariants", [])
    elif invariant is not None:
        options.setdefault("invariants", [invariant])
    r = _check(spec, constants, **options)
    v = r.violation
    if v is None:
        raise AssertionError(f"{_what(r)}: expected {invariant or 'an invariant'} to be violated, but {_found(r)}")
    if invariant is not None and v.name != invariant:
        raise AssertionError(f"{_what(r)}: expected {invariant} to be violated, but {_found(r)}")
    if length is not None and len(v.trace) != length:
        raise AssertionError(f"{_what(r)}: expected a trace of {_states(length)}, but {_found(r)}")
    return r


def trace_text(spec: Spec, constants: Any, trace: Sequence[TraceStep]) -> str:
    """A trace as ``modelcheck check`` prints it: the first state in full, then what each step changed."""
    from modelcheck.counterexamples.text import render_text
    from modelcheck.output.json_form import trace_to_json

    return render_text(trace_to_json(spec, constants, trace), only_changes=True)


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


def _found(r: CheckResult) -> str:
    """What a check found, with the first counterexample's trace."""
    v: Violation | None = r.violation
    if v is None:
        if r.result == "holds":
            return f"every checked invariant holds ({r.distinct_states:,} distinct states, depth {r.depth})"
        return f"the check stopped early ({r.stopped_by}) after {r.distinct_states:,} distinct states"
    what = "a deadlock was reached" if v.kind == "deadlock" else f"{v.name} is violated"
    return (f"{what}, by this trace of {_states(len(v.trace))}:\n"
            + trace_text(r.spec_object, r.constants_object, v.trace))
