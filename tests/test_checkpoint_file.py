"""Checkpoint files: atomic replacement, damage and foreign runs refused with one line, no code run from data."""

from __future__ import annotations

import errno
import os
import pickle
from typing import NamedTuple

import numpy as np
import pytest

from modelcheck.errors import CheckpointError
from modelcheck.search import checkpoint as cp
from modelcheck.search.safe_pickle import load_states
from modelcheck.specs.kafka_replication import QuorumState

MODULES = ["modelcheck.specs.kafka_replication"]


def ident(**kw):
    base = dict(spec="kip320", sources="abc", constants=(("Replicas", 3),), options=(("symmetry", False),))
    base.update(kw)
    return cp.CheckpointIdentity(**base)


def boundary(level_sizes=(1, 2), frontier=None) -> tuple[cp.Boundary, list]:
    fps = np.arange(10, 10 + sum(level_sizes), dtype=np.int64)
    states = frontier if frontier is not None else [QuorumState(1, i, frozenset({i})) for i in range(level_sizes[-1])]
    b = cp.Boundary(level=len(level_sizes) - 1, level_sizes=list(level_sizes), parent_fps=fps,
                    parent_idx=np.zeros(len(fps), dtype=np.int32), visited=np.sort(fps), generated=7,
                    act_generated=[4, 3], act_distinct=[1, 1], sometimes_reached={"P": True},
                    violations=[cp.ViolationPoint("invariant", "I", "d", 1, 11)], depth=2, elapsed=1.5)
    return b, states


def write(directory, b_states=None, identity=None):
    b, states = b_states or boundary()

    def write_data(data):
        return b, [cp.write_frontier_part(data, 0, states, np.arange(len(states)))]

    return cp.write_checkpoint(str(directory), identity or ident(), write_data)


def read(directory, identity=None):
    return cp.read_checkpoint(str(directory), identity or ident(), lambda f, n: load_states(f, MODULES, n))


def test_round_trip(tmp_path):
    b, states = boundary()
    write(tmp_path, (b, states))
    back = read(tmp_path)
    assert back.frontier == states and back.level == 1 and back.level_sizes == [1, 2]
    assert back.violations == b.violations and back.sometimes_reached == {"P": True} and back.generated == 7
    assert np.array_equal(back.parent_fps, b.parent_fps) and np.array_equal(back.visited, b.visited)


@pytest.mark.parametrize(
    "other,message",
    [
        (dict(spec="kip279"), "the checkpoint is for spec kip320, this run has kip279"),
        (dict(sources="def"), "spec kip320 has changed since the checkpoint was written"),
        (dict(constants=(("Replicas", 2),)), "the checkpoint is for constants Replicas=3, this run has Replicas=2"),
        (dict(options=(("symmetry", True),)), "options"),
        (dict(modelcheck_version="0.0.1"), "modelcheck version"),
    ],
)
def test_a_checkpoint_of_another_run_is_refused(tmp_path, other, message):
    write(tmp_path)
    with pytest.raises(CheckpointError, match=message):
        read(tmp_path, ident(**other))


def test_full_disk_keeps_the_previous_checkpoint_and_leaves_nothing_behind(tmp_path, monkeypatch):
    write(tmp_path)
    before = sorted(os.listdir(tmp_path))

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cp.np, "save", no_space)
    with pytest.raises(CheckpointError, match="No space left on device.*previous checkpoint, if any, is intact"):
        write(tmp_path, boundary((1, 3)))
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == before
    assert read(tmp_path).level_sizes == [1, 2]


def test_every_damaged_byte_of_the_manifest_is_refused(tmp_path):
    write(tmp_path)
    path = tmp_path / cp.MANIFEST
    original = path.read_bytes()
    for i in range(0, len(original), max(1, len(original) // 150)):
        damaged = bytearray(original)
        damaged[i] ^= 0x04
        path.write_bytes(bytes(damaged))
        if bytes(damaged).decode("utf-8", "replace").split() == original.decode().split():
            continue  # a flip inside whitespace that leaves the same JSON
        with pytest.raises(CheckpointError):
            read(tmp_path)


def test_a_damaged_or_truncated_data_file_is_refused(tmp_path):
    write(tmp_path)
    data = tmp_path / cp.read_manifest(str(tmp_path))["data"]
    for name in sorted(os.listdir(data)):
        original = (data / name).read_bytes()
        (data / name).write_bytes(original[:-1])
        with pytest.raises(CheckpointError, match=f"{name} does not match its digest"):
            read(tmp_path)
        flipped = bytearray(original)
        flipped[len(flipped) // 2] ^= 1
        (data / name).write_bytes(bytes(flipped))
        with pytest.raises(CheckpointError, match=f"{name} does not match its digest"):
            read(tmp_path)
        (data / name).write_bytes(original)
    assert read(tmp_path).level == 1


class _RunsCode:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def test_a_crafted_pickle_runs_no_code(tmp_path, monkeypatch):
    """A frontier file whose pickle calls os.system: refused before anything runs, whatever the digests say."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ck").mkdir()
    b, _ = boundary()
    write(tmp_path / "ck", (b, [_RunsCode(), QuorumState(1, 1, frozenset())]))
    with pytest.raises(CheckpointError, match="refused to load posix.system"):
        read(tmp_path / "ck")
    assert not (tmp_path / "pwned").exists()


class Other(NamedTuple):
    x: int


def test_states_of_a_class_outside_the_spec_are_refused():
    data = pickle.dumps([Other(1)])
    with pytest.raises(CheckpointError, match="not a state class of this spec"):
        from modelcheck.search.safe_pickle import loads_states

        loads_states(data, MODULES, 1)


def test_an_old_single_pickle_checkpoint_is_refused_unread(tmp_path):
    (tmp_path / cp.OLD_FILE).write_bytes(pickle.dumps(_RunsCode()))
    with pytest.raises(CheckpointError, match="written by an older modelcheck"):
        read(tmp_path)


def test_missing_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint in"):
        read(tmp_path / "nope")


def test_what_a_killed_writer_left_is_removed_by_the_next_write(tmp_path):
    write(tmp_path)
    (tmp_path / ".checkpoint-abc123.tmp").write_text("{half a manifest")  # a SIGKILL during a write
    (tmp_path / "data-killed").mkdir()
    (tmp_path / "data-killed" / "visited.npy").write_bytes(b"half")
    (tmp_path / "notes.txt").write_text("not ours")
    write(tmp_path, boundary((1, 3)))
    names = sorted(os.listdir(tmp_path))
    assert names == sorted([cp.MANIFEST, "notes.txt", cp.read_manifest(str(tmp_path))["data"]])
    assert read(tmp_path).level_sizes == [1, 3]


def test_one_run_at_a_time_holds_a_checkpoint_directory(tmp_path):
    first = cp.CheckpointLock(str(tmp_path))
    first.acquire()
    try:
        with pytest.raises(CheckpointError, match=f"is in use by another run \\(pid {os.getpid()}\\)"):
            cp.CheckpointLock(str(tmp_path)).acquire()
    finally:
        first.release()
    again = cp.CheckpointLock(str(tmp_path))
    again.acquire()  # released: free again
    again.release()


def test_an_unusable_checkpoint_directory_is_refused_before_the_search(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(CheckpointError, match="cannot use checkpoint directory"):
        cp.CheckpointLock(str(blocker / "ck")).acquire()
    with pytest.raises(CheckpointError, match="cannot use checkpoint directory"):
        cp.CheckpointLock("/proc/1/x").acquire()
