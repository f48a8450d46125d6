"""What the tests of the producer, controller, reassignment and consumer specs share: running a spec.

The public ``modelcheck.check`` runs the specs; the spec loader, the
constants parser and the compiled-build switch are imported here and nowhere
else in those tests.
"""

from __future__ import annotations

from typing import Any

import modelcheck
from modelcheck.build import compiled
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec
from naive import naive_explore

INTERPRETED_ENV = compiled.DISABLE_ENV
"""Set to "1" in a CLI run's environment to run the specs interpreted, "" to allow the compiled builds."""

__all__ = ["INTERPRETED_ENV", "assert_counts_match_naive", "constants", "labels", "load_spec", "run_spec"]


def constants(spec: Any, **values: Any) -> Any:
    """The spec's constants with ``values`` (written as on the command line) over its defaults."""
    return build_constants(spec, tuple((k, str(v)) for k, v in values.items()))


def run_spec(name: str, invariants: tuple[str, ...], deadlock: bool | None = None, **values: Any):
    """Check registered spec ``name`` for ``invariants``; returns (spec, constants, result)."""
    spec = load_spec(name)
    consts = constants(spec, **values)
    return spec, consts, modelcheck.check(spec, values, invariants=invariants, deadlock=deadlock)


def labels(violation: Any) -> list[str]:
    """The action labels of a counterexample, after its initial state."""
    return [step.action for step in violation.trace[1:]]


def assert_counts_match_naive(spec: Any, consts: Any, result: Any) -> None:
    """Distinct states, states generated and depth are what the naive explorer finds."""
    naive = naive_explore(spec, consts)
    assert (result.distinct_states, result.states_generated, result.depth) == (
        naive["distinct"], naive["generated"], naive["depth"])
