"""TLC's VIEW on the memo tables, when the view is a projection of the state's parts.

A view (``Spec(fingerprint_view=...)``) is what is fingerprinted and
compared for "seen".  Most views leave out auxiliary variables: they return
a tuple of some of the state's fields, as TLC's ``VIEW << vars1, vars2 >>``
does.  Such a view's fingerprint is computed from a row like the state's
own: the tuple fingerprint of the parts it keeps, so the C loop needs only
a different fingerprint program (:meth:`~modelcheck.memo.layout.Layout.fingerprint_program`).

:func:`projection` finds that program's shape by evaluating the view once on
a traced state.  Why one evaluation is enough: if the view used none of the
components (the trace log stays empty) and returned only parts of the
state, unchanged, or tuples of them, then its run depended on no value at
all, so on every state it returns the same parts in the same places (the
argument of :mod:`modelcheck.memo.tries`, with an empty path).  A view that
uses a value, computes a new one, or keeps a part twice is not a projection:
the tables stand aside for it with that reason.
"""

from __future__ import annotations

from typing import Any, Callable

from modelcheck.memo.layout import Layout, Node
from modelcheck.memo.traced import Traced, component_of


class NotAProjection(Exception):
    """The view is not a tuple of the state's parts (the message says what it does instead)."""


def projection(layout: Layout, view: Callable[[Any], Any], traced_state: Any, log: list) -> Node:
    """The layout node (components, the layout's own records and tuples, and tuples of them) the view returns.

    ``traced_state`` is a state assembled from :class:`Traced` components
    (:meth:`Layout.traced_state`), ``log`` the list they log their uses to.
    """
    parts: dict[int, Node] = {}

    def index(obj: Any, node: Node) -> None:
        if type(node) is int:
            return
        parts[id(obj)] = node
        for child, sub in zip(obj, node[-1]):
            index(child, sub)

    index(traced_state, layout.root)
    log.clear()
    result = view(traced_state)
    if log:
        raise NotAProjection(f"it uses the value of {'.'.join(map(str, layout.paths[log[0]])) or 'the state'}")
    seen: set[int] = set()

    def node_of(v: Any) -> Node:
        if type(v) is Traced:
            node: Node = component_of(v)
        elif id(v) in parts:
            node = parts[id(v)]
        elif isinstance(v, tuple) and (type(v) is tuple or hasattr(v, "_fields")):
            return ("tuple", [node_of(x) for x in v])  # a NamedTuple's fingerprint is its items' tuple's
        else:
            raise NotAProjection(f"it builds a {type(v).__name__} of its own")
        for k in _components(node):
            if k in seen:
                raise NotAProjection(f"it keeps {'.'.join(map(str, layout.paths[k])) or 'the state'} twice")
            seen.add(k)
        return node

    return node_of(result)


def _components(node: Node) -> list[int]:
    if type(node) is int:
        return [node]
    return [k for child in node[-1] for k in _components(child)]
