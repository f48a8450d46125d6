"""User builds refuse a module where a statement that can never run binds a name.

Python makes a name local to a function wherever the function assigns it,
even after a ``return``; Cython drops such a statement, and with it the
name's scope, so the compiled spec would read the module's name where the
spec's own code raises UnboundLocalError.  Such a module runs interpreted.
"""

from __future__ import annotations

import pytest

from modelcheck.build.user_specs import dead_binding
from conftest import ROOT


@pytest.mark.parametrize("body, line", [
    ("    if c:\n        return None\n        LIM = 2\n    return LIM\n", 4),
    ("    for x in c:\n        break\n        y = x\n    return 0\n", 4),
    ("    raise ValueError\n    def helper():\n        pass\n", 3),
    ("    return 1\n    import math\n", 3),
])
def test_a_dead_statement_that_binds_a_name_is_named(body, line):
    found = dead_binding("LIM = 1\n\ndef f(c):\n" + body)
    assert found is not None and found.startswith(f"line {line + 2}: a statement after")


@pytest.mark.parametrize("body", [
    "    return LIM\n",
    "    if c:\n        return None\n    LIM2 = 2\n    return LIM2\n",
    "    return 1\n    print('never')\n",
])
def test_code_without_a_dead_binding_is_built(body):
    assert dead_binding("LIM = 1\n\ndef f(c):\n" + body) is None


def test_no_spec_of_the_project_has_one():
    files = [*ROOT.glob("specs/*.py"), *ROOT.glob("invariants/*.py"), *ROOT.glob("bench/published/*.py"),
             *ROOT.glob("tests/models/*.py")]
    assert files and [f.name for f in files if dead_binding(f.read_text())] == []
