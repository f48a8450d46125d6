"""How a state splits into components: the leaves of its records and of its fixed-length tuples.

The layout is read off the initial states: a record (a NamedTuple) is split
into its fields, a plain tuple into its items when every initial state has it
at the same non-zero length; anything else (an int, a frozenset, a tuple
that grows, like a log) is one component.  A successor whose shape differs
(a split tuple that changed length, a record of another class) raises
:class:`LayoutMismatch` naming the path, and the search starts again with
that path as one component: a spec never runs wrong for a shape guessed from
its first states, at worst it is split more coarsely.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from modelcheck.memo import assemble, traced
from modelcheck.memo.traced import Traced, component_of

Leaf = int  # the component index
Node = Any  # Leaf | ("record", cls, children) | ("tuple", children)


MAX_FINGERPRINT_NODES = 256
"""Records and tuples a layout may split: the C loop keeps a state's node fingerprints on its stack."""


class LayoutTooLarge(Exception):
    """A state splits into more records and tuples than :data:`MAX_FINGERPRINT_NODES`."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.nodes = nodes


class LayoutMismatch(Exception):
    """A state does not have the shape the layout assumed at ``path``."""

    def __init__(self, path: tuple) -> None:
        super().__init__(path)
        self.path = path


class Layout:
    """The split of one state type, with the conversions between states and rows of component ids.

    The conversions the search makes on every learning step (a traced state
    from a row, a successor's entry) are generated as straight-line Python
    for this layout: the recursive walks cost ten times as much.  Where the
    compiled modules are built, a traced state is built in C instead
    (:mod:`modelcheck.memo.assemble`, the same objects), and a successor's
    entries are written by :class:`~modelcheck.memo.traced.SuccessorEntries`
    (the same entries).
    """

    def __init__(self, root: Node, width: int, paths: list[tuple]) -> None:
        self.root = root
        self.width = width
        self.paths = paths  # component index -> path (field names and item indices)
        self.traced_state, self.entry_of, self.child_entry_of = _generate(root)
        if assemble.COMPILED:
            self.traced_state = assemble.Assembler(assemble.shape_of(root))
        if traced.COMPILED:
            self.child_entry_of = traced.SuccessorEntries(traced.entries_shape(root), self.child_entry_of)

    def describe(self) -> str:
        return ", ".join(".".join(str(p) for p in path) or "state" for path in self.paths)

    def fingerprint_program(self, view: Node | None = None) -> np.ndarray:
        """The records and tuples this layout splits, in post-order, for the C loop's row fingerprints.

        With ``view`` (a node of this layout's parts and tuples of them, from
        :func:`modelcheck.memo.view.projection`), the program is the view's:
        its last node is the view, and a component the view leaves out
        belongs to no node (``comp_node`` -1), so a step that changes only
        such components keeps its parent's fingerprint.

        A state's fingerprint is the tuple fingerprint of its items, each a
        part's own (:mod:`modelcheck.model.fingerprint`), so a row's is
        computed node by node from its components' values' fingerprints.
        int32: ``n``, then ``start[0 .. n]`` (node ``j``'s items are
        ``kids[start[j]:start[j + 1]]``), ``up[0 .. n-1]`` (the node holding
        node ``j``, -1 for the state itself, which is last),
        ``comp_node[0 .. width-1]`` (the node holding component ``k``; -1
        where the state is one component), then ``kids`` (``k >= 0`` a
        component, ``~j`` a node; with no node, the one component whose
        fingerprint is the state's).
        """
        start: list[int] = []
        kids: list[list[int]] = []
        up: list[int] = []
        comp_node = [-1] * self.width

        def walk(node: Node) -> int:
            """The kid code of ``node``; inner nodes are numbered after their items (post-order)."""
            if type(node) is int:
                return node
            items = [walk(child) for child in node[-1]]
            j = len(kids)
            kids.append(items)
            up.append(-1)
            for c in items:
                if c >= 0:
                    comp_node[c] = j
                else:
                    up[~c] = j
            return ~j

        top = walk(self.root if view is None else view)
        flat: list[int] = []
        for items in kids:
            start.append(len(flat))
            flat.extend(items)
        start.append(len(flat))
        if top >= 0:  # the state (or the view) is one component: no node, and kids holds that component
            flat.append(top)
        if len(kids) > MAX_FINGERPRINT_NODES:
            raise LayoutTooLarge(len(kids))
        return np.array([len(kids)] + start + up + comp_node + flat, np.int32)

    def row(self, s: Any, intern: Callable[[Any], int]) -> tuple:
        """The component ids of a state (:class:`LayoutMismatch` if its shape differs)."""
        out: list[int] = []
        self.entry_of(s, out, intern)  # a plain state holds no traced part: every component is its value's id
        return tuple(out)

    def state(self, row: tuple, values: list) -> Any:
        """The state of a row (a tuple of ids): the traced state's assembly, each component its plain value."""
        return self.traced_state(row, [values] * self.width)


def derive_layout(samples: list, whole: frozenset = frozenset()) -> Layout:
    """The finest split of ``samples`` (states of one type); paths in ``whole`` are kept as one component."""
    paths: list[tuple] = []

    def split(vals: list, path: tuple) -> Node:
        t = type(vals[0])
        if path not in whole and all(type(v) is t for v in vals):
            if t is not tuple and issubclass(t, tuple) and hasattr(t, "_fields") and t.__new__ is not None:
                if all(len(v) == len(t._fields) for v in vals):
                    return ("record", t, [split([v[i] for v in vals], path + (f,))
                                          for i, f in enumerate(t._fields)])
            if t is tuple and vals[0] and all(len(v) == len(vals[0]) for v in vals):
                return ("tuple", [split([v[i] for v in vals], path + (i,)) for i in range(len(vals[0]))])
        paths.append(path)
        return len(paths) - 1

    root = split(list(samples), ())
    return Layout(root, len(paths), paths)


def _generate(root: Node) -> tuple[Callable, Callable, Callable]:
    """``traced_state(row, T)``, ``entry_of(t, out, intern)`` and ``child_entry_of(t, out, intern, s)`` for
    this layout, as generated code.

    ``traced_state`` builds the state of ``row`` with each component ``k`` the
    :class:`Traced` ``T[k][row[k]]``.  ``entry_of`` appends, per component of
    the successor ``t``, ``~k`` where ``t`` holds component ``k`` of the
    parent as it was (a :class:`Traced`), else the id of its value; it
    raises :class:`LayoutMismatch` where ``t``'s shape differs.
    ``child_entry_of`` gives the same for a successor of the traced state
    ``s``, faster: a part of ``t`` that is the very object of ``s`` at the
    same place (a record or tuple the action did not rebuild) is all ``~k``
    at once, where the plain walk visits each component.
    """
    env: dict[str, Any] = {"_new": tuple.__new__, "Traced": Traced, "Mismatch": LayoutMismatch,
                           "_k": component_of}
    classes: list[type] = []

    def cls_name(c: type) -> str:
        if c not in classes:
            classes.append(c)
            env[f"C{len(classes) - 1}"] = c
        return f"C{classes.index(c)}"

    def build(node: Node) -> str:
        if type(node) is int:
            return f"T[{node}][r[{node}]]"
        if node[0] == "record":
            return f"_new({cls_name(node[1])}, ({''.join(build(c) + ', ' for c in node[2])}))"
        return f"({''.join(build(c) + ', ' for c in node[1])})"

    lines: list[str] = []
    counter = [0]

    def leaves(node: Node) -> list[int]:
        if type(node) is int:
            return [node]
        return [k for c in node[-1] for k in leaves(c)]

    def entry(node: Node, var: str, parent: str | None, path: tuple, indent: str) -> None:
        """Lines for ``var`` (a part of the successor at ``path``); ``parent`` names the traced parent's part
        there, if any: where the successor holds that very object, every component below is the parent's."""
        if type(node) is int:
            lines.append(f"{indent}out.append(~_k({var}) if type({var}) is Traced else intern({var}))")
            return
        if parent is not None:
            env[f"R{counter[0]}"] = tuple(~k for k in leaves(node))
            lines.append(f"{indent}if {var} is {parent}: out.extend(R{counter[0]})")
            lines.append(f"{indent}else:")
            indent += "    "
        if node[0] == "record":
            cls, children = node[1], node[2]
            lines.append(f"{indent}if type({var}) is not {cls_name(cls)}: raise Mismatch({path!r})")
            names = [(child, path + (cls._fields[i],)) for i, child in enumerate(children)]
        else:
            children = node[1]
            lines.append(f"{indent}if type({var}) is not tuple or len({var}) != {len(children)}: "
                         f"raise Mismatch({path!r})")
            names = [(child, path + (i,)) for i, child in enumerate(children)]
        for i, (child, p) in enumerate(names):
            counter[0] += 1
            v = f"x{counter[0]}"
            lines.append(f"{indent}{v} = {var}[{i}]")
            q = None
            if parent is not None and type(child) is not int:
                q = f"p{counter[0]}"
                lines.append(f"{indent}{q} = {parent}[{i}]")
            entry(child, v, q, p, indent)

    entry(root, "t", None, (), "    ")
    plain = "\n".join(lines)
    lines.clear()
    counter[0] = 0
    entry(root, "t", "s", (), "    ")
    source = (f"def traced_state(r, T):\n    return {build(root)}\n\n"
              "def entry_of(t, out, intern):\n" + plain + "\n\n"
              "def child_entry_of(t, out, intern, s):\n" + "\n".join(lines) + "\n")
    exec(compile(source, "<modelcheck.memo layout>", "exec"), env)  # noqa: S102 - generated from the layout
    return env["traced_state"], env["entry_of"], env["child_entry_of"]
