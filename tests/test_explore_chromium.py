"""The explorer in headless Chromium at 1400 and 800 pixels: each step's messages, controls at the top, the
comparison in the URL, and documented findings labelled as such."""

from __future__ import annotations

import json
import os
import threading

import pytest

from browser import CHROMIUM, Browser, label_problems
from modelcheck.counterexamples.explore.server import ExploreServer
from modelcheck.counterexamples.explore.session import Explorer
from modelcheck.counterexamples.regenerate import KNOWN_DIR
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (bin/setup installs Debian's chromium)")]

READY = "document.body && document.body.dataset.ready === 'yes'"
HW_TRACE = os.path.join(KNOWN_DIR, "hw-data-loss", "trace.json")


def _serve(name: str):
    spec = load_spec(name)
    explorer = Explorer(spec, build_constants(spec, ()))
    server = ExploreServer(explorer, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, explorer


@pytest.fixture(scope="module")
def hw():
    server, explorer = _serve("truncate-to-hw")
    with open(HW_TRACE, encoding="utf-8") as f:
        path = ".".join(str(p) for p in explorer.path_of_trace(json.load(f)))
    yield server.url, path
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def kip320():
    server, _ = _serve("kip320")
    yield server.url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    with Browser(1400, 1000) as b:
        yield b


def _text(b: Browser, selector: str) -> str:
    return b.eval(f"(document.querySelector({json.dumps(selector)}) || {{textContent: ''}}).textContent")


@pytest.mark.parametrize("width", [1400, 800])
def test_each_step_shows_the_messages_it_sent_applied_and_dropped(browser, hw, width):
    url, path = hw
    browser.resize(width, 900)
    before = len(browser.errors())
    browser.goto(url + "#path=" + path, READY)
    # Step 4, BecomeLeader(r1): drops epoch 0's LeaderAndIsr and applies epoch 1's, both sent earlier.
    step4 = _text(browser, "#trail li:nth-child(4) .step-msgs")
    assert "dropped" in step4 and "LeaderAndIsr(epoch 0, leader r1, isr {r1, r2, r3}) (superseded by epoch 1)" in step4
    assert "applied controller \u2192 r1: LeaderAndIsr(epoch 1, leader r1, isr {r1, r3})" in step4
    assert "sent controller \u2192 r1" in _text(browser, "#trail li:nth-child(2) .step-msgs")
    assert "sent and applied r3 \u2192 r1: Fetch(offset 0)" in _text(browser, "#trail li:nth-child(7) .step-msgs")
    # The last step, as the trace page shows it: "applied LeaderAndIsr" to r3.
    assert "applied controller \u2192 r3: LeaderAndIsr(epoch 1, leader r1, isr {r1, r3})" in _text(browser, "#messages")
    assert browser.errors()[before:] == []


@pytest.mark.parametrize("width,height", [(1400, 900), (800, 900)])
def test_the_controls_are_at_the_top_at_every_width(browser, hw, width, height):
    url, path = hw
    browser.resize(width, height)
    browser.goto(url + "#path=" + path, READY)
    for selector in (".trail-panel h2", "#back", "#restart", "#next h2", "#actions li:first-child button"):
        bottom = browser.eval(f"document.querySelector({json.dumps(selector)}).getBoundingClientRect().bottom")
        assert bottom <= height, f"{selector} ends at {bottom} px, below the first {height} px"
    # The current step of a long path is in view inside the path's box.
    assert browser.eval("(function () { var t = document.getElementById('trail').getBoundingClientRect(),"
                        " c = document.querySelector('#trail li.current').getBoundingClientRect();"
                        " return c.bottom <= t.bottom + 1 && c.top >= t.top - 1; })()")


def test_the_comparison_is_in_the_url_and_restored_on_load(browser, hw):
    url, path = hw
    browser.resize(1400, 900)
    browser.goto(url + "#path=" + path, READY)
    browser.eval("document.getElementById('cmp-a').value = '3'")
    browser.click("#cmp-go")
    browser.wait(f"location.hash === {json.dumps('#path=' + path + '&compare=3,9')} && {READY}")
    browser.goto("about:blank")
    browser.goto(url + "#path=" + path + "&compare=2,8", READY)
    assert browser.eval("document.getElementById('compare').hidden") is False
    assert _text(browser, "#compare-title") == "State 2 and state 8 side by side"
    assert browser.eval("[document.getElementById('cmp-a').value, document.getElementById('cmp-b').value]") == ["2", "8"]
    assert browser.eval("location.hash") == "#path=" + path + "&compare=2,8"
    browser.click("#back")  # another state: the comparison is closed, and leaves the URL
    browser.wait(READY)
    assert browser.eval("document.getElementById('compare').hidden") is True
    assert "compare" not in browser.eval("location.hash")


def test_a_documented_finding_is_labelled_not_alarming(browser, kip320):
    browser.resize(1400, 900)
    browser.goto(kip320, READY)
    assert browser.eval("document.querySelectorAll('.inv.broken').length") == 0
    assert _text(browser, ".inv.finding") == "\u2139 LeaderInIsr violated: known finding"
    assert "documented finding of the published spec" in _text(browser, "p.inv-why.finding")


def _rows(b: Browser) -> list[str]:
    return b.eval("Array.from(document.querySelectorAll('#sequence svg.seq g.row[data-step]'))"
                  ".map(function (g) { return g.dataset.step + (g.classList.contains('sel') ? '*' : ''); })")


def _labels(b: Browser) -> list[str]:
    return b.eval("Array.from(document.querySelectorAll('#actions button')).map(function (b) { return b.dataset.label; })")


def _take_named(b: Browser, label: str) -> None:
    """Take the enabled action with this label."""
    _take(b, _labels(b).index(label))


def _take(b: Browser, k: int) -> None:
    """Take the k-th enabled action (0-based) and wait for the next state."""
    path = b.eval("document.body.dataset.path")
    b.click(f"#actions li:nth-child({k + 1}) button")
    b.wait(f"document.body.dataset.path === {json.dumps(path + '.' + str(k))} && {READY}")


@pytest.mark.parametrize("width", [1400, 800])
def test_the_path_is_drawn_as_a_sequence_diagram_updated_at_every_step(browser, kip320, width):
    browser.resize(width, 1000)
    before = len(browser.errors())
    browser.goto(kip320 + "#path=0", READY)
    assert _rows(browser) == ["1*"]  # the initial state alone, the current row marked
    assert "kip320: the path so far" in _text(browser, "#sequence svg.seq")
    _take(browser, 0)  # ControllerElectLeader(new_leader=r1): LeaderAndIsr to every replica
    assert _rows(browser) == ["1", "2*"]
    assert "LeaderAndIsr(" in _text(browser, "#sequence g.row[data-step='2']")
    for _ in range(4):
        _take(browser, 1)
    assert _rows(browser) == ["1", "2", "3", "4", "5", "6*"]
    # Drawn unscaled (its 11-pixel text stays 11 pixels), inside the window, scrolled to the current state,
    # with the actors' names kept in view above it.
    box = browser.eval("(function () { var s = document.querySelector('#sequence svg.seq').getBoundingClientRect(),"
                       " b = document.querySelector('#sequence .seqbox'); return [s.width, s.right,"
                       " b.scrollTop + b.clientHeight >= b.scrollHeight - 1, b.querySelector('.heads').hidden,"
                       " b.scrollHeight > b.clientHeight]; })()")
    assert box[0] == 620 and box[1] <= width
    assert box[2], "the diagram is not scrolled to the current state"
    assert box[3] is (not box[4])  # the copy of the actors' boxes shows when they are scrolled away
    browser.click("#sequence g.row[data-step='3'] text")  # a row goes back to its step
    browser.wait(f"document.body.dataset.path.split('.').length === 3 && {READY}")
    assert _rows(browser) == ["1", "2", "3*"]
    assert browser.errors()[before:] == []
    browser.resize(1400, 1000)


def _previewed(b: Browser) -> list[str]:
    return b.eval("Array.from(document.querySelectorAll('#lanes .preview')).map(function (e) {"
                  " var td = e.closest('td'); return td.dataset.lane + ' ' + td.dataset.field +"
                  " (e.tagName === 'TD' ? '' : ' ' + e.title); })")


def test_pointing_at_an_action_outlines_the_lane_cells_it_would_change(browser, kip320):
    browser.resize(1400, 1000)
    browser.goto(kip320 + "#path=0", READY)
    _take_named(browser, "ControllerElectLeader(new_leader=r2)")
    _take_named(browser, "BecomeLeader(replica=r2)")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 5, "y": 5})  # away from the actions
    assert _previewed(browser) == []
    labels = _labels(browser)
    write = labels.index("LeaderWrite(replica=r2)")
    # Focus (Tab) previews: the record it would append at r2's offset 0, and r2's LEO.
    browser.eval(f"document.querySelectorAll('#actions button')[{write}].focus(); true")
    assert sorted(_previewed(browser)) == ["r2 LEO", "r2 log offset 0"]
    style = browser.eval("(function () { var s = getComputedStyle(document.querySelector('#lanes td.preview'));"
                         " return [s.backgroundColor, s.boxShadow]; })()")
    assert style[0] == "rgb(219, 234, 254)" and "rgb(37, 99, 235)" in style[1]  # light blue, a blue inset outline
    browser.eval("document.activeElement.blur(); true")
    assert _previewed(browser) == []
    # So does the pointer: over another action, that action's cells (r1 becoming a follower of r2); away, none.
    other = next(k for k, label in enumerate(labels) if "replica=r1" in label and "Follower" in label)
    box = browser.eval(f"(function () {{ var r = document.querySelectorAll('#actions button')[{other}]"
                       ".getBoundingClientRect(); return [r.left + 20, r.top + 8]; })()")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
    cells = _previewed(browser)
    assert cells and {c.split()[0] for c in cells} == {"r1"}, cells
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 5, "y": 5})
    assert _previewed(browser) == []
    assert "what the action under the pointer would change" in _text(browser, "#lanes .lanelegend")


def _lane_label_problems(b: Browser) -> list[str]:
    """The explorer's lane labels (HW/LEO captions, offsets) under 11 px, outside their cell, or overlapping."""
    return label_problems(b, "#lanes .log .mark b, #lanes .log .cell i", "td")


@pytest.mark.parametrize("width", [1400, 800])
def test_the_explorer_lanes_line_up_and_read(browser, kip320, width):
    browser.resize(width, 1000)
    browser.goto(kip320 + "#path=0", READY)
    # No record anywhere: every log still shows offset 0 and its HW=LEO bar, at a record's height.
    assert browser.eval("document.querySelectorAll('#lanes .log .cell.empty').length") == 3
    assert browser.eval("Array.from(document.querySelectorAll('#lanes .log')).every(function (e) {"
                        " var r = e.getBoundingClientRect(); return r.height >= 24 && r.width >= 46; })")
    assert "no record is written yet" in _text(browser, "#lanes .lanelegend")
    assert _lane_label_problems(browser) == []
    _take_named(browser, "ControllerElectLeader(new_leader=r2)")
    _take_named(browser, "BecomeLeader(replica=r2)")
    _take_named(browser, "LeaderWrite(replica=r2)")
    assert _lane_label_problems(browser) == []
    assert browser.eval("Array.from(document.querySelectorAll('#lanes .lanelegend .swatch'))"
                        ".map(function (e) { return e.textContent; })") == ["e0"]  # r2's record, epoch 0
    # A field reads straight down: every row's HW cell has the same left edge.
    lefts = browser.eval("Array.from(document.querySelectorAll('#lanes td[data-field=\"HW\"]'))"
                         ".map(function (e) { return Math.round(e.getBoundingClientRect().left); })")
    assert len(lefts) == 3 and len(set(lefts)) == 1
    # Action names in the path and the actions break only between parameters, never inside a word.
    styles = browser.eval("Array.from(document.querySelectorAll('#trail li button, #actions button'))"
                          ".map(function (e) { var s = getComputedStyle(e); return s.overflowWrap + ' ' + s.wordBreak; })")
    assert set(styles) == {"normal normal"}
    assert browser.eval("Array.from(document.querySelectorAll('#trail li button > span:last-child, #actions .label'))"
                        ".every(function (e) { return e.scrollWidth <= e.clientWidth + 1; })")
    browser.resize(1400, 1000)
