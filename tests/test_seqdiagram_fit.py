"""The sequence diagram fits the page and reads: every lifeline in view at 800 and 1400 pixels, no text under
11 pixels, no labels over one another or over a lifeline, notes never cut, late messages drawn as pills.

The browser tests render the known traces' pages afresh (so they test this code, not the checked-in pages)
and measure them in headless Chromium (``tests/browser.py``); the others read the SVG text.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

from browser import CHROMIUM, Browser
from modelcheck.counterexamples import lanes as lanes_mod
from modelcheck.counterexamples.regenerate import KNOWN_DIR
from modelcheck.counterexamples.render import render
from modelcheck.counterexamples.seqdiagram import render_sequence_svg

PAGES = ("hw-data-loss", "seeds-1-hw-data-loss", "controller-zombie-second-leader")
READY = "document.body && document.body.dataset.ready === 'yes'"
NS = {"s": "http://www.w3.org/2000/svg"}


def _doc(name: str) -> dict:
    with open(os.path.join(KNOWN_DIR, name, "trace.json"), encoding="utf-8") as f:
        return json.load(f)


# -- in the browser -----------------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(CHROMIUM is None,
                                    reason="Chromium is not installed (bin/setup installs Debian's chromium)")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("seqpages")
    found = {}
    for name in PAGES:
        (out / f"{name}.html").write_bytes(render(_doc(name), "html"))
        found[name] = (out / f"{name}.html").as_uri()
    return found


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed")
    with Browser(1400, 1000) as b:
        yield b


def _open(b: Browser, url: str, width: int) -> None:
    b.resize(width, 1000)
    b.goto(url, READY)
    b.eval("document.getElementById('messages').scrollIntoView(); true")


MEASURE = """(function () {
  var svg = document.querySelector('#messages svg');
  var vw = document.documentElement.clientWidth;
  function box(e) {
    var r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  }
  var texts = Array.from(svg.querySelectorAll('text'));
  return {
    vw: vw,
    scroll: document.documentElement.scrollWidth,
    heads: Array.from(svg.querySelectorAll('rect.actor')).map(box),
    verdict: Array.from(svg.querySelectorAll('text')).filter(function (t) {
      return t.getAttribute('fill') === '#b91c1c' && t.getAttribute('font-size') === '12'; }).map(box),
    sizes: texts.map(function (t) {  // what is drawn: the computed size times the drawing's scale
      var m = t.getScreenCTM();
      return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)];
    }),
    texts: texts.filter(function (t) { return t.getBBox().width > 0; }).map(function (t) {
      var b = box(t); b.text = t.textContent; b.note = !!t.closest('.seq-note'); return b; }),
    lifelines: Array.from(svg.querySelectorAll('line')).filter(function (l) {  // the lifelines' segments
      return l.getAttribute('x1') === l.getAttribute('x2') && l.y2.baseVal.value > l.y1.baseVal.value; }).map(box)
  };
})()"""


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("width", [800, 1400])
@pytest.mark.parametrize("name", PAGES)
def test_the_diagram_fits_the_page_with_text_no_smaller_than_11px(browser, pages, name, width):
    """Every lifeline's header and the violation sentence are in the viewport, the page does not scroll sideways,
    and no text is drawn under 11 CSS pixels (a drawing scaled down to fit would shrink its text)."""
    _open(browser, pages[name], width)
    m = browser.eval(MEASURE)
    assert m["scroll"] <= width
    assert len(m["heads"]) >= 4
    for b in m["heads"] + m["verdict"]:
        assert 0 <= b["left"] and b["right"] <= m["vw"], (name, width, b)
    assert m["verdict"], "the violation sentence is drawn"
    small = [(text, round(size, 2)) for text, size in m["sizes"] if size < 11 - 1e-6]
    assert small == [], small[:5]


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("width", [800, 1400])
@pytest.mark.parametrize("name", PAGES)
def test_labels_overlap_neither_each_other_nor_a_lifeline(browser, pages, name, width):
    """No two texts of the diagram overlap (by more than a pixel: glyph boxes of adjacent lines may touch), and
    no text crosses a lifeline (notes excepted: they sit on their own lifeline, by design)."""
    _open(browser, pages[name], width)
    m = browser.eval(MEASURE)
    texts = m["texts"]
    overlaps = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            w = min(a["right"], b["right"]) - max(a["left"], b["left"])
            h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if w > 1 and h > 1:
                overlaps.append((a["text"], b["text"]))
    assert overlaps == []
    crossing = [t["text"] for t in texts if not t["note"] for ln in m["lifelines"]
                if t["left"] + 1 < ln["left"] + 0.75 < t["right"] - 1
                and min(t["bottom"], ln["bottom"]) - max(t["top"], ln["top"]) > 1]
    assert crossing == []


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("name", PAGES)
def test_notes_are_whole_and_carry_a_tooltip(browser, pages, name):
    """No text of the diagram is cut with an ellipsis; every note has a <title> with its whole text (a log drawn
    as cells reads as its items one after another)."""
    _open(browser, pages[name], 800)
    texts = browser.eval("Array.from(document.querySelectorAll('#messages svg text')).map(function (t) {"
                         " return t.textContent; })")
    assert [t for t in texts if "\u2026" in t or "..." in t] == []
    notes = browser.eval("Array.from(document.querySelectorAll('#messages svg .seq-note')).map(function (g) {"
                         " return [g.querySelector('title').textContent, g.querySelector('text').textContent]; })")
    assert len(notes) == sum(len(_changes(_doc(name), i)) for i in range(1, len(_doc(name)["steps"])))
    for title, text in notes:
        whole = re.sub(r"\blog \[([^\]]+)\]", lambda m: "log" + m.group(1).replace(", ", ""), title.split(": ", 1)[1])
        assert whole.replace(", ", "") == text.replace(", ", ""), (title, text)


# -- in the SVG text ----------------------------------------------------------------------------------


def _changes(doc: dict, i: int) -> dict[str, list[str]]:
    return {lane: f for lane, f in lanes_mod.lane_changes(doc["steps"][i - 1], doc["steps"][i]).items() if f}


def _late_doc() -> dict:
    """Three actors; m1 is sent at step 2 and applied at step 5, its response m2 is sent at step 5 and still in
    flight at the end; a ping is sent and answered within step 3."""
    def step(i, action, messages=None):
        s = {"index": i, "action": action, "state": {"x": i}, "changed": ["x"] if i > 1 else [],
             "lanes": {"r1": {"LEO": 0}, "r2": {"LEO": 0}}}
        if messages is not None:
            s["messages"] = messages
        return s

    return {"format": "modelcheck-trace", "version": 1, "spec": "toy", "title": "Toy", "constants": {"N": 2},
            "violation": {"kind": "invariant", "name": "Inv", "description": "it breaks", "explanation": "it broke"},
            "steps": [step(1, None, []),
                      step(2, "Send(r1)", [{"send": "a", "from": "controller", "to": "r2", "label": "Request(a)",
                                            "kind": "LeaderAndIsr"}]),
                      step(3, "Ping(r1)", [{"send": "p", "from": "r1", "to": "r2", "label": "ping", "kind": "Fetch",
                                            "delivered": True},
                                           {"send": "q", "from": "r2", "to": "r1", "label": "pong", "kind": "Fetch",
                                            "delivered": True, "response": True}]),
                      step(4, "Wait", []),
                      step(5, "Apply(r2)", [{"receive": "a"},
                                            {"send": "b", "from": "r2", "to": "controller", "label": "Response(a)",
                                             "kind": "LeaderAndIsr", "response": True}])]}


def _svg(doc: dict) -> ET.Element:
    return ET.fromstring(render_sequence_svg(doc))


def _row(svg: ET.Element, step: int) -> ET.Element:
    return svg.find(f".//s:g[@class='row'][@data-step='{step}']", NS)


def _texts(g: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in g.iter("{http://www.w3.org/2000/svg}text")]


def _lifeline_x(svg: ET.Element) -> dict[str, float]:
    out = {}
    for rect in svg.iter("{http://www.w3.org/2000/svg}rect"):
        if rect.get("class") == "actor":
            name = None
            for t in svg.iter("{http://www.w3.org/2000/svg}text"):
                if abs(float(t.get("x")) - (float(rect.get("x")) + float(rect.get("width")) / 2)) < 0.2 \
                        and t.get("fill") == "#ffffff":
                    name = "".join(t.itertext())
            out[name] = float(rect.get("x")) + float(rect.get("width")) / 2
    return out


def test_a_late_delivery_is_a_pill_at_each_end_not_a_diagonal():
    """A message applied three steps after it was sent: a stub and pill m1 in its send row, the arrow from the same
    pill to its receiver in the row that applies it; nothing crosses a row; the response still in flight at the
    end is dotted, from pill m2, in the last band, short of its receiver."""
    svg = _svg(_late_doc())
    lines = list(svg.iter("{http://www.w3.org/2000/svg}line"))
    assert [ln.attrib for ln in lines if ln.get("y1") != ln.get("y2") and ln.get("x1") != ln.get("x2")] == []
    x = _lifeline_x(svg)
    send, apply_ = _row(svg, 2), _row(svg, 5)
    assert "m1" in _texts(send) and "\u2192 r2" in _texts(send) and "Request(a)" in _texts(send)
    assert "m1" in _texts(apply_) and "Request(a)" not in _texts(apply_)
    # In the send row, the stub stops well short of the receiver; in the row that applies it, the arrow reaches it.
    stub = [ln for ln in send.iter("{http://www.w3.org/2000/svg}line") if ln.get("stroke") == "#7c3aed"]
    assert len(stub) == 1 and float(stub[0].get("x2")) - x["controller"] < 40 and "marker-end" not in stub[0].attrib
    arrow = [ln for ln in apply_.iter("{http://www.w3.org/2000/svg}line")
             if ln.get("stroke") == "#7c3aed" and "arrow-" in ln.get("marker-end", "")]
    assert len(arrow) == 1 and abs(float(arrow[0].get("x2")) - x["r2"]) < 0.2
    assert float(arrow[0].get("x1")) < x["controller"] + 60  # from the pill beside the sender
    # The steps between carry nothing of it.
    assert "m1" not in _texts(_row(svg, 3)) + _texts(_row(svg, 4))
    # The response still in flight: dotted stub and pill m2 in step 5, and the last band draws it dotted, with an
    # open arrowhead (a response), stopping short of the controller.
    assert "m2" in _texts(apply_)
    band = svg.find(".//s:g[@class='seq-inflight']", NS)
    assert "still in flight when the trace ends" in _texts(band) and "m2" in _texts(band)
    dotted = [ln for ln in band.iter("{http://www.w3.org/2000/svg}line") if ln.get("stroke") == "#7c3aed"]
    assert len(dotted) == 1 and dotted[0].get("stroke-dasharray") and "open-" in dotted[0].get("marker-end")
    assert abs(float(dotted[0].get("x2")) - x["controller"]) >= 8
    # Within step 3, the request has a filled arrowhead and its response an open one, both solid.
    ping = [ln for ln in _row(svg, 3).iter("{http://www.w3.org/2000/svg}line") if ln.get("stroke") == "#2563eb"]
    assert [ln.get("marker-end") for ln in ping] == ["url(#arrow-Fetch)", "url(#open-Fetch)"]
    assert not any(ln.get("stroke-dasharray") for ln in ping)
    # Each message carries its whole story as a tooltip; the legend explains the pills.
    tips = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
    assert "m1: Request(a) (controller \u2192 r2; sent in step 2, applied in step 5)" in tips
    legend = _texts(svg.find(".//s:g[@class='seq-legend']", NS))
    assert "applied in a later step, from the same pill" in legend and "still in flight when the trace ends" in legend


def test_notes_are_written_whole_a_field_a_line_with_a_tooltip():
    """HW data loss, step 9: r3's note has its four changed fields, one per line, whole, and a tooltip."""
    svg = _svg(_doc("hw-data-loss"))
    notes = [g for g in _row(svg, 9).iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "seq-note"]
    assert len(notes) == 1
    assert notes[0].find("s:title", NS).text == "r3 after step 9: log [], LEO 0, epoch 1, ISR {r1, r3}"
    text = notes[0].find("s:text", NS)
    assert ["".join(span.itertext()) for span in text.findall("s:tspan", NS)] == ["log []", "LEO 0", "epoch 1",
                                                                                 "ISR {r1, r3}"]
    assert float(text.get("font-size", "11")) >= 11 and "..." not in render_sequence_svg(_doc("hw-data-loss"))


@pytest.mark.parametrize("name", PAGES)
def test_the_drawing_is_no_wider_than_a_page_at_800_pixels(name):
    """740 pixels: the box of a trace page at 800 pixels is 762 wide, so the drawing is shown unscaled."""
    svg = _svg(_doc(name))
    assert int(svg.get("width")) <= 740 and svg.get("viewBox") == f"0 0 {svg.get('width')} {svg.get('height')}"
    sizes = [float(t.get("font-size", svg.get("font-size"))) for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert min(sizes) >= 11


@pytest.mark.parametrize("text", ["LeaderAndIsr(controller epoch 2: b2 leads e0, ISR {b1, b2, b3})",
                                  "won; partition state: b2 leads e0, ISR {b1, b2, b3} (controller epoch 1)",
                                  "BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r3)",
                                  "inbox b1: b1@e1 ctrl 1; b3: b2@e0 ctrl 2", "x", ""])
@pytest.mark.parametrize("width", [60, 106, 166])
def test_wrapping_keeps_every_character_and_the_width(text, width):
    from modelcheck.counterexamples.seqdiagram import text_width, wrap

    lines = wrap(text, width)
    assert "".join(lines) == text
    assert all(text_width(line.rstrip()) <= width or len(line.rstrip()) == 1 for line in lines)
    assert not any(re.match(r"^\($", line) for line in lines)


def test_a_long_word_breaks_after_an_underscore_or_before_a_capital_not_inside_a_part():
    from modelcheck.counterexamples.seqdiagram import text_width, wrap

    for word, first in (("NOT_LEADER_FOR_PARTITION", "NOT_LEADER_FOR_"), ("BecomeFollowerTruncate", "BecomeFollower")):
        width = text_width(first) + 2
        lines = wrap(word, width, balance=False)
        assert "".join(lines) == word and lines[0] == first, lines

