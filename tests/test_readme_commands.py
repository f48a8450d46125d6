"""The README's shell examples and its spec-writing examples run as printed, from a fresh directory.

Every command line of the README's ``sh`` blocks is either run here, with
the exit status its result implies (the tables say which checks find a
violation), or listed in SKIPPED with the reason and the test that covers
it instead; a command added to the README without either fails
:func:`test_every_readme_command_is_run_or_accounted_for`.  Commands run in
a temporary directory holding a link to ``tests/``, so the paths the README
uses resolve and the files the commands write land there, not in the
repository.  The ``From Python`` and reference-table examples have tests of
their own (tests/test_readme_python.py, tests/test_reference_table.py,
tests/test_readme_seed_specs.py).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

README = ROOT / "README.md"

RUN = {
    # command as printed -> exit status (truncate-to-hw violates StrongIsr: 1; the graphs and renderings: 0)
    "modelcheck check truncate-to-hw": 1,
    "modelcheck check truncate-to-hw --out out/": 1,
    "modelcheck render out/trace.json --format html -o trace.html": 0,
    "modelcheck render out/trace.json --format png -o trace.png": 0,
    "modelcheck graph truncate-to-hw --around-violation 1 -o around.dot": 0,
    "modelcheck render out/trace.json --format seq-svg -o seq.svg": 0,
    "modelcheck graph tests/models/die_hard.py --format svg -o states.svg": 0,
    "modelcheck check kip320 --const Replicas=2 --engine spark": 0,
    "modelcheck check kip320 --const Replicas=2 --property DesignatedLeaderTakesOver": 0,
    "modelcheck check kip320 --const Replicas=2 --property EventuallySomeLeader": 1,
}
SLOW = {
    "modelcheck check kip320 --engine spark --master 'local[2]' -v": 0,  # 737,794 states on Spark
}
SKIPPED = {
    "bin/setup": "the tests run in the environment it made",
    "source .venv/bin/activate": "the tests run this environment's interpreter",
    'python -m pytest -q -m "not slow and not spark"; python -m pytest -q -m "slow or spark"':
        "the test suite itself, its two tiers (CI's .ci/run runs them)",
    "modelcheck render-known": "it rewrites the checked-in renderings; tests/test_known_traces.py checks they are current",
    "modelcheck check kip320 --const MaxLeaderEpoch=3 --checkpoint ck/ --checkpoint-every 300 --max-memory 4096":
        "ten million states (minutes); checkpoints and --max-memory: tests/test_checkpoint_resume.py",
    "modelcheck check kip320 --const MaxLeaderEpoch=3 --resume ck/":
        "resumes the ten-million-state run above; resuming: tests/test_checkpoint_resume.py",
    "modelcheck check kip320 --engine spark --master spark://127.0.0.1:7077 --partitions 2":
        "needs the standalone cluster started above; tests/test_spark_cluster.py starts one",
    "modelcheck explore truncate-to-hw --port 8000":
        "a server that runs until stopped; tests/test_explore.py serves the explorer and browses it",
}
CLUSTER = ("export ", "$SPARK_HOME/", "kill ", "ENTRY=", "spark-submit ")
"""The standalone cluster's and spark-submit's lines: tests/test_spark_cluster.py runs that cluster from Python."""


def readme_commands() -> list[str]:
    """Every command line of the README's sh blocks, without its trailing comment."""
    out = []
    for body in re.findall(r"^```sh\n(.*?)^```$", README.read_text(encoding="utf-8"), re.S | re.M):
        for line in body.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line:
                out.append(line)
    return out


def test_every_readme_command_is_run_or_accounted_for():
    unaccounted = [c for c in readme_commands()
                   if c not in RUN and c not in SLOW and c not in SKIPPED and not c.startswith(CLUSTER)]
    assert unaccounted == []
    assert set(RUN) | set(SLOW) <= set(readme_commands())  # no stale entries here either


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A directory where the README's relative paths resolve: ``tests/`` is a link to the repository's."""
    folder = tmp_path_factory.mktemp("readme")
    (folder / "tests").symlink_to(ROOT / "tests")
    return folder


def run(command: str, cwd) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    assert argv[0] == "modelcheck"
    return subprocess.run([sys.executable, "-m", "modelcheck", *argv[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=900)


def _params(table: dict, *marks) -> list:
    return [pytest.param(c, s, marks=[*marks, *([pytest.mark.spark] if "spark" in c else [])], id=c[11:])
            for c, s in table.items()]


@pytest.mark.slow
@pytest.mark.parametrize("command,status", _params(RUN) + _params(SLOW, pytest.mark.slow))
def test_readme_command_runs_as_printed(fresh, command, status):
    if "--format png" in command and shutil.which("dot") is None:
        pytest.skip("PNG needs Graphviz (bin/setup installs it where it can)")
    if command.startswith("modelcheck render out/"):
        run("modelcheck check truncate-to-hw --out out/", fresh)  # what the README runs just before
    p = run(command, fresh)
    assert p.returncode == status, (command, p.stdout[-2000:], p.stderr[-2000:])
    if "--out out/" in command:
        assert (fresh / "out" / "trace.json").is_file() and (fresh / "out" / "trace.html").is_file()
    for written in re.findall(r"-o (\S+)", command):
        assert (fresh / written).stat().st_size > 0


def _python_blocks(section: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index(section)
    end = text.index("\n## ", start + 1)
    return re.findall(r"^```python\n(.*?)^```$", text[start:end], re.S | re.M)


def test_the_readme_spec_example_checks(tmp_path):
    """The spec in "Writing a spec", saved as a file: FillBig only, so two states, (0, 0) and (0, 5).

    Generated: the initial state, (0, 5) from it, and (0, 5) again from itself (FillBig stays enabled).
    """
    (tmp_path / "jugs.py").write_text(_python_blocks("## Writing a spec")[0], encoding="utf-8")
    p = run("modelcheck check jugs.py -q", tmp_path)
    assert p.returncode == 0, p.stderr
    assert "3 states generated, 2 distinct states found" in p.stdout


@pytest.mark.slow
def test_the_readme_testing_example_passes(fresh):
    """The test file in "From Python", run by pytest from a directory where its spec paths resolve."""
    test_file = _python_blocks("## From Python")[1]
    assert test_file.startswith("# test_jugs.py\n")
    (fresh / "test_jugs.py").write_text(test_file, encoding="utf-8")
    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_jugs.py"], cwd=fresh,
                       capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stdout[-3000:]
    assert "2 passed" in p.stdout
