"""The trace pages and the explorer in headless Chromium, clicked and typed at as a user would.

Driven over the DevTools protocol on a pipe (``tests/browser.py``).  Skips,
saying why, only when Chromium is not installed; ``bin/setup`` installs it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from browser import CHROMIUM, Browser, label_problems
from conftest import ROOT
from modelcheck.counterexamples.regenerate import KNOWN_DIR

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (bin/setup installs Debian's chromium)")]

HW_PAGE = "file://" + os.path.join(KNOWN_DIR, "hw-data-loss", "trace.html")
READY = "document.body && document.body.dataset.ready === 'yes'"


@pytest.fixture(scope="module")
def browser():
    with Browser(1400, 1000) as b:
        yield b


def current_step(b: Browser) -> str:
    return b.eval("document.querySelector('.stepdetail.current').id")


@pytest.mark.slow
def test_console_errors_are_caught(browser, tmp_path):
    """The no-console-errors checks below can fail: a page that throws is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><script>throw new Error("boom")</script></body></html>')
    before = len(browser.errors())
    browser.goto(bad.as_uri())
    assert any("boom" in e for e in browser.errors()[before:])


def test_hw_data_loss_page_opens_at_the_violating_step_and_shows_why_in_red(browser, tmp_path):
    before = len(browser.errors())
    browser.goto(HW_PAGE, READY)
    assert current_step(browser) == "step-9"  # the step where StrongIsr breaks
    assert browser.eval("location.hash") == ""  # opening the page does not rewrite the URL
    assert browser.eval("document.querySelectorAll('#steplist li[role=option]').length") == 9
    # The sentence above the lanes names the record, the offset and the replica.
    assert browser.eval("document.querySelector('#lanes p.why').textContent") == (
        "Why: record 0@e1 at offset 0 is below leader r1's HW 1 but missing on r3, which is in the quorum ISR {r1, r3}")
    # The culprit cells of the last row are red: r1's record and HW, r3's missing offset 0 and its ISR membership.
    culprits = browser.eval("Array.from(document.querySelectorAll('#lanes-rows tbody.bad .culprit'))"
                            ".map(function (e) { return e.textContent; })")
    assert culprits == ["0@e10", "1", "missing0", "TRUE"]  # (a log cell's text, then its offset)
    colours = browser.eval("(function () { var c = document.querySelector('#lanes-rows tbody.bad .log .cell.culprit');"
                           " var s = getComputedStyle(c); return [s.backgroundColor, s.borderTopColor]; })()")
    assert colours == ["rgb(254, 202, 202)", "rgb(185, 28, 28)"]
    assert browser.eval("document.querySelectorAll('#lanes-rows tbody.bad .culprit').length") == 4
    # The last step's detail carries the verdict, the sentence and the same red cells.
    browser.click("#opt-9")
    assert current_step(browser) == "step-9"
    assert browser.eval("document.querySelector('#step-9 p.why').textContent").startswith("Why: record 0@e1 at offset 0")
    assert browser.eval("document.querySelectorAll('#step-9 td.culprit, #step-9 .cell.culprit').length") >= 4
    assert browser.eval("document.querySelector('#messages svg') !== null")
    assert browser.errors()[before:] == []
    shot = tmp_path / "page.png"
    browser.screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_a_link_to_a_step_opens_that_step_in_every_view(browser):
    browser.goto(HW_PAGE + "#step=5", READY)
    assert current_step(browser) == "step-5"
    assert browser.eval("document.querySelector('#step-5 h3').textContent") == "State 5 after LeaderWrite(replica=r1)"
    # r1's log and LEO changed in this step: highlighted in the step's lanes table.
    assert browser.eval("Array.from(document.querySelectorAll('#step-5 table.mini tr:nth-child(2) td.changed'))"
                        ".map(function (e) { return e.textContent; })") == ["0@e10HWLEO", "1"]
    assert browser.eval("document.querySelector('#lanes-rows tr.sel').dataset.row") == "4"
    assert browser.eval("document.querySelector('#messages g.row.sel').dataset.step") == "5"
    assert browser.eval("document.querySelector('.graph g.node.sel title').textContent") == "s5"
    assert browser.eval("document.querySelectorAll('.graph rect.selbox').length") == 1


def test_a_culprit_cell_links_to_the_step_that_last_changed_it(browser):
    before = len(browser.errors())
    browser.goto(HW_PAGE + "#step=9", READY)
    # r1's HW (1) went up at step 8: its red cell in the lanes' last row says so and selects step 8 when clicked.
    hw = "#lanes-rows tbody.bad tr:nth-child(1) td.culprit a.cause"
    assert browser.eval(f"document.querySelector({json.dumps(hw)}).title") == (
        "changed at step 8 (LeaderIncHighWatermark(leader=r1))")
    browser.click(hw)
    browser.wait("document.querySelector('.stepdetail.current').id === 'step-8'")
    assert browser.eval("location.hash") == "#step=8"
    assert browser.eval("document.querySelector('#lanes-rows tr.sel').dataset.row") == "7"
    # r3's missing record at offset 0 was truncated away at step 9; r1's record was written at step 5.
    browser.click("#lanes-rows tbody.bad .log a.cell.empty.culprit")
    browser.wait("document.querySelector('.stepdetail.current').id === 'step-9'")
    browser.click("#lanes-rows tbody.bad .log a.cell.e1.culprit")
    browser.wait("document.querySelector('.stepdetail.current').id === 'step-5'")
    # The causal line under the explanation links the same steps.
    assert browser.eval("document.querySelector('#verdict p.how').textContent") == (
        "How it happened: r1's log changed at step 5 (LeaderWrite(replica=r1)); r1's HW at step 8 "
        "(LeaderIncHighWatermark(leader=r1)); r3's log at step 9 (BecomeFollowerTruncateToHighWatermark(leader=r1, "
        "replica=r3)); r3's in quorum ISR unchanged since the initial state.")
    browser.click("#verdict p.how a[data-cause='8']")
    browser.wait("document.querySelector('.stepdetail.current').id === 'step-8'")
    assert browser.errors()[before:] == []


def test_selecting_updates_the_url_and_arrow_keys_need_the_steps_list(browser):
    browser.goto(HW_PAGE, READY)
    browser.click("#opt-3")
    assert browser.eval("location.hash") == "#step=3" and current_step(browser) == "step-3"
    browser.eval("document.activeElement.blur(); window.scrollTo(0, 0); true")
    browser.key("ArrowDown")
    assert browser.eval("location.hash") == "#step=3"  # the page scrolls; the step stays
    for _ in range(12):  # Tab through the header's links until the steps list has the focus
        browser.key("Tab")
        if browser.eval("document.activeElement.id") == "steplist":
            break
    assert browser.eval("document.activeElement.getAttribute('role')") == "listbox"
    browser.key("ArrowDown")
    assert browser.eval("location.hash") == "#step=4" and current_step(browser) == "step-4"
    assert browser.eval("document.getElementById('opt-4').getAttribute('aria-selected')") == "true"
    assert browser.eval("document.getElementById('steplist').getAttribute('aria-activedescendant')") == "opt-4"
    browser.click("#messages g.row[data-step='7'] rect")  # a row of the sequence diagram selects its step
    assert browser.eval("location.hash") == "#step=7"


def test_lanes_as_columns_and_only_changes(browser):
    browser.goto(HW_PAGE, READY)
    assert browser.eval("document.getElementById('lanes-cols').hidden") is True
    browser.click("#layout")
    assert browser.eval("[document.getElementById('lanes-rows').hidden, document.getElementById('lanes-cols').hidden]") \
        == [True, False]
    shown = ("Array.from(document.querySelectorAll('#lanes-cols td > *'))"
             ".filter(function (e) { return getComputedStyle(e).visibility === 'visible'; }).length")
    everything = browser.eval(shown)
    browser.click("#only-changes")
    assert 0 < browser.eval(shown) < everything
    assert browser.eval("document.body.classList.contains('only-changes')")


def test_without_javascript_every_step_is_shown(browser):
    browser.call("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.goto(HW_PAGE)
        displays = browser.eval("Array.from(document.querySelectorAll('.stepdetail'))"
                                ".map(function (d) { return getComputedStyle(d).display; })")
    finally:
        browser.call("Emulation.setScriptExecutionDisabled", {"value": False})
    assert displays == ["block"] * 9


def test_the_kip101_story_page_draws_the_offsets_for_leader_epoch_exchange(browser):
    page = "file://" + os.path.join(KNOWN_DIR, "seeds-3-kip101-fast-leader-changes", "trace.html")
    browser.goto(page, READY)
    texts = browser.eval("Array.from(document.querySelectorAll('#messages svg text')).map(function (t) { return t.textContent; })")
    assert "OffsetsForLeaderEpoch(epoch 1)" in texts and "end offset 1" in texts
    story1 = "file://" + os.path.join(KNOWN_DIR, "seeds-1-hw-data-loss", "trace.html")
    browser.goto(story1 + "#step=5", READY)
    selected = browser.eval("Array.from(document.querySelectorAll('#lanes-rows tr.sel'))"
                            ".map(function (tr) { return tr.textContent; }).join(' ')")
    assert "from 1: [], leader HW 1" in selected  # r2's "in flight" column
    assert "in flight" in browser.eval("document.querySelector('#lanes-rows thead').textContent")


# -- the explorer ---------------------------------------------------------------------------------------


@pytest.fixture
def explorer_url():
    started = []

    def start(*args: str) -> str:
        # Ctrl-C as a terminal delivers it: a run started in the background by a non-interactive shell
        # inherits SIGINT ignored, and Python then installs no handler, so the server would not stop.
        p = subprocess.Popen([sys.executable, "-m", "modelcheck", "explore", *args, "--port", "0"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        started.append(p)
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", p.stdout.readline())
        assert m, p.stderr.read()
        return m.group(1)

    yield start
    for p in started:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=20)


@pytest.mark.slow
def test_explorer_walks_the_hw_data_loss_path_to_the_violation(browser, explorer_url):
    """From the initial state, click the enabled action the counterexample takes, eight times."""
    from modelcheck.spec.constants import build_constants
    from modelcheck.counterexamples.explore.session import Explorer
    from modelcheck.spec.loader import load_spec

    with open(os.path.join(KNOWN_DIR, "hw-data-loss", "trace.json"), encoding="utf-8") as f:
        doc = json.load(f)
    spec = load_spec("truncate-to-hw")
    # Which of the enabled actions to click at each step (two can share a label: LeaderAndIsr requests of two
    # epochs), found by replaying the trace; the button clicked must carry the trace's label.
    choices = Explorer(spec, build_constants(spec, ())).path_of_trace(doc)[1:]
    url = explorer_url("truncate-to-hw")
    before = len(browser.errors())
    browser.goto(url, READY)
    assert browser.eval("document.getElementById('state-title').textContent") == "State 1 (initial state)"
    for step, index in zip(doc["steps"][1:], choices):
        button = f'#actions button[data-index="{index}"]'
        assert browser.eval(f"document.querySelector({json.dumps(button)}).dataset.label") == step["action"]
        browser.click(button)
        browser.wait(READY)
        assert browser.eval("document.querySelector('#trail li.current').textContent").endswith(step["action"])
    assert browser.eval("document.getElementById('state-title').textContent") == (
        "State 9 after BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r3)")
    assert browser.eval("Array.from(document.querySelectorAll('.inv.broken')).map(function (e) { return e.textContent; })") \
        == ["\u2717 WeakIsr violated", "\u2717 StrongIsr violated"]
    assert ("StrongIsr: record 0@e1 at offset 0 is below leader r1's HW 1 but missing on r3, which is in the quorum "
            "ISR {r1, r3}") in browser.eval("document.getElementById('invariants').textContent")
    assert browser.eval("document.querySelectorAll('#lanes .cell.culprit, #lanes td.culprit').length") >= 4
    path = browser.eval("location.hash")
    assert re.fullmatch(r"#path=0(\.\d+){8}", path)
    # Back one step, then compare states 8 and 9 of the shared path.
    browser.click("#back")
    browser.wait(READY)
    assert browser.eval("document.getElementById('state-title').textContent").startswith("State 8 ")
    browser.goto(url + path, READY)  # the URL alone brings the walk back
    assert browser.eval("document.querySelectorAll('.inv.broken').length") == 2
    browser.click("#cmp-go")
    browser.wait("!document.getElementById('compare').hidden")
    assert "replicaLog.r3[0@e1][]" in browser.eval("document.querySelector('#compare-body tr.changed').textContent")
    assert browser.errors()[before:] == []


@pytest.mark.slow
def test_explorer_shows_bad_paths_and_keeps_serving(browser, explorer_url):
    url = explorer_url("truncate-to-hw")
    browser.goto(url + "#path=0.99", READY)
    assert browser.eval("document.getElementById('error').textContent") == (
        "step 2 of the path: there is no enabled action #99 in state 1 (6 are enabled, numbered from 0)")
    browser.goto(url + "#path=0.1'%3E%3Cimg%20src=x%3E", READY)
    error = browser.eval("document.getElementById('error').textContent")
    assert error.startswith("the path must be numbers separated by dots") and browser.eval("document.querySelector('img')") is None
    browser.goto(url + "#path=0.0", READY)  # the same server, still answering
    assert browser.eval("document.getElementById('error').hidden") is True
    assert browser.eval("document.getElementById('state-title').textContent") == (
        "State 2 after ControllerElectLeader(new_leader=r1)")


def test_explorer_opens_at_the_end_of_a_counterexample(browser, explorer_url):
    url = explorer_url("broker-failures", "--trace", os.path.join(KNOWN_DIR, "seeds-1-hw-data-loss", "trace.json"))
    browser.goto(url, READY)
    assert browser.eval("document.getElementById('state-title').textContent") == "State 9 after elect_leader(replica=r2)"
    assert "AckedRecordsSurvive: acknowledged record 0@e0 at offset 0 is missing on leader r2" in browser.eval(
        "document.getElementById('invariants').textContent")
    assert browser.eval("document.getElementById('to-start').hidden") is True
    browser.click("#restart")
    browser.wait(READY)
    assert browser.eval("location.hash") == "#path=0" and browser.eval("document.getElementById('to-start').hidden") is False


# -- liveness lassos and the lanes' layout ---------------------------------------------------------------

TOY = os.path.join(ROOT, "tests", "models", "counter_fair.py")


@pytest.fixture(scope="module")
def lasso_pages(tmp_path_factory):
    """Pages of three liveness counterexamples of small models: kip320 with two replicas (a record never
    committed: stuttering after 6 states), the same model's 1-state lasso (no record is ever written, so
    every log is empty) and the toy counter's loop (Inc, then Reset back to the start, forever)."""
    out = tmp_path_factory.mktemp("lassos")
    pages = {}
    for name, args in (("stutter", ("kip320", "--const", "Replicas=2", "--property", "LeaderRecordEventuallyCommitted")),
                       ("empty", ("kip320", "--const", "Replicas=2", "--property", "EventuallySomeLeader")),
                       ("loop", (TOY, "--property", "ReachesTop"))):
        r = subprocess.run([sys.executable, "-m", "modelcheck", "check", *args, "-q", "--out", str(out / name)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 1, r.stderr
        pages[name] = (out / name / "trace.html").as_uri()
    return pages


@pytest.mark.slow
def test_a_stuttering_lasso_shows_its_end_in_every_view(browser, lasso_pages):
    before = len(browser.errors())
    browser.goto(lasso_pages["stutter"], READY)
    # The steps list ends with a row that says the behaviour stutters forever; it is not a step of the listbox.
    assert browser.eval("document.querySelectorAll('#steplist li[role=option]').length") == 6
    assert browser.eval("document.querySelector('#steplist li.loopback').textContent").endswith(
        "stutters forever in state 6")
    # No state is "violated": the whole behaviour is.
    assert browser.eval("document.querySelector('#step-6 .verdict')") is None
    assert "stutters forever" in browser.eval("document.querySelector('#step-6 h3').textContent")
    assert browser.eval("document.querySelectorAll('#steplist li.bad, .stepdetail.bad, #lanes-rows tbody.bad').length") == 0
    # The verdict names the property and the actions enabled where it stutters, with their fairness.
    verdict = browser.eval("document.getElementById('verdict').textContent")
    assert "LeaderRecordEventuallyCommitted fails" in verdict and "what it promises never happens" in verdict
    assert "may be neglected forever:" in verdict and "FencedFollowerFetch could change the state" in verdict
    assert "never enabled in state 6, so fairness does not force them:" in verdict and "LeaderWrite (strongly fair)" in verdict
    # No culprits, so the legend does not speak of red cells.
    assert "red" not in browser.eval("document.querySelector('#steps p.legend').textContent")
    # The lanes and the sequence diagram mark the loop and close it.
    assert browser.eval("document.querySelector('#lanes-rows tbody.loopback').textContent").endswith(
        "stutters forever in state 6")
    assert browser.eval("document.querySelector('#messages g.loopframe').textContent.trim()") == "stutters forever"
    assert "stutters forever in state 6" in browser.eval("document.querySelector('#messages g.row.loopback').textContent")
    browser.click("#opt-2")
    browser.click("#steplist li.loopback")  # the closing row selects the step the loop goes back to
    assert current_step(browser) == "step-6"
    assert browser.errors()[before:] == []


def test_a_loop_goes_back_to_its_first_step(browser, lasso_pages):
    browser.goto(lasso_pages["loop"], READY)
    assert browser.eval("document.querySelector('#steplist li.loopback').textContent").endswith(
        "Reset: back to state 1 (the loop repeats)")
    assert browser.eval("document.querySelectorAll('#steplist li.inloop').length") == 2
    assert "Fair and taken in the loop: Inc (weakly fair)" in browser.eval("document.getElementById('verdict').textContent")
    browser.click("#opt-2")
    browser.click("#steplist li.loopback")
    assert current_step(browser) == "step-1" and browser.eval("location.hash") == "#step=1"


def _label_problems(b: Browser) -> list[str]:
    """Lane labels (HW/LEO captions, offsets) that are under 11 px, overlap another, or leave their cell."""
    return label_problems(b, "#lanes-rows .log .mark b, #lanes-rows .offs span", "td, th")


@pytest.mark.parametrize("width", [1400, 800])
def test_lane_labels_are_legible_and_never_overlap(browser, lasso_pages, width):
    browser.resize(width, 1000)
    try:
        for page in (HW_PAGE, lasso_pages["empty"], lasso_pages["stutter"]):
            browser.goto(page, READY)
            assert browser.eval("document.querySelectorAll('#lanes-rows .log .mark b').length") > 0
            assert _label_problems(browser) == [], page
            # An empty log keeps the height of a record, so its label stays in its row.
            heights = browser.eval("Array.from(document.querySelectorAll('#lanes-rows .log'))"
                                   ".map(function (e) { return e.getBoundingClientRect().height; })")
            assert min(heights) >= 24
    finally:
        browser.resize(1400, 1000)


def test_lane_fields_line_up_in_columns_and_action_names_stay_whole(browser):
    browser.goto(HW_PAGE, READY)
    # Every HW value of the rows layout sits in the same column: the same left edge, from the first step to the last.
    lefts = browser.eval("""(function () {
      var heads = Array.from(document.querySelectorAll('#lanes-rows thead th')).map(function (th) { return th.textContent; });
      var hw = heads.indexOf('HW') - 3;  // the step, action and lane columns come first
      return Array.from(document.querySelectorAll('#lanes-rows tbody tr')).map(function (tr) {
        return Math.round(tr.querySelectorAll('td.f, td.f-log')[hw].getBoundingClientRect().left);
      });
    })()""")
    assert len(lefts) == 27 and len(set(lefts)) == 1
    # No value wraps, and an action name never breaks inside a word.
    assert browser.eval("Array.from(document.querySelectorAll('#lanes-rows td.f span.v')).every(function (e) {"
                        " return e.getClientRects().length === 1 && e.getBoundingClientRect().height < 20; })")
    styles = browser.eval("Array.from(document.querySelectorAll('#lanes-rows td.act, #steplist li a'))"
                          ".map(function (e) { var s = getComputedStyle(e); return s.overflowWrap + ' ' + s.wordBreak; })")
    assert set(styles) <= {"normal normal", "break-word normal"}
    # The epoch legend has a swatch for the epoch of the trace's records.
    assert browser.eval("Array.from(document.querySelectorAll('#lanes .lanelegend .swatch'))"
                        ".map(function (e) { return e.textContent; })") == ["e1"]


@pytest.mark.slow
def test_every_lifeline_is_in_view_at_800_pixels(browser, lasso_pages):
    browser.resize(800, 1000)
    try:
        for page in (HW_PAGE, lasso_pages["stutter"],
                     "file://" + os.path.join(KNOWN_DIR, "seeds-3-kip101-fast-leader-changes", "trace.html")):
            browser.goto(page, READY)
            browser.eval("document.getElementById('messages').scrollIntoView(); true")
            boxes = browser.eval("Array.from(document.querySelectorAll('#messages rect.actor')).map(function (r) {"
                                 " var b = r.getBoundingClientRect(); return [b.left, b.right]; })")
            assert len(boxes) >= 3
            assert all(0 <= left and right <= 800 for left, right in boxes), (page, boxes)
    finally:
        browser.resize(1400, 1000)


KIP320_ISR = os.path.join(ROOT, "tests", "models", "kip320_isr.py")


@pytest.fixture(scope="module")
def isr_page(tmp_path_factory):
    """The Kip320 lasso with a 2-step loop (three replicas, MaxLeaderEpoch 1: the same lasso, a smaller graph)."""
    out = tmp_path_factory.mktemp("isr")
    r = subprocess.run([sys.executable, "-m", "modelcheck", "check", KIP320_ISR, "--const", "MaxLeaderEpoch=1",
                        "--property", "IsrMembershipStabilizes", "-q", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    return (out / "trace.html").as_uri()


def _clipped(b: Browser, selector: str) -> list[str]:
    """Elements under ``selector`` whose text overflows their box, or is cut off by the window or by the box
    that scrolls it (a wide table scrolls sideways in its box: its text must still be in view there)."""
    return b.eval("""(function () {
      var out = [], w = document.documentElement.clientWidth;
      document.querySelectorAll(%s).forEach(function (e) {
        var range = document.createRange(); range.selectNodeContents(e);
        var text = range.getBoundingClientRect(), right = w;
        for (var a = e.parentElement; a; a = a.parentElement) {
          var ox = getComputedStyle(a).overflowX;
          if (ox === 'auto' || ox === 'scroll' || ox === 'hidden') { right = Math.min(right, a.getBoundingClientRect().right); }
        }
        if (e.scrollWidth > e.clientWidth + 1 || text.right > right + 0.5) { out.push(e.textContent.slice(0, 60)); }
      });
      return out; })()""" % json.dumps(selector))


@pytest.mark.parametrize("width", [1400, 800])
def test_a_kip320_lasso_reads_at_every_width(browser, isr_page, width):
    before = len(browser.errors())
    browser.resize(width, 1000)
    browser.goto(isr_page, READY)
    # The steps list ends with the row that closes the loop, back to state 7; only states 7 and 8 are in it.
    row = browser.eval("document.querySelector('#steplist li.loopback').textContent")
    assert row.endswith("FencedLeaderExpandIsr(leader=r2, follower=r1): back to state 7 (the loop repeats)")
    assert browser.eval("Array.from(document.querySelectorAll('#steplist li.inloop')).map(e => e.dataset.i)") == ["6", "7"]
    # The verdict names the replica and why fairness allows the loop; no state is "violated".
    verdict = browser.eval("document.getElementById('verdict').textContent")
    assert "fails for r = r1" in verdict and "2 steps a round" in verdict
    assert "Fair and taken in the loop: FencedLeaderExpandIsr (strongly fair)" in verdict
    assert "The loop's steps with no fairness: FencedLeaderShrinkIsr" in verdict
    assert browser.eval("document.querySelectorAll('.verdict, #steplist li.bad, .stepdetail.bad').length") == 0
    # The lanes close the loop too, and the sequence diagram frames only the loop's step and the closing row.
    assert browser.eval("document.querySelector('#lanes-rows tbody.loopback').textContent").endswith(
        "back to state 7 (the loop repeats)")
    frame = browser.eval("""(function () { var f = document.querySelector('#messages g.loopframe rect').getBoundingClientRect();
      var rows = Array.from(document.querySelectorAll('#messages g.row[data-step]')).filter(function (g) {
        var r = g.getBoundingClientRect(); return r.top >= f.top - 1 && r.bottom <= f.bottom + 1; });
      return rows.map(function (g) { return (g.classList.contains('loopback') ? 'back to ' : '') + g.dataset.step; }); })()""")
    assert sorted(frame) == ["8", "back to 7"]  # step 7's row (the stem's last step) is outside the frame
    # Nothing clipped: the verdict, the steps and their closing row fit their boxes and the window.
    assert _clipped(browser, "#verdict p, #verdict li, #steplist li, #lanes-rows tbody.loopback td") == []
    assert browser.eval("document.querySelector('#messages svg').getBoundingClientRect().right") <= width
    assert browser.errors()[before:] == []
    browser.resize(1400, 1000)


@pytest.mark.parametrize("width", [1400, 800])
def test_an_action_name_never_spills_over_the_lanes(browser, width):
    """The longest action of the HW data-loss case (BecomeFollowerTruncateToHighWatermark, bold on the violating
    step) stays inside its cell in both layouts: its column is never narrower than its longest piece."""
    browser.resize(width, 1000)
    try:
        browser.goto(HW_PAGE, READY)
        assert _clipped(browser, "#lanes-rows td.act") == []
        browser.eval("document.getElementById('lanes-cols').hidden = false; true")
        # (its later steps are scrolled out of view sideways, as they should be: each fits its own header)
        assert browser.eval("Array.from(document.querySelectorAll('#lanes-cols th[data-col]')).filter(function (e) {"
                            " return e.scrollWidth > e.clientWidth + 1; }).map(function (e) { return e.textContent; })") == []
    finally:
        browser.resize(1400, 1000)


@pytest.mark.parametrize("width", [1400, 800])
def test_the_producer_duplicate_diagram_draws_the_leaders_log_where_it_is_written(browser, width):
    """The leader's log is a strip of cells under its lifeline at each step that writes to it: batch0 at step 3,
    then batch0 twice at step 6 (the new cell outlined); every cell's text is inside its cell, every cell inside
    its note, every note between the neighbouring lifelines, and the drawing in the window."""
    page = "file://" + os.path.join(KNOWN_DIR, "producer-duplicate", "trace.html")
    before = len(browser.errors())
    browser.resize(width, 1000)
    try:
        browser.goto(page, READY)
        browser.eval("document.getElementById('messages').scrollIntoView(); true")
        m = browser.eval("""(function () {
          function box(e) { var r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }
          function inside(a, b) { return a[0] >= b[0] - 0.5 && a[1] >= b[1] - 0.5 && a[2] <= b[2] + 0.5 && a[3] <= b[3] + 0.5; }
          var svg = document.querySelector('#messages svg');
          var heads = Array.from(svg.querySelectorAll('rect.actor')).map(function (r) {
            var b = r.getBoundingClientRect(); return [r.nextElementSibling.textContent, (b.left + b.right) / 2]; });
          var strips = [], bad = [];
          svg.querySelectorAll('g.row').forEach(function (row) {
            row.querySelectorAll('g.seq-note').forEach(function (note) {
              var cells = Array.from(note.querySelectorAll('path.seq-cell'));
              if (!cells.length) { return; }
              var frame = box(note.querySelector('path'));
              var texts = Array.from(note.querySelectorAll('tspan[text-anchor=middle]'));
              cells.forEach(function (c, k) {
                if (!inside(box(c), frame) || !inside(box(texts[k]), box(c))) { bad.push(row.dataset.step + ':' + k); }
              });
              strips.push([row.dataset.step, note.querySelector('title').textContent, (frame[0] + frame[2]) / 2,
                           frame[0], frame[2], texts.map(function (t) { return t.textContent; }),
                           cells.map(function (c) { return c.getAttribute('stroke-width'); })]);
            });
          });
          return {heads: heads, strips: strips, bad: bad, right: box(svg)[2], vw: document.documentElement.clientWidth};
        })()""")
        x = dict(m["heads"])
        assert [(s[0], s[1], s[5], s[6]) for s in m["strips"]] == [
            ("3", "leader after step 3: log [batch0]", ["batch0"], ["2"]),
            ("6", "leader after step 6: log [batch0, batch0]", ["batch0", "batch0"], ["1", "2"])]
        for _, _, mid, left, right, _, _ in m["strips"]:
            assert abs(mid - x["leader"]) < 1 and x["producer"] < left and right < x["batch0"]
        assert m["bad"] == []
        assert m["right"] <= m["vw"]
        # The lanes show the same log as cells, in the leader's row.
        assert browser.eval("Array.from(document.querySelectorAll('#lanes-rows tbody.bad tr')[0]"
                            ".querySelectorAll('.log .cell')).map(function (c) { return c.textContent; })") == [
            "batch00", "batch01"]
        assert browser.errors()[before:] == []
    finally:
        browser.resize(1400, 1000)
