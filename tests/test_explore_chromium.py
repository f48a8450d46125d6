"""The explorer in headless Chromium at 1400 and 800 pixels: each step's messages, controls at the top, the
comparison in the URL, and documented findings labelled as such."""

from __future__ import annotations

import json
import os
import threading

import pytest

from browser import CHROMIUM, Browser
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
