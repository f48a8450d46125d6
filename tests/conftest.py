"""Shared test helpers: paths, and running the CLI as a user does (a subprocess)."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modelcheck.build import compiled

# The suite runs the compiled modules where they are built, as the command line does: the finder
# goes in before any test module imports a spec or engine module (importing modelcheck installs nothing).
compiled.activate()
# A user's spec (tests/models/...) runs interpreted and starts no background build, as before user specs were
# compiled: the tests that compile them (tests/test_user_build.py) say so themselves.
os.environ.setdefault("MODELCHECK_USER_BUILD", "off")

REQUIRE_BUILD_ENV = "MODELCHECK_REQUIRE_BUILD"
"""Set (to 1) by CI: a missing or stale compiled build stops the run at once instead of skipping the tests that
need it (and running the rest interpreted, slower and beside the point)."""


def pytest_sessionstart(session) -> None:
    if os.environ.get(REQUIRE_BUILD_ENV) != "1":
        return
    stale = [name for name, current in compiled.status() if not current]
    if stale:
        pytest.exit(f"{REQUIRE_BUILD_ENV}=1: the compiled build is missing or stale for {len(stale)} modules "
                    f"({', '.join(stale[:3])}{', ...' if len(stale) > 3 else ''}); run `modelcheck compile` "
                    "(bin/setup does)", returncode=1)


INTERPRETED = bool(os.environ.get(compiled.DISABLE_ENV))
"""``MODELCHECK_INTERPRETED`` is set: every compiled module runs interpreted, so the memo tables stand aside (as
asked, without a note) and every check runs on the spec's own code (docs/testing.md)."""
needs_memo_tables = pytest.mark.skipif(INTERPRETED, reason=f"{compiled.DISABLE_ENV} is set: the memo tables stand aside")
"""For a test of the memo tables themselves (their results, defences, notes), which cannot run interpreted."""

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "models"


def check_process(pid: int, seconds: float = 30):
    """The process that runs the check of ``modelcheck check`` process ``pid``: the command forks it at once
    and only waits (modelcheck.supervisor), so its worker processes are the grandchildren of ``pid``."""
    import psutil

    command = psutil.Process(pid)
    deadline = time.time() + seconds
    while True:
        kids = command.children()
        if kids:
            return kids[0]
        if time.time() > deadline or not command.is_running():
            raise AssertionError(f"modelcheck check (pid {pid}) has no check process")
        time.sleep(0.005)


def run_cli(*args: str, timeout: float = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``modelcheck ARGS`` in a fresh interpreter, as a user would from a shell."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "modelcheck", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=full_env,
    )


@pytest.fixture
def cli():
    return run_cli


def check(spec, consts=None, options=None, *, workers: int = 1, progress=None, engine: str = "local",
          sc=None, ref: str | None = None, preflight: bool = False, verbose: bool = False, memo="auto"):
    """``modelcheck.check`` with a spec object, a constants object and :class:`CheckOptions`, as many tests build them.

    No preflight walk unless asked (these tests look at the search itself);
    ``engine="spark"`` runs on the SparkContext ``sc``, the spec shipped by ``ref``.
    ``memo="auto"``: with ``workers`` > 1 the worker processes on the spec's
    own code (``memo=False``: the tests that use this helper are about them;
    ``--workers`` as threads on the memo tables is tested in
    test_memo_threads.py), else the default (``None``).
    """
    import modelcheck
    from modelcheck.options import CheckOptions
    from modelcheck.spec.constants import constants_to_dict

    o = options or CheckOptions()
    kwargs = dict(
        invariants=o.invariants, deadlock=o.check_deadlock, max_depth=o.max_depth, max_states=o.max_states,
        continue_after_violation=o.continue_after_violation, symmetry=o.symmetry,
        progress_seconds=o.progress_seconds, checkpoint=o.checkpoint_dir, checkpoint_every=o.checkpoint_every,
        resume=o.resume, max_memory_mb=o.max_memory_mb, workers=workers, progress=progress or False,
        preflight=preflight, memo=(False if workers > 1 else None) if memo == "auto" else memo)
    if engine == "spark":
        kwargs.update(engine="spark", spark_context=sc, verbose=verbose)
    consts = constants_to_dict(consts) if consts is not None and not isinstance(consts, dict) else consts
    return modelcheck.check(ref or spec, consts, **kwargs)


def run_backend(model, backend, progress=None):
    """One exhaustive run of ``model`` on ``backend`` (tests that look inside a backend afterwards)."""
    from modelcheck.search.driver import LevelDriver

    return LevelDriver(model, backend, progress).run()


def flatten(expansion: list) -> tuple[list, list]:
    """A loop-form expansion, (action, binding, result) triples, as ``expand_into``'s two columns:
    action indices and successors, a list result counting once per element."""
    ais, ts = [], []
    for ai, _b, r in expansion:
        for t in (r if type(r) is list else [r]):
            ais.append(ai)
            ts.append(t)
    return ais, ts


def json_report(p: subprocess.CompletedProcess, *also_drop: str) -> dict:
    """The ``--json`` report of a run without its timing, which is all two identical runs may differ in.

    Nor ``memo``, the memo tables' report on themselves, nor ``successors``
    (which path computed them, and why), ``parallelism`` (threads or
    processes) and ``spec_code`` (compiled or interpreted): a run on the
    spec's own code and one on the tables find the same.  ``also_drop`` names further
    keys to ignore (``engine`` when comparing engines).  Nor the notes that
    the memo tables gave way to the spec's own code or were not used (Spark
    words them per worker), which depend on the path too.
    """
    assert p.stdout.strip(), p.stderr[-3000:]
    data = json.loads(p.stdout)
    for key in ("seconds", "states_per_second", "memo", "successors", "parallelism", "spec_code", *also_drop):
        data.pop(key, None)
    if isinstance(data.get("warnings"), list):
        data["warnings"] = [w for w in data["warnings"]
                            if not str(w).startswith(("the memo tables stopped", "the memo tables are not used"))]
    return data


def checkpoint_level(directory) -> int:
    """The level of the checkpoint in ``directory``, or -1 while there is none (or it is being written)."""
    from modelcheck.errors import CheckpointError
    from modelcheck.search.checkpoint import read_manifest

    try:
        return read_manifest(str(directory))["level"]
    except (CheckpointError, OSError):
        return -1


def checkpoint_manifest(directory) -> dict:
    """The manifest body of the checkpoint in ``directory`` (its own digest verified)."""
    from modelcheck.search.checkpoint import read_manifest

    return read_manifest(str(directory))


def checkpoint_leftovers(directory) -> list[str]:
    """What ``directory`` holds besides the checkpoint (manifest, lock, the data directory it names)."""
    from modelcheck.search.checkpoint import LOCK, MANIFEST

    keep = {MANIFEST, LOCK, checkpoint_manifest(directory)["data"]}
    return sorted(n for n in os.listdir(directory) if n not in keep)


def kill_once_checkpointed(p: subprocess.Popen, directory, level: int, *, kill=None, watch=None,
                           timeout: float = 180, detail=None) -> None:
    """SIGKILL the checkpointing run ``p`` as soon as a checkpoint of ``level`` is in ``directory``.

    ``kill`` replaces how (e.g. the whole process group), ``watch`` is called at
    every poll (e.g. to note the run's worker processes while they live), and
    ``detail`` gives what to show when the run ended before it could be killed.
    A run that is still alive when this returns or fails is killed.
    """
    kill = kill or (lambda: p.send_signal(signal.SIGKILL))
    try:
        deadline = time.time() + timeout
        while time.time() < deadline and p.poll() is None:
            if watch is not None:
                watch()
            if checkpoint_level(directory) >= level:
                kill()
                break
            time.sleep(0.005)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            kill()
            p.wait()
    assert p.returncode == -signal.SIGKILL, (
        f"the run ended ({p.returncode}) before a checkpoint of level {level} was seen"
        + (f": {detail()}" if detail is not None else ""))


@pytest.fixture(scope="session")
def sc():
    """One local SparkContext for every in-process Spark test (starting one costs 5-10 s; a process holds one)."""
    from modelcheck.spark_explore.session import spark_context

    context = spark_context("local[2]")
    yield context
    context.stop()
