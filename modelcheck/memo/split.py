"""Functions split so that each part has a decision tree of its own: an action into its guard and its
effect, a symmetry signature into the items of the tuple it returns.

Why: a tree has a leaf per combination of the values its function read,
so an action that reads a component only to decide whether it is enabled
(AsyncIsr's ``LeaderRequestExpandIsr`` reads every replica's offset for the
high watermark, then builds its request from the ISR and the pending
requests) multiplies the two sets of values: 1.37 million leaves on
AsyncIsr with four replicas, near one for every second state.  Split, the
guard's tree reads the offsets and the effect's tree reads the requests,
and their leaves add up instead.

What is split: an action whose body begins with assignments and
``if <condition>: return None`` statements, the guards.  The guard function
is that beginning, each ``return None`` made ``return False``, then
``return True``; the effect is the whole body without the guard
statements.  Why that is exact for a pure function: when the guard returns
True every guard condition was evaluated, without raising, to false, so
the action's own run is the effect's run plus the evaluation of those
conditions, which assign nothing (a condition holding ``:=`` is not split)
and change nothing; so the action returns the effect's result when its
guard holds, and None when it does not.

Where the spec module runs compiled, ``modelcheck compile`` has appended
the two functions to the module it builds (:func:`built_source`), so they
run compiled like the rest of the spec; otherwise they are compiled here
from the action's source, with its module's globals, and run interpreted.
An action whose source cannot be read, that is a closure, a method or a
nested function (Python renames a private name such as ``__lim`` where the
``def`` stands, inside a class, and nowhere else), a wrapper of the function
its name defines (a decorator's), or one of two module-level ``def``s of
one name, or whose body has no such beginning, is not split (its one tree
is exact too), nor is one where a part would see a name in another scope
than the whole function does (a guard reading a name the action assigns
further down would read the module's name, where the action raises
UnboundLocalError).  Assignments in the beginning are kept only while they are reads of
parts (``ls = s.leader_state``, ``rs = s.replica_state[leader]``): an
assignment that calls a function ends the beginning, so that the guard and
the effect do not both repeat a computation.

A signature (:class:`modelcheck.Symmetry`) is a key per interchangeable
value, most often a tuple of that value's facts, each read from its own
components (Kip320's: the replica's log, its high watermark, whether it
leads, whether it is in the ISR ...).  As one function its tree has a leaf
per combination of everything those facts read; split into one function
per item (:func:`split_items`), the leaves add up, and sorting by the
items' ranks one after the other is sorting by the tuple, which Python
compares item by item.  What is split: a body of reads of parts (as
above) then ``return (item, item, ...)``, a tuple display without
``*``.  Why that is exact: each item function runs the same reads, then
evaluates its one item as the whole function does, and no item can change
what another sees: an item may call only builtins that run no code of the
spec's but the dunders the review has read (``len``, ``abs``, ``min`` and
the like, without ``key=``), and may not assign (``:=``).  Were an item to
raise, the whole function raises too, and the run stops on the same error
(the trees walk every item of every value).
"""

from __future__ import annotations

import ast
import builtins
import copy
import symtable
from typing import Any, Callable

from modelcheck.memo.source import definition_of, source_end


BUILT = ("_mc_split_guard_", "_mc_split_effect_")

MAX_ITEMS = 16
"""The most items a signature is split into (the C loop compares keys of at most this many ranks)."""

_ITEM_BUILTINS = frozenset({"len", "abs", "bool", "int", "tuple", "frozenset", "sum", "min", "max", "any",
                            "all", "sorted"})
"""Builtins an item of a split signature may call: none runs code but the dunders of the values it is given."""
"""The names, before the action's, of the guard and effect :func:`built_source` appends to a compiled module."""


def split_guard(fn: Callable) -> tuple[Callable, Callable] | None:
    """``(guard, effect)`` for an action function, as described above, or None if it is not split."""
    if getattr(fn, "__closure__", None) or not isinstance(getattr(fn, "__globals__", None), dict):
        return None
    node = definition_of(fn)
    if not isinstance(node, ast.FunctionDef) or not _is_that_def(fn, node) \
            or getattr(fn, "__qualname__", None) != node.name:
        return None  # a method or a nested function: its private names (``__lim``) are renamed where it stands
    bodies = split_bodies(node)
    if bodies is None:
        return None
    built = _built(fn, node)
    if built is not None:
        return built
    try:
        return _compiled(fn, node, bodies[0], "guard"), _compiled(fn, node, bodies[1], "effect")
    except (SyntaxError, TypeError, ValueError):
        return None


def split_items(fn: Callable) -> list[Callable] | None:
    """One function per item of the tuple a signature returns, as described above, or None if it is not
    split."""
    if getattr(fn, "__closure__", None) or not isinstance(getattr(fn, "__globals__", None), dict):
        return None
    node = definition_of(fn)
    if not isinstance(node, ast.FunctionDef) or not _is_that_def(fn, node) \
            or getattr(fn, "__qualname__", None) != node.name or node.args.vararg or node.args.kwarg:
        return None
    body = node.body
    start = 1 if body and _is_docstring(body[0]) else 0
    prefix, last = body[start:-1], body[-1] if body else None
    if not isinstance(last, ast.Return) or not isinstance(last.value, ast.Tuple) \
            or not all(_is_part_read(stmt) for stmt in prefix):
        return None
    items = last.value.elts
    local = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    local |= {stmt.targets[0].id for stmt in prefix}
    if not 2 <= len(items) <= MAX_ITEMS or not all(_is_plain_item(x, local, fn.__globals__) for x in items) \
            or not _same_scopes(node, [[*prefix, ast.Return(x)] for x in items]):
        return None
    try:
        return [_compiled(fn, node, [*prefix, ast.Return(x)], f"item{i}") for i, x in enumerate(items)]
    except (SyntaxError, TypeError, ValueError):
        return None


def _is_plain_item(item: ast.expr, local: set[str], module: dict) -> bool:
    """Whether an item runs no code that another item could see: no ``*``, ``:=``, ``await`` or ``yield``,
    and no call but of a builtin of :data:`_ITEM_BUILTINS`, by its own name, without keywords."""
    local = local | {n.id for n in ast.walk(item) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for n in ast.walk(item):
        if isinstance(n, (ast.Starred, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            if not isinstance(f, ast.Name) or f.id not in _ITEM_BUILTINS or f.id in local or n.keywords \
                    or module.get(f.id, getattr(builtins, f.id)) is not getattr(builtins, f.id) \
                    or any(isinstance(a, ast.Starred) for a in n.args):
                return False
    return True


def _built(fn: Callable, node: ast.FunctionDef) -> tuple[Callable, Callable] | None:
    """The guard and effect ``modelcheck compile`` appended to ``fn``'s module, if it runs compiled.

    They are taken only when defined past the last line of the module's
    ``.py``: only appended code is there, so a function of the spec's own
    that happens to bear such a name is never taken for them.
    """
    built = [fn.__globals__.get(prefix + node.name) for prefix in BUILT]
    end = source_end(fn)
    if end is None or not all(callable(f) for f in built):
        return None
    if any(getattr(getattr(f, "__code__", None), "co_firstlineno", 0) <= end for f in built):
        return None
    return built[0], built[1]


def split_bodies(node: ast.FunctionDef) -> tuple[list, list] | None:
    """The guard's and the effect's bodies for an action's ``def``, or None if it is not split."""
    if node.args.vararg or node.args.kwarg:
        return None
    body = node.body
    start = 1 if body and _is_docstring(body[0]) else 0
    last_guard = None
    for i in range(start, len(body)):
        stmt = body[i]
        if _is_guard(stmt):
            last_guard = i
        elif not _is_part_read(stmt):
            break
    if last_guard is None:
        return None
    guard_body = [_as_false(s) if _is_guard(s) else s for s in body[start:last_guard + 1]]
    guard_body.append(ast.Return(ast.Constant(True)))
    effect_body = [s for i, s in enumerate(body) if i < start or i > last_guard or not _is_guard(s)]
    if not _same_scopes(node, [guard_body, effect_body]):
        return None
    return guard_body, effect_body


def _same_scopes(node: ast.FunctionDef, bodies: list[list]) -> bool:
    """Whether every name each body uses is local or global in its own function exactly as in ``node``'s.

    A name the whole function assigns anywhere is local throughout it: read
    before that assignment it raises UnboundLocalError.  A guard without the
    assignment would read the module's name of that spelling instead.
    """
    def scopes(fn: ast.FunctionDef) -> dict[str, bool] | None:
        try:
            source = ast.unparse(ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[])))
            table = symtable.symtable(source, "<split>", "exec").get_children()[0]
        except (SyntaxError, ValueError, TypeError, AttributeError, IndexError):
            return None
        return {sym.get_name(): sym.is_local() for sym in table.get_symbols()}

    whole = scopes(_def_like(node, node.name, node.body))
    if whole is None:
        return False
    for body in bodies:
        part = scopes(_def_like(node, node.name, body))
        if part is None or any(whole.get(name, local) != local for name, local in part.items()):
            return False
    return True


def built_source(tree: ast.Module) -> list[str]:
    """The guard and effect of every module-level function of ``tree`` that splits, each as source to append
    to the module (named by :data:`BUILT`); none if one cannot be written.

    ``modelcheck compile`` appends it to each spec module it builds, so that
    the split functions run compiled; the record rewrite then applies to
    them as to the rest of the module (the parameters keep their
    annotations, which suggest record types to it; compiled specs do not
    type by annotations).  The build is keyed by this module's source too,
    so the functions appended are always those :func:`split_guard` derives.
    """
    out = []
    defs = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    twice = {name for name in {d.name for d in defs} if sum(d.name == name for d in defs) > 1}
    for node in defs:
        if node.name in twice:
            continue  # the appended functions are found by name: they must come from the one ``def`` of it
        bodies = split_bodies(node)
        if bodies is None:
            continue
        for prefix, body in zip(BUILT, bodies):
            try:
                out.append(ast.unparse(ast.fix_missing_locations(_def_like(node, prefix + node.name, body))))
            except (TypeError, ValueError, AttributeError):
                return []
    return out


def _is_that_def(fn: Callable, node: ast.FunctionDef) -> bool:
    """Whether ``fn`` is the function ``node`` defines, not a wrapper that took its name (``functools.wraps``)."""
    code = getattr(fn, "__code__", None)
    if code is None or hasattr(fn, "__wrapped__") or code.co_name != node.name:
        return False
    return code.co_firstlineno in {node.lineno, *(d.lineno for d in node.decorator_list)}


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_guard(stmt: ast.stmt) -> bool:
    """``if <condition>: return None`` (or a bare ``return``), no ``else``, no ``:=`` in the condition."""
    if not isinstance(stmt, ast.If) or stmt.orelse or len(stmt.body) != 1:
        return False
    ret = stmt.body[0]
    if not isinstance(ret, ast.Return) or not (ret.value is None or _is_none(ret.value)):
        return False
    return not any(isinstance(n, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom))
                   for n in ast.walk(stmt.test))


def _is_part_read(stmt: ast.stmt) -> bool:
    """``name = <a name, or attribute and subscript reads of one, with constant or name subscripts>``."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
        return False
    value = stmt.value
    while isinstance(value, (ast.Attribute, ast.Subscript)):
        if isinstance(value, ast.Subscript) and not isinstance(value.slice, (ast.Name, ast.Constant)):
            return False
        value = value.value
    return isinstance(value, ast.Name)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _as_false(stmt: ast.If) -> ast.If:
    out = copy.copy(stmt)
    out.body = [ast.Return(ast.Constant(False))]
    return out


def _def_like(node: ast.FunctionDef, name: str, body: list) -> ast.FunctionDef:
    """A shallow copy of ``node`` (its location and parameters) named ``name``, with this body, no decorators
    and no return annotation."""
    new = copy.copy(node)
    new.name = name
    new.body = list(body)
    new.decorator_list = []
    new.returns = None
    return new


def _compiled(fn: Callable, node: ast.FunctionDef, body: list, role: str) -> Callable:
    """A function of ``fn``'s parameters with this body, compiled in ``fn``'s module globals."""
    new = _def_like(node, f"{node.name}__{role}", body)
    # Shallow copies where this changes a node (the arguments lose their annotations); the statements are
    # shared with the spec's tree, which compiling leaves as it is (fix_missing_locations only fills the
    # locations of the nodes made here).  Deep copies of the trees took 0.04 s of every Kip320 run.
    args = new.args = copy.copy(node.args)
    for field in ("posonlyargs", "args", "kwonlyargs"):
        setattr(args, field, [copy.copy(a) for a in getattr(args, field)])
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        a.annotation = None
    module = ast.Module(body=[new], type_ignores=[])
    ast.fix_missing_locations(module)
    filename = getattr(getattr(fn, "__code__", None), "co_filename", None) or f"<{role} of {node.name}>"
    namespace: dict[str, Any] = {}
    exec(compile(module, filename, "exec"), fn.__globals__, namespace)  # noqa: S102 - the spec's own code, reordered
    out = namespace[new.name]
    out.__qualname__ = f"{getattr(fn, '__qualname__', node.name)}.<{role}>"
    return out
