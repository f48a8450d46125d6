"""The Spark backend has no limit of its own: what one process checks, Spark checks the same way."""

from __future__ import annotations

import pytest

from conftest import json_report, run_cli

pytestmark = pytest.mark.spark

WIDE = '''
import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class Wide:
    Width: int = constant(70000, "successors of the initial state", minimum=1, maximum=1000000)


def init(c):
    yield 0


@action("Spread")
def spread(c, s):
    return list(range(1, c.Width + 1)) if s == 0 else None


SPEC = Spec(name="wide", title="Wide", constants=Wide, init=init, actions=[spread], invariants=[])
'''


def test_a_state_with_70000_successors_is_checked_on_spark_as_locally(tmp_path):
    """Path keys number successors with variable-width digits: no 65,536 limit that other backends lack.

    It once failed with ``struct.error: 'H' format requires 0 <= number <= 65535`` from an executor, and
    then with a one-line error although one process and ``--workers`` checked the spec.
    """
    path = tmp_path / "wide.py"
    path.write_text(WIDE)
    local = run_cli("check", str(path), "--no-deadlock", "-q", "--json")
    assert local.returncode == 0, local.stderr[-3000:]
    p = run_cli("check", str(path), "--no-deadlock", "-q", "--json", "--engine", "spark", "--master", "local[1]")
    assert p.returncode == 0, p.stderr[-3000:]
    assert json_report(p, "engine", "spark") == json_report(local, "engine", "spark")
    assert json_report(p)["distinct_states"] == 70_001
