"""A BFS frontier that spills to disk when it grows large.

States are Python objects (a few hundred bytes each); a level of a
ten-million-state model can hold over a million of them.  Past
``memory_states`` the queue pickles full chunks to a temporary directory and
reads them back, in order, when the next level is expanded.  Pickling a whole
chunk at once keeps the sub-objects states share (records, sets) shared.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from typing import Any, Iterator

DEFAULT_CHUNK = 25_000
DEFAULT_MEMORY_STATES = 400_000


class Frontier:
    """An append-only queue of states, iterated once in insertion order."""

    def __init__(self, chunk: int = DEFAULT_CHUNK, memory_states: int = DEFAULT_MEMORY_STATES,
                 spill_dir: str | None = None) -> None:
        self.chunk = chunk
        self.memory_states = memory_states
        self.spill_dir = spill_dir
        self._dir: str | None = None
        self._files: list[str] = []
        self._spilled = 0
        self._tail: list[Any] = []
        self.spilled_chunks = 0

    @classmethod
    def of(cls, states: list[Any], **kwargs: Any) -> "Frontier":
        f = cls(**kwargs)
        f._tail = list(states)
        return f

    def append(self, s: Any) -> None:
        self._tail.append(s)
        self._spill_if_full()

    def extend(self, states: list[Any]) -> None:
        """Append several states at once (the engine adds a batch's new states in one call)."""
        self._tail.extend(states)
        self._spill_if_full()

    def _spill_if_full(self) -> None:
        # Only the states beyond ``memory_states`` go to disk, a chunk at a time: pickling one chunk
        # holds pickle's memo of its objects, so a bigger piece would be a bigger burst of memory.
        while len(self._tail) >= self.chunk and len(self._tail) > self.memory_states:
            self._spill(self.chunk)

    def _spill(self, count: int) -> None:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="modelcheck-frontier-", dir=self.spill_dir)
        path = os.path.join(self._dir, f"{len(self._files):06d}.pkl")
        piece = self._tail[:count]
        with open(path, "wb") as f:
            pickle.dump(piece, f, protocol=pickle.HIGHEST_PROTOCOL)
        self._files.append(path)
        self._spilled += len(piece)
        del self._tail[:count]
        self.spilled_chunks += 1

    def __len__(self) -> int:
        return self._spilled + len(self._tail)

    def __bool__(self) -> bool:
        return len(self) > 0

    def chunks(self) -> Iterator[list[Any]]:
        """The states in order, a list at a time (spilled files stay until :meth:`close`: a level that is
        abandoned is expanded again from the same frontier)."""
        for path in self._files:
            with open(path, "rb") as f:
                part = pickle.load(f)
            yield part
        yield self._tail

    def __iter__(self) -> Iterator[Any]:
        for part in self.chunks():
            yield from part

    def write_pickled(self, f: Any) -> int:
        """Write the states to ``f`` as pickled lists (what checkpoints store): spilled chunks are copied
        byte for byte, never loaded, so writing a checkpoint adds no states to memory."""
        from modelcheck.search.safe_pickle import dump_states

        for path in self._files:
            with open(path, "rb") as src:
                shutil.copyfileobj(src, f, 1 << 20)
        dump_states(f, self._tail)
        return len(self)

    def to_list(self) -> list[Any]:
        """Every state, without consuming the queue (for checkpoints)."""
        out: list[Any] = []
        for path in self._files:
            with open(path, "rb") as f:
                out.extend(pickle.load(f))
        out.extend(self._tail)
        return out

    def close(self) -> None:
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


class StoredStates:
    """A finished list of states kept on disk in pickled chunks, read back as often as needed.

    A ``--workers`` frontier is iterated by :meth:`modelcheck.search.workers.worker.Worker.expand` and must stay
    intact until the level is committed (an abandoned level is redone from the
    same frontier): reading never consumes it.
    """

    def __init__(self, states: list[Any], directory: str, chunk: int = DEFAULT_CHUNK) -> None:
        self._dir = tempfile.mkdtemp(prefix="frontier-", dir=directory)
        self._files: list[str] = []
        self._len = len(states)
        for i in range(0, len(states), chunk):
            path = os.path.join(self._dir, f"{len(self._files):06d}.pkl")
            with open(path, "wb") as f:
                pickle.dump(states[i:i + chunk], f, protocol=pickle.HIGHEST_PROTOCOL)
            self._files.append(path)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[Any]:
        for path in self._files:
            with open(path, "rb") as f:
                part = pickle.load(f)
            yield from part

    def to_list(self) -> list[Any]:
        return list(self)

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)
        self._files = []
