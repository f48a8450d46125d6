"""The behaviour graph as the search records it, for liveness: edges and predicate masks, spilled when large.

Liveness is decided on the whole state graph after the search
(:mod:`modelcheck.search.liveness`), so every transition the search
generates is kept: 14 bytes an edge while the search runs (the source's
index among all states, int32; the target's fingerprint, int64, whose index
is known only at the end; the action instance, int16), and 16 bytes a state
(its fingerprint and its predicate bits).  Blocks beyond ``memory_budget``
bytes go to ``.npy`` files in a temporary directory and are read back
memory-mapped, so the log's memory stays within the budget.  At the end the
targets' fingerprints are turned into indices with one sort and one
``searchsorted`` over all fingerprints.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import numpy as np

from modelcheck.search.backend import EdgeBlock

DEFAULT_MEMORY_BUDGET = 256 * 2**20
"""Bytes of edges and masks kept in memory; the rest is written to disk and memory-mapped."""


class GraphLog:
    """Edges and masks per committed level; all run state on the instance."""

    def __init__(self, memory_budget: int = DEFAULT_MEMORY_BUDGET, spill_dir: str | None = None) -> None:
        self.memory_budget = memory_budget
        self.spill_parent = spill_dir
        self._dir: str | None = None
        self.src: list[np.ndarray] = []
        self.dst: list[np.ndarray] = []
        self.label: list[np.ndarray] = []
        self.mask_fps: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.in_memory = 0
        self.spilled_bytes = 0
        self._files = 0

    # -- recording ----------------------------------------------------------------------

    def add_states(self, fps: np.ndarray, masks: np.ndarray) -> None:
        self.mask_fps.append(self._keep(np.asarray(fps, dtype=np.int64)))
        self.masks.append(self._keep(np.asarray(masks, dtype=np.int64)))

    def add_edges(self, offset: int, block: EdgeBlock) -> None:
        """A level's edges; ``offset`` is the index of the level's first state among all states."""
        if not len(block):
            return
        src = block.src.astype(np.int64) + offset
        if len(src) and src.max() >= 2**31:
            raise OverflowError("more than 2**31 states: the liveness graph's indices do not fit")
        self.src.append(self._keep(src.astype(np.int32)))
        self.dst.append(self._keep(block.dst.astype(np.int64, copy=False)))
        self.label.append(self._keep(block.label))

    def _keep(self, arr: np.ndarray) -> np.ndarray:
        """``arr`` itself while within the memory budget, else a memory-mapped copy on disk."""
        if self.in_memory + arr.nbytes <= self.memory_budget or not len(arr):
            self.in_memory += arr.nbytes
            return arr
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="modelcheck-graph-", dir=self.spill_parent)
        path = os.path.join(self._dir, f"{self._files}.npy")
        self._files += 1
        np.save(path, arr, allow_pickle=False)
        self.spilled_bytes += arr.nbytes
        return np.load(path, mmap_mode="r")

    @property
    def edges(self) -> int:
        return sum(len(a) for a in self.src)

    def edge_bytes(self) -> int:
        """Bytes the edges take (14 each: int32 source, int64 target fingerprint, int16 label)."""
        return sum(a.nbytes for group in (self.src, self.dst, self.label) for a in group)

    def nbytes(self) -> int:
        """Bytes the log holds (memory and disk)."""
        return sum(a.nbytes for group in (self.src, self.dst, self.label, self.mask_fps, self.masks) for a in group)

    # -- checkpoints ----------------------------------------------------------------------

    def arrays(self) -> dict[str, np.ndarray]:
        """Everything, as flat arrays (a checkpoint's ``graph-*.npy`` files)."""
        label_dtype = self.label[0].dtype if self.label else np.int16
        return {
            "edge-src": _cat(self.src, np.int32),
            "edge-dst": _cat(self.dst, np.int64),
            "edge-label": _cat(self.label, label_dtype),
            "mask-fps": _cat(self.mask_fps, np.int64),
            "masks": _cat(self.masks, np.int64),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], memory_budget: int = DEFAULT_MEMORY_BUDGET) -> "GraphLog":
        log = cls(memory_budget)
        log.add_states(arrays["mask-fps"], arrays["masks"])
        log.add_edges(0, EdgeBlock(arrays["edge-src"], arrays["edge-dst"], arrays["edge-label"]))
        return log

    # -- the end ------------------------------------------------------------------------

    def resolve(self, all_fps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(src, dst, label, masks) by state index, ``all_fps`` giving each index's fingerprint.

        Raises ValueError when a target or a mask belongs to no known state
        (the log and the parent records disagree).
        """
        order = np.argsort(all_fps, kind="stable")
        ordered = all_fps[order]

        def index(fps: np.ndarray) -> np.ndarray:
            if not len(fps):
                return np.empty(0, np.int64)
            # Probed in sorted order (see modelcheck.search.visited.in_sorted): random probes of a large
            # array miss the caches at nearly every step of their binary searches.
            probe = np.argsort(fps)
            pos = np.empty(len(fps), np.int64)
            pos[probe] = np.searchsorted(ordered, fps[probe])
            np.minimum(pos, len(ordered) - 1, out=pos)
            if not np.array_equal(ordered[pos], fps):
                raise ValueError("the behaviour graph names a state the search did not keep")
            return order[pos]

        src = _cat(self.src, np.int32).astype(np.int64)
        dst = index(_cat(self.dst, np.int64))
        label = _cat(self.label, np.int32).astype(np.int64)
        mask_fps = _cat(self.mask_fps, np.int64)
        if np.array_equal(mask_fps, all_fps):  # logged in discovery order, as every engine does: no lookup
            masks = _cat(self.masks, np.int64)
        else:
            masks = np.zeros(len(all_fps), dtype=np.int64)
            masks[index(mask_fps)] = _cat(self.masks, np.int64)
        return src, dst, label, masks

    def close(self) -> None:
        self.src, self.dst, self.label, self.mask_fps, self.masks = [], [], [], [], []
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _cat(arrays: list[Any], dtype: Any) -> np.ndarray:
    if not arrays:
        return np.empty(0, dtype)
    return np.concatenate([np.asarray(a) for a in arrays]).astype(dtype, copy=False)
