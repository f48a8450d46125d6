"""Pickling states for the shuffle, without a Python call per record.

Spec states are trees of NamedTuples.  Pickle reduces each NamedTuple through
``object.__reduce_ex__``, which calls the class's ``__getnewargs__``, a
Python function, once per record: a large share of the Python workers' CPU
on Spark, where pickling the candidates is most of the work.  A pickler
whose dispatch table maps each plain NamedTuple class to :func:`_namedtuple_reduce`
(compiled by ``modelcheck compile``) gives the same reduction without that
call, and so the same bytes, about a third faster (docs/benchmarks.md).
Every other class keeps its own
reduction, looked up as pickle itself would.
"""

# modelcheck: compile

from __future__ import annotations

import collections
import copyreg
import io
import pickle
from typing import Any, Callable

PROTOCOL = pickle.HIGHEST_PROTOCOL

_NAMEDTUPLE_GETNEWARGS = collections.namedtuple("_Probe", "a").__getnewargs__.__code__
"""The code of every ``collections.namedtuple`` class's ``__getnewargs__`` (``return tuple(self)``)."""

_newobj = copyreg.__newobj__


def _namedtuple_reduce(obj: Any) -> tuple:
    """What ``object.__reduce_ex__`` returns for a plain NamedTuple, less its trailing Nones."""
    return (_newobj, (type(obj), *obj))


def _own_reduce(obj: Any) -> Any:
    """What pickle does for a class with no dispatch entry: the object's own ``__reduce_ex__``."""
    return obj.__reduce_ex__(PROTOCOL)


def is_plain_namedtuple(cls: Any) -> bool:
    """A ``collections.namedtuple`` (or ``typing.NamedTuple``) class that changes nothing about pickling.

    ``cls`` is annotated ``Any``: compiled, an argument annotated ``type`` accepts
    exactly ``type``, and the class of an Enum member has a metaclass of its own.
    """
    getnewargs = getattr(cls, "__getnewargs__", None)
    return (issubclass(cls, tuple)
            and getattr(getnewargs, "__code__", None) is _NAMEDTUPLE_GETNEWARGS
            and cls.__reduce_ex__ is object.__reduce_ex__
            and cls.__reduce__ is object.__reduce__
            and getattr(cls, "__getstate__", object.__getstate__) is object.__getstate__)


class _Reducers(dict):
    """A pickler's dispatch table, filled per class on first sight (pickle consults it only for
    objects of classes it has no opcode for, so ints, tuples, bytes never reach it)."""

    def __missing__(self, cls: Any) -> Callable[[Any], Any]:
        if issubclass(cls, type):
            # A class whose metaclass is not ``type`` (an Enum class, say): pickle saves it by name
            # when its dispatch table has no entry, before it would look for a reduction.
            raise KeyError(cls)
        if cls in copyreg.dispatch_table:
            reduce = copyreg.dispatch_table[cls]
        elif is_plain_namedtuple(cls):
            reduce = _namedtuple_reduce
        else:
            reduce = _own_reduce
        self[cls] = reduce
        return reduce


class StatePickler:
    """``dumps`` for states; one per process (its table only grows, with classes, never with states)."""

    def __init__(self) -> None:
        self._reducers = _Reducers()

    def dumps(self, obj: Any) -> bytes:
        buf = io.BytesIO()
        pickler = pickle.Pickler(buf, protocol=PROTOCOL)
        pickler.dispatch_table = self._reducers
        pickler.dump(obj)
        return buf.getvalue()
