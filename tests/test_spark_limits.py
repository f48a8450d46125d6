"""The Spark engine's limits are clear errors, not crashes deep inside an executor."""

from __future__ import annotations

import pytest

from conftest import run_cli

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


def test_more_than_65536_successors_is_a_clear_error(tmp_path):
    """Discovery keys number a state's successors in 16 bits; past that the run stops with one line.

    It used to fail with ``struct.error: 'H' format requires 0 <= number <= 65535`` from an executor.
    """
    path = tmp_path / "wide.py"
    path.write_text(WIDE)
    assert run_cli("check", str(path), "--no-deadlock", "-q").returncode == 0  # the local engine has no such limit
    p = run_cli("check", str(path), "--no-deadlock", "-q", "--engine", "spark", "--master", "local[1]")
    assert p.returncode == 2, p.stderr[-3000:]
    assert ("error: a state has more than 65,536 successors, more than the Spark engine's discovery keys "
            "can order; check this spec with the local engine") in p.stderr
    assert "struct.error" not in p.stderr
    # Exactly 65,536 successors still fit.
    path.write_text(WIDE.replace("70000", "65536"))
    p = run_cli("check", str(path), "--no-deadlock", "-q", "--json", "--engine", "spark", "--master", "local[1]")
    assert p.returncode == 0, p.stderr[-3000:]
    assert '"distinct_states": 65537' in p.stdout
