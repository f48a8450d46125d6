"""Checkpoint files: atomic replacement, a simulated full disk, and refusal of another run's checkpoint."""

from __future__ import annotations

import errno
import os
import pickle

import pytest

from modelcheck.search import checkpoint as cp
from modelcheck.errors import CheckpointError


def ident(**kw):
    base = dict(spec="kip320", constants=(("Replicas", 3),), options=(("symmetry", False),))
    base.update(kw)
    return cp.CheckpointIdentity(**base)


def test_round_trip(tmp_path):
    cp.write_checkpoint(str(tmp_path), ident(), {"level": 3, "frontier": [(1, 2)]})
    assert cp.read_checkpoint(str(tmp_path), ident()) == {"level": 3, "frontier": [(1, 2)]}


@pytest.mark.parametrize(
    "other,message",
    [
        (dict(spec="kip279"), "the checkpoint is for spec kip320, this run has kip279"),
        (dict(constants=(("Replicas", 2),)), "the checkpoint is for constants Replicas=3, this run has Replicas=2"),
        (dict(options=(("symmetry", True),)), "options"),
        (dict(modelcheck_version="0.0.1"), "modelcheck version"),
    ],
)
def test_a_checkpoint_of_another_run_is_refused(tmp_path, other, message):
    cp.write_checkpoint(str(tmp_path), ident(), {"level": 1})
    with pytest.raises(CheckpointError, match=message):
        cp.read_checkpoint(str(tmp_path), ident(**other))


def test_full_disk_keeps_the_previous_checkpoint_and_leaves_no_temp_file(tmp_path, monkeypatch):
    cp.write_checkpoint(str(tmp_path), ident(), {"level": 1})

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cp.pickle, "dump", no_space)
    with pytest.raises(CheckpointError, match="No space left on device.*previous checkpoint, if any, is intact"):
        cp.write_checkpoint(str(tmp_path), ident(), {"level": 2})
    monkeypatch.undo()
    assert os.listdir(tmp_path) == [cp.FILE_NAME]
    assert cp.read_checkpoint(str(tmp_path), ident()) == {"level": 1}


@pytest.mark.parametrize("content", [b"", b"not a pickle", pickle.dumps({"identity": 1})])
def test_corrupt_or_foreign_files_are_refused(tmp_path, content):
    (tmp_path / cp.FILE_NAME).write_bytes(content)
    with pytest.raises(CheckpointError):
        cp.read_checkpoint(str(tmp_path), ident())


def test_missing_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint in"):
        cp.read_checkpoint(str(tmp_path / "nope"), ident())


def test_a_half_written_file_of_a_killed_writer_is_removed_by_the_next_write(tmp_path):
    stale = tmp_path / ".checkpoint-abc123.tmp"
    stale.write_bytes(b"\x80\x05half a pickle")  # what a SIGKILL during a write leaves behind
    other = tmp_path / "notes.txt"
    other.write_text("not ours")
    cp.write_checkpoint(str(tmp_path), ident(), {"level": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == [cp.FILE_NAME, "notes.txt"]
    assert cp.read_checkpoint(str(tmp_path), ident()) == {"level": 1}
