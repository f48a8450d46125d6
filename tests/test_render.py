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


@pytest.mark.slow
def test_check_out_writes_the_trace_and_renderings(out):
    names = set(os.listdir(out))
    assert {"trace.json", "trace.txt", "trace.dot", "trace.html", "trace.seq.svg"} <= names
    doc = tracefile.load(str(out / "trace.json"))
    assert doc["spec"] == "truncate-to-hw" and doc["violation"]["name"] == "StrongIsr"
    assert len(doc["steps"]) == 9
    assert doc["steps"][4]["action"] == "LeaderWrite(replica=r1)"
    assert doc["steps"][4]["params"] == {"replica": "r1"}
    assert doc["steps"][4]["changed"] == ["replicaLog.r1", "nextRecordId"]
    assert doc["steps"][0]["lanes"]["r1"]["LEO"] == 0
    assert doc["steps"][6]["action"] == "FollowerReplicate(follower=r3, leader=r1)"  # parameters by name


def test_a_fresh_trace_explains_its_violation(out):
    """Not only the checked-in traces: every check --out names the record, the offset and the replica."""
    v = tracefile.load(str(out / "trace.json"))["violation"]
    assert v["explanation"] == ("record 0@e1 at offset 0 is below leader r1's HW 1 but missing on r3, which is in "
                                "the quorum ISR {r1, r3}")
    assert v["culprits"] == [{"lane": "r1", "field": "log", "offset": 0}, {"lane": "r1", "field": "HW"},
                             {"lane": "r3", "field": "log", "offset": 0}, {"lane": "r3", "field": "in quorum ISR"}]
    text = (out / "trace.txt").read_text()
    assert text.splitlines()[1] == "Why: " + v["explanation"]
    dot = (out / "trace.dot").read_text()
    assert "<B>Why:</B> record 0@e1 at offset 0 is below leader r1&#x27;s HW 1 but missing on r3" in dot
    # r3's empty offset 0 is the culprit cell, drawn red and labelled.
    assert '<TD BGCOLOR="#fecaca" WIDTH="34" COLOR="#b91c1c" BORDER="2"><FONT COLOR="#b91c1c"><B>missing</B>' in dot


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "dot", "json", "html", "graph-json", "seq-svg"])
def test_round_trip_render_equals_render_at_check_time(out, fmt):
    ext = {"text": "txt", "dot": "dot", "json": "json", "html": "html", "graph-json": "graph.json",
           "seq-svg": "seq.svg"}[fmt]
    p = run_cli("render", str(out / "trace.json"), "--format", fmt, "-o", str(out / f"again.{ext}"))
    assert p.returncode == 0, p.stderr
    if (out / f"trace.{ext}").exists():
        assert (out / f"again.{ext}").read_bytes() == (out / f"trace.{ext}").read_bytes()
    else:
        data = json.loads((out / f"again.{ext}").read_text())
        assert len(data["nodes"]) == 9 and len(data["edges"]) == 8


def test_text_rendering_shows_only_changes(out):
    text = (out / "trace.txt").read_text()
    assert "State 5: <LeaderWrite(replica=r1)>\n  replicaLog.r1 = [0@e1]\n  nextRecordId = 1\n" in text


def test_graph_has_states_as_nodes_and_actions_as_edges(out):
    g = trace_graph(tracefile.load(str(out / "trace.json")))
    assert list(g.nodes) == [f"s{i}" for i in range(1, 10)]
    assert g.edges["s4", "s5"]["action"] == "LeaderWrite(replica=r1)"
    assert g.nodes["s9"]["violating"] and not g.nodes["s8"]["violating"]
    assert g.nodes["s9"]["lane_changes"]["r3"] == ["log", "LEO", "epoch", "ISR"]


@needs_dot
def test_svg_and_png_through_graphviz(out):
    svg = (out / "trace.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "State 9: StrongIsr violated" in svg and "LeaderIncHighWatermark(leader=r1)" in svg
    assert "Why:" in svg and "missing on r3, which is in the quorum ISR" in svg
    p = run_cli("render", str(out / "trace.json"), "--format", "png", "-o", str(out / "t.png"))
    assert p.returncode == 0
    assert (out / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_html_is_self_contained(out):
    page = (out / "trace.html").read_text()
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    assert "<script src" not in page and "<link" not in page
    assert 'id="lanes"' in page and 'id="steps"' in page and 'id="graph"' in page and 'id="messages"' in page
    assert page.count('class="stepdetail') == 9  # every step written out: the page reads without script
    assert '<p class="why"><b>Why:</b> record 0@e1 at offset 0' in page


def _bad(tmp_path, content: str | bytes) -> str:
    path = tmp_path / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def _good_doc(out) -> dict:
    return json.loads((out / "trace.json").read_text())


@pytest.mark.slow
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
        (lambda d: d["violation"].update(explanation=3), "violation.explanation must be a string"),
        (lambda d: d["violation"].update(culprits=[{"lane": "r1", "offset": -1}]), "violation.culprits must be"),
        (lambda d: d["violation"].update(culprits=[{"cell": "x"}]), "violation.culprits must be"),
        (lambda d: d["steps"][1].update(messages={"send": 1}), "step 2 messages must be a list"),
        (lambda d: d["steps"][1].update(messages=[{"send": "a", "from": "x"}]), "step 2 has a malformed message"),
        (lambda d: d["steps"][1].update(messages=[{"receive": "a", "x": 1}]), "step 2 has a malformed message"),
        (lambda d: d["violation"].update(loop_actions=[{"action": "A", "fairness": "weak", "enabled": "x",
                                                        "taken": True}]), "violation.loop_actions must be"),
        (lambda d: d["violation"].update(loop_actions={"action": "A"}), "violation.loop_actions must be"),
    ],
)
def test_crafted_trace_files_are_refused(out, tmp_path, mutate, message):
    doc = _good_doc(out)
    mutate(doc)
    p = run_cli("render", _bad(tmp_path, json.dumps(doc)))
    assert p.returncode == 2
    assert message in p.stderr and "Traceback" not in p.stderr


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
    assert page.count("<script") == 1  # the page's own script, nothing else
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page


def test_crafted_explanations_and_messages_are_escaped_everywhere(out):
    """The sentence, culprits and message labels come from the file too: escaped in HTML, SVG and DOT."""
    doc = _good_doc(out)
    evil = '<img src=x onerror=alert(1)>'
    doc["violation"]["explanation"] = evil
    doc["violation"]["culprits"] = [{"lane": evil, "field": evil}, {"variable": evil}]
    doc["steps"][1]["messages"] = [{"send": evil, "from": evil, "to": "r1", "label": evil, "kind": evil}]
    for fmt in ("html", "seq-svg", "dot"):
        text = render(doc, fmt).decode()
        assert "<img" not in text, fmt
        assert "&lt;img src=x onerror=alert(1)&gt;" in text, fmt


def test_whole_graph_folds_self_loops_into_the_boxes():
    p = run_cli("graph", str(MODELS / "die_hard.py"))
    assert p.returncode == 0, p.stderr
    edges = [line for line in p.stdout.splitlines() if "->" in line]
    assert edges and all(line.split()[0] != line.split()[2].rstrip(";") for line in edges)  # no loop edges left
    # (0, 0): emptying either jug changes nothing, so both loops are written in its box.
    assert 'n0 [label="small = 0\\lbig = 0\\lself-loops: EmptySmall, EmptyBig, SmallToBig, BigToSmall\\l"' in p.stdout
    # Several actions between the same two states share one edge.
    assert len(edges) == len({tuple(line.split()[:3]) for line in edges})


@pytest.mark.slow
@needs_dot
def test_graph_renders_svg_and_png(tmp_path):
    p = run_cli("graph", str(MODELS / "die_hard.py"), "--format", "svg")
    assert p.returncode == 0 and "<svg" in p.stdout and "self&#45;loops: EmptySmall" in p.stdout  # Graphviz writes - as &#45;
    p = run_cli("graph", str(MODELS / "die_hard.py"), "--format", "png", "-o", str(tmp_path / "g.png"))
    assert p.returncode == 0 and (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    p = run_cli("graph", str(MODELS / "die_hard.py"), "--format", "png")
    assert p.returncode == 2 and p.stderr.strip() == "error: --format png writes binary data; give --output FILE"


@pytest.mark.slow
def test_sequence_diagram_needs_a_spec_with_messages(tmp_path):
    """die_hard declares no messages: check --out writes no seq.svg, and render -f seq-svg says why (exit 2)."""
    p = run_cli("check", str(MODELS / "die_hard.py"), "--invariant", "NotSolved", "-q", "--out", str(tmp_path))
    assert p.returncode == 1, p.stderr
    assert "trace.seq.svg" not in os.listdir(tmp_path)
    p = run_cli("render", str(tmp_path / "trace.json"), "--format", "seq-svg")
    assert p.returncode == 2 and "declares no messages" in p.stderr and "Traceback" not in p.stderr


# -- hostile trace files: every one a one-line refusal or a bounded, inert rendering -------------


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "dot", "html"])
@pytest.mark.parametrize("case,message", [
    ("epoch-of-5000-digits", None),
    ("index-true", "step 1 has index True"),
    ("lone-surrogate", "holds a string that is not Unicode text (a lone surrogate, U+D800)"),
])
def test_hostile_values_are_one_line_or_rendered(out, tmp_path, case, message, fmt):
    doc = _good_doc(out)
    if case == "epoch-of-5000-digits":
        doc["steps"][2]["lanes"]["r1"]["log"] = "[0@e" + "9" * 5000 + "]"
        text = json.dumps(doc)
    elif case == "index-true":
        doc["steps"][0]["index"] = True
        text = json.dumps(doc)
    else:
        text = json.dumps(doc).replace('"StrongIsr"', '"\\ud800StrongIsr"', 1)
    p = run_cli("render", _bad(tmp_path, text), "-f", fmt, "-o", str(tmp_path / f"r.{fmt}"))
    assert "Traceback" not in p.stderr
    if message is None:
        assert p.returncode == 0, p.stderr
    else:
        assert p.returncode == 2 and p.stderr.strip().splitlines() == [p.stderr.strip()], p.stderr
        assert message in p.stderr


def test_text_rendering_escapes_terminal_control_characters(out, tmp_path):
    doc = _good_doc(out)
    doc["steps"][1]["action"] = "Evil\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e"
    doc["violation"]["name"] = "Strong\u001b[31mIsr"
    doc["violation"]["explanation"] = "line one\nState 9: <forged>"
    doc["steps"][1]["state"]["nextRecordId"] = "\u001b[1m1"
    p = run_cli("render", _bad(tmp_path, json.dumps(doc)))
    assert p.returncode == 0, p.stderr
    assert not any(ch in p.stdout for ch in "\u001b\u0007\u009b\u202e")
    assert "<Evil\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202e>" in p.stdout
    assert "Why: line one\\x0aState 9: <forged>" in p.stdout
    assert "nextRecordId = \\x1b[1m1" in p.stdout


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["dot", "html", "text", "graph-json"])
def test_a_rendering_is_bounded_by_a_factor_of_its_input(out, tmp_path, fmt):
    """One log of 200,000 items in a 1 MB trace once made an 828 MB DOT file (every lane of every step drew
    as many cells): drawings over the cell limit are refused, and nothing exceeds the stated factor."""
    from modelcheck.counterexamples import render as R

    doc = _good_doc(out)
    doc["steps"][2]["lanes"]["r1"]["log"] = "[" + ", ".join(["0@e1"] * 200_000) + "]"
    path = _bad(tmp_path, json.dumps(doc))
    p = run_cli("render", path, "-f", fmt, "-o", str(tmp_path / "r.out"))
    assert "Traceback" not in p.stderr
    if fmt in ("dot", "html"):
        assert p.returncode == 2, p.stderr
        assert "log cells" in p.stderr and "over the limit of 200,000" in p.stderr
        assert not (tmp_path / "r.out").exists()
    else:
        assert p.returncode == 0, p.stderr
        assert os.path.getsize(tmp_path / "r.out") <= R.OUTPUT_FACTOR * os.path.getsize(path) + R.OUTPUT_SLACK


def test_a_lasso_page_closes_its_loop_and_escapes_the_loop_actions(out):
    """A liveness document renders its loop in every view; the actions it names are escaped like the rest."""
    doc = _good_doc(out)
    doc["violation"].update(kind="liveness", loop_start=2, loop_action="<b>Back</b>", stuttering=False, culprits=[],
                            loop_actions=[{"action": "<i>Act</i>", "fairness": "weak", "enabled": "some",
                                           "taken": True}])
    doc["violation"].pop("explanation", None)
    page = render(doc, "html").decode()
    assert "&lt;b&gt;Back&lt;/b&gt;: back to state 2 (the loop repeats)" in page and "<b>Back</b>" not in page
    assert "Fair and taken in the loop: <code>&lt;i&gt;Act&lt;/i&gt;</code> (weakly fair)" in page
    assert 'class="loopback"' in page and "StrongIsr violated</span>" not in page
    seq = render(doc, "seq-svg").decode()
    assert 'class="loopframe"' in seq and "back to state 2 (the loop repeats)" in seq


# -- fuzz: random damage to a good trace file --------------------------------------------------------

HOSTILE = [None, True, False, 0, -1, 2**63, -(2**70), 1e308, -0.0, "", "\u001b[2J", "\ud800", "x" * 5000,
           "[0@e" + "9" * 40 + "]", "[" * 50, {}, [], [[[]]], {"a": {"b": None}}, ["x"] * 1000, "0@e1"]


def _paths(node, prefix=()):
    """Every (path, value) in a JSON document, parents before children."""
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _damage(doc, rng):
    """One to three random changes: a value replaced by a hostile one, a key dropped, a list emptied or grown."""
    import copy

    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p, _v in _paths(doc) if p]
        path = rng.choice(paths)
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        key, what = path[-1], rng.random()
        if what < 0.6:
            parent[key] = rng.choice(HOSTILE)
        elif what < 0.8 and isinstance(parent, dict):
            del parent[key]
        elif isinstance(parent[key], list):
            parent[key] = parent[key] * rng.randint(0, 3)
        else:
            parent[key] = [parent[key]]
    return doc


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_random_damage_to_a_trace_file_is_one_line_or_a_bounded_rendering(out, tmp_path, seed):
    """Each damaged document is either rendered (within the stated bound) or refused with a ModelCheckError
    (one line on the command line); never another exception, in any format drawn without Graphviz."""
    import random

    from modelcheck.counterexamples import render as R
    from modelcheck.errors import ModelCheckError

    rng = random.Random(seed)
    good = _good_doc(out)
    rendered = refused = 0
    for case in range(40):
        doc = _damage(good, rng)
        path = tmp_path / f"case{case}.json"
        path.write_text(json.dumps(doc))
        for fmt in ("text", "dot", "html", "graph-json"):
            try:
                data = render(tracefile.load(str(path)), fmt)
            except ModelCheckError as exc:
                assert "\n" not in str(exc).strip(), (case, fmt, str(exc))
                refused += 1
                continue
            except Exception as exc:  # noqa: BLE001 - what the test is for
                pytest.fail(f"seed {seed} case {case} ({fmt}): {type(exc).__name__}: {exc} for {doc!r:.600}")
            assert len(data) <= R.OUTPUT_FACTOR * len(json.dumps(doc)) + R.OUTPUT_SLACK
            rendered += 1
    assert rendered and refused  # the damage is neither all harmless nor all fatal
