"""TLC's VIEW in the spec API: ``Spec(fingerprint_view=...)`` is what is fingerprinted and compared for "seen".

A toy spec where the view leaves out a flag: two states that differ only in
the flag are one state, the first one found is kept, and only its successors
are explored, as TLC does.  The local engine, ``--workers`` and the trace
replay must honour it; the options that cannot yet (``--symmetry``,
properties) must refuse with one line, never ignore it; Spark honours it.  A checkpoint
keeps the states the search kept and their views' fingerprints, so a run
stopped and resumed under a view gives the uninterrupted run's counts, on
either path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import NamedTuple

import attrs
import pytest

import modelcheck
from modelcheck import Spec, Symmetry, action, constant, eventually, invariant, liveness
from modelcheck.errors import StateError, UsageError
try:
    from conftest import needs_memo_tables
except ImportError:  # imported as a spec file by the command line (HERE below), where tests/ is not on the path
    needs_memo_tables = pytest.mark.skipif(False, reason="")


class S(NamedTuple):
    x: int
    flag: int


@attrs.frozen
class C:
    UseView: bool = constant(True, "fingerprint the view")
    BadView: bool = constant(False, "a view that is not canonical")
    Kind: str = constant("x", "what the view returns", choices=("x", "tuple", "record", "computed", "twice"))
    Flip: bool = constant(False, "at x = 2, a step that changes only the flag")


@action("A")
def a(c: C, s: S):
    """Found first: x becomes 1 with the flag down."""
    return S(1, 0) if s.x == 0 else None


@action("B")
def b(c: C, s: S):
    """Found second: x becomes 1 with the flag up (one state with A's under the view)."""
    return S(1, 1) if s.x == 0 else None


@action("Up")
def up(c: C, s: S):
    """From x = 1, x = 2 (keeping the flag); from x = 2 with the flag up only, x = 3."""
    if s.x == 1:
        return S(2, s.flag)
    if s.x == 2 and s.flag:
        return S(3, s.flag)
    return None


@action("Flip")
def flip(c: C, s: S):
    """At x = 2, with Flip on: the flag changes, and nothing the view keeps."""
    return S(s.x, 1 - s.flag) if c.Flip and s.x == 2 else None


@invariant("BelowTwo", "x stays below 2")
def below_two(c: C, s: S) -> bool:
    return s.x < 2


@liveness("ReachesTwo", "x eventually reaches 2")
def reaches_two(c: C):
    return eventually(lambda c, s: s.x == 2)


class V(NamedTuple):
    x: int


def _view(c: C, s: S):
    if c.BadView:
        return [s.x]
    if c.Kind == "tuple":
        return (s.x,)
    if c.Kind == "record":
        return V(s.x)
    if c.Kind == "computed":
        return s.x + 0 * s.flag
    if c.Kind == "twice":
        return (s.x, s.x)
    return s.x


SPEC = Spec(name="view-toy", title="VIEW toy", constants=C, init=lambda c: [S(0, 0)], actions=[a, b, up, flip],
            invariants=[below_two], default_invariants=[], deadlock_expected=True, properties=[reaches_two],
            symmetry=Symmetry(lambda c: 1, lambda c, s, p: s),
            fingerprint_view=_view, fingerprint_view_when=lambda c: c.UseView)


def test_the_first_state_found_stands_for_its_view():
    r = modelcheck.check(SPEC, memo=False)
    # (0,0) -> A (1,0), B (1,1) seen -> Up (2,0); (2,0) has no successor: x = 3 needs the flag B's state had.
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 3, 4, 3)


@needs_memo_tables
@pytest.mark.parametrize("kind", ["x", "tuple", "record"])
def test_the_memo_tables_fingerprint_a_view_of_the_states_parts(kind):
    """A view that returns parts of the state (or a tuple or record of them) runs on the tables, with the
    same counts, coverage and trace as on the spec's own code."""
    on = modelcheck.check(SPEC, {"Kind": kind})
    off = modelcheck.check(SPEC, {"Kind": kind}, memo=False)
    assert on.successors == "memo tables"
    assert (on.distinct_states, on.states_generated, on.depth) == (off.distinct_states, off.states_generated,
                                                                  off.depth) == (3, 4, 3)
    assert on.action_stats == off.action_stats
    bad = modelcheck.check(SPEC, {"Kind": kind}, invariants=["BelowTwo"])
    assert bad.successors == "memo tables" and bad.violation.trace[-1].state == S(2, 0)


@needs_memo_tables
@pytest.mark.parametrize("kind", ["x", "tuple", "record"])
def test_a_step_that_changes_only_what_the_view_leaves_out_is_not_new(kind):
    """With Flip: (2,0) -> (2,1) has the view of (2,0), so it is generated but not new, and x = 3 (which needs
    the flag up) is never reached: 3 distinct, 5 generated (the initial state, A, B, Up, Flip), depth 3."""
    on = modelcheck.check(SPEC, {"Kind": kind, "Flip": True})
    off = modelcheck.check(SPEC, {"Kind": kind, "Flip": True}, memo=False)
    assert on.successors == "memo tables"
    assert (on.distinct_states, on.states_generated, on.depth) == (off.distinct_states, off.states_generated,
                                                                  off.depth) == (3, 5, 3)


@needs_memo_tables
@pytest.mark.parametrize("kind, why", [
    ("computed", "it uses the value of flag"),
    ("twice", "it keeps x twice"),
])
def test_a_view_that_is_not_a_projection_keeps_the_tables_aside(kind, why):
    r = modelcheck.check(SPEC, {"Kind": kind})
    assert r.successors == "the spec's own code" and why in r.successors_why
    assert (r.distinct_states, r.states_generated, r.depth) == (3, 4, 3)


def test_without_the_view_every_state_counts():
    r = modelcheck.check(SPEC, {"UseView": False}, memo=False)
    assert (r.distinct_states, r.states_generated, r.depth) == (6, 6, 4)


def test_workers_honour_the_view():
    r = modelcheck.check(SPEC, memo=False, workers=2)
    assert (r.distinct_states, r.states_generated, r.depth) == (3, 4, 3)


def test_a_trace_replays_the_states_the_search_kept():
    r = modelcheck.check(SPEC, invariants=["BelowTwo"], memo=False)
    assert r.result == "violated"
    assert [step.action for step in r.violation.trace[1:]] == ["A", "Up"]
    assert r.violation.trace[-1].state == S(2, 0)


def test_a_view_must_be_canonical():
    with pytest.raises(StateError, match="fingerprint_view"):
        modelcheck.check(SPEC, {"BadView": True}, memo=False)


@pytest.mark.parametrize("options, word", [
    ({"symmetry": True}, "--symmetry"),
])
def test_options_that_cannot_honour_the_view_refuse(options, word, tmp_path):
    with pytest.raises(UsageError, match=f"{word}.*VIEW"):
        modelcheck.check(SPEC, memo=False, **options)
    modelcheck.check(SPEC, {"UseView": False}, memo=False, **options)  # without the view they run


HERE = f"{os.path.abspath(__file__)}:SPEC"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "modelcheck", "check", HERE, "--no-memo", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_command_line_refuses_a_property_under_a_view_with_exit_2():
    p = _cli("--property", "ReachesTwo")
    assert p.returncode == 2, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "--property" in lines[0] and "VIEW" in lines[0], p.stderr
    # Without the view the property is checked (and violated: with no fairness, x may stay 0 forever).
    assert _cli("--property", "ReachesTwo", "--const", "UseView=false").returncode == 1


@pytest.mark.spark
def test_spark_honours_a_view(sc):
    """The executors rebuild the model, view included, and keep per fingerprint the candidate found first in
    breadth-first order: the state the local engine keeps.  TLC's counts for KRaft 3.5 (KRAFT_SMALL)."""
    r = modelcheck.check(HERE, engine="spark", spark_context=sc)
    assert (r.distinct_states, r.states_generated, r.depth) == (3, 4, 3)
    r = modelcheck.check("kraft-replication", KRAFT_SMALL, engine="spark", spark_context=sc)
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 1_163, 3_372, 25)


KRAFT_SMALL = {"UncleanShutdownLimit": 0, "FenceBrokerLimit": 0}
"""TLC's counts with the VIEW (tests/test_kraft_replication.py): 1,163 distinct, 3,372 generated, depth 25."""


@pytest.mark.slow
@pytest.mark.parametrize("first, then", [(None, None), (None, False), (False, None)])
def test_a_run_stopped_under_a_view_resumes_to_the_same_counts(tmp_path, first, then):
    """Stopped after 400 states with a checkpoint a level, then resumed, on the tables or the spec's own code
    (``memo=None`` is the default path, the tables; ``False`` the spec's own code), in either order."""
    ck = str(tmp_path / "ck")
    stopped = modelcheck.check("kraft-replication", KRAFT_SMALL, checkpoint=ck, checkpoint_every=0, max_states=400,
                               memo=first)
    assert stopped.stopped_by == "max-states" and stopped.distinct_states < 1_163
    done = modelcheck.check("kraft-replication", KRAFT_SMALL, resume=ck, memo=then)
    assert (done.result, done.distinct_states, done.states_generated, done.depth) == ("holds", 1_163, 3_372, 25)
