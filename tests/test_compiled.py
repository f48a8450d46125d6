"""Compiled specs (modelcheck.build.compiled): the same results as the interpreted source, never a stale build."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, json_report, run_cli
from modelcheck.build import compiled


def _toolchain_missing() -> str | None:
    try:
        import Cython  # noqa: F401
    except ImportError:
        return "Cython is not installed in this environment"
    cc = (compiled.sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc}) on PATH"
    return None


def test_registered_specs_run_compiled_where_a_compiler_exists() -> None:
    """bin/setup builds them; with a toolchain present, every compilable module must have a current build."""
    missing = _toolchain_missing()
    if missing:
        pytest.skip(f"{missing}: specs run interpreted")
    modules = dict(compiled.status())
    assert modules and all(modules.values()), [n for n, ok in modules.items() if not ok]
    code = ("from modelcheck.build import compiled; compiled.activate(); "
            "import modelcheck.specs.kip320 as m, modelcheck.model.symmetry as s; print(m.__file__); print(s.__file__)")
    env = {k: v for k, v in os.environ.items() if k != compiled.DISABLE_ENV}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert [line.endswith(compiled.EXT_SUFFIX) for line in out.stdout.split()] == [True, True], out.stdout
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**env, compiled.DISABLE_ENV: "1"})
    assert [line.endswith(".py") for line in out.stdout.split()] == [True, True], out.stdout


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ("kip320", "--const", "Replicas=2"),
    ("kip320", "--const", "Replicas=2", "--symmetry"),
    ("kip101", "--const", "Replicas=2"),
])
def test_compiled_and_interpreted_specs_give_identical_results(args: tuple[str, ...]) -> None:
    """The interpreted source is the independent check of the compiled one: same counts, same traces."""
    compiled_run = run_cli("check", *args, "--json", env={compiled.DISABLE_ENV: ""})
    interpreted_run = run_cli("check", *args, "--json", env={compiled.DISABLE_ENV: "1"})
    assert compiled_run.returncode == interpreted_run.returncode
    a, b = json_report(compiled_run), json_report(interpreted_run)
    assert a == b
    if args == ("kip320", "--const", "Replicas=2"):  # the reference table: 5,973 states, depth 18
        assert (a["distinct_states"], a["depth"]) == (5973, 18)


def _fake_build(root: Path, fullname: str, digest: str) -> Path:
    so = Path(compiled.artefact_path(fullname, digest, str(root)))
    so.parent.mkdir(parents=True)
    so.write_bytes(b"not really an extension, built from " + compiled.digest_marker(digest))
    (root / "cython-version").write_text("9.9\n")
    (root / compiled.MANIFEST).write_text(fullname + "\n")
    return so


def test_the_finder_takes_a_build_only_for_the_current_source(tmp_path: Path) -> None:
    import modelcheck.specs as pkg

    name = "modelcheck.specs.kip320"
    source = importlib.machinery.PathFinder.find_spec(name, pkg.__path__).origin
    rewrite = compiled.rewrite_version()  # a spec module's build is also specific to the record rewrite
    digest = compiled.source_digest(Path(source).read_bytes(), "9.9", rewrite)
    so = _fake_build(tmp_path / "current", name, digest)
    spec = compiled.CompiledFinder(str(tmp_path / "current")).find_spec(name, pkg.__path__)
    assert spec is not None and spec.origin == str(so)
    # A build of an earlier source (another digest) is ignored: Python imports the .py.
    stale = compiled.source_digest(Path(source).read_bytes() + b"\n# edited\n", "9.9", rewrite)
    _fake_build(tmp_path / "stale", name, stale)
    assert compiled.CompiledFinder(str(tmp_path / "stale")).find_spec(name, pkg.__path__) is None
    # A build of that earlier source put at the current one's path (copied there, planted) is not run either:
    # its own bytes say what it was built from.
    so.write_bytes(b"not really an extension, built from " + compiled.digest_marker(stale))
    assert compiled.CompiledFinder(str(tmp_path / "current")).find_spec(name, pkg.__path__) is None
    so.write_bytes(b"not really an extension, built from " + compiled.digest_marker(digest))
    # So is one made by another version of the rewrite.
    _fake_build(tmp_path / "other-rewrite", name, compiled.source_digest(Path(source).read_bytes(), "9.9", "x"))
    assert compiled.CompiledFinder(str(tmp_path / "other-rewrite")).find_spec(name, pkg.__path__) is None
    # And one whose rewrite read a module (its records) that has changed since.
    (so.parent / compiled.DEPENDS).write_text("modelcheck.specs.kafka_replication " + "0" * 64 + "\n")
    assert compiled.CompiledFinder(str(tmp_path / "current")).find_spec(name, pkg.__path__) is None
    kr = Path(source).with_name("kafka_replication.py")
    (so.parent / compiled.DEPENDS).write_text(
        f"modelcheck.specs.kafka_replication {compiled.hashlib.sha256(kr.read_bytes()).hexdigest()}\n")
    assert compiled.CompiledFinder(str(tmp_path / "current")).find_spec(name, pkg.__path__).origin == str(so)
    # Nothing built at all, and modules outside the compiled set: no opinion either.
    assert compiled.CompiledFinder(str(tmp_path / "empty")).find_spec(name, pkg.__path__) is None
    assert compiled.CompiledFinder(str(tmp_path / "current")).find_spec("modelcheck.search.local", None) is None


def test_a_module_build_is_keyed_by_its_augmenting_pxd(tmp_path: Path) -> None:
    """modelcheck/model/expander.pxd holds C the compiled expander runs: a build of other .pxd text is not taken."""
    import modelcheck.model as pkg

    name = "modelcheck.model.expander"
    source = Path(pkg.__file__).with_name("expander.py")
    pxd = source.with_suffix(".pxd")
    assert pxd.exists()
    with_pxd = source.read_bytes() + b"\0augmenting pxd\0" + pxd.read_bytes()
    so = _fake_build(tmp_path / "current", name, compiled.source_digest(with_pxd, "9.9"))
    spec = compiled.CompiledFinder(str(tmp_path / "current")).find_spec(name, pkg.__path__)
    assert spec is not None and spec.origin == str(so)
    _fake_build(tmp_path / "py-only", name, compiled.source_digest(source.read_bytes(), "9.9"))
    assert compiled.CompiledFinder(str(tmp_path / "py-only")).find_spec(name, pkg.__path__) is None


def test_compile_without_cython_is_a_one_line_error(tmp_path: Path) -> None:
    fake = tmp_path / "hide" / "Cython"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('hidden for this test')\n")
    p = run_cli("compile", env={"PYTHONPATH": str(tmp_path / "hide"), compiled.BUILD_DIR_ENV: str(tmp_path / "b")})
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        "error: Cython is not installed: pip install 'modelcheck[compile]' (bin/setup does)"]
    assert "Traceback" not in p.stderr


def test_compile_status_lists_every_module() -> None:
    p = run_cli("compile", "--status")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("compiled specs: ")
    assert lines[-1].startswith("Spark JVM class archive: ")
    listed = [line.split(":")[0].strip() for line in lines[1:-1]]
    assert "modelcheck.specs.kip320" in listed and "modelcheck.invariants.kafka_isr" in listed
    assert "modelcheck.model.symmetry" in listed and "modelcheck.search.local" in listed
    assert len(listed) == len(list((ROOT / "specs").glob("[!_]*.py"))) + \
        len(list((ROOT / "invariants").glob("[!_]*.py"))) + len(compiled.engine_modules())


def test_engine_modules_are_found_by_their_marker_line() -> None:
    """A module opts in with the marker line; none is compiled by a list of names that can go stale."""
    found = dict(compiled.engine_modules())
    marked = []
    for path in sorted((ROOT / "modelcheck").rglob("*.py")) + sorted((ROOT / "spark_explore").glob("*.py")):
        if compiled.MARKER in path.read_text(encoding="utf-8").splitlines():
            marked.append(str(path))
    assert sorted(found.values()) == sorted(marked)
    assert "modelcheck.model.expander" in found and "modelcheck.spark_explore.executor" in found
    assert "modelcheck.cli" not in found  # unmarked: runs interpreted
    for name, path in found.items():  # names resolve to the files they were found in
        parent = importlib.import_module(name.rpartition(".")[0])
        assert importlib.machinery.PathFinder.find_spec(name, parent.__path__).origin == path


@pytest.mark.slow
def test_importing_modelcheck_installs_no_import_hook() -> None:
    """The compiled modules' finder goes in only when an entry point asks (command line, check(), Spark daemon).

    Nor does importing the package import a compiled module: one imported
    before the finder is in place would run interpreted for the whole process.
    """
    code = ("import sys, modelcheck, modelcheck.spec; "
            "print(any(type(f).__name__ == 'CompiledFinder' for f in sys.meta_path)); "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('modelcheck'))))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    hooked, imported = p.stdout.splitlines()
    assert hooked == "False"
    assert "modelcheck.api" in imported.split()
    assert not set(imported.split()) & {name for name, _ in compiled.engine_modules()}
    code = ("import modelcheck, modelcheck.model.expander as e; r = modelcheck.check('kip320', {'Replicas': 2}); "
            "print(r.distinct_states, e.__file__)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == "5973"  # the expander imported before check(): interpreted, same answer
@pytest.mark.slow
def test_the_check_header_says_how_the_spec_runs() -> None:
    """After an edit a spec runs interpreted until rebuilt; the header line makes that visible."""
    interpreted = run_cli("check", "kip320", "--const", "Replicas=2", env={compiled.DISABLE_ENV: "1"})
    assert interpreted.stdout.splitlines()[1] == "Invariants: StrongIsr; engine: local; spec interpreted"
    # A user's spec file is compiled in the background on first use unless that is off (as in these tests;
    # tests/test_user_build.py follows the build).
    by_path = run_cli("check", "tests/models/counter_grid.py", "--const", "Counters=2", "--const", "Max=2")
    assert by_path.stdout.splitlines()[1] == \
        "Invariants: BelowLimit; engine: local; spec interpreted (MODELCHECK_USER_BUILD=off)"
    no_builds = run_cli("check", "tests/models/counter_grid.py", "--const", "Counters=2", "--const", "Max=2",
                        env={compiled.DISABLE_ENV: "1"})
    assert no_builds.stdout.splitlines()[1] == \
        "Invariants: BelowLimit; engine: local; spec interpreted (MODELCHECK_INTERPRETED is set)"
    if _toolchain_missing() is None:
        default = run_cli("check", "kip320", "--const", "Replicas=2", env={compiled.DISABLE_ENV: ""})
        assert default.stdout.splitlines()[1] == "Invariants: StrongIsr; engine: local; spec compiled"


def test_compile_into_an_unusable_directory_is_a_one_line_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    p = run_cli("compile", env={compiled.BUILD_DIR_ENV: str(blocker / "build")})
    if _toolchain_missing():  # without Cython, that is the error reported first
        assert p.returncode == 2 and p.stderr.startswith("error: Cython is not installed")
        return
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [f"error: cannot build into {blocker / 'build'}: Not a directory"]
