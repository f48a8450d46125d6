"""Reading pickled states without letting the data run code.

A checkpoint's frontier is a list of states: trees of ints, bools, floats,
tuples, frozensets and the spec's own NamedTuple classes.  Pickle can encode
far more than that, including calls of any importable function, which is
what makes loading a crafted pickle run code.  :func:`load_states` admits
only what a state may contain: every class a pickle names must be a
NamedTuple class of one of the spec's own modules, already imported (nothing
is imported on the data's behalf), or one of :data:`CHECKER_CLASSES`, the
state classes modelcheck itself provides (its ``Function``, whose constructor
checks and sorts the pairs it is given, so a file cannot make one out of
order), and every other object must be built by pickle's own opcodes for
tuples, frozensets, lists and numbers.

Pickle also shares objects: 80 bytes can describe a tuple of two copies of a
tuple of two copies of ... 80 deep, 2**80 nodes once unfolded, which hashing
or comparing a state unfolds (and never finishes).  So every chunk is
measured as it is read, a shared part counted each time it occurs (the size
the search would see, computed in time proportional to the bytes read), and
refused beyond :data:`NODES_PER_BYTE` nodes per byte of pickle (states of the
project's specs unfold to about one node per byte) or a cycle.
"""

from __future__ import annotations

import io
import pickle
import sys
from typing import Any, BinaryIO, Iterable

from modelcheck.errors import CheckpointError
from modelcheck.spec.functions import Function

NODES_PER_BYTE = 64
"""The most nodes a chunk of pickled states may unfold to per byte read (beyond :data:`MIN_NODES`)."""
MIN_NODES = 1_000_000
"""Nodes any chunk may unfold to, however few its bytes."""
_CONTAINERS = (tuple, list, frozenset)
CHECKER_CLASSES: dict[tuple[str, str], type] = {("modelcheck.spec.functions", "Function"): Function}
"""The classes of modelcheck's own that a state may hold, by (module, name) as pickle names them."""


def unfolded_size(obj: Any, limit: int) -> int:
    """The number of nodes of ``obj`` with shared parts counted each time they occur; None beyond ``limit``.

    Each distinct container is visited once (its size remembered by identity),
    so the time is that of the distinct objects, however large the unfolded
    tree.  A container that contains itself raises ValueError.
    """
    sizes: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(obj, False)]
    while stack:
        node, closing = stack.pop()
        key = id(node)
        if closing:
            total = 1
            for child in node:
                total += sizes.get(id(child), 1) if isinstance(child, _CONTAINERS) else 1
            if total > limit:
                raise OverflowError(f"a state unfolds to more than {limit:,} nodes (shared structure counted "
                                    "where it occurs)")
            sizes[key] = total
            open_.discard(key)
            continue
        if not isinstance(node, _CONTAINERS) or key in sizes:
            continue
        if key in open_:
            raise ValueError("a state contains itself")
        open_.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in node if isinstance(child, _CONTAINERS) and id(child) not in sizes)
    return sizes.get(id(obj), 1)


class _StateUnpickler(pickle.Unpickler):
    def __init__(self, file: BinaryIO, modules: frozenset[str]) -> None:
        super().__init__(file)
        self.modules = modules

    def find_class(self, module: str, name: str) -> Any:
        own = CHECKER_CLASSES.get((module, name))
        if own is not None:
            return own
        if module not in self.modules or module not in sys.modules:
            raise pickle.UnpicklingError(f"refused to load {module}.{name}: not a state class of this spec")
        obj = sys.modules[module]
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if not (isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields")):
            raise pickle.UnpicklingError(f"refused to load {module}.{name}: not a NamedTuple state class")
        return obj

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused a persistent reference")


def load_states(file: BinaryIO, modules: Iterable[str], expected: int) -> list:
    """The states of a stream of pickled lists (written by :func:`dump_states`), ``expected`` of them in all."""
    allowed = frozenset(modules)
    out: list = []
    while True:
        start = file.tell()
        try:
            chunk = _StateUnpickler(file, allowed).load()
            unfolded_size(chunk, max(MIN_NODES, NODES_PER_BYTE * (file.tell() - start)))
        except EOFError:
            break
        except (pickle.UnpicklingError, ValueError, TypeError, IndexError, KeyError, AttributeError,
                OverflowError, MemoryError, RecursionError, UnicodeDecodeError) as exc:
            raise CheckpointError(f"the checkpoint's states cannot be read: {type(exc).__name__}: {exc}") from None
        if type(chunk) is not list:
            raise CheckpointError("the checkpoint's states are not stored as lists of states")
        out.extend(chunk)
        if len(out) > expected:
            break
    if len(out) != expected:
        raise CheckpointError(f"the checkpoint holds {len(out)} frontier states where its manifest says {expected}")
    return out


def dump_states(file: BinaryIO, states: Iterable[Any], chunk: int = 10_000) -> int:
    """Pickle ``states`` to ``file`` as lists of at most ``chunk``; returns how many were written."""
    buf: list = []
    count = 0
    for s in states:
        buf.append(s)
        if len(buf) >= chunk:
            pickle.dump(buf, file, protocol=pickle.HIGHEST_PROTOCOL)
            count += len(buf)
            buf = []
    if buf or count == 0:
        pickle.dump(buf, file, protocol=pickle.HIGHEST_PROTOCOL)
        count += len(buf)
    return count


def loads_states(data: bytes, modules: Iterable[str], expected: int) -> list:
    """:func:`load_states` from bytes."""
    return load_states(io.BytesIO(data), modules, expected)
