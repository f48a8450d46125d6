"""bench/packed_kip320.py, the hand-written packed encoding the benchmark compares against, stays Kip320.

The encoding is a hand translation, not derived from the spec, so nothing
else would notice it drifting: a benchmark reference that explores a
different state space measures nothing.  Its counts are checked against the
modelcheck engine run here (two replicas; and constants that take two words
a state) and against TLC's published figures (three replicas), and its
successors and invariant verdicts against the readable spec's on every
reachable state (two replicas) and on samples.  Timings are for people, not
tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import modelcheck

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "packed_kip320.py"


def run_packed(*args: str, timeout: float = 300) -> dict:
    out = subprocess.run([sys.executable, str(SCRIPT), "--json", *args], capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


@pytest.mark.slow
def test_two_replicas_counts_equal_the_engines_and_every_successor_the_readable_specs() -> None:
    engine = modelcheck.check("kip320", constants={"Replicas": 2})
    assert (engine.result, engine.distinct_states, engine.depth) == ("holds", 5973, 18)
    packed = run_packed("--const", "Replicas=2", "--cross-check")
    assert packed["result"] == "holds"
    assert packed["invariants"] == list(engine.invariants) == ["StrongIsr"]
    assert (packed["distinct_states"], packed["generated_states"], packed["depth"]) == (
        engine.distinct_states, engine.states_generated, engine.depth)
    cc = packed["cross_check"]
    assert cc["problems"] == []
    assert cc["states"] == 5973 and not cc["sampled"]  # every reachable state
    assert cc["successors"] == engine.states_generated - 1  # every generated state but the initial one
    assert 0 < cc["bold_states_violating"] < cc["bold_states"]  # the invariant was seen both ways


@pytest.mark.slow
def test_three_replicas_counts_are_tlcs_and_a_sample_agrees_with_the_readable_spec() -> None:
    # TLC, Kip320 with Replicas=3 (and the defaults): 737,794 distinct states, 1,967,560 generated, depth 26.
    packed = run_packed("--cross-check", "--sample", "25000", "--seed", "1")
    assert packed["result"] == "holds"
    assert (packed["distinct_states"], packed["generated_states"], packed["depth"]) == (737_794, 1_967_560, 26)
    assert packed["words"] == 1
    cc = packed["cross_check"]
    assert cc["problems"] == []
    assert cc["states"] == 25000 and cc["sampled"]
    assert cc["bold_states_violating"] > 0


@pytest.mark.slow
def test_a_state_of_two_words_explores_as_one_does() -> None:
    # 65 bits: the visited set of byte strings (as kip320-r3-epoch3 in bench/vs_tlc.py, 76 bits) against the engine.
    consts = {"Replicas": 2, "LogSize": 3, "MaxRecords": 3, "MaxLeaderEpoch": 4}
    engine = modelcheck.check("kip320", constants=consts)
    packed = run_packed(*(a for k, v in consts.items() for a in ("--const", f"{k}={v}")),
                        "--cross-check", "--sample", "3000")
    assert packed["words"] == 2
    assert (packed["result"], packed["distinct_states"], packed["generated_states"], packed["depth"]) == (
        engine.result, engine.distinct_states, engine.states_generated, engine.depth)
    assert packed["cross_check"]["problems"] == []


def test_constants_that_do_not_fit_are_refused_with_the_bit_budget() -> None:
    for consts in (["Replicas=6", "MaxLeaderEpoch=8", "LogSize=8", "MaxRecords=8"],  # a group over 64 bits
                   ["Replicas=6", "MaxLeaderEpoch=5", "LogSize=8", "MaxRecords=6"]):  # more than four words
        out = subprocess.run([sys.executable, str(SCRIPT), *(a for c in consts for a in ("--const", c))],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode != 0
        assert "bits" in out.stderr and "uint64 word" in out.stderr, out.stderr
