"""Spec code cannot decide the exit status: ``check`` runs in a child whose parent only waits and reports.

Before the supervisor, ``os._exit(0)`` in a spec (at import, in an action, in
an invariant, in the walk ``--workers`` makes before the search) ended the
command with exit 0 and no result, which reads as "holds".  Now the child
reports the status it decided as its last act; a child that ends without that
report is exit 2 and one line saying how it ended, with the last statistics it
reported.  Signals reach the check once, whether sent to the command or to its
process group, and a terminal's Ctrl-C and Ctrl-Z behave as without it.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time

import psutil
import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow

SPEC = '''
import os
from typing import NamedTuple
import attrs
from modelcheck import Spec, action, constant, invariant

EXIT_AT = os.environ.get("EXIT_AT", "")
if EXIT_AT == "import":
    os._exit(0)


@attrs.frozen
class Config:
    N: int = constant(40, "each counter's bound", minimum=1, maximum=5000)


class State(NamedTuple):
    x: int
    y: int


@action("IncX")
def inc_x(c: Config, s: State) -> State | None:
    if s.x >= c.N:
        return None
    if EXIT_AT == "action" and s.x == 3:
        os._exit(0)
    return State(s.x + 1, s.y)


@action("IncY")
def inc_y(c: Config, s: State) -> State | None:
    return State(s.x, s.y + 1) if s.y < c.N else None


@invariant("Small", "x stays within its bound")
def small(c: Config, s: State) -> bool:
    if EXIT_AT == "invariant" and s.x == 3:
        os._exit(0)
    return s.x <= c.N


SPEC = Spec(name="counter", title="Counter", constants=Config, init=lambda c: [State(0, 0)], actions=[inc_x, inc_y],
            invariants=[small], deadlock_expected=True)
'''


@pytest.fixture
def counter(tmp_path):
    path = tmp_path / "counter.py"
    path.write_text(SPEC)
    return str(path)


def run(counter: str, exit_at: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "modelcheck", "check", counter, *args], cwd=ROOT,
                          env={**os.environ, "EXIT_AT": exit_at}, capture_output=True, text=True, timeout=120)


def test_the_counter_holds_when_nothing_ends_it(counter):
    r = run(counter, "")
    assert r.returncode == 0 and "No error has been found" in r.stdout, r.stderr


@pytest.mark.parametrize("where", ["import", "action", "invariant"])
@pytest.mark.parametrize("extra", [(), ("--no-memo",), ("--workers", "2")], ids=["default", "no-memo", "workers"])
def test_os_exit_0_in_spec_code_is_exit_2_and_one_line(counter, where, extra):
    r = run(counter, where, *extra)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "No error has been found" not in r.stdout and "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    if extra and extra[0] == "--workers" and where == "invariant":  # a worker process checks invariants
        assert "worker process 0" in errors[0] and "exited with status 0" in errors[0]
    else:
        assert "the check ended without a result: its process exited with status 0 before reporting one" \
            in errors[0]


def test_the_last_statistics_are_named(counter):
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", "check", counter, "--const", "N=1000",
                          "--progress", "0.1", "--no-memo"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    progress = ""
    while "Progress(" not in progress:
        progress = p.stderr.readline()
        assert p.poll() is None
    (check,) = psutil.Process(p.pid).children()
    check.kill()
    out, err = p.communicate(timeout=60)
    assert p.returncode == 2
    assert "the check ended without a result: its process was killed by SIGKILL" in err
    assert "its last statistics: level " in err and "distinct states found" in err


@pytest.mark.parametrize("every", [False, True], ids=["group", "every-process"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_process_group_reaches_the_check_once(counter, tmp_path, sig, every):
    """Sent to the group, the signal reaches the parent only, which passes it on: one interrupt, so the final
    checkpoint is written whole (a second one would abandon it).  Sent to every process (``pkill``), the check
    hears it twice at once, directly and from its parent: still one interrupt."""
    ckpt = tmp_path / "ckpt"
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", "check", counter, "--const", "N=1000",
                          "--progress", "0.1", "--no-memo", "--checkpoint", str(ckpt)], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    while "Progress(" not in p.stderr.readline():
        assert p.poll() is None
    if every:
        check = psutil.Process(p.pid).children()[0]
        os.kill(p.pid, sig)
        check.send_signal(sig)
    else:
        os.killpg(p.pid, sig)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "Traceback" not in err
    assert "Model checking interrupted; statistics so far:" in out
    assert f"Checkpoint written to {ckpt}" in err


def _read_until(fd: int, needle: bytes, seconds: float) -> bytes:
    seen = b""
    end = time.time() + seconds
    while needle not in seen and time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:  # the terminal's other side closed: the command ended
                break
    return seen


@pytest.mark.parametrize("stop_first", [False, True], ids=["ctrl-c", "ctrl-z-then-ctrl-c"])
def test_a_terminal_s_ctrl_c_and_ctrl_z_reach_the_check(counter, stop_first):
    """On a terminal the check's group is the foreground group: Ctrl-C interrupts it; Ctrl-Z stops it and the
    command (the shell sees its job stop), and a continue resumes both."""
    pid, fd = pty.fork()
    if pid == 0:  # the command on a terminal of its own, as a shell would start it
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "modelcheck", "check", counter, "--const", "N=1000",
                                  "--progress", "0.1", "--no-memo"])
    try:
        assert b"Progress(" in _read_until(fd, b"Progress(", 60)
        if stop_first:
            os.write(fd, b"\x1a")  # Ctrl-Z
            deadline = time.time() + 20
            while psutil.Process(pid).status() != psutil.STATUS_STOPPED:
                assert time.time() < deadline, "the command did not stop with its check"
                time.sleep(0.05)
            os.kill(pid, signal.SIGCONT)  # what the shell's fg sends
            assert b"Progress(" in _read_until(fd, b"Progress(", 30)
        os.write(fd, b"\x03")  # Ctrl-C
        text = _read_until(fd, b"Finished in", 60)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
        for proc in psutil.Process(pid).children() + [psutil.Process(pid)] if psutil.pid_exists(pid) else []:
            proc.kill()  # a failed run leaves neither the command nor its check behind
    assert os.waitstatus_to_exitcode(status) == 130
    assert b"Model checking interrupted; statistics so far:" in text and b"Traceback" not in text


def test_a_command_started_with_sigint_ignored_keeps_ignoring_it(counter):
    """A background job of a non-interactive shell starts with SIGINT ignored (POSIX); the parent does not take
    it upon itself to pass one on: the check runs to its end."""
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", "check", counter, "--const", "N=300",
                          "--progress", "0.1", "--no-memo"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    while "Progress(" not in p.stderr.readline():
        assert p.poll() is None
    os.kill(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0 and "No error has been found" in out, err
