"""How a violation came about: the step that last changed each culprit cell (counterexamples/causes.py).

The steps asserted below were worked out by reading the known traces' trace.json by hand.
"""

from __future__ import annotations

import json
import os

from modelcheck.counterexamples.causes import causal_line, cause_of, culprit_causes, field_causes
from modelcheck.counterexamples.html_page import render_html
from modelcheck.counterexamples.regenerate import KNOWN_DIR


def known(name: str) -> dict:
    with open(os.path.join(KNOWN_DIR, name, "trace.json"), encoding="utf-8") as f:
        return json.load(f)


def test_hw_data_loss_names_the_write_the_hw_and_the_truncation():
    doc = known("hw-data-loss")
    causes = culprit_causes(doc)
    # r1 wrote record 0@e1 at step 5; its HW went 0 -> 1 at step 8; r3 had replicated it at step 7 and truncated
    # it away at step 9; r3 has been in the quorum ISR since the initial state.
    assert {k: (c.step, c.action) for k, c in causes.items()} == {
        ("r1", "log", 0): (5, "LeaderWrite(replica=r1)"),
        ("r1", "HW", None): (8, "LeaderIncHighWatermark(leader=r1)"),
        ("r3", "log", 0): (9, "BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r3)"),
        ("r3", "in quorum ISR", None): (1, None),
    }
    assert causes[("r1", "HW", None)].tooltip() == "changed at step 8 (LeaderIncHighWatermark(leader=r1))"
    assert causes[("r3", "in quorum ISR", None)].tooltip() == "unchanged since the initial state (step 1)"
    assert causal_line(doc) == (
        "r1's log changed at step 5 (LeaderWrite(replica=r1)); "
        "r1's HW at step 8 (LeaderIncHighWatermark(leader=r1)); "
        "r3's log at step 9 (BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r3)); "
        "r3's in quorum ISR unchanged since the initial state")


def test_log_divergence_story_names_the_hw_reload_and_the_new_leaders_write():
    doc = known("seeds-2-log-divergence")
    # r1's 0@e0 was produced at step 2; its HW dropped to 0 at its crash (9) and came back as 1 at its restart
    # (10); r2, truncated at 8, took 1@e1 at offset 0 and HW 1 in one produce at step 12.
    assert [(c.lane, c.field, c.step) for c in field_causes(doc)] == [
        ("r1", "log", 2), ("r1", "HW", 10), ("r2", "log", 12), ("r2", "HW", 12)]
    assert causal_line(doc) == (
        "r1's log changed at step 2 (produce(acks=all)); r1's HW at step 10 (restart_without_leader(replica=r1)); "
        "r2's log and HW at step 12 (produce(acks=all))")


def test_a_log_offset_is_caused_by_the_step_that_changed_that_offset_not_a_later_append():
    def step(i, log, action):
        return {"index": i, "action": action, "lanes": {"a": {"log": log, "HW": 0}}}

    steps = [step(1, "[]", None), step(2, "[0@e1]", "Write(x)"), step(3, "[0@e1, 1@e1]", "Write(y)")]
    assert cause_of(steps, "a", "log", 0).step == 2
    assert cause_of(steps, "a", "log", 1).step == 3
    assert cause_of(steps, "a", "log", None).step == 3
    assert cause_of(steps, "a", "log", 5).step == 1  # never written: as in the initial state


def test_the_line_lists_at_most_four_fields_and_counts_the_rest():
    doc = known("controller-zombie-second-leader")
    assert len(field_causes(doc)) == 5
    line = causal_line(doc)
    assert line.endswith("; and 1 more") and line.count("step ") == 2  # two lanes, two fields each, grouped


def test_no_lane_culprits_no_line():
    doc = known("hw-data-loss")
    doc["violation"] = dict(doc["violation"], culprits=[])
    assert causal_line(doc) == "" and culprit_causes(doc) == {}


def test_the_page_links_every_culprit_cell_to_its_cause_and_says_how_it_happened():
    page = render_html(known("hw-data-loss"), None)
    assert '<p class="how"><b>How it happened:</b> r1&#x27;s log changed at <a href="#step-5" data-cause="5">' in page
    assert 'title="offset 0, changed at step 9 (BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r3))"' in page
    # Each of the 4 culprit cells in 3 places (the last step's details, the lanes as rows and as columns).
    assert page.count('<a class="cause" href="#step-8" data-cause="8"') == 3
    assert page.count('class="cell e1 culprit cause" href="#step-5"') == 3
