"""A user's spec (a file or a module) is compiled like the registered ones: on first use, cached by digest.

Each test that looks at the build cycle uses its own build directory
(``MODELCHECK_BUILD_DIR``), so it starts from nothing; the engine's own
modules then run interpreted in those runs, which changes nothing they
report.  The results of a compiled spec are compared with the same spec
interpreted (``MODELCHECK_USER_BUILD=off``), field by field.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import MODELS, ROOT, json_report, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler: user specs stay interpreted")]

ON = {"MODELCHECK_USER_BUILD": ""}
OFF = {"MODELCHECK_USER_BUILD": "off"}


def header(p: subprocess.CompletedProcess) -> str:
    """The check's second header line (invariants, engine, how the spec runs), from stdout or (--json) stderr."""
    for line in (p.stdout + p.stderr).splitlines():
        if line.startswith("Invariants: "):
            return line
    raise AssertionError(p.stdout + p.stderr)


def copy_spec(src: Path, dst: Path, token: str) -> Path:
    """``src`` under a new name with a line of its own, so that its digest (and module name) are this test's."""
    dst.write_text(src.read_text(encoding="utf-8") + f"\n# {token}\n", encoding="utf-8")
    return dst


def held_locks(build_dir: Path) -> list[Path]:
    """The build locks under ``build_dir``/user that a build process holds (a lock file outlives its build)."""
    import fcntl

    held = []
    for path in (build_dir / "user").rglob("*.lock"):
        with open(path, "rb") as f:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                held.append(path)
    return held


def wait_for_build(build_dir: Path, timeout: float = 600) -> str:
    """Wait until no build holds its lock under ``build_dir``/user; the builds' logs."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not held_locks(build_dir):
            return "".join(p.read_text() for p in (build_dir / "user").rglob("*.log"))
        time.sleep(0.5)
    raise AssertionError("the background build did not finish")


def test_a_user_spec_file_runs_compiled_from_its_second_run(tmp_path):
    spec = copy_spec(MODELS / "die_hard.py", tmp_path / "jugs_cycle.py", "first")
    env = {**ON, "MODELCHECK_BUILD_DIR": str(tmp_path / "build")}
    first = run_cli("check", str(spec), "--json", "-q", env=env)
    assert first.returncode == 1, first.stderr
    assert header(first).endswith("; spec interpreted (compiling it in the background for the next run)")
    log = wait_for_build(tmp_path / "build")
    assert "built " in log, log
    second = run_cli("check", str(spec), "--json", "-q", env=env)
    assert header(second).endswith("; spec compiled")
    assert json_report(second) == json_report(first)
    # An edit: interpreted again, with a note, until the new build is done.
    spec.write_text(spec.read_text() + "# edited\n")
    third = run_cli("check", str(spec), "--json", "-q", env=env)
    assert header(third).endswith(
        "; spec interpreted (edited since its last build; compiling it in the background for the next run)")
    assert json_report(third) == json_report(first)
    wait_for_build(tmp_path / "build")
    assert header(run_cli("check", str(spec), "-q", env=env)).endswith("; spec compiled")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Copies of the example specs, compiled into a build directory of their own."""
    folder = tmp_path_factory.mktemp("specs")
    build = tmp_path_factory.mktemp("build")
    specs = {name: copy_spec(MODELS / name, folder / name, "compiled-vs-interpreted")
             for name in ("die_hard.py", "tcommit.py", "counter_grid.py")}
    env = {**ON, "MODELCHECK_BUILD_DIR": str(build)}
    p = run_cli("compile", *map(str, specs.values()), env=env)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == len(specs)
    assert all(line.startswith(f"{path}: compiled (built in ") for path, line in zip(specs.values(), lines)), lines
    again = run_cli("compile", *map(str, specs.values()), env=env)
    assert again.stdout.splitlines() == [f"{path}: compiled (already current)" for path in specs.values()]
    return specs, env


@pytest.mark.parametrize("name,args", [
    ("die_hard.py", ()),
    ("die_hard.py", ("--continue",)),
    ("tcommit.py", ("--symmetry",)),
    ("tcommit.py", ("--deadlock",)),
    ("counter_grid.py", ("--const", "Counters=3", "--const", "Max=5", "--const", "Limit=9")),
    ("counter_grid.py", ("--const", "Counters=3", "--const", "Max=5", "--workers", "2")),
])
def test_a_compiled_user_spec_reports_what_it_reports_interpreted(built, name, args):
    specs, env = built
    compiled = run_cli("check", str(specs[name]), *args, "--json", "-q", env=env)
    interpreted = run_cli("check", str(specs[name]), *args, "--json", "-q", env={**env, **OFF})
    assert header(compiled).endswith("; spec compiled")
    assert header(interpreted).endswith("; spec interpreted (MODELCHECK_USER_BUILD=off)")
    assert compiled.returncode == interpreted.returncode
    assert json_report(compiled) == json_report(interpreted)


def test_a_module_spec_is_compiled_too(tmp_path):
    pkg = tmp_path / "userpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    copy_spec(MODELS / "tcommit.py", pkg / "commit_spec.py", "a module")
    env = {**ON, "MODELCHECK_BUILD_DIR": str(tmp_path / "build"), "PYTHONPATH": str(tmp_path)}
    p = run_cli("compile", "userpkg.commit_spec", env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("userpkg.commit_spec: compiled (built in ")
    compiled = run_cli("check", "userpkg.commit_spec:SPEC", "--json", "-q", env=env)
    interpreted = run_cli("check", "userpkg.commit_spec:SPEC", "--json", "-q", env={**env, **OFF})
    assert header(compiled).endswith("; spec compiled")
    assert json_report(compiled) == json_report(interpreted)
    assert json_report(compiled)["distinct_states"] == 3 ** 3 + 2 ** 3 - 1  # TCommit: 3**n + 2**n - 1 states


def test_without_a_c_compiler_the_spec_runs_interpreted_with_a_note(tmp_path):
    spec = copy_spec(MODELS / "die_hard.py", tmp_path / "jugs_no_cc.py", "no compiler")
    env = {**ON, "MODELCHECK_BUILD_DIR": str(tmp_path / "build"), "CC": "/nonexistent/cc"}
    p = run_cli("check", str(spec), "--json", "-q", env=env)
    assert p.returncode == 1
    assert header(p).endswith("; spec interpreted (no C compiler (/nonexistent/cc not found): specs run interpreted)")
    assert json_report(p)["violation"]["length"] == 7
    assert not (tmp_path / "build" / "user").exists()  # nothing started, nothing recorded
    c = run_cli("compile", str(spec), env=env)
    assert c.returncode == 2
    assert c.stderr.strip() == "error: no C compiler (/nonexistent/cc not found): specs run interpreted"


def test_a_build_that_fails_is_reported_and_not_started_again(tmp_path):
    spec = copy_spec(MODELS / "die_hard.py", tmp_path / "jugs_failing_cc.py", "failing compiler")
    env = {**ON, "MODELCHECK_BUILD_DIR": str(tmp_path / "build"), "CC": shutil.which("false")}
    first = run_cli("check", str(spec), "-q", env=env)
    assert header(first).endswith("; spec interpreted (compiling it in the background for the next run)")
    assert "build failed: cannot compile modelcheck_user_jugs_failing_cc" in wait_for_build(tmp_path / "build")
    second = run_cli("check", str(spec), "-q", env=env)
    assert header(second).endswith("; spec interpreted (its build failed: cannot compile "
                                   "modelcheck_user_jugs_failing_cc: no output)")
    assert not held_locks(tmp_path / "build")  # and no build was started again
    assert second.returncode == first.returncode == 1


def test_two_runs_building_at_once_leave_one_working_build(tmp_path):
    spec = copy_spec(MODELS / "tcommit.py", tmp_path / "commit_race.py", "race")
    env = dict(os.environ, **ON, MODELCHECK_BUILD_DIR=str(tmp_path / "build"))
    procs = [subprocess.Popen([sys.executable, "-m", "modelcheck", "compile", str(spec)], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    builds = list((tmp_path / "build" / "user").rglob("*.so"))
    assert len(builds) == 1 and not list((tmp_path / "build" / "user").rglob("*.tmp"))
    p = run_cli("check", str(spec), "--json", "-q", env={**ON, "MODELCHECK_BUILD_DIR": str(tmp_path / "build")})
    assert header(p).endswith("; spec compiled")
    assert json_report(p)["distinct_states"] == 34


def test_compiled_user_spec_errors_point_at_the_source(tmp_path):
    """A compiled spec's frames name its source relative to where it was built: errors still name the file."""
    spec = tmp_path / "raising.py"
    shutil.copy(MODELS / "broken" / "raises_in_action.py", spec)
    env = {**ON, "MODELCHECK_BUILD_DIR": str(tmp_path / "build")}
    assert run_cli("compile", str(spec), env=env).returncode == 0
    p = run_cli("check", str(spec), "-q", env=env)
    assert p.returncode == 2
    assert header(p).endswith("; spec compiled")
    line = next(n for n, text in enumerate(spec.read_text().splitlines(), 1) if 'return {}["missing"]' in text)
    assert p.stderr.splitlines()[0] == f"error: spec raises: action Step raised KeyError: 'missing' (at {spec}:{line})"


@pytest.mark.spark
def test_a_compiled_user_spec_on_spark_reports_what_the_local_engine_does(tmp_path):
    spec = copy_spec(MODELS / "die_hard.py", tmp_path / "jugs_spark.py", "spark")
    env = {**ON, "MODELCHECK_BUILD_DIR": str(tmp_path / "build")}
    assert run_cli("compile", str(spec), env=env).returncode == 0
    spark = run_cli("check", str(spec), "--json", "-q", "--engine", "spark", "--master", "local[1]", env=env)
    local = run_cli("check", str(spec), "--json", "-q", env={**env, **OFF})
    assert header(spark).endswith("; spec compiled")
    assert spark.returncode == local.returncode == 1, spark.stderr[-2000:]
    # The local run notes that this fresh build directory has no memo C loop; Spark never uses one.
    assert json_report(spark, "engine", "spark", "warnings") == json_report(local, "engine", "spark", "warnings")


def test_a_compiled_user_spec_reads_its_own_file_name(tmp_path):
    """A spec that finds a sibling module through ``__file__`` (tests/models/counter_fair.py) works compiled too.

    A compiled module's ``__file__`` would name the build; it names the source, as the spec's code expects,
    and the header still says compiled.  ReachesTop is violated by 0 -> 1 -> 0 (tests/test_liveness.py).
    """
    shutil.copy(MODELS / "fair_toys.py", tmp_path / "fair_toys.py")
    spec = copy_spec(MODELS / "counter_fair.py", tmp_path / "counter_fair_file.py", "file-name test")
    env = {**ON, "MODELCHECK_BUILD_DIR": str(tmp_path / "build")}
    assert run_cli("compile", str(spec), env=env).returncode == 0
    p = run_cli("check", str(spec), "--property", "ReachesTop", "-q", env=env)
    assert p.returncode == 1, p.stderr
    assert header(p).endswith("; spec compiled")
    assert "Back to state 1 <Reset>" in p.stdout


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """Two versions of one spec file, each built: version A's build, and where version B's build lies.

    A is die_hard.py, whose NotSolved is violated (the big jug can hold 4
    gallons); B asks for 6 gallons, which the 5-gallon jug never holds, so a
    run's verdict says whose code ran: exit 1 is A's, exit 0 is B's.  Each
    test copies A's build over B's, as a planted (or misfiled) build would be.
    """
    folder = tmp_path_factory.mktemp("planted")
    spec = copy_spec(MODELS / "die_hard.py", folder / "jugs_planted.py", "planted build")
    env = {**ON, "MODELCHECK_BUILD_DIR": str(folder / "build")}
    assert run_cli("compile", str(spec), env=env).returncode == 0
    (a_build,) = (folder / "build" / "user").rglob("*.so")
    shutil.copy(a_build, folder / "version_a.so")
    spec.write_text(spec.read_text().replace("Goal: int = constant(4, ", "Goal: int = constant(6, "))
    assert run_cli("compile", str(spec), env=env).returncode == 0
    (b_build,) = set((folder / "build" / "user").rglob("*.so")) - {a_build}
    return spec, env, folder / "version_a.so", b_build


def test_a_build_of_another_version_put_in_place_of_the_current_one_is_not_run(planted):
    spec, env, version_a, b_build = planted
    shutil.copy(version_a, b_build)
    p = run_cli("check", str(spec), "-q", env=env)
    assert p.returncode == 0, p.stdout + p.stderr  # B's verdict: A's build would report NotSolved violated
    assert f"Warning: the build at {b_build} was not built from the current source and was ignored" \
        in p.stderr.splitlines()
    assert "; spec interpreted (" in header(p)
    assert "built " in wait_for_build(spec.parent / "build")  # B is built again, over the planted file
    again = run_cli("check", str(spec), "-q", env=env)
    assert again.returncode == 0 and "not built from the current source" not in again.stderr, again.stderr
    assert header(again).endswith("; spec compiled")


def test_compile_does_not_call_a_build_of_another_version_current(planted):
    spec, env, version_a, b_build = planted
    shutil.copy(version_a, b_build)
    p = run_cli("compile", str(spec), env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"{spec}: compiled (built in "), p.stdout
    assert p.stderr.splitlines() == [
        f"Warning: the build at {b_build} was not built from the current source and was ignored"]
    assert run_cli("compile", str(spec), env=env).stdout == f"{spec}: compiled (already current)\n"
    p = run_cli("check", str(spec), "-q", env=env)
    assert p.returncode == 0 and header(p).endswith("; spec compiled"), p.stdout + p.stderr
