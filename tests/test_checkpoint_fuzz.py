"""Damaged checkpoints: every flipped bit or truncation gives the exact result or a one-line refusal, never a lie.

A checkpoint of Kip320 with two replicas is taken in the middle of the run,
in both layouts: ``levels`` by the local engine, ``shards`` by Spark (each
executor writes its shard's records and frontier); then one random bit of one random file (the manifest or a data file) is
flipped, or one file is cut short, and the run is resumed.  The only
acceptable outcomes are a :class:`CheckpointError` with a one-line message,
or TLC's counts for the whole run (5,973 distinct states, 11,839 generated,
depth 18): the damage did not touch anything read.  A few cases go through
the command line to see exit status 2 and no traceback.  CI runs a sample;
the slow run tries 240 cases.
"""

from __future__ import annotations

import os
import random
import shutil
import stat

import pytest

import modelcheck
from conftest import run_cli
from modelcheck.errors import CheckpointError

pytestmark = pytest.mark.slow

TLC = (5_973, 11_839, 18)
"""TLC's figures for Kip320 with two replicas (the reference table)."""


@pytest.fixture(scope="module", params=["levels", "levels-states", pytest.param("shards", marks=pytest.mark.spark)])
def original(tmp_path_factory, request):
    """A checkpoint of level 9 of 18: written at every boundary, the run stopped by --max-states.

    ``levels`` is written by the memo tables (the frontier as rows of part
    ids), ``levels-states`` by the spec's own code (the frontier's states
    pickled), ``shards`` by Spark's executors."""
    directory = tmp_path_factory.mktemp("fuzz") / "ck"
    engine = "spark" if request.param == "shards" else "local"
    r = modelcheck.check("kip320", {"Replicas": 2}, checkpoint=str(directory), checkpoint_every=0, max_states=1500,
                         engine=engine, memo=False if request.param == "levels-states" else None)
    assert r.stopped_by == "max-states" and r.checkpoint is not None
    data = [d for d in os.listdir(directory) if d.startswith("data-")]
    assert len(data) == 1
    files = os.listdir(directory / data[0])
    if request.param == "shards":
        assert "visited.npy" not in files and "shard-0.fps.npy" in files and "shard-1.states.pickle" in files
    else:
        assert "visited.npy" in files and not any(f.startswith("shard-") for f in files)
        assert ("frontier-0.rows.npy" in files) == (request.param == "levels")
    return directory


def _files(directory) -> list[str]:
    out = []
    for root, _dirs, names in os.walk(directory):
        out += [os.path.join(root, n) for n in names if n != ".lock"]
    return sorted(out)


def _damage(original, target, rng: random.Random) -> str:
    shutil.copytree(original, target)
    path = rng.choice(_files(target))
    data = bytearray(open(path, "rb").read())
    if rng.random() < 0.2 and data:
        cut = rng.randrange(len(data))
        open(path, "wb").write(bytes(data[:cut]))
        return f"{os.path.relpath(path, target)} cut to {cut} of {len(data)} bytes"
    i = rng.randrange(len(data))
    bit = 1 << rng.randrange(8)
    data[i] ^= bit
    open(path, "wb").write(bytes(data))
    return f"{os.path.relpath(path, target)} byte {i} bit {bit}"


def _outcome(directory) -> str:
    try:
        r = modelcheck.check("kip320", {"Replicas": 2}, resume=str(directory), preflight=False)
    except CheckpointError as exc:
        assert "\n" not in str(exc), str(exc)
        return "refused"
    assert (r.distinct_states, r.states_generated, r.depth) == TLC, "a damaged checkpoint gave a wrong result"
    assert r.result == "holds"
    return "exact"


def _run(original, tmp_path, cases: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    tally = {"refused": 0, "exact": 0}
    for case in range(cases):
        target = tmp_path / f"case{case}"
        what = _damage(original, target, rng)
        try:
            tally[_outcome(target)] += 1
        except AssertionError as exc:
            raise AssertionError(f"case {case} ({what}): {exc}") from None
        shutil.rmtree(target)
    return tally


def test_damaged_checkpoints_are_refused_or_exact(original, tmp_path):
    tally = _run(original, tmp_path, 24, seed=1)
    assert tally["refused"] >= 20  # nearly every byte is covered by a digest; exact only where nothing is read


@pytest.mark.slow
def test_damaged_checkpoints_are_refused_or_exact_many(original, tmp_path):
    tally = _run(original, tmp_path, 240, seed=2)
    assert sum(tally.values()) == 240 and tally["refused"] >= 200


def test_the_undamaged_checkpoint_resumes_exactly(original, tmp_path):
    shutil.copytree(original, tmp_path / "ck")
    assert _outcome(tmp_path / "ck") == "exact"


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_damaged_checkpoint_is_one_line_and_exit_2_on_the_command_line(original, tmp_path, seed):
    rng = random.Random(seed)
    while True:  # a case that is refused (the others resume exactly, as the tests above show)
        target = tmp_path / f"ck{rng.random()}"
        _damage(original, target, rng)
        p = run_cli("check", "kip320", "--const", "Replicas=2", "-q", "--resume", str(target))
        if p.returncode == 0:
            shutil.rmtree(target)
            continue
        assert p.returncode == 2, p.stderr
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
        assert "Traceback" not in p.stderr and p.stdout.count("\n") <= 3  # the header only
        break


# -- hostile files: what would make a resume wait or work forever --------------------------------


@pytest.fixture(scope="module", params=["rows", "states"])
def local_checkpoint(tmp_path_factory, request):
    """A local engine's checkpoint of Kip320 with two replicas, level 9 of 18: its frontier written as rows (by
    the memo tables) or as pickled states (by the spec's own code)."""
    directory = tmp_path_factory.mktemp("hostile") / "ck"
    r = modelcheck.check("kip320", {"Replicas": 2}, checkpoint=str(directory), checkpoint_every=0, max_states=1500,
                         memo=False if request.param == "states" else None)
    assert r.stopped_by == "max-states" and r.checkpoint is not None
    return directory


def _resume_is_refused_in_one_line(directory, message: str) -> None:
    """The resume ends (a hang fails on the timeout) with one line naming what is wrong, exit 2."""
    p = run_cli("check", "kip320", "--const", "Replicas=2", "-q", "--resume", str(directory), timeout=120)
    assert p.returncode == 2, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("kind", ["link-to-dev-zero", "fifo", "link-to-a-copy", "device", "directory"])
@pytest.mark.parametrize("which", ["frontier", "array"])
def test_a_data_file_that_is_not_a_regular_file_is_refused(local_checkpoint, tmp_path, kind, which):
    """A data file replaced by a link to /dev/zero (read forever) or a FIFO (waited on forever), or by a link at
    all: data files are opened without following links or waiting, and must be regular files."""
    from conftest import checkpoint_manifest

    target = tmp_path / "ck"
    shutil.copytree(local_checkpoint, target)
    body = checkpoint_manifest(target)
    data = target / body["data"]
    name = body["frontier"][0][0] if which == "frontier" else "visited.npy"
    path = data / name
    copy = tmp_path / "copy"
    shutil.copyfile(path, copy)
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":  # a character device like /dev/zero itself, where the file was (needs privilege)
        try:
            os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))
        except PermissionError:
            pytest.skip("creating a device node needs privilege")
    elif kind == "directory":
        path.mkdir()
    else:
        os.symlink("/dev/zero" if kind == "link-to-dev-zero" else copy, path)
    _resume_is_refused_in_one_line(target, "is a symbolic link" if kind.startswith("link") else "is not a regular file")


def test_a_frontier_of_shared_structure_unfolding_to_2_to_the_80_nodes_is_refused(local_checkpoint, tmp_path):
    """80 pickle bytes can describe a tuple of 2**80 nodes (each level two references to the one below); hashing
    it never ends.  The digests are made consistent, so only the measure of the states read can refuse it."""
    import hashlib
    import pickle

    from conftest import checkpoint_manifest
    from modelcheck.search import checkpoint as ck

    target = tmp_path / "ck"
    shutil.copytree(local_checkpoint, target)
    body = checkpoint_manifest(target)
    data = target / body["data"]
    states_file = body["frontier"][0][0]
    with open(data / states_file, "rb") as f:
        states = pickle.load(f)  # the test's own file: trusted
    huge: tuple = ()
    for _ in range(80):
        huge = (huge, huge)
    if len(body["frontier"][0]) == 5:  # rows: the state's shape, then the parts; one part becomes the huge tuple
        states[1] = huge
    else:
        states[0] = states[0]._replace(**{states[0]._fields[0]: huge})
    with open(data / states_file, "wb") as f:
        pickle.dump(states, f, protocol=pickle.HIGHEST_PROTOCOL)
    for name in os.listdir(data):
        blob = (data / name).read_bytes()
        body["files"][name] = {"bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}
    (target / ck.MANIFEST).write_text(ck._dumps_manifest(body))
    _resume_is_refused_in_one_line(target, "unfolds to more than")
