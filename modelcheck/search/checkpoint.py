"""Checkpoints of a running search, written atomically, and refused when they do not match.

A checkpoint is taken at a BFS level boundary: the visited fingerprints, the
parent arrays of every level, the frontier still to expand and the statistics
so far.  Resuming from it and finishing gives exactly the counts and the first
violation of an uninterrupted run, because a level boundary is a point the
uninterrupted run also passes through.

Writing is atomic: the data goes to a temporary file in the same directory,
is fsynced, and is renamed over ``checkpoint.pickle`` (then the directory is
fsynced).  A kill at any moment leaves either the previous checkpoint or the
new one, never a torn file.  A failed write (a full disk) removes the
temporary file and raises :class:`CheckpointError`; the previous checkpoint
stays intact.

The file is a pickle: load checkpoints only from directories you wrote.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from typing import Any

import attrs

from modelcheck import __version__
from modelcheck.errors import CheckpointError

FORMAT_VERSION = 1
FILE_NAME = "checkpoint.pickle"


@attrs.frozen
class CheckpointIdentity:
    """What a checkpoint belongs to; resuming with anything different is refused."""

    spec: str
    """The spec's name."""
    constants: tuple
    """The constants as sorted (name, value) pairs."""
    options: tuple
    """The options that change the search (invariants, symmetry, deadlock, bounds)."""
    modelcheck_version: str = __version__
    """The version that wrote it; state encodings may change between versions."""
    format_version: int = FORMAT_VERSION

    def mismatch(self, other: "CheckpointIdentity") -> str | None:
        """A one-line reason why ``other`` (the run being resumed) does not match, or None."""
        for field, what in (
            ("format_version", "checkpoint format"),
            ("modelcheck_version", "modelcheck version"),
            ("spec", "spec"),
            ("constants", "constants"),
            ("options", "options"),
        ):
            mine, theirs = getattr(self, field), getattr(other, field)
            if mine != theirs:
                return f"the checkpoint is for {what} {_show(mine)}, this run has {_show(theirs)}"
        return None


def _show(v: Any) -> str:
    if isinstance(v, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return ", ".join(f"{k}={val}" for k, val in v) or "(none)"
    return str(v)


PAYLOAD_FORMAT = 2
"""The layout of a level-boundary payload, shared by every engine (so any engine resumes any other's)."""

BOUNDARY_FIELDS = (
    "level", "frontier", "seen", "parent_fps", "parent_idx", "generated", "act_generated", "act_distinct",
    "sometimes_reached", "violations", "depth", "elapsed",
)
"""What a level boundary holds: the frontier of ``level`` (states in discovery order), every
fingerprint seen, per level the fingerprints and parent indices, the counters, and the time spent."""


def boundary_payload(**fields: Any) -> dict[str, Any]:
    """The payload of a checkpoint at a level boundary, in the one format every engine reads."""
    missing = [f for f in BOUNDARY_FIELDS if f not in fields]
    extra = [f for f in fields if f not in BOUNDARY_FIELDS]
    if missing or extra:
        raise TypeError(f"boundary_payload: missing {missing}, unexpected {extra}")
    return {"format": PAYLOAD_FORMAT, **fields}


def read_boundary(directory: str, expected: CheckpointIdentity) -> dict[str, Any]:
    """The level-boundary payload of the checkpoint in ``directory`` (see :func:`read_checkpoint`)."""
    snap = read_checkpoint(directory, expected)
    if not isinstance(snap, dict) or snap.get("format") != PAYLOAD_FORMAT:
        raise CheckpointError("the checkpoint was written by an older engine; start the run again")
    return snap


def checkpoint_path(directory: str) -> str:
    return os.path.join(directory, FILE_NAME)


def write_checkpoint(directory: str, identity: CheckpointIdentity, payload: dict[str, Any]) -> int:
    """Atomically replace the checkpoint in ``directory``; returns the bytes written."""
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise CheckpointError(f"cannot create checkpoint directory {directory}: {exc.strerror}") from None
    fd, tmp = tempfile.mkstemp(prefix=".checkpoint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump({"identity": identity, "payload": payload}, f, protocol=pickle.HIGHEST_PROTOCOL)
            f.flush()
            os.fsync(f.fileno())
            size = f.tell()
        os.replace(tmp, checkpoint_path(directory))
    except OSError as exc:
        _remove_quietly(tmp)
        raise CheckpointError(
            f"could not write a checkpoint to {directory}: {exc.strerror or exc}; "
            "the previous checkpoint, if any, is intact"
        ) from None
    except BaseException:
        _remove_quietly(tmp)
        raise
    _fsync_dir(directory)
    _remove_stale_temporaries(directory)
    return size


def _remove_stale_temporaries(directory: str) -> None:
    """Delete half-written checkpoints left by a process killed while writing (never the live file)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if name.startswith(".checkpoint-") and name.endswith(".tmp"):
            _remove_quietly(os.path.join(directory, name))


def read_checkpoint(directory: str, expected: CheckpointIdentity) -> dict[str, Any]:
    """The payload of the checkpoint in ``directory``, refusing one of another run."""
    path = checkpoint_path(directory)
    if not os.path.isfile(path):
        raise CheckpointError(f"no checkpoint in {directory} (expected {FILE_NAME})")
    try:
        with open(path, "rb") as f:
            data = pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {path} is unreadable: {type(exc).__name__}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("identity"), CheckpointIdentity):
        raise CheckpointError(f"{path} is not a modelcheck checkpoint")
    reason = data["identity"].mismatch(expected)
    if reason:
        raise CheckpointError(f"cannot resume from {directory}: {reason}")
    _remove_stale_temporaries(directory)  # a kill during the last write may have left one
    return data["payload"]


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
