"""Trace files and renderings: round trips, formats, hostile trace files, the state-graph export."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from conftest import MODELS, run_cli
from modelcheck.counterexamples import tracefile
from modelcheck.counterexamples.graph import trace_graph
from modelcheck.counterexamples.render import render, write_outputs

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed (bin/setup installs it)")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """``check truncate-to-hw --out DIR``, run once as a user would."""
    d = tmp_path_factory.mktemp("out")
    p = run_cli("check", "truncate-to-hw", "-q", "--out", str(d))
    assert p.returncode == 1, p.stderr
    assert "Counterexample (StrongIsr) written to" in p.stderr
    return d


def test_check_out_writes_the_trace_and_renderings(out):
    names = set(os.listdir(out))
    assert {"trace.json", "trace.txt", "trace.dot", "trace.html"} <= names
    doc = tracefile.load(str(out / "trace.json"))
    assert doc["spec"] == "truncate-to-hw" and doc["violation"]["name"] == "StrongIsr"
    assert len(doc["steps"]) == 9
    assert doc["steps"][4]["action"] == "LeaderWrite(r1)"
    assert doc["steps"][4]["params"] == {"replica": "r1"}
    assert doc["steps"][4]["changed"] == ["replicaLog.r1", "nextRecordId"]
    assert doc["steps"][0]["lanes"]["r1"]["LEO"] == 0


@pytest.mark.parametrize("fmt", ["text", "dot", "json", "html", "graph-json"])
def test_round_trip_render_equals_render_at_check_time(out, fmt):
    ext = {"text": "txt", "dot": "dot", "json": "json", "html": "html", "graph-json": "graph.json"}[fmt]
    p = run_cli("render", str(out / "trace.json"), "--format", fmt, "-o", str(out / f"again.{ext}"))
    assert p.returncode == 0, p.stderr
    if (out / f"trace.{ext}").exists():
        assert (out / f"again.{ext}").read_bytes() == (out / f"trace.{ext}").read_bytes()
    else:
        data = json.loads((out / f"again.{ext}").read_text())
        assert len(data["nodes"]) == 9 and len(data["edges"]) == 8


def test_text_rendering_shows_only_changes(out):
    text = (out / "trace.txt").read_text()
    assert "State 5: <LeaderWrite(r1)>\n  replicaLog.r1 = [0@e1]\n  nextRecordId = 1\n" in text


def test_graph_has_states_as_nodes_and_actions_as_edges(out):
    g = trace_graph(tracefile.load(str(out / "trace.json")))
    assert list(g.nodes) == [f"s{i}" for i in range(1, 10)]
    assert g.edges["s4", "s5"]["action"] == "LeaderWrite(r1)"
    assert g.nodes["s9"]["violating"] and not g.nodes["s8"]["violating"]
    assert g.nodes["s9"]["lane_changes"]["r3"] == ["log", "LEO", "epoch"]


@needs_dot
def test_svg_and_png_through_graphviz(out):
    svg = (out / "trace.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "State 9: StrongIsr violated" in svg and "LeaderIncHighWatermark(r1)" in svg
    p = run_cli("render", str(out / "trace.json"), "--format", "png", "-o", str(out / "t.png"))
    assert p.returncode == 0
    assert (out / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_html_is_self_contained(out):
    page = (out / "trace.html").read_text()
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    assert "<script src" not in page and "<link" not in page
    assert 'id="lanes"' in page and 'id="steps"' in page and 'id="graph"' in page


def _bad(tmp_path, content: str | bytes) -> str:
    path = tmp_path / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def _good_doc(out) -> dict:
    return json.loads((out / "trace.json").read_text())


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: d.update(format="other"), "format is 'other'"),
        (lambda d: d.update(version=99), "version 99 is not supported"),
        (lambda d: d.update(steps=[]), "'steps' must be a non-empty list"),
        (lambda d: d["steps"][1].update(index=7), "step 2 has index 7"),
        (lambda d: d["steps"][1].update(action=None), "step 2 action must be a string"),
        (lambda d: d["steps"][2].update(state=[1, 2]), "step 3 state must be an object"),
        (lambda d: d["violation"].update(name=5), "violation.name must be a string"),
        (lambda d: d["steps"][0].update(lanes={"r1": "x"}), "lanes must map lane names to objects"),
        (lambda d: d.update(story=["x"]), "'story' must be a string"),
    ],
)
def test_crafted_trace_files_are_refused(out, tmp_path, mutate, message):
    doc = _good_doc(out)
    mutate(doc)
    p = run_cli("render", _bad(tmp_path, json.dumps(doc)))
    assert p.returncode == 2
    assert message in p.stderr and "Traceback" not in p.stderr


def test_truncated_and_non_json_files_are_refused(out, tmp_path):
    text = (out / "trace.json").read_text()
    for content, message in [(text[: len(text) // 2], "not valid JSON (truncated?)"), (b"\xff\xfe\x00", "not UTF-8"),
                             ("[]", "the top level is not an object")]:
        p = run_cli("render", _bad(tmp_path, content))
        assert p.returncode == 2 and message in p.stderr, p.stderr
    p = run_cli("render", str(tmp_path / "missing.json"))
    assert p.returncode == 2 and "cannot read trace file" in p.stderr


def test_crafted_names_cannot_write_outside_the_output_directory(out, tmp_path):
    doc = _good_doc(out)
    doc["spec"] = "../../escape"
    doc["violation"]["name"] = "../../../escape"
    doc["steps"][1]["action"] = "../../x"
    target = tmp_path / "o"
    written = write_outputs(doc, str(target), ("json", "text", "dot"))
    assert sorted(os.path.basename(w) for w in written) == ["trace.dot", "trace.json", "trace.txt"]
    assert all(os.path.dirname(w) == str(target) for w in written)
    assert sorted(os.listdir(tmp_path)) == ["o"]
    with pytest.raises(Exception, match="unsafe output name"):
        write_outputs(doc, str(target), ("json",), stem="../evil")


def test_state_graph_export_and_its_size_limit(tmp_path):
    p = run_cli("graph", str(MODELS / "die_hard.py"), "--format", "json", "--invariant", "NotSolved")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert len(data["nodes"]) == 16  # the DieHard state space
    assert len(data["edges"]) == 16 * 6  # every action is always enabled
    # Four gallons in the big jug is reachable with the small one full or empty: (3, 4) and (0, 4).
    assert sorted((n["state"]["small"], n["state"]["big"]) for n in data["nodes"] if n["violates"]) == [(0, 4), (3, 4)]
    p = run_cli("graph", str(MODELS / "die_hard.py"), "--format", "dot")
    assert p.returncode == 0 and p.stdout.startswith("digraph states {")
    p = run_cli("graph", "kip320", "--limit", "100")
    assert p.returncode == 2
    assert "the state graph has more than 100 states" in p.stderr


def test_neighbourhood_of_the_counterexample(tmp_path):
    """--around-violation N: the trace, marked, plus every state within N actions of it."""
    p = run_cli("graph", str(MODELS / "die_hard.py"), "--format", "json", "--around-violation", "1")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    path = [(n["state"]["small"], n["state"]["big"]) for n in data["nodes"] if n["on_trace"]]
    # The shortest DieHard solution, in order: fill big, pour, empty small, pour, fill big, pour.
    assert path == [(0, 0), (0, 5), (3, 2), (0, 2), (2, 0), (2, 5), (3, 4)]
    # One action further from the 7 trace states reaches 3 more: (3, 0), (3, 5) and (0, 4).
    assert len(data["nodes"]) == 10
    assert [(e["source"], e["target"]) for e in data["edges"] if e["on_trace"]] == [
        (f"n{i}", f"n{i + 1}") for i in range(6)]
    p = run_cli("graph", str(MODELS / "die_hard.py"), "--around-violation", "1", "--limit", "8")
    assert p.returncode == 2 and "more than 8 states" in p.stderr
    p = run_cli("graph", str(MODELS / "die_hard.py"), "--around-violation", "1", "--invariant", "TypeOk")
    assert p.returncode == 2
    assert p.stderr.strip() == "error: --around-violation: the check found no violation, so there is no counterexample"


def test_crafted_strings_cannot_break_out_of_the_html_page(out):
    """Every string from the trace file is escaped, in the markup and in the inlined trace data."""
    doc = _good_doc(out)
    evil = '</script><script>alert(1)</script><img src=x onerror=alert(2)>'
    doc["spec"] = evil
    doc["steps"][1]["action"] = evil
    doc["steps"][1]["state"]["nextRecordId"] = evil
    page = render(doc, "html").decode()
    assert "<script>alert" not in page and "<img src=x" not in page
    assert page.count("<script") == 2  # the trace data and the page's own script, nothing else
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page
