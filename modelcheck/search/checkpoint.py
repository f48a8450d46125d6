"""Checkpoints that cannot lie: written atomically, verified byte for byte, refused when they do not match.

A checkpoint is taken at a BFS level boundary: the visited fingerprints, the
parent records of every level, the frontier still to expand, the counters
and the violations found so far.  Resuming from it and finishing gives
exactly the counts and the first violation of an uninterrupted run, because
a level boundary is a point the uninterrupted run also passes through.

On disk (``DIR`` is ``--checkpoint``)::

    DIR/checkpoint.json     the manifest: what the checkpoint belongs to (spec, a digest of the spec's
                            source files, constants, options, version), the counters, the violations,
                            and the size and SHA-256 of every data file; its own SHA-256 inside
    DIR/data-XXXXXXXX/      the data files: numpy arrays (.npy, read without pickle) and the frontier's
                            states (pickles read by modelcheck.search.safe_pickle, which admits only the
                            spec's NamedTuple classes and plain containers: loading runs no code), or
                            the frontier as rows of part ids (modelcheck.search.frontier_rows)
    DIR/.lock               held (flock) by the run using DIR: one run at a time

The data directory has one of two layouts.  ``levels`` (the local engine and
``--workers``): ``visited.npy``, the parent records level by level
(``parent-fps.npy``, ``parent-idx.npy``) and the frontier's parts, each a
pickle of states (or, written by the memo tables, rows of part ids and the
distinct parts) and their ranks.  ``shards`` (Spark): one set of files per
partition, written by the executors in parallel, never gathered on the
driver: the shard's fingerprints (sorted), each one's parent fingerprint and
level, and the shard's frontier states with their fingerprints and discovery
keys (``shard-N.*``); the executors report each file's size and SHA-256, and
the driver writes the manifest last.  Every engine reads either layout (a
``shards`` checkpoint is put back into levels as it is read), so a
checkpoint written by one engine resumes with any other, with any number of
partitions or workers.

Writing is atomic: a new data directory is written and fsynced first, then
the manifest goes to a temporary file that is renamed over
``checkpoint.json``, then the old data directory is removed.  A kill at any
moment leaves either the previous checkpoint or the new one.  Reading
verifies the manifest's own digest, every file's size and digest, the
identity, and the arrays' shapes and ranges; any damage or mismatch is one
:class:`CheckpointError` line, never a traceback and never a result.  The
digests detect damage (a flipped bit, a truncated file), not a forgery:
who can write ``DIR`` can make a consistent checkpoint of a different
search, but not one that runs code.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import shutil
import stat
import tempfile
from typing import Any, BinaryIO, Callable, Iterable

import attrs
import numpy as np

from modelcheck import __version__
from modelcheck.errors import CheckpointError

FORMAT = "modelcheck-checkpoint"
VERSION = 5
READS = (4, 5)
"""The versions this module reads: 5 added frontier parts written as rows; a version-4 checkpoint is one without."""
MANIFEST = "checkpoint.json"
LOCK = ".lock"
DATA_PREFIX = "data-"
OLD_FILE = "checkpoint.pickle"
"""The single-pickle checkpoint of earlier versions: recognised, refused, never loaded."""
MAX_MANIFEST_BYTES = 256 * 1024 * 1024


@attrs.frozen
class CheckpointIdentity:
    """What a checkpoint belongs to; resuming with anything different is refused."""

    spec: str
    """The spec's name."""
    sources: str
    """A digest of the spec's source files (:func:`modelcheck.spec.sources.sources_digest`)."""
    constants: tuple
    """The constants as sorted (name, value) pairs."""
    options: tuple
    """The options that change the search (invariants, symmetry, deadlock, bounds)."""
    modelcheck_version: str = __version__
    """The version that wrote it; state encodings may change between versions."""
    files: tuple = ()
    """(what, SHA-256) of each module and data file the digest covers (:func:`modelcheck.spec.sources.spec_files`),
    so that a refusal names what changed."""

    def to_json(self) -> dict[str, Any]:
        return {"spec": self.spec, "sources": self.sources, "constants": [list(p) for p in self.constants],
                "options": [[k, list(v) if isinstance(v, tuple) else v] for k, v in self.options],
                "modelcheck_version": self.modelcheck_version, "files": [list(p) for p in self.files]}

    def mismatch(self, other: "CheckpointIdentity") -> str | None:
        """A one-line reason why ``other`` (the run being resumed) does not match, or None."""
        for field, what in (("modelcheck_version", "modelcheck version"), ("spec", "spec")):
            mine, theirs = getattr(self, field), getattr(other, field)
            if mine != theirs:
                return f"the checkpoint is for {what} {mine}, this run has {theirs}"
        if self.sources != other.sources:
            return f"spec {self.spec} has changed since the checkpoint was written: {_changed(self.files, other.files)}"
        for field, what in (("constants", "constants"), ("options", "options")):
            mine, theirs = getattr(self, field), getattr(other, field)
            if _canonical(mine) != _canonical(theirs):
                return f"the checkpoint is for {what} {_show(mine)}, this run has {_show(theirs)}"
        return None


def _changed(then: tuple, now: tuple) -> str:
    """What differs between two lists of (what, digest): the first difference, and how many more."""
    a, b = dict(then), dict(now)
    names = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    if not names:
        return "the digest of its files differs"
    k = names[0]
    first = f"{k} is new" if k not in a else f"{k} is gone" if k not in b else f"{k} changed"
    return first + (f" (and {len(names) - 1} more)" if len(names) > 1 else "")


def _canonical(pairs: Any) -> str:
    return json.dumps(pairs, sort_keys=True, default=list)


def _show(v: Any) -> str:
    if isinstance(v, (tuple, list)) and all(isinstance(x, (tuple, list)) and len(x) == 2 for x in v):
        return ", ".join(f"{k}={val if not isinstance(val, list) else tuple(val)}" for k, val in v) or "(none)"
    return str(v)


@attrs.frozen
class ViolationPoint:
    """A violation as a checkpoint keeps it: its trace is rebuilt by replay on resume."""

    kind: str
    name: str
    description: str
    level: int
    """The level of the violating state (of the parent, for a deadlock)."""
    fp: int


@attrs.define
class Boundary:
    """Everything a level boundary holds (the frontier's states only when read back)."""

    level: int
    level_sizes: list[int]
    parent_fps: np.ndarray
    """The fingerprints of every level, concatenated in level order and discovery order."""
    parent_idx: np.ndarray
    """For each, the index of its parent in the level before (0 for the initial states)."""
    visited: np.ndarray
    """Every fingerprint, sorted."""
    generated: int
    act_generated: list[int]
    act_distinct: list[int]
    sometimes_reached: dict[str, bool]
    violations: list[ViolationPoint]
    depth: int
    elapsed: float
    frontier: list = attrs.Factory(list)
    graph: dict[str, np.ndarray] | None = None
    """The behaviour graph recorded for liveness (:meth:`GraphLog.arrays`), when properties are checked."""
    shards: "list[ShardFiles] | None" = None
    """The ``shards`` layout's files, when writing, or when reading them is left to the executors
    (the three arrays above and the frontier are then empty)."""
    folder: str | None = None
    """When reading is left to the executors: the data directory the shards are in."""


SHARD_FILES = ("fps", "parents", "levels", "states", "frontier-fps", "keys", "key-ends")
"""The files of one shard in the ``shards`` layout: ``shard-N.<name>`` (.npy but for states and keys)."""


@attrs.frozen
class ShardFiles:
    """One shard of a ``shards`` checkpoint, as its writer reports it."""

    index: int
    states: int
    """Fingerprints in the shard (its visited set and parent records)."""
    frontier: int
    """Frontier states in the shard."""
    digests: dict[str, dict[str, Any]]
    """File name -> {"bytes", "sha256"}, computed by the writer (the driver does not read the files)."""

    @staticmethod
    def names(index: int) -> dict[str, str]:
        ext = {"states": ".pickle", "keys": ".bin"}
        return {part: f"shard-{index}.{part}{ext.get(part, '.npy')}" for part in SHARD_FILES}


def write_shard_records(directory: str, index: int, fps: np.ndarray, parents: np.ndarray,
                        levels: np.ndarray) -> ShardFiles:
    """Write one shard's visited set and parent records, fsynced, with their digests."""
    names = ShardFiles.names(index)
    _save_array(os.path.join(directory, names["fps"]), np.asarray(fps, np.int64))
    _save_array(os.path.join(directory, names["parents"]), np.asarray(parents, np.int64))
    _save_array(os.path.join(directory, names["levels"]), np.asarray(levels, np.int32))
    digests = {names[p]: file_digest(os.path.join(directory, names[p]), fsync=True)
               for p in ("fps", "parents", "levels")}
    return ShardFiles(index, len(fps), 0, digests)


def write_shard_frontier(directory: str, index: int, frontier: list[tuple[int, bytes, Any]]) -> ShardFiles:
    """Write one shard's frontier states (``frontier``: (fp, discovery key, state) in key order), with digests."""
    from modelcheck.search.safe_pickle import dump_states

    names = ShardFiles.names(index)
    _save_array(os.path.join(directory, names["frontier-fps"]),
                np.fromiter((r[0] for r in frontier), np.int64, len(frontier)))
    keys = [r[1] for r in frontier]
    _save_array(os.path.join(directory, names["key-ends"]),
                np.cumsum(np.fromiter((len(k) for k in keys), np.int64, len(keys))))
    with open(os.path.join(directory, names["keys"]), "xb") as f:
        f.write(b"".join(keys))
    with open(os.path.join(directory, names["states"]), "xb") as f:
        count = dump_states(f, (r[2] for r in frontier))
    if count != len(frontier):
        raise CheckpointError(f"shard {index} wrote {count} of {len(frontier)} frontier states")
    digests = {names[p]: file_digest(os.path.join(directory, names[p]), fsync=True)
               for p in ("frontier-fps", "key-ends", "keys", "states")}
    return ShardFiles(index, 0, len(frontier), digests)


@attrs.frozen
class FrontierPart:
    """One file of frontier states (:func:`modelcheck.search.safe_pickle.dump_states`) and its ranks (.npy).

    Or, with ``rows_file``, the states as rows of part ids: ``states_file``
    then holds their shape and ``parts`` distinct part values
    (:mod:`modelcheck.search.frontier_rows`).
    """

    states_file: str
    ranks_file: str
    count: int
    rows_file: str | None = None
    parts: int = 0

    def entry(self) -> list:
        """The part as the manifest lists it."""
        head = [self.states_file, self.ranks_file, int(self.count)]
        return head if self.rows_file is None else head + [self.rows_file, int(self.parts)]


def write_frontier_part(directory: str, index: int, states: Iterable[Any], ranks: np.ndarray) -> FrontierPart:
    """Write one part of a frontier (its states in rank order, and the ranks) into a data directory."""
    from modelcheck.search.safe_pickle import dump_states

    states_file, ranks_file = f"frontier-{index}.pickle", f"frontier-{index}.ranks.npy"
    with open(os.path.join(directory, states_file), "xb") as f:
        write_to = getattr(states, "write_pickled", None)  # a frontier spilled to disk copies its files
        count = write_to(f) if write_to is not None else dump_states(f, states)
    if count != len(ranks):
        raise CheckpointError(f"a frontier part holds {count} states and {len(ranks)} ranks")
    _save_array(os.path.join(directory, ranks_file), np.asarray(ranks, dtype=np.int64))
    return FrontierPart(states_file, ranks_file, count)


def write_frontier_rows(directory: str, index: int, shape: Any, values: list, rows: np.ndarray,
                        ranks: np.ndarray) -> FrontierPart:
    """Write one part of a frontier as rows of part ids (:mod:`modelcheck.search.frontier_rows`), with its ranks."""
    from modelcheck.search.frontier_rows import write_rows_part

    if len(rows) != len(ranks):
        raise CheckpointError(f"a frontier part holds {len(rows)} rows and {len(ranks)} ranks")
    parts_file, rows_file, n_parts = write_rows_part(directory, index, shape, values, rows)
    ranks_file = f"frontier-{index}.ranks.npy"
    _save_array(os.path.join(directory, ranks_file), np.asarray(ranks, dtype=np.int64))
    return FrontierPart(parts_file, ranks_file, len(rows), rows_file, n_parts)


# -- the lock ------------------------------------------------------------------------------


class CheckpointLock:
    """An exclusive lock on a checkpoint directory for one run; the kernel drops it when the process dies."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.fd: int | None = None

    def acquire(self) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            fd = os.open(os.path.join(self.directory, LOCK), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise CheckpointError(f"cannot use checkpoint directory {self.directory}: "
                                  f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            except OSError:
                holder = "?"
            os.close(fd)
            raise CheckpointError(f"checkpoint directory {self.directory} is in use by another run (pid {holder}); "
                                  "use another directory or wait for that run to end") from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            probe = tempfile.NamedTemporaryFile(dir=self.directory, prefix=".probe-", delete=True)
            probe.close()
        except OSError as exc:
            os.close(fd)
            raise CheckpointError(f"checkpoint directory {self.directory} is not writable: "
                                  f"{exc.strerror or exc}") from None
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


# -- writing ----------------------------------------------------------------------------


def write_checkpoint(directory: str, identity: CheckpointIdentity,
                     write_data: Callable[[str], tuple[Boundary, list[FrontierPart]]]) -> str:
    """Atomically replace the checkpoint in ``directory``; returns the manifest's path.

    ``write_data(data_dir)`` writes the frontier's part files into the new
    data directory and returns the boundary and the parts.  A failed write (a
    full disk) removes what it wrote and raises :class:`CheckpointError`; the
    previous checkpoint stays intact.
    """
    try:
        data = tempfile.mkdtemp(prefix=DATA_PREFIX, dir=directory)
    except OSError as exc:
        raise CheckpointError(f"could not write a checkpoint to {directory}: {exc.strerror or exc}") from None
    tmp = None
    try:
        boundary, parts = write_data(data)
        given: dict[str, dict[str, Any]] = {}
        if boundary.shards is None:
            _save_array(os.path.join(data, "visited.npy"), boundary.visited.astype(np.int64, copy=False))
            _save_array(os.path.join(data, "parent-fps.npy"), boundary.parent_fps.astype(np.int64, copy=False))
            _save_array(os.path.join(data, "parent-idx.npy"), boundary.parent_idx.astype(np.int32, copy=False))
        else:
            for shard in boundary.shards:
                given.update(shard.digests)
        graph = None
        if boundary.graph is not None:
            graph = {}
            for name, arr in sorted(boundary.graph.items()):
                _save_array(os.path.join(data, f"graph-{name}.npy"), arr)
                graph[name] = [arr.dtype.str, int(len(arr))]
        files = {}
        for name in sorted(os.listdir(data)):
            path = os.path.join(data, name)
            if name in given and os.path.getsize(path) == given[name]["bytes"]:
                files[name] = given[name]  # hashed (and fsynced) by the executor that wrote it
            else:
                files[name] = file_digest(path, fsync=True)
        _fsync_dir(data)
        body = {
            "format": FORMAT,
            "version": VERSION,
            "identity": identity.to_json(),
            "level": boundary.level,
            "level_sizes": [int(n) for n in boundary.level_sizes],
            "generated": int(boundary.generated),
            "act_generated": [int(n) for n in boundary.act_generated],
            "act_distinct": [int(n) for n in boundary.act_distinct],
            "sometimes_reached": {str(k): bool(v) for k, v in boundary.sometimes_reached.items()},
            "violations": [attrs.asdict(v) for v in boundary.violations],
            "depth": int(boundary.depth),
            "elapsed": float(boundary.elapsed),
            "data": os.path.basename(data),
            "frontier": [p.entry() for p in parts],
            "files": files,
        }
        if graph is not None:
            body["graph"] = graph
        if boundary.shards is not None:
            body["layout"] = "shards"
            body["shards"] = [[s.index, int(s.states), int(s.frontier)] for s in boundary.shards]
        text = _dumps_manifest(body)
        fd, tmp = tempfile.mkstemp(prefix=".checkpoint-", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, os.path.join(directory, MANIFEST))
        tmp = None
        _fsync_dir(directory)
    except OSError as exc:
        _remove_quietly(tmp)
        shutil.rmtree(data, ignore_errors=True)
        raise CheckpointError(
            f"could not write a checkpoint to {directory}: {exc.strerror or exc}; "
            "the previous checkpoint, if any, is intact"
        ) from None
    except BaseException:
        _remove_quietly(tmp)
        shutil.rmtree(data, ignore_errors=True)
        raise
    remove_stale(directory, keep=os.path.basename(data))
    return os.path.join(directory, MANIFEST)


def _dumps_manifest(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return json.dumps({"sha256": hashlib.sha256(canonical.encode()).hexdigest(), "body": body},
                      sort_keys=True, indent=1, allow_nan=False) + "\n"


def _save_array(path: str, arr: np.ndarray) -> None:
    with open(path, "xb") as f:
        np.save(f, arr, allow_pickle=False)


def open_data_file(path: str) -> BinaryIO:
    """A checkpoint data file, opened for reading: a regular file, never a link, a FIFO or a device.

    Opened without following a link and without waiting for a FIFO's writer,
    then checked on the open descriptor, so what is read is what was checked
    (a link to ``/dev/zero`` or a FIFO in place of a data file would make a
    resume read forever or wait forever).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if os.path.islink(path):
            raise CheckpointError(f"checkpoint data file {path} is a symbolic link, not a regular file") from None
        raise exc from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise CheckpointError(f"checkpoint data file {path} is not a regular file (a FIFO, device or directory)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def file_digest(path: str, fsync: bool = False, expected_bytes: int | None = None) -> dict[str, Any]:
    """A file's size and SHA-256, as a manifest lists them (also for readers that check files themselves).

    With ``expected_bytes``, a file of another size is not read (its size is
    returned with no digest), and never more than that many bytes and one are.
    """
    h = hashlib.sha256()
    size = 0
    with open_data_file(path) as f:
        if expected_bytes is not None:
            actual = os.fstat(f.fileno()).st_size
            if actual != expected_bytes:
                return {"bytes": actual, "sha256": None}
        while True:
            block = f.read(1 << 20)
            if not block:
                break
            h.update(block)
            size += len(block)
            if expected_bytes is not None and size > expected_bytes:
                return {"bytes": size, "sha256": None}  # grew while read
        if fsync:
            os.fsync(f.fileno())
    return {"bytes": size, "sha256": h.hexdigest()}


def remove_stale(directory: str, keep: str | None) -> None:
    """Delete data directories other than ``keep`` and half-written manifests (of runs killed while writing)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        if name.startswith(DATA_PREFIX) and name != keep and os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif name.startswith(".checkpoint-") and name.endswith(".tmp"):
            _remove_quietly(path)


# -- reading ------------------------------------------------------------------------------


def has_checkpoint(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, MANIFEST))


def verified_level(directory: str) -> int | None:
    """The level of the checkpoint in ``directory`` if its manifest is whole and its files have their sizes.

    For telling the user a checkpoint exists: cheap (no file is read but the
    manifest); a resume verifies every byte.
    """
    try:
        body = read_manifest(directory)
        folder = os.path.join(directory, body["data"])
        for name, meta in body["files"].items():
            if not _safe_name(name) or os.path.getsize(os.path.join(folder, name)) != meta["bytes"]:
                return None
        return _count(body["level"])
    except (CheckpointError, OSError, KeyError, TypeError, AttributeError):
        return None


def read_checkpoint(directory: str, expected: CheckpointIdentity,
                    load_part: Callable[[Any, int], list], remote_shards: bool = False) -> Boundary:
    """The boundary in ``directory``, verified; refuses (one line) a damaged checkpoint or one of another run.

    ``load_part(file, count)`` reads ``count`` states from an open frontier
    file (with the spec's restricted unpickler).  With ``remote_shards``, a
    ``shards`` checkpoint's data files are only listed and sized here: the
    boundary names them (``shards``, ``folder``), and whoever reads them (the
    Spark executors) checks their digests.
    """
    body = read_manifest(directory)
    reason = _identity_from(body).mismatch(expected)
    if reason:
        raise CheckpointError(f"cannot resume from {directory}: {reason}")
    boundary = _read_data(directory, body, load_part, remote_shards)
    remove_stale(directory, keep=body["data"])  # what a writer killed mid-write left beside it
    return boundary


def read_manifest(directory: str) -> dict[str, Any]:
    """The manifest's body, its own digest verified (no data file is read)."""
    path = os.path.join(directory, MANIFEST)
    if not os.path.isfile(path):
        if os.path.isfile(os.path.join(directory, OLD_FILE)):
            raise CheckpointError(f"the checkpoint in {directory} was written by an older modelcheck "
                                  "(a single pickle file); start the run again")
        raise CheckpointError(f"no checkpoint in {directory} (expected {MANIFEST})")
    try:
        size = os.path.getsize(path)
        if size > MAX_MANIFEST_BYTES:
            raise CheckpointError(f"checkpoint {path} is damaged (a {size}-byte manifest)")
        with open(path, "rb") as f:
            raw = f.read()
        doc = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except CheckpointError:
        raise
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CheckpointError(f"checkpoint {path} is damaged or unreadable: {type(exc).__name__}") from None
    if not isinstance(doc, dict) or set(doc) != {"sha256", "body"} or not isinstance(doc["body"], dict):
        raise CheckpointError(f"{path} is not a modelcheck checkpoint manifest")
    body = doc["body"]
    try:
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError:
        raise CheckpointError(f"checkpoint {path} is damaged (its digest does not match)") from None
    if hashlib.sha256(canonical.encode()).hexdigest() != doc["sha256"]:
        raise CheckpointError(f"checkpoint {path} is damaged (its digest does not match)")
    if body.get("format") != FORMAT or body.get("version") not in READS:
        raise CheckpointError(f"{path} is not a checkpoint this modelcheck can read "
                              f"(format {body.get('format')!r} version {body.get('version')!r})")
    return body


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number here")


def _identity_from(body: dict[str, Any]) -> CheckpointIdentity:
    ident = body.get("identity")
    try:
        return CheckpointIdentity(
            spec=_typed(ident["spec"], str), sources=_typed(ident["sources"], str),
            constants=tuple(tuple(p) for p in _typed(ident["constants"], list)),
            options=tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in _typed(ident["options"], list)),
            modelcheck_version=_typed(ident["modelcheck_version"], str),
            files=tuple((_typed(w, str), _typed(d, str)) for w, d in _typed(ident["files"], list)))
    except (KeyError, TypeError, ValueError):
        raise CheckpointError("the checkpoint's identity is damaged") from None


def _frontier_entry(e: list) -> FrontierPart:
    """A frontier part from its manifest entry: [states, ranks, count] or [parts, ranks, count, rows, parts]."""
    if len(e) == 3:
        return FrontierPart(_typed(e[0], str), _typed(e[1], str), _count(e[2]))
    if len(e) == 5:
        return FrontierPart(_typed(e[0], str), _typed(e[1], str), _count(e[2]), _typed(e[3], str), _count(e[4]))
    raise ValueError("a frontier entry of another length")


def _typed(value: Any, kind: type) -> Any:
    if type(value) is not kind:
        raise TypeError(f"expected {kind.__name__}")
    return value


def _count(value: Any) -> int:
    if type(value) is not int or value < 0:
        raise TypeError("expected a count")
    return value


def _read_data(directory: str, body: dict[str, Any], load_part: Callable[[Any, int], list],
               remote_shards: bool = False) -> Boundary:
    damaged = f"checkpoint in {directory} is damaged"
    try:
        level = _count(body["level"])
        level_sizes = [_count(n) for n in _typed(body["level_sizes"], list)]
        data = _typed(body["data"], str)
        files = _typed(body["files"], dict)
        frontier = [_frontier_entry(_typed(e, list)) for e in _typed(body["frontier"], list)]
        counters = dict(
            generated=_count(body["generated"]),
            act_generated=[_count(n) for n in _typed(body["act_generated"], list)],
            act_distinct=[_count(n) for n in _typed(body["act_distinct"], list)],
            sometimes_reached={_typed(k, str): _typed(v, bool)
                               for k, v in _typed(body["sometimes_reached"], dict).items()},
            depth=_count(body["depth"]),
            elapsed=float(body["elapsed"]),
            graph_meta={_typed(k, str): (_typed(v[0], str), _count(v[1]))
                        for k, v in _typed(body.get("graph", {}), dict).items()},
            violations=[ViolationPoint(_typed(v["kind"], str), _typed(v["name"], str), _typed(v["description"], str),
                                       _count(v["level"]), _typed(v["fp"], int))
                        for v in _typed(body["violations"], list)],
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise CheckpointError(f"{damaged} (its manifest lacks or mistypes a field)") from None
    if not math.isfinite(counters["elapsed"]) or len(level_sizes) != level + 1:
        raise CheckpointError(f"{damaged} (inconsistent manifest)")
    if not _safe_name(data) or not data.startswith(DATA_PREFIX):
        raise CheckpointError(f"{damaged} (bad data directory name)")
    folder = os.path.join(directory, data)
    try:
        present = set(os.listdir(folder))
    except OSError:
        raise CheckpointError(f"{damaged} (its data directory {data} is missing)") from None
    graph_meta = counters.pop("graph_meta")
    if set(graph_meta) - set(GRAPH_ARRAYS) or (graph_meta and set(graph_meta) != set(GRAPH_ARRAYS)):
        raise CheckpointError(f"{damaged} (its behaviour graph is incomplete)")
    layout = body.get("layout", "levels")
    try:
        shards = [(_count(i), _count(n), _count(f)) for i, n, f in _typed(body.get("shards", []), list)]
    except (TypeError, ValueError):
        raise CheckpointError(f"{damaged} (its manifest lacks or mistypes a field)") from None
    if layout not in ("levels", "shards") or (layout == "shards") != bool(shards) or \
            len({i for i, _, _ in shards}) != len(shards) or (layout == "shards" and (frontier or graph_meta)):
        raise CheckpointError(f"{damaged} (inconsistent manifest)")
    if layout == "shards":
        expected_files = {name for i, _, _ in shards for name in ShardFiles.names(i).values()}
    else:
        expected_files = {"visited.npy", "parent-fps.npy", "parent-idx.npy"}
    expected_files |= {f for p in frontier for f in (p.states_file, p.ranks_file, p.rows_file) if f is not None}
    expected_files |= {f"graph-{name}.npy" for name in graph_meta}
    if present != set(files) or not expected_files <= present or not all(_safe_name(n) for n in present):
        raise CheckpointError(f"{damaged} (its data files differ from the manifest's list)")
    if layout == "shards" and remote_shards:
        listed = []
        for index, count, n_front in shards:
            digests = {}
            for name in ShardFiles.names(index).values():
                try:
                    meta = {"bytes": _count(files[name]["bytes"]), "sha256": _typed(files[name]["sha256"], str)}
                    size = os.path.getsize(os.path.join(folder, name))
                except (KeyError, TypeError, OSError):
                    raise CheckpointError(f"{damaged} ({name} cannot be checked)") from None
                if size != meta["bytes"]:
                    raise CheckpointError(f"{damaged} ({name} does not match its digest)")
                digests[name] = meta
            listed.append(ShardFiles(index, count, n_front, digests))
        if sum(s.states for s in listed) != sum(level_sizes) or sum(s.frontier for s in listed) != level_sizes[-1]:
            raise CheckpointError(f"{damaged} (its shards do not add up to its levels)")
        empty = np.empty(0, np.int64)
        return Boundary(level=level, level_sizes=level_sizes, parent_fps=empty, parent_idx=empty, visited=empty,
                        shards=listed, folder=folder, **counters)
    for name, meta in files.items():
        try:
            want_bytes, want_sha = _count(meta["bytes"]), _typed(meta["sha256"], str)
            got = file_digest(os.path.join(folder, name), expected_bytes=want_bytes)
        except (KeyError, TypeError, OSError):
            raise CheckpointError(f"{damaged} ({name} cannot be checked)") from None
        if got["bytes"] != want_bytes or got["sha256"] != want_sha:
            raise CheckpointError(f"{damaged} ({name} does not match its digest)")
    total = sum(level_sizes)
    if layout == "shards":
        return _read_shards(folder, shards, level, level_sizes, counters, load_part, damaged)
    visited = _load_array(folder, "visited.npy", np.int64, total, damaged)
    parent_fps = _load_array(folder, "parent-fps.npy", np.int64, total, damaged)
    parent_idx = _load_array(folder, "parent-idx.npy", np.int32, total, damaged)
    if total and (np.any(visited[1:] <= visited[:-1]) or not np.array_equal(np.sort(parent_fps), visited)):
        raise CheckpointError(f"{damaged} (its visited set and parent records disagree)")
    start = level_sizes[0] if level_sizes else 0
    for k in range(1, len(level_sizes)):
        idx = parent_idx[start:start + level_sizes[k]]
        if len(idx) and (idx.min() < 0 or idx.max() >= level_sizes[k - 1]):
            raise CheckpointError(f"{damaged} (a parent index is out of range)")
        start += level_sizes[k]
    frontier_size = level_sizes[level] if level_sizes else 0
    states: list = [None] * frontier_size
    placed = np.zeros(frontier_size, dtype=bool)
    for p in frontier:
        ranks = _load_array(folder, p.ranks_file, np.int64, p.count, damaged)
        if p.count and (ranks.min() < 0 or ranks.max() >= frontier_size or placed[ranks].any()):
            raise CheckpointError(f"{damaged} (frontier ranks out of range)")
        placed[ranks] = True
        with open_data_file(os.path.join(folder, p.states_file)) as f:
            if p.rows_file is None:
                part = load_part(f, p.count)
            else:
                from modelcheck.search.frontier_rows import read_rows_part

                with open_data_file(os.path.join(folder, p.rows_file)) as rows:
                    part = read_rows_part(f, rows, p.count, p.parts, load_part, damaged)
        for r, s in zip(ranks.tolist(), part):
            states[r] = s
    if not placed.all():
        raise CheckpointError(f"{damaged} (the frontier is incomplete)")
    if len(frontier) == 1 and hasattr(part, "rows_form") and np.array_equal(ranks, np.arange(len(ranks))):
        states = part  # the states in rank order, with their rows for an engine that keeps rows
    graph = None
    if graph_meta:
        graph = {}
        for name, (dtype, length) in graph_meta.items():
            if dtype not in GRAPH_DTYPES[name]:
                raise CheckpointError(f"{damaged} (graph-{name}.npy has the wrong type)")
            graph[name] = _load_array(folder, f"graph-{name}.npy", np.dtype(dtype), length, damaged)
        n_edges = len(graph["edge-src"])
        if len(graph["edge-dst"]) != n_edges or len(graph["edge-label"]) != n_edges or \
                len(graph["masks"]) != len(graph["mask-fps"]) or len(graph["masks"]) != total or \
                (n_edges and (graph["edge-src"].min() < 0 or graph["edge-src"].max() >= total)) or \
                not np.array_equal(np.sort(graph["mask-fps"]), visited) or \
                not sorted_subset(graph["edge-dst"], visited):
            raise CheckpointError(f"{damaged} (its behaviour graph and parent records disagree)")
    return Boundary(level=level, level_sizes=level_sizes, parent_fps=parent_fps, parent_idx=parent_idx,
                    visited=visited, frontier=states, graph=graph, **counters)


def read_shard(folder: str, index: int, count: int, n_front: int, load_part: Callable[[Any, int], list],
               damaged: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, bytes, Any]]]:
    """One shard's files (digests checked by the caller): its fingerprints, parents and levels, and its
    frontier as (fp, discovery key, state) in key order; a file of the wrong shape is ``damaged``."""
    names = ShardFiles.names(index)
    fps = _load_array(folder, names["fps"], np.int64, count, damaged)
    parents = _load_array(folder, names["parents"], np.int64, count, damaged)
    levels = _load_array(folder, names["levels"], np.int32, count, damaged)
    front_fps = _load_array(folder, names["frontier-fps"], np.int64, n_front, damaged)
    ends = _load_array(folder, names["key-ends"], np.int64, n_front, damaged)
    with open_data_file(os.path.join(folder, names["keys"])) as f:
        blob = f.read(os.fstat(f.fileno()).st_size + 1)
    if n_front and (ends[-1] != len(blob) or np.any(np.diff(ends, prepend=0) <= 0)):
        raise CheckpointError(f"{damaged} (shard {index}'s discovery keys do not fit their file)")
    starts = [0, *ends[:-1].tolist()]
    keys = [blob[a:b] for a, b in zip(starts, ends.tolist())]
    with open_data_file(os.path.join(folder, names["states"])) as f:
        states = load_part(f, n_front)
    return fps, parents, levels, list(zip(front_fps.tolist(), keys, states))


def _read_shards(folder: str, shards: list[tuple[int, int, int]], level: int, level_sizes: list[int],
                 counters: dict[str, Any], load_part: Callable[[Any, int], list], damaged: str) -> Boundary:
    """A ``shards`` checkpoint put back into levels (the digests are checked already): every engine resumes it."""
    fps, parents, levels, front_fps, keys, states = [], [], [], [], [], []
    for index, count, n_front in shards:
        shard_fps, shard_parents, shard_levels, front = read_shard(folder, index, count, n_front, load_part, damaged)
        fps.append(shard_fps)
        parents.append(shard_parents)
        levels.append(shard_levels)
        front_fps.append(np.fromiter((r[0] for r in front), np.int64, len(front)))
        keys += [r[1] for r in front]
        states += [r[2] for r in front]
    all_fps = np.concatenate(fps) if fps else np.empty(0, np.int64)
    all_parents = np.concatenate(parents) if fps else np.empty(0, np.int64)
    all_levels = np.concatenate(levels) if fps else np.empty(0, np.int32)
    if len(all_fps) != sum(level_sizes) or np.any(all_levels < 0) or np.any(all_levels > level) or \
            np.bincount(all_levels, minlength=level + 1).tolist() != level_sizes:
        raise CheckpointError(f"{damaged} (its shards do not add up to its levels)")
    visited = np.sort(all_fps)
    if len(visited) and np.any(visited[1:] <= visited[:-1]):
        raise CheckpointError(f"{damaged} (a fingerprint is in two shards)")
    # The frontier in discovery order (keys compare as bytes in that order), and its records in that order too.
    order = sorted(range(len(keys)), key=keys.__getitem__)
    if any(keys[a] == keys[b] for a, b in zip(order, order[1:])):
        raise CheckpointError(f"{damaged} (two frontier states have one discovery key)")
    frontier_fps = np.concatenate(front_fps)[order] if front_fps else np.empty(0, np.int64)
    frontier = [states[i] for i in order]
    level_fps: list[np.ndarray] = []
    level_idx: list[np.ndarray] = []
    for k in range(level + 1):
        mine = all_levels == k
        cur, up = all_fps[mine], all_parents[mine]
        if k == level:
            by_fp = np.argsort(cur)
            pos = np.searchsorted(cur[by_fp], frontier_fps)
            if len(pos) != len(cur) or (len(cur) and not np.array_equal(cur[by_fp][np.minimum(pos, len(cur) - 1)],
                                                                           frontier_fps)):
                raise CheckpointError(f"{damaged} (its frontier is not its last level)")
            cur, up = cur[by_fp][pos], up[by_fp][pos]
        else:
            by_fp = np.argsort(cur)
            cur, up = cur[by_fp], up[by_fp]
        if k == 0:
            if not np.array_equal(cur, up):
                raise CheckpointError(f"{damaged} (an initial state has a parent)")
            idx = np.zeros(len(cur), np.int32)
        else:
            prev = level_fps[-1]
            sorted_prev = np.argsort(prev)
            pos = np.searchsorted(prev[sorted_prev], up)
            if len(up) and (not len(prev) or
                            not np.array_equal(prev[sorted_prev][np.minimum(pos, len(prev) - 1)], up)):
                raise CheckpointError(f"{damaged} (a parent is not in the level before)")
            idx = sorted_prev[np.minimum(pos, max(len(prev) - 1, 0))].astype(np.int32)
        level_fps.append(cur)
        level_idx.append(idx)
    return Boundary(level=level, level_sizes=level_sizes, parent_fps=np.concatenate(level_fps),
                    parent_idx=np.concatenate(level_idx), visited=visited, frontier=frontier, **counters)


GRAPH_ARRAYS = ("edge-src", "edge-dst", "edge-label", "mask-fps", "masks")
GRAPH_DTYPES = {"edge-src": ("<i4",), "edge-dst": ("<i8",), "edge-label": ("<i2", "<i4"), "mask-fps": ("<i8",),
                "masks": ("<i8",)}


def sorted_subset(values: np.ndarray, sorted_set: np.ndarray) -> bool:
    """Whether every one of ``values`` is in ``sorted_set``."""
    if not len(values):
        return True
    if not len(sorted_set):
        return False
    pos = np.searchsorted(sorted_set, values)
    np.minimum(pos, len(sorted_set) - 1, out=pos)
    return bool(np.array_equal(sorted_set[pos], values))


def _safe_name(name: str) -> bool:
    return bool(name) and name == os.path.basename(name) and name not in (".", "..") and not name.startswith(".")


def _load_array(folder: str, name: str, dtype: Any, length: int, damaged: str) -> np.ndarray:
    try:
        with open_data_file(os.path.join(folder, name)) as f:
            arr = np.load(f, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise CheckpointError(f"{damaged} ({name}: {type(exc).__name__})") from None
    if arr.dtype != np.dtype(dtype) or arr.ndim != 1 or len(arr) != length:
        raise CheckpointError(f"{damaged} ({name} has the wrong shape or type)")
    return arr


# -- helpers ------------------------------------------------------------------------------


def split_levels(flat: np.ndarray, sizes: Iterable[int]) -> list[np.ndarray]:
    """Per-level arrays from a concatenation and the levels' sizes."""
    out = []
    start = 0
    for n in sizes:
        out.append(flat[start:start + n])
        start += n
    return out


def _remove_quietly(path: str | None) -> None:
    if path is None:
        return
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
