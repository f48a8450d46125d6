"""``--symmetry`` on the memo tables: the same orbits, counts, verdicts and traces as the spec's own code.

The tables expand as always and take each successor's orbit fingerprint
from the spec's own ``signature`` and ``permute`` (the same function the
spec's own code uses, memoised by the state's own fingerprint in the C
loop), so every fingerprint a symmetric run keeps is the one the spec's own
code computes: a checkpoint written on one path resumes on the other.
Each run here is compared with ``memo=False``, whose orbit counts
tests/test_symmetry.py checks against all n! permutations (TLC's definition).
"""

from __future__ import annotations

import json
import subprocess
import sys

import attrs
import pytest

import modelcheck
from modelcheck.errors import SpecRuntimeError
from modelcheck.spec.loader import load_spec
from conftest import MODELS, ROOT, json_report as result_of, kill_once_checkpointed, needs_memo_tables, run_cli

pytestmark = needs_memo_tables

CONFIGS = [
    ("kip320", {"Replicas": 3, "MaxLeaderEpoch": 1}),
    ("kip101", {"Replicas": 3, "MaxLeaderEpoch": 1}),
    ("truncate-to-hw", {"Replicas": 3, "MaxLeaderEpoch": 1}),
    ("broker-failures", {"Replicas": 3, "Records": 1, "Crashes": 1}),
    (str(MODELS / "tcommit.py"), {}),
]


def _on_tables(r) -> bool:
    return (r.engine_report or {}).get("successors") == "memo tables"


def _summary(r) -> dict:
    return {"result": r.result, "distinct": r.distinct_states, "generated": r.states_generated, "depth": r.depth,
            "violations": [(v.kind, v.name, [step.state for step in v.trace]) for v in r.violations]}


@pytest.mark.parametrize("name, consts", CONFIGS, ids=[n.rsplit("/", 1)[-1] for n, _ in CONFIGS])
def test_symmetry_on_the_tables_answers_as_the_spec_s_own_code(name, consts):
    default = modelcheck.check(name, consts, symmetry=True, continue_after_violation=True)
    own = modelcheck.check(name, consts, symmetry=True, continue_after_violation=True, memo=False)
    assert _on_tables(default), default.warnings
    assert _summary(default) == _summary(own)
    assert default.distinct_states < modelcheck.check(name, consts, continue_after_violation=True).distinct_states


def test_with_workers_symmetry_stays_on_the_spec_s_own_code():
    r = modelcheck.check("kip320", {"MaxLeaderEpoch": 1}, symmetry=True, workers=2)
    assert not _on_tables(r) and r.successors_why == "--symmetry with --workers runs the spec's own code in processes"
    assert not any(w.startswith("the memo tables") for w in r.warnings), r.warnings


@pytest.mark.parametrize("written, resumed", [((), ("--no-memo",)), (("--no-memo",), ())],
                         ids=["tables-to-spec-code", "spec-code-to-tables"])
def test_a_symmetric_checkpoint_resumes_on_the_other_path(tmp_path, written, resumed):
    """Both paths keep the orbit fingerprints the spec's own functions give, so a checkpoint of either resumes
    on the other with the uninterrupted run's counts (a different function would count orbits twice)."""
    args = ["check", "kip320", "--const", "MaxLeaderEpoch=1", "--symmetry"]
    expected = result_of(run_cli(*args, "-q", "--json", "--no-memo"))
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", *args, *written, "--checkpoint", str(tmp_path),
                          "--checkpoint-every", "0", "-q", "--json"],
                         cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_once_checkpointed(p, tmp_path, 9)
    out = run_cli(*args, *resumed, "-q", "--json", "--resume", str(tmp_path))
    assert result_of(out) == expected
    assert json.loads(out.stdout)["successors"]["path"] == ("the spec's own code" if resumed else "memo tables")


def test_a_permute_that_fails_is_reported_as_on_the_spec_s_own_code():
    """The spec's ``permute`` raising on a successor met deep in the search: the same error and trace."""
    spec = load_spec("kip320")
    permute = spec.symmetry.permute

    def fragile(c, s, p):
        if s.quorum_state.leader_epoch == 1 and s.replica_log[0]:
            raise ValueError("no renaming for this one")
        return permute(c, s, p)

    broken = object.__new__(type(spec))
    broken.__dict__.update(spec.__dict__)
    broken.symmetry = attrs.evolve(spec.symmetry, permute=fragile)
    errors = {}
    for memo in (None, False):
        with pytest.raises(SpecRuntimeError) as err:
            modelcheck.check(broken, {"MaxLeaderEpoch": 1}, symmetry=True, memo=memo, preflight=False)
        errors[memo] = (str(err.value).splitlines()[0], len(err.value.trace or ()))
    assert errors[None] == errors[False]
    assert "symmetry" in errors[None][0]
