"""`modelcheck graph SPEC --around-violation N`: the counterexample as a spine, the roads not taken beside it."""

from __future__ import annotations

import re
import shutil

import pytest

from conftest import MODELS, run_cli
from modelcheck.api import prepare
from modelcheck.counterexamples.statespace import neighbourhood_graph, state_graph_dot
from modelcheck.counterexamples.tracefile import document_from_violation
from modelcheck.model.bound import BoundModel

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed (bin/setup installs it)")


def _neighbourhood(spec: str, radius: int = 1):
    plan = prepare(spec, {})
    result = plan.run()
    model = BoundModel(plan.spec, plan.constants, plan.options)
    violation = document_from_violation(plan.spec, plan.constants, result.violation)["violation"]
    return neighbourhood_graph(model, [s.state for s in result.violation.trace], radius, 5000, violation)


@pytest.fixture(scope="module")
def truncate_svg() -> str:
    p = run_cli("graph", "truncate-to-hw", "--around-violation", "1", "--format", "svg")
    assert p.returncode == 0, p.stderr
    return p.stdout


@needs_dot
def test_truncate_to_hw_fits_a_laptop_screen(truncate_svg):
    """It was 4,785 pt (6,380 px) wide; now at most 1,400 px (Graphviz writes points: 1 pt = 4/3 px)."""
    m = re.search(r'<svg width="([0-9.]+)(pt|px)"', truncate_svg)
    assert m, truncate_svg[:300]
    px = float(m.group(1)) * (4 / 3 if m.group(2) == "pt" else 1)
    assert px <= 1400, f"{px:.0f} px wide"


@needs_dot
def test_path_states_run_top_to_bottom_in_order(truncate_svg):
    """Every path state's title, State 1 to State 9, each lower on the page than the one before."""
    ys = []
    for k in range(1, 10):
        m = re.search(rf'<text[^>]* y="([0-9.-]+)"[^>]*>State {k}(?: \(initial\)|:[^<]*)?</text>', truncate_svg)
        assert m, f"State {k} has no title"
        ys.append(float(m.group(1)))
    assert ys == sorted(ys) and len(set(ys)) == 9, ys
    # Each path state is drawn with its lanes: log cells, HW and LEO markers.
    assert truncate_svg.count(">HW LEO<") >= 9 and ">0@e1<" in truncate_svg


def test_violating_state_is_highlighted():
    dot = state_graph_dot(_neighbourhood("truncate-to-hw"))
    assert "rankdir=TB" in dot
    (last,) = [line for line in dot.splitlines() if line.startswith("  n8 [")]
    assert 'BORDER="3" COLOR="#b91c1c"' in last and "State 9: StrongIsr violated" in last
    assert "is in the quorum ISR" in last  # the invariant's explanation, under the lanes
    others = [line for line in dot.splitlines() if re.match(r"  n[0-7] \[", line)]
    assert len(others) == 8 and not any('BORDER="3"' in line for line in others)


def test_roads_not_taken_are_folded_beyond_the_limit():
    from modelcheck.counterexamples.statespace import OFF_PATH_SHOWN, around_violation_dot

    g = _neighbourhood("truncate-to-hw")
    dot = state_graph_dot(g)
    # State 3 enables 8 other actions: the first OFF_PATH_SHOWN drawn, the rest one folded box.
    (side,) = [line for line in dot.splitlines() if line.startswith("  off_n2 [")]
    assert side.count('STYLE="rounded"') == OFF_PATH_SHOWN + 1
    assert f"+{8 - OFF_PATH_SHOWN} more from State 3" in side
    assert "{ rank=same; n2; off_n2; }" in dot
    # A smaller limit folds more; no more than the limit (plus the fold) beside any state.
    small = around_violation_dot(g, shown=1)
    for line in small.splitlines():
        if line.startswith("  off_"):
            assert line.count('STYLE="rounded"') <= 2
    assert "+7 more from State 3" in small
    assert around_violation_dot(g) == dot  # deterministic


def test_die_hard_roads_not_taken_say_what_changed_or_where_they_lead():
    """A state without lanes: its changed variables; a road back onto the path names the state."""
    dot = state_graph_dot(_neighbourhood(str(MODELS / "die_hard.py")))
    (side,) = [line for line in dot.splitlines() if line.startswith("  off_n0 [")]
    assert "<B>FillSmall</B>" in side and "small = 3" in side
    (side,) = [line for line in dot.splitlines() if line.startswith("  off_n1 [")]
    assert "-&gt; State 1 (on the path)" in side
    assert "self-loops: BigToSmall, EmptyBig, EmptySmall, SmallToBig" in dot
    assert "n5 -> n6 [label=\" BigToSmall \"" in dot
