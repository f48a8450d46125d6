"""Copies with a part replaced, for spec authors: ``replacer(State, "field", ...)`` and ``replace_at``.

``s._replace(x=1)`` builds a dict of keyword arguments, maps it over the
fields and calls ``_make``, and the Kafka specs call it millions of times per
check.  A replacer made once per field set does the same with one
tuple construction, about three times faster::

    with_log_and_state = replacer(KafkaState, "replica_log", "replica_state")
    t = with_log_and_state(s, new_logs, new_states)   # == s._replace(replica_log=..., replica_state=...)

The result is an instance of the same NamedTuple class, equal to what
``_replace`` returns, so fingerprints and traces do not change.
"""

from __future__ import annotations

from typing import Any, Callable


def replacer(cls: type, *fields: str) -> Callable[..., Any]:
    """A function ``(s, *values)`` returning ``s`` with ``fields`` set to ``values`` (in that order)."""
    names = cls._fields  # type: ignore[attr-defined]
    unknown = [f for f in fields if f not in names]
    if unknown or len(set(fields)) != len(fields) or not fields:
        raise ValueError(f"replacer({cls.__name__}, ...): fields must be distinct names of {names}, got {fields}")
    params = [f"v{i}" for i in range(len(fields))]
    items = [params[fields.index(n)] if n in fields else f"s[{i}]" for i, n in enumerate(names)]
    src = f"def replace(s, {', '.join(params)}):\n    return _new(_cls, ({', '.join(items)},))\n"
    scope: dict[str, Any] = {"_new": tuple.__new__, "_cls": cls, "__name__": __name__}  # the spec API's own
    exec(src, scope)  # noqa: S102 - generated from field names validated above
    fn = scope["replace"]
    fn.__name__ = f"replace_{'_'.join(fields)}"
    fn.__doc__ = f"``s._replace({', '.join(f + '=...' for f in fields)})``, faster."
    fn.replaces = (cls, tuple(fields))  # type: ignore[attr-defined]  # what the compiled specs check
    return fn


def replace_at(values: tuple, index: int, value: Any) -> tuple:
    """A copy of ``values`` with one element replaced (the TLA+ ``EXCEPT ![index] = value``).

    The compiled specs call a C equivalent (see :mod:`modelcheck.build.record_rewrite`),
    which builds the tuple once instead of going through a list.
    """
    copy = list(values)  # a third faster than joining two slices for a few replicas
    copy[index] = value
    return tuple(copy)
