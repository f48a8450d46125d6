"""A spec that keeps state between calls in module-level objects: the default run answers as the spec's own code.

Such a spec is not a function of the state, so what it gives depends on every
call made before; the spec's own code, in a fresh process, is the only
reference.  The memo tables run the spec's code on their own account (the
layout's sample walk, learning), so they must notice the change, stand aside
with one line, and put the objects back as the search would have found them,
so that the run on the spec's own code that follows counts what a run with
``--no-memo`` counts.  Each run is its own process: the objects start empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import needs_memo_tables, run_cli

pytestmark = needs_memo_tables

SPEC = str(Path(__file__).parent / "models" / "keeps_state" / "function_attribute.py")


def _run(*args: str) -> dict:
    p = run_cli("check", SPEC, "--json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("where, name", [("false", "bump.calls"), ("true", "Box.items")])
@pytest.mark.parametrize("threshold", ["350", "2500"])
def test_the_default_run_counts_what_the_spec_s_own_code_counts(where, name, threshold):
    consts = ("--const", f"InClass={where}", "--const", f"T={threshold}")
    default, own = _run(*consts), _run(*consts, "--no-memo")
    assert (default["distinct_states"], default["states_generated"], default["depth"]) == \
        (own["distinct_states"], own["states_generated"], own["depth"])
    assert default["successors"]["path"] == "the spec's own code"
    assert f"`{name}`: a module-level list changed" in default["successors"]["why"]
