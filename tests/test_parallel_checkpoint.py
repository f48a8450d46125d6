"""``--workers N`` with ``--checkpoint``/``--resume``/``--max-memory``: the local engine's contract.

Kills (SIGKILL of the coordinator or of a worker), Ctrl-C, SIGTERM and the
memory budget each leave a checkpoint that resumes, with any worker count or
with the local engine, to exactly the uninterrupted result; no worker process
and no temporary directory outlives the run.  The interrupted runs are worker
processes on the spec's own code (``--no-memo``); the runs that resume them
take the memo tables, whose ``--workers`` are threads.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import psutil
import pytest

from conftest import ROOT, check_process, checkpoint_level, json_report as result_of, kill_once_checkpointed, run_cli
from modelcheck.spec.constants import make_constants
from conftest import check
from modelcheck.spec.loader import load_spec
from modelcheck.options import CheckOptions

HOLDS = ["check", "kip320", "--const", "MaxLeaderEpoch=1"]  # 39,619 states, 22 levels
LONGER = ["check", "kip320"]  # 737,794 states: seconds, so a signal after the first progress line lands mid-run
VIOLATED = ["check", "truncate-to-hw"]  # StrongIsr violated at level 9 (9-state trace)






def alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    """Processes still running (a zombie waiting for a reaper counts as ended)."""
    out = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def assert_no_orphans(workers: list[psutil.Process], tmpdir) -> None:
    deadline = time.time() + 10
    while alive(workers) and time.time() < deadline:
        time.sleep(0.05)
    assert not alive(workers), f"worker processes outlived the run: {alive(workers)}"
    left = {}
    for name in os.listdir(tmpdir):  # name what each leftover directory still holds
        path = os.path.join(tmpdir, name)
        left[name] = os.listdir(path) if os.path.isdir(path) else None
    assert not left, f"temporary files left behind: {left}"


def children(pid: int) -> list[psutil.Process]:
    """The worker processes of command ``pid`` (the children of the process running its check)."""
    try:
        return check_process(pid).children()
    except (psutil.NoSuchProcess, AssertionError):
        return []


@pytest.fixture
def tmpdir_env(tmp_path):
    """A private TMPDIR for the runs, so leftovers of ours are seen (and nobody else's)."""
    d = tmp_path / "tmp"
    d.mkdir()
    return d, {**os.environ, "TMPDIR": str(d)}


def start(args: list[str], env: dict, *extra: str, **kw) -> subprocess.Popen:
    """A run whose ``--workers`` are processes on the spec's own code (on the memo tables they are threads);
    the runs that resume it take the tables where they can."""
    return subprocess.Popen([sys.executable, "-m", "modelcheck", *args, *extra, "--no-memo"], cwd=ROOT, env=env,
                            **kw)


def kill_at_level(args: list[str], directory, level: int, env: dict, workers: int = 2) -> list[psutil.Process]:
    """SIGKILL a checkpointing run once a checkpoint of ``level`` is on disk; returns its worker processes."""
    p = start(args, env, "--workers", str(workers), "--checkpoint", str(directory), "--checkpoint-every", "0",
              "-q", "--json", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: dict[int, psutil.Process] = {}

    def note_workers() -> None:
        for c in children(p.pid):
            seen.setdefault(c.pid, c)

    kill_once_checkpointed(p, directory, level, watch=note_workers)
    assert workers == 1 or len(seen) == workers
    return list(seen.values())


# (arguments, [(level to kill at, worker count that resumes)]): resumes with 2 and 3 workers and locally.
CASES = [
    (HOLDS, [(1, 2), (8, 3), (15, 1)]),
    (VIOLATED, [(2, 2), (5, 1), (7, 3)]),
]


@pytest.mark.slow
@pytest.mark.parametrize("args,points", CASES, ids=["kip320-holds", "truncate-to-hw-violated"])
def test_sigkill_then_resume_gives_the_uninterrupted_result(tmp_path, tmpdir_env, args, points):
    tmpdir, env = tmpdir_env
    expected = result_of(run_cli(*args, "-q", "--json"))  # the local engine, uninterrupted
    for level, resume_workers in points:
        directory = tmp_path / f"ck{level}"
        workers = kill_at_level(args, directory, level, env)
        # The workers die with their coordinator, and take the candidate files with them.
        assert_no_orphans(workers, tmpdir)
        resumed = run_cli(*args, "-q", "--json", "--workers", str(resume_workers), "--resume", str(directory))
        assert result_of(resumed) == expected, f"killed at level {level}, resumed with {resume_workers} workers"
        assert resumed.returncode == (1 if expected["result"] == "violated" else 0)


@pytest.mark.slow
def test_a_local_checkpoint_resumes_with_workers(tmp_path, tmpdir_env):
    tmpdir, env = tmpdir_env
    expected = result_of(run_cli(*HOLDS, "-q", "--json"))
    kill_at_level(HOLDS, tmp_path, 6, env, workers=1)
    resumed = run_cli(*HOLDS, "-q", "--json", "--workers", "2", "--resume", str(tmp_path))
    assert result_of(resumed) == expected


@pytest.mark.slow
@pytest.mark.parametrize("sig,group", [(signal.SIGINT, True), (signal.SIGTERM, False), (signal.SIGTERM, True)],
                         ids=["SIGINT-to-the-group", "SIGTERM-to-the-coordinator", "SIGTERM-to-the-group"])
def test_signal_stops_with_a_checkpoint_that_resumes(tmp_path, tmpdir_env, sig, group):
    """Ctrl-C in a terminal signals the whole process group; ``kill PID`` only the coordinator."""
    tmpdir, env = tmpdir_env
    expected = result_of(run_cli(*LONGER, "-q", "--json"))
    directory = tmp_path / "ck"
    p = start(LONGER, env, "--workers", "2", "--checkpoint", str(directory), "--checkpoint-every", "3600",
              "--progress", "0.1", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
              start_new_session=True)
    try:
        while "Progress(" not in p.stderr.readline():
            assert p.poll() is None, "the run ended before its first progress line"
        workers = children(p.pid)
        assert len(workers) == 2
        if group:
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "Model checking interrupted; statistics so far:" in out
    assert re.search(rf"Checkpoint written to {re.escape(str(directory))} \(level \d+\); continue with --resume", err)
    assert "Traceback" not in err
    assert_no_orphans(workers, tmpdir)
    assert checkpoint_level(directory) >= 1
    resumed = run_cli(*LONGER, "-q", "--json", "--workers", "2", "--resume", str(directory))
    assert result_of(resumed) == expected


@pytest.mark.slow
def test_max_memory_stops_with_exit_3_and_a_checkpoint_that_resumes(tmp_path, tmpdir_env):
    tmpdir, env = tmpdir_env
    expected = result_of(run_cli(*VIOLATED, "-q", "--json"))
    p = start(VIOLATED, env, "--workers", "2", "--max-memory", "1", "--checkpoint", str(tmp_path), "-q",
              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 3, err
    assert "--max-memory budget was reached" in out
    assert f"continue with --resume {tmp_path}" in err
    assert checkpoint_level(tmp_path) == 0
    assert os.listdir(tmpdir) == []
    resumed = run_cli(*VIOLATED, "-q", "--json", "--workers", "2", "--resume", str(tmp_path))
    assert result_of(resumed) == expected and resumed.returncode == 1


@pytest.mark.slow
def test_resume_refuses_another_run_with_one_line(tmp_path):
    p = run_cli(*HOLDS, "--workers", "2", "--max-memory", "1", "--checkpoint", str(tmp_path), "-q")
    assert p.returncode == 3
    p = run_cli("check", "kip320", "--const", "MaxLeaderEpoch=2", "--workers", "2", "--resume", str(tmp_path))
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1].startswith("error: cannot resume from")
    assert "constants" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.slow
def test_a_killed_worker_is_one_clear_error_and_the_checkpoint_resumes(tmp_path, tmpdir_env):
    tmpdir, env = tmpdir_env
    expected = result_of(run_cli(*HOLDS, "-q", "--json"))
    p = start(HOLDS, env, "--workers", "2", "--checkpoint", str(tmp_path), "--checkpoint-every", "0", "-q",
              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while checkpoint_level(tmp_path) < 4 and time.time() < deadline:
            time.sleep(0.005)
        workers = children(p.pid)
        assert len(workers) == 2
        workers[1].send_signal(signal.SIGKILL)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 2, err
    assert "was killed by signal 9" in err and f"the last checkpoint in {tmp_path}" in err
    assert "Traceback" not in err
    assert_no_orphans(workers, tmpdir)
    resumed = run_cli(*HOLDS, "-q", "--json", "--workers", "3", "--resume", str(tmp_path))
    assert result_of(resumed) == expected


# -- in this process: a stop in the middle of a level, at a known point ------------------------

HOOKED_GRID = '''
"""The counter grid with a hook: expanding the first state whose counters sum to Trigger
(a state of BFS level Trigger) fires MC_TEST_HOOK once, then sleeps, so the level is under way."""
import os, signal, time
from typing import NamedTuple
import attrs
from modelcheck import Domain, Spec, action, constant


@attrs.frozen
class Grid:
    Counters: int = constant(3, "number of counters", minimum=1, maximum=10)
    Max: int = constant(9, "largest value of a counter", minimum=1, maximum=1000)
    Trigger: int = constant(10, "sum of the counters at which the hook fires", minimum=0, maximum=1000)


class S(NamedTuple):
    values: tuple


COUNTER = Domain("counter", lambda c: range(c.Counters), lambda i: f"x{i}")


def init(c):
    yield S((0,) * c.Counters)


def hook():
    marker = os.environ.get("MC_TEST_MARKER")
    if not marker:
        return
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return
    if os.environ["MC_TEST_HOOK"] == "sigint":
        os.kill(os.getppid(), signal.SIGINT)
    else:  # "memory": this worker grows by MC_TEST_HOG_MB
        globals()["HOG"] = b"x" * (int(os.environ["MC_TEST_HOG_MB"]) << 20)
    time.sleep(60)  # abandoned long before: a run that waited for it would take a minute


@action("Increment", i=COUNTER)
def increment(c, s, i):
    v = s.values
    if i == 0 and sum(v) == c.Trigger:
        hook()
    if v[i] >= c.Max:
        return None
    return S(v[:i] + (v[i] + 1,) + v[i + 1:])


@action("Reset", i=COUNTER)
def reset(c, s, i):
    v = s.values
    if v[i] == 0:
        return None
    return S(v[:i] + (0,) + v[i + 1:])


SPEC = Spec(name="hooked-grid", title="counter grid with a hook", constants=Grid, init=init,
            actions=[increment, reset], invariants=[], deadlock_expected=False)
'''


@pytest.fixture
def hooked(tmp_path, monkeypatch):
    path = tmp_path / "hooked_grid.py"
    path.write_text(HOOKED_GRID)
    spec = load_spec(str(path))
    c = make_constants(spec.constants_class, {"Counters": 3, "Max": 9, "Trigger": 10})
    monkeypatch.delenv("MC_TEST_MARKER", raising=False)
    expected = check(spec, c)  # the hook does nothing without a marker path
    monkeypatch.setenv("MC_TEST_MARKER", str(tmp_path / "fired"))
    return spec, c, expected, monkeypatch


def _same(a, b) -> None:
    key = lambda r: (r.result, r.distinct_states, r.states_generated, r.depth, r.action_stats,  # noqa: E731
                     r.violations, r.queue_left, r.stopped_by)
    assert key(a) == key(b)


@pytest.mark.slow
def test_sigint_in_the_middle_of_a_level_abandons_it_at_once(tmp_path, hooked):
    import multiprocessing

    spec, c, expected, monkeypatch = hooked
    monkeypatch.setenv("MC_TEST_HOOK", "sigint")
    directory = str(tmp_path / "ck")
    t0 = time.monotonic()
    r = check(spec, c, CheckOptions(checkpoint_dir=directory, checkpoint_every=3600), workers=2)
    took = time.monotonic() - t0
    assert r.result == "interrupted" and r.stopped_by == "interrupt"
    assert took < 30, f"the busy worker was waited for ({took:.1f}s) instead of abandoned"
    # Rolled back to the start of the level under way: level 10 (states whose counters sum to 10).
    assert checkpoint_level(directory) == 10
    assert r.distinct_states == sum(1 for a in range(10) for b in range(10) for s in range(10) if a + b + s <= 10)
    assert r.queue_left == sum(1 for a in range(10) for b in range(10) if 0 <= 10 - a - b <= 9)
    assert not multiprocessing.active_children()
    resumed = check(spec, c, CheckOptions(checkpoint_dir=directory, resume=directory), workers=3)
    _same(resumed, expected)
    resumed_locally = check(spec, c, CheckOptions(checkpoint_dir=directory, resume=directory))
    _same(resumed_locally, expected)


@pytest.mark.slow
def test_max_memory_counts_the_workers_and_stops_mid_level(tmp_path, hooked):
    from modelcheck.search.memory import processes_memory_bytes

    spec, c, expected, monkeypatch = hooked
    monkeypatch.setenv("MC_TEST_HOOK", "memory")
    monkeypatch.setenv("MC_TEST_HOG_MB", "300")
    # 200 MB in this process, shared by the forked workers: counted once (proportional set
    # size), this process and its two workers are well below the budget; counted once per
    # process (resident set size) they would be far above it.  One worker growing by 300 MB
    # is above it.
    ballast = b"x" * (200 << 20)
    budget_mb = processes_memory_bytes([os.getpid()]) // (1 << 20) + 150
    directory = str(tmp_path / "ck")
    t0 = time.monotonic()
    r = check(spec, c, CheckOptions(checkpoint_dir=directory, checkpoint_every=3600, max_memory_mb=budget_mb),
              workers=2)
    del ballast
    assert r.result == "interrupted" and r.stopped_by == "max-memory"
    assert time.monotonic() - t0 < 30  # not the worker's minute
    assert checkpoint_level(directory) == 10
    resumed = check(spec, c, CheckOptions(checkpoint_dir=directory, resume=directory, max_memory_mb=budget_mb),
                    workers=2)
    _same(resumed, expected)


# -- a worker whose coordinator's end closes -----------------------------------------------


def test_a_worker_cleans_up_when_its_coordinators_end_closes_without_stop(tmp_path):
    """A dying coordinator's pipe closes before Linux reparents its workers (and sends them
    PR_SET_PDEATHSIG): a worker that sees the end of file first must not wait for getppid()
    to change.  Here the "coordinator" (this process) stays alive and just closes its end."""
    import multiprocessing

    import numpy as np

    from modelcheck.model.bound import BoundModel
    from modelcheck.search.workers.worker import worker_main

    spec = load_spec("kip320")
    model = BoundModel(spec, make_constants(spec.constants_class, {"Replicas": 2}), CheckOptions())
    init = [(rank, model.fingerprint(s), s) for rank, s in enumerate(model.init_states())]
    init_fps = np.array([fp for _, fp, _ in init], dtype=np.int64)
    tmp = tmp_path / "workers"
    tmp.mkdir()
    (tmp / "L1-give-0-0.npy").write_bytes(b"candidates")  # as if the worker had written its level
    ctx = multiprocessing.get_context("fork")
    ours, theirs = ctx.Pipe()

    def worker() -> None:
        ours.close()  # the fork copied it: closed here, our close() below is the last one
        worker_main(theirs, model, 0, 1, str(tmp), init, init_fps, os.getppid(), 1000)

    p = ctx.Process(target=worker)
    p.start()
    theirs.close()
    ours.send(("rollback",))  # one command answered: the worker is in its loop
    assert ours.recv()[0] == "ok"
    ours.close()
    p.join(timeout=30)
    assert p.exitcode == 0
    assert not tmp.exists(), f"the worker left {os.listdir(tmp)}"


@pytest.mark.slow
def test_a_workers_level_leaves_no_reference_cycle(tmp_path):
    """Workers run with the cyclic GC off, so a level's garbage must go by reference counts alone.

    Compiled, a closure calling another closure put both in one scope object that referred to
    itself, and every level's candidate states stayed reachable from it: 5.7 GiB of workers for
    MaxLeaderEpoch=3 instead of 1.7.  (Interpreted, cells made no such cycle.)
    """
    import gc

    import numpy as np

    from modelcheck.model.bound import BoundModel
    from modelcheck.search.workers.worker import Worker

    spec = load_spec("kip320")
    model = BoundModel(spec, make_constants(spec.constants_class, {"Replicas": 2}), CheckOptions())
    init = [(rank, model.fingerprint(s), s) for rank, s in enumerate(model.init_states())]
    worker = Worker(model, 0, 1, str(tmp_path), init, np.array([fp for _, fp, _ in init], dtype=np.int64), 1000)
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            worker.expand(1)
            assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
