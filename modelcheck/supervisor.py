"""The supervisor: ``modelcheck check`` runs in a child process whose parent only waits and reports.

A spec is the user's Python, and Python can end its process from anywhere:
``os._exit(0)`` at import, in an action or an invariant, a signal, the
out-of-memory killer.  In one process such an end decides the command's exit
status, and ``os._exit(0)`` would read as "every invariant holds".  So the
command forks before it loads anything: the child runs the check and, as its
last act, reports the status it decided through a pipe; the parent (this
module) waits.  A child that ends without that report ends the command with
exit status 2 and one line saying how it ended, with the last statistics the
child reported (its progress lines); an interrupt forwarded to a child that
then ends without a report keeps its interrupt status.

Signals.  The child runs in a process group of its own, so that a signal sent
to the command's group (what ``timeout``, a CI cancel or ``kill -- -PGID``
send) reaches it once, forwarded by the parent, never twice.  On a terminal
the child's group is made the foreground group while it runs: Ctrl-C, Ctrl-Z
and a debugger's reads reach the child as they would reach an unsupervised
command, and the parent follows a stop and a continue (job control) and takes
the terminal back at the end.  The child dies with the parent
(``PR_SET_PDEATHSIG``), so killing the command kills the check.

``MODELCHECK_NO_SUPERVISOR=1`` runs the check in the command's own process
(for a debugger attached by process id, say); nothing else changes but that
spec code can then decide the exit status.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from typing import Any

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
"""Signals the parent passes on to the child (the ones a user or a service manager sends to stop or poke it)."""

OPT_OUT = "MODELCHECK_NO_SUPERVISOR"


def die_with_parent(sig: int) -> None:
    """Ask Linux to send ``sig`` to this process when its parent dies (no-op elsewhere)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, sig, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Channel:
    """The child's end of the pipe: statistics as they come, and the exit status it decided, last."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def statistics(self, level: int, generated: int, distinct: int, queue: int) -> None:
        """The latest statistics, for the parent to name if the child then ends without a result."""
        self._send({"level": level, "generated": generated, "distinct": distinct, "queue": queue})

    def done(self, status: int) -> None:
        """The command's exit status, decided: the parent exits with it whatever happens to the child after."""
        self._send({"done": status})

    def leave(self, status: int) -> None:
        """End the child after :meth:`done`, without the interpreter's teardown, which frees a finished check's
        objects one by one (every module, the interned values, the tables' indexes): a noticeable part of a
        small model's run, and nothing a run keeps depends on it.

        What an exit does keep is done first: the atexit functions run (temporary directories, worker
        processes) and the standard streams are flushed.  Where that fails, or a thread that is not a daemon
        still runs (Python's own exit waits for it), this returns and Python exits as usual.  The child is a
        forked process whose parent only waits, the case ``os._exit`` is meant for.
        """
        import atexit

        if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
            return
        try:
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - Python's own exit reports what is left
            return
        os._exit(status)

    def _send(self, message: dict[str, int]) -> None:
        try:
            os.write(self._fd, json.dumps(message).encode() + b"\n")
        except OSError:  # the parent is gone (the child is about to be killed with it) or the pipe is full
            pass


CHANNEL_ENV = "MODELCHECK_SUPERVISOR_FD"
"""In the child, until the command line takes it: the file descriptor of its :class:`Channel`."""


def fork_if_supervised(argv: list[str]) -> None:
    """Called first thing when the package starts as the command line, before the rest is imported (so the
    waiting parent stays small): forks if this command is supervised.  The parent never returns; the child
    goes on, its channel's descriptor in :data:`CHANNEL_ENV` for :func:`channel` to take."""
    child = supervised(argv)
    if child is not None:
        os.environ[CHANNEL_ENV] = str(child._fd)


def channel() -> Channel | None:
    """The child's channel to its parent, taken once (not left in the environment of what the check starts)."""
    fd = os.environ.pop(CHANNEL_ENV, None)
    return Channel(int(fd)) if fd and fd.isdigit() else None


def supervised(argv: list[str]) -> Channel | None:
    """Fork if this command is supervised: returns the child's :class:`Channel` in the child; the parent
    never returns (it exits with the status the child decided).  None when not supervised."""
    if not _wanted(argv):
        return None
    read_fd, write_fd = os.pipe()
    terminal = _foreground_terminal()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        os.setpgid(0, 0)
        die_with_parent(signal.SIGKILL)
        if os.getppid() == 1:  # the parent died before the line above took effect
            os._exit(2)
        if terminal is not None:
            _give_terminal(terminal, os.getpgrp())
        return Channel(write_fd)
    os.close(write_fd)
    try:
        os.setpgid(pid, pid)  # also here: whichever of the two runs first, the group exists before a signal
    except OSError:
        pass  # the child has already set it (or already ended)
    sys.exit(_Parent(pid, read_fd, terminal).wait())


def _wanted(argv: list[str]) -> bool:
    """Supervise ``check`` (which runs spec code to its end), unless opted out or the platform cannot fork."""
    if os.environ.get(OPT_OUT, "") not in ("", "0") or not hasattr(os, "fork"):
        return False
    command = next((a for a in argv if not a.startswith("-")), None)
    return command == "check"


def _foreground_terminal() -> int | None:
    """The terminal's file descriptor if this process's group is its foreground group (else None: no job control)."""
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return fd
        except OSError:
            continue
    return None


def _give_terminal(fd: int, pgrp: int) -> None:
    """Make ``pgrp`` the terminal's foreground group; SIGTTOU is ignored meanwhile (a background caller gets it)."""
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(fd, pgrp)
    except OSError:
        pass
    finally:
        signal.signal(signal.SIGTTOU, previous)


class _Parent:
    """The waiting parent: forwards signals, follows stops, reads the child's reports, decides the exit status."""

    def __init__(self, pid: int, read_fd: int, terminal: int | None) -> None:
        self.pid = pid
        self.terminal = terminal
        self.forwarded: int | None = None
        self.reports: dict[str, Any] = {}
        # The reader thread blocks the signals this process handles (it inherits the mask while it starts), so
        # that they reach the main thread, interrupting its wait; one that went to the reader would leave the
        # main thread waiting with the signal unhandled until the child ended.
        handled = {*FORWARDED, signal.SIGCONT}
        signal.pthread_sigmask(signal.SIG_BLOCK, handled)
        try:
            self.reader = threading.Thread(target=self._read, args=(read_fd,), daemon=True)
            self.reader.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, handled)
        for sig in FORWARDED:
            if signal.getsignal(sig) != signal.SIG_IGN:  # ignored when started (a background job's SIGINT): kept so
                signal.signal(sig, self._forward)
        signal.signal(signal.SIGCONT, self._continued)

    def _forward(self, signum: int, frame: object) -> None:
        self.forwarded = signum
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def _continued(self, signum: int, frame: object) -> None:
        """Continued after a stop (``fg`` or ``bg``): the child's group goes on too, in the foreground if we are."""
        if self.terminal is not None and _foreground_terminal() is not None:
            _give_terminal(self.terminal, self.pid)
        try:
            os.killpg(self.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as pipe:
            for line in pipe:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict):
                    self.reports.update(message)

    def wait(self) -> int:
        while True:
            _, status = os.waitpid(self.pid, os.WUNTRACED)
            if os.WIFSTOPPED(status):  # Ctrl-Z stopped the child's group: stop too, so the shell sees the job stop
                if self.terminal is not None:
                    _give_terminal(self.terminal, os.getpgrp())
                os.kill(os.getpid(), signal.SIGSTOP)
                continue
            break
        if self.terminal is not None:
            _give_terminal(self.terminal, os.getpgrp())
        self.reader.join(timeout=1.0)  # descendants that inherited the pipe may hold it open: do not wait on them
        return self._status(status)

    def _status(self, status: int) -> int:
        if isinstance(self.reports.get("done"), int):
            return self.reports["done"]
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig in (signal.SIGINT, signal.SIGTERM) and self.forwarded == sig:
                _say("Interrupted.")
                return 128 + sig
            how = f"was killed by {_signal_name(sig)}"
            if sig == signal.SIGKILL:
                how += " (the kernel's out-of-memory killer, or another process)"
        else:
            code = os.WEXITSTATUS(status)
            if self.forwarded in (signal.SIGINT, signal.SIGTERM) and code == 128 + self.forwarded:
                return code  # interrupted before it could report: it has said so itself
            how = f"exited with status {code} before reporting one (spec code calling os._exit?)"
        _say(f"error: the check ended without a result: its process {how}; {self._last_statistics()}")
        return 2

    def _last_statistics(self) -> str:
        r = self.reports
        if "generated" not in r:
            return "no statistics were reported before (a progress line reports them)"
        return (f"its last statistics: level {r['level']}, {r['generated']:,} states generated, "
                f"{r['distinct']:,} distinct states found, {r['queue']:,} states left on queue")


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def _say(line: str) -> None:
    try:
        os.write(2, line.encode() + b"\n")
    except OSError:
        pass
