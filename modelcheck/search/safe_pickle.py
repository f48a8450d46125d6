"""Reading pickled states without letting the data run code.

A checkpoint's frontier is a list of states: trees of ints, bools, floats,
tuples, frozensets and the spec's own NamedTuple classes.  Pickle can encode
far more than that, including calls of any importable function, which is
what makes loading a crafted pickle run code.  :func:`load_states` admits
only what a state may contain: every class a pickle names must be a
NamedTuple class of one of the spec's own modules, already imported (nothing
is imported on the data's behalf), and every other object must be built by
pickle's own opcodes for tuples, frozensets, lists and numbers.
"""

from __future__ import annotations

import io
import pickle
import sys
from typing import Any, BinaryIO, Iterable

from modelcheck.errors import CheckpointError


class _StateUnpickler(pickle.Unpickler):
    def __init__(self, file: BinaryIO, modules: frozenset[str]) -> None:
        super().__init__(file)
        self.modules = modules

    def find_class(self, module: str, name: str) -> Any:
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
        try:
            chunk = _StateUnpickler(file, allowed).load()
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
