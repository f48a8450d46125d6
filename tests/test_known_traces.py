"""The checked-in renderings of the known bugs are current (``modelcheck render-known`` regenerates them)."""

from __future__ import annotations

import os
import shutil

import pytest

from modelcheck.counterexamples.known import KNOWN
from modelcheck.counterexamples.regenerate import GRAPHVIZ_STAMP, KNOWN_DIR, regenerate


MESSAGE_SPECS = {"truncate-to-hw", "kip101", "kip279", "kip320-first-try", "kip320", "async-isr", "broker-failures",
                 "producer-ordering", "controller-failover", "partition-reassignment", "consumer-offsets"}
"""The specs that declare how their state maps to messages (their known traces have a sequence diagram)."""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    d = tmp_path_factory.mktemp("known")
    regenerate(str(d))
    return d


@pytest.mark.slow
@pytest.mark.parametrize("entry", KNOWN, ids=[k.name for k in KNOWN])
def test_checked_in_trace_is_current(fresh, entry):
    # The sequence diagram is drawn by this package, not Graphviz: its bytes are stable too. It exists
    # for the specs that declare their messages.
    names = ["trace.json", "trace.txt", "trace.dot"]
    if (fresh / entry.name / "trace.seq.svg").exists() or entry.spec in MESSAGE_SPECS:
        names.append("trace.seq.svg")
    for name in names:
        checked_in = os.path.join(KNOWN_DIR, entry.name, name)
        assert os.path.exists(checked_in), f"{checked_in} is missing: run `modelcheck render-known`"
        with open(checked_in, "rb") as f:
            assert f.read() == (fresh / entry.name / name).read_bytes(), (
                f"{checked_in} is out of date: run `modelcheck render-known`"
            )
    for name in ("trace.svg", "trace.html"):
        assert os.path.exists(os.path.join(KNOWN_DIR, entry.name, name))


def test_message_specs_are_the_registered_specs_with_a_messages_hook():
    """MESSAGE_SPECS says which known traces must have a sequence diagram: it must follow the specs."""
    from modelcheck.spec.loader import load_spec
    from modelcheck.specs.registry import REGISTRY

    assert MESSAGE_SPECS == {name for name in REGISTRY if load_spec(name).messages is not None}


def test_every_known_directory_has_an_entry():
    """No stale renderings of traces that are no longer listed."""
    on_disk = {d for d in os.listdir(KNOWN_DIR) if os.path.isdir(os.path.join(KNOWN_DIR, d))}
    assert on_disk == {k.name for k in KNOWN}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed (bin/setup installs it)")
def test_svg_is_current_where_graphviz_is_the_same(fresh):
    with open(os.path.join(KNOWN_DIR, GRAPHVIZ_STAMP), encoding="utf-8") as f:
        drawn_with = f.read().strip()
    here = (fresh / GRAPHVIZ_STAMP).read_text().strip()
    if here != drawn_with:
        pytest.skip(f"the checked-in SVGs were drawn by Graphviz {drawn_with}, this is {here}: layouts differ")
    entry = KNOWN[0]
    with open(os.path.join(KNOWN_DIR, entry.name, "trace.svg"), "rb") as f:
        assert f.read() == (fresh / entry.name / "trace.svg").read_bytes()


@pytest.mark.slow
def test_known_traces_carry_their_story(fresh):
    """The sentence in known.py travels in trace.json and is drawn under the graph's title."""
    import json

    for entry in KNOWN:
        doc = json.loads((fresh / entry.name / "trace.json").read_text())
        assert doc["story"] == entry.story
    dot = (fresh / "hw-data-loss" / "trace.dot").read_text()
    assert "<BR/>Before KIP-101: a follower re-truncates to its stale HW after the leader committed a" in dot
