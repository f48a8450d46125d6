"""Record reads and constructions by index in the compiled specs, behind exact type tests.

A spec reads its state by field name (``s.replica_state[leader].leader``) and
builds records by calling their classes (``ReplicaState(hw, epoch, leader,
isr)``) or a replacer (``with_replica_state(s, states)``).  Compiled by
Cython as written, each read is a generic attribute lookup through the
NamedTuple's descriptor, each construction runs the NamedTuple's generated
``__new__`` and each replacer its generated body, both Python functions,
interpreted.  A profile of Kip320 with three replicas put about a fifth of a
check in the reads and an eighth in the constructions and replacers
(docs/benchmarks.md).

``modelcheck compile`` hands Cython a rewritten copy of each spec module and
an augmenting ``.pxd`` (the ``.py`` on disk is untouched):

* ``x.field`` becomes ``_mc_get(x, i, <class slot>, "field")`` where ``x`` is
  suggested to be a record of a NamedTuple class: by an annotation (``s:
  KafkaState``), by a field annotation (``replica_state: tuple[ReplicaState,
  ...]``), by the one assignment of a local name, or by a loop over such a
  tuple (or over ``enumerate`` of one);
* ``x[k]`` on an expression suggested to be a tuple becomes ``_mc_item(x, k)``;
* ``Record(a, b)``, a module-level NamedTuple class called with all its fields
  positionally, becomes ``_mc_new_2(Record, <class>, a, b)``;
* ``with_x(s, v)``, a module-level ``replacer(Cls, "x")`` (here or in a
  sibling module, by name or as ``module.with_x``), becomes
  ``_mc_replace_1(with_x, <replacer>, <class>, size, positions, s, v)``, and
  ``x._replace(f=v)`` on a suggested record ``_mc_kwreplace_1(x, ...)``,
  and on a name whose class is not suggested (a message drawn from a set of
  several kinds) one such call per record class of the module that has
  those fields, each behind an exact type test, else the call as written;
* ``replace_at(t, i, v)`` of :mod:`modelcheck.spec.replace` becomes
  ``_mc_replace_at(replace_at, <replace_at>, t, i, v)``;
* ``helper(a, b)``, a call on one line of a plain module-level function of
  the same module (see :func:`_direct_helpers`), becomes ``(helper(a, b) if
  helper is _mc_H_helper else _mc_pyfn(helper)(a, b))``, with ``helper``
  declared ``cpdef`` in the ``.pxd``: Cython then calls it as a C function,
  with none of the Python call protocol (argument parsing, a vectorcall and
  a CyFunction dispatch: about 200 instructions a call, and Kip320's
  ``is_following_leader_epoch`` alone is called 11 million times in a
  check with three replicas).  ``_mc_H_helper`` is the function captured
  when the module has loaded, so a module attribute assigned afterwards
  (a monkeypatch) is called the Python way, as the readable spec would.
* ``@action(...) def f(c, s, a)``, a plain function under one decorator
  that the module never calls by name (see :func:`_entries`), is declared
  ``cpdef`` too, its decorator applied on the blank line after its body: an
  engine then calls it through the C pointer Cython exports
  (:func:`modelcheck.model.expander.c_entry`), with none of the Python call
  protocol (about 90 instructions a call; Kip320 with three replicas
  makes 51 action calls a state).
* ``m.field`` on a local name whose class is not suggested (a message drawn
  from a set of several kinds), where ``field`` is a field of a record class
  the module knows or a name annotated in one of its classes (an attrs
  class's field: ``c.Replicas``), becomes ``_mc_field(m, "field", site)``:
  a read answered from the tuple directly, or from the object's slot,
  while ``m``'s type is one the site has seen, and unchanged since, whose
  attribute is namedtuple's field getter or a slot's member descriptor
  (see ``FIELD_C``); anything else is a plain getattr.
* ``a | {x}`` becomes ``_mc_with(a, x)``: where ``a`` is a frozenset that
  already holds ``x`` and the union would copy ``a``'s table slot for slot,
  ``a`` itself, which iterates in the same order as the copy (see
  ``WITH_C``); anything else is the union as written.  Message-passing
  specs send a message already sent on a third of their steps (PaxosCommit),
  and each such send copied the whole set.
* ``tuple(g)``, ``list(g)`` and ``sorted(g)`` of a generator expression ``g``
  become the same call of the list comprehension of ``g``'s clauses
  (``tuple([...])``): these builtins take every item before doing anything
  with one, so the items, their order and the result are the same, and
  Cython compiles a comprehension as a loop in the function where a
  generator expression is an object made, resumed per item and freed (see
  :func:`_whole_consumed`).  The clauses must call nothing, and the function
  must have no ``try`` or ``with``: a comprehension does not turn a
  ``StopIteration`` raised inside it into a ``RuntimeError`` as a generator
  does, so one raised by an operand's special method would be reported as
  itself, the one difference, and only in the spec error's message.
* ``kr.name``, a read through the alias of another module of the compiled
  packages, becomes ``_mc_modattr(kr, "name", site)``: a module's getattr
  (about 230 instructions, 3.6 million of them in a Kip320 check) is
  answered from a per-site cache while that module's namespace dict keeps
  the version tag it had (any assignment to the module changes it).

* the guard and the effect of each action the memo tables split
  (:func:`modelcheck.memo.split.built_source`) are appended after the
  spec's last line, as module-level functions, and rewritten like the
  rest: where the spec runs compiled, so do they (interpreted, the tables'
  evaluations of Kip320 spent most of their time in one of them).

A suggestion is never trusted.  Each helper is a C function, inlined, that
takes its fast path only when the value's type *is* the class (or
``tuple``/``int``) exactly, and otherwise does what the original expression
does (``getattr``, ``x[k]``, ``Record(*args)``, ``with_x(s, v)``).  The
indices hold only for the field order the rewrite saw: code appended to the
module captures each class and replacer when the module loads, after
checking every class's ``_fields`` and every replacer's ``replaces``
against what the rewrite assumed, and captures None instead if anything
differs (say a spec module edited after its importer was built), which
turns every fast path off.  So the compiled spec computes exactly what the
readable one does, faster or not, with two fine points: NamedTuple forbids
redefining ``__new__`` in the class, and a program that assigns it
afterwards is out of scope; and for a value that is not the suggested
record, ``x._replace(f=v)`` looks ``_replace`` up after computing ``v``
rather than before, which differs only if both the lookup and ``v`` fail or
``v`` has side effects.

The helpers are written in C rather than as Cython functions because GCC
would not inline Cython's own (error bookkeeping makes them large), and a
call per field read costs about what the read saves.

Rewrites are spliced into the source text in place, a call spanning several
lines keeps them, and the capturing code comes after the last line, so the
line numbers Cython records are those of the spec.
"""

from __future__ import annotations

import ast
import hashlib
import os
from typing import Iterator, Mapping

import attrs

from modelcheck.memo.split import built_source
from modelcheck.model.expander import ENTRY_GUARD

LIBRARY = "modelcheck.spec.replace"
LIBRARY_HELPERS = ("replace_at",)
"""Spec helpers of :data:`LIBRARY` whose calls the rewrite turns into C (checked by identity at load)."""

MAX_AMONG = 8
"""The most record classes ``x._replace(f=v)`` is tried against when ``x``'s class is not suggested."""

PREFIX = "_mc_"
"""Names the rewrite introduces; a module already using any name with this prefix is left alone."""


CYTHON_DIRECTIVES = ("annotation_typing=False",)
"""Cython directives for every spec module (``modelcheck compile`` passes them).

Annotations in a spec are documentation, as in Python.  Typed by Cython,
``leader: int`` made every call of every action check and convert the
argument (and reject what the interpreted spec accepts), and a typed
signature would not match the ``cpdef`` declarations of direct helpers."""


@attrs.frozen
class RecordClass:
    """A ``class X(NamedTuple)`` as its source declares it: where, its fields in order, their annotations."""

    module: str
    name: str
    fields: tuple[str, ...]
    annotations: Mapping[str, ast.expr] = attrs.field(eq=False, hash=False)


@attrs.frozen
class Rewritten:
    """The rewritten source, its augmenting ``.pxd`` and what was rewritten (no counts: the source unchanged)."""

    source: str
    pxd: str
    depends_on: tuple[tuple[str, str], ...]
    """(module, sha256 of its source) for each other module whose records or replacers the rewrite used."""
    reads: int
    items: int
    constructions: int
    replacements: int
    direct_calls: int = 0
    module_reads: int = 0
    entries: int = 0
    """Decorated functions declared ``cpdef`` for callers in C (see :func:`_entries`)."""
    splits: int = 0
    """Guards and effects of split actions appended (:func:`modelcheck.memo.split.built_source`)."""
    field_reads: int = 0
    """``m.field`` reads of a name whose record class is not suggested, each site with its own cache."""
    set_additions: int = 0
    """``a | {x}`` unions that give ``a`` back where it holds ``x`` already (see ``WITH_C``)."""
    comprehensions: int = 0
    """Generator expressions taken whole by ``tuple``, ``list`` or ``sorted``, made list comprehensions."""

    @property
    def changed(self) -> bool:
        return bool(self.reads or self.items or self.constructions or self.replacements or self.direct_calls
                    or self.module_reads or self.entries or self.splits or self.field_reads
                    or self.set_additions or self.comprehensions)


# A suggested type: ("record", RecordClass) or ("tuple", element type or None).
Hint = tuple


def _is_namedtuple_base(base: ast.expr, typing_names: set[str]) -> bool:
    if isinstance(base, ast.Name):
        return base.id in typing_names
    return isinstance(base, ast.Attribute) and base.attr == "NamedTuple" and isinstance(
        base.value, ast.Name) and base.value.id == "typing"


def _module_bindings(tree: ast.Module) -> dict[str, int]:
    """How many times each name is bound in the module's scope (imports, defs, classes, assignments, globals)."""
    counts: dict[str, int] = {}
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        for name in _bound_names(node, nested=False):
            counts[name] = counts.get(name, 0) + 1
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            for inner in ast.walk(node):  # a `global` statement rebinds a module name from inside
                if isinstance(inner, ast.Global):
                    for name in inner.names:
                        counts[name] = counts.get(name, 0) + 1
        else:
            stack.extend(ast.iter_child_nodes(node))
    return counts


_NOT_DIRECT = (ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.GeneratorExp, ast.FunctionDef,
               ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal)
"""What a direct helper's body must not contain: Cython compiles it differently as ``cpdef`` (or not at all)."""

_INTROSPECTION = frozenset({"locals", "vars", "globals", "eval", "exec", "super"})


def _plain_params(node: ast.FunctionDef, once: set[str]) -> list[str] | None:
    """The parameter names of a module-level ``def`` Cython compiles the same as ``cpdef``, or None.

    Bound once, positional parameters only and no defaults, and a body with
    no generator, closure, nested function or class, ``global``/``nonlocal``
    or frame introspection.
    """
    a = node.args
    if (node.name not in once or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg or a.defaults
            or node.name.startswith(PREFIX)):
        return None
    for stmt in node.body:
        for n in ast.walk(stmt):
            if isinstance(n, _NOT_DIRECT) or (isinstance(n, ast.Name) and n.id in _INTROSPECTION):
                return None
    return [x.arg for x in a.args]


def _entries(tree: ast.Module, once: set[str], lines: list[str]) -> dict[str, tuple[list[str], ast.FunctionDef]]:
    """The module's decorated functions that an engine may call as C functions: name -> (parameters, def).

    The spec's actions (``@action(...)``): an engine calls each of them once
    per binding per state, and through the Python protocol that is a
    vectorcall, a CyFunction dispatch and argument parsing every time.
    Declared ``cpdef``, each is also exported as a C function in the
    module's ``__pyx_capi__``, which the expander calls directly
    (:func:`modelcheck.model.expander.c_entry`).

    Cython does not compile a decorated ``cpdef``, so the decorator is
    applied on the blank line after the body (the decorator lines become
    comments: no line moves), and ``_mc_A_<name>`` keeps the function only
    if the decorator returned it itself.  Qualifies: exactly one decorator,
    a plain function (:func:`_plain_params`), a blank line (or the end of
    the file) after it, and no call of it by name anywhere in the module,
    since Cython would make such a call a C call past the decorator.
    """
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    found: dict[str, tuple[list[str], ast.FunctionDef]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or len(node.decorator_list) != 1 or node.name in called:
            continue
        params = _plain_params(node, once)
        after = node.end_lineno  # type: ignore[attr-defined]  # the next line's index
        if params is not None and (after >= len(lines) or not lines[after].strip()):
            found[node.name] = (params, node)
    return found


def _apply_entry_decorators(text: str, entries: Mapping[str, tuple[list[str], ast.FunctionDef]]) -> str:
    """The decorator lines of each entry commented out, and the decorator applied on the line after it."""
    lines = text.split("\n")
    for name, (_params, node) in entries.items():
        deco = node.decorator_list[0]
        for i in range(deco.lineno - 1, deco.end_lineno):  # type: ignore[attr-defined]
            lines[i] = "# " + lines[i]
        guard = f"{ENTRY_GUARD}{name}"
        applied = (f"{guard} = {name}; {name} = ({ast.unparse(deco)})({name}); "
                   f"{guard} = {name} if {name} is {guard} else None")
        after = node.end_lineno  # type: ignore[attr-defined]
        if after < len(lines):
            lines[after] = applied
        else:
            lines.append(applied)
    return "\n".join(lines)


def _covered_helpers(tree: ast.Module, helpers: dict[str, list[str]]) -> dict[str, list[str]]:
    """The helpers whose every call by name is in a function body, where the rewrite can reach it.

    A helper is declared ``cpdef``, and Cython compiles *any* call of its
    name as a C call: a call the rewrite leaves as it is would skip a
    function assigned to the name later.  So each call in a function's body
    becomes either the guarded direct call or ``_mc_pyfn(helper)(...)`` (the
    Python way), and a helper also called elsewhere (at module level, in a
    class body, a default value, a decorator, an f-string) is left a plain
    ``def``.
    """
    reached = {id(node) for _fn, own in _functions(tree) for node in own}
    elsewhere = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id in helpers and id(n) not in reached}
    return {name: params for name, params in helpers.items() if name not in elsewhere}


def _direct_helpers(tree: ast.Module, once: set[str]) -> dict[str, list[str]]:
    """The module's functions that its own calls may reach as C functions: name -> parameter names.

    A plain ``def`` bound once at module level, without decorators, with
    positional parameters only and no defaults, whose body Cython compiles
    the same as ``cpdef``: no generator, closure, nested function or class,
    ``global``/``nonlocal`` or frame introspection.  A function that can
    reach itself through such calls is left out: C calls do not count
    towards the recursion limit, so an endless recursion would crash the
    process instead of raising RecursionError.
    """
    found: dict[str, list[str]] = {}
    calls: dict[str, set[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.decorator_list:
            continue
        params = _plain_params(node, once)
        if params is None:
            continue
        found[node.name] = params
        calls[node.name] = {n.func.id for stmt in node.body for n in ast.walk(stmt)
                            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}

    def on_cycle(start: str) -> bool:
        seen: set[str] = set()
        stack = [f for f in calls[start] if f in found]
        while stack:
            f = stack.pop()
            if f == start:
                return True
            if f not in seen:
                seen.add(f)
                stack.extend(g for g in calls[f] if g in found)
        return False

    return {name: params for name, params in found.items() if not on_cycle(name)}


@attrs.frozen
class Replacer:
    """A module-level ``name = replacer(Cls, "field", ...)`` (see :mod:`modelcheck.spec.replace`)."""

    module: str
    name: str
    cls: RecordClass
    fields: tuple[str, ...]

    @property
    def positions(self) -> int:
        """The fields' indices, six bits each in argument order: what the C helper takes."""
        return _positions(self.cls, self.fields)


@attrs.define
class ModuleScope:
    """What a module names at module level that the rewrite understands."""

    records: dict[str, RecordClass] = attrs.Factory(dict)
    replacers: dict[str, Replacer] = attrs.Factory(dict)
    modules: dict[str, str] = attrs.Factory(dict)
    """Local name -> a module of the compiled packages (``from modelcheck.specs import kafka_replication as kr``)."""
    library: dict[str, str] = attrs.Factory(dict)
    """Local name -> a helper of :mod:`modelcheck.spec.replace` the rewrite knows (``replace_at``)."""


class Registry:
    """The record classes and replacers each module of the compiled packages names, read from source.

    ``package_dirs`` maps a package (``modelcheck.specs``) to its directory;
    modules are parsed, never imported.  A module's scope holds its own
    NamedTuple classes and replacers, and those it imports by name from
    another module of those packages, each bound once at module level; a
    field annotation is resolved in the scope of the module that declares
    the class.
    """

    def __init__(self, package_dirs: Mapping[str, str]) -> None:
        self.package_dirs = dict(package_dirs)
        self._scopes: dict[str, ModuleScope] = {}
        self.read: dict[str, str] = {}
        """Module -> sha256 of the source read: what a build of the rewritten module depends on."""

    def path_of(self, module: str) -> str | None:
        pkg, _, leaf = module.rpartition(".")
        directory = self.package_dirs.get(pkg)
        return os.path.join(directory, leaf + ".py") if directory is not None else None

    def _parse(self, module: str) -> ast.Module | None:
        path = self.path_of(module)
        if path is None:
            return None
        try:
            with open(path, "rb") as f:
                data = f.read()
            tree = ast.parse(data.decode("utf-8"))
        except (OSError, ValueError, SyntaxError):
            return None
        self.read[module] = hashlib.sha256(data).hexdigest()
        return tree

    def scope(self, module: str, tree: ast.Module | None = None) -> ModuleScope:
        """What ``module`` names (parsed from ``tree`` if given, else from its file)."""
        if module in self._scopes:
            return self._scopes[module]
        out = self._scopes[module] = ModuleScope()  # an import cycle sees it partly filled, not a recursion
        tree = tree if tree is not None else self._parse(module)
        if tree is None:
            return out
        bound = _module_bindings(tree)
        once = {name for name, k in bound.items() if k == 1}
        typing_names = {(a.asname or a.name) for node in tree.body if isinstance(node, ast.ImportFrom)
                        and node.module == "typing" for a in node.names if a.name == "NamedTuple"}
        replacer_names = {(a.asname or a.name) for node in tree.body if isinstance(node, ast.ImportFrom)
                          and node.module == LIBRARY for a in node.names if a.name == "replacer"}
        out.library.update({(a.asname or a.name): a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                            and node.module == LIBRARY for a in node.names
                            if a.name in LIBRARY_HELPERS and (a.asname or a.name) in once})
        for node in tree.body:
            if (isinstance(node, ast.ClassDef) and node.name in once and not node.decorator_list
                    and len(node.bases) == 1 and not node.keywords
                    and _is_namedtuple_base(node.bases[0], typing_names)):
                fields = [(st.target.id, st.annotation) for st in node.body
                          if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)]
                out.records[node.name] = RecordClass(module, node.name, tuple(f for f, _ in fields), dict(fields))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module in self.package_dirs:  # from modelcheck.specs import kafka_replication as kr
                    for alias in node.names:
                        full = f"{node.module}.{alias.name}"
                        if (alias.asname or alias.name) in once and self.path_of(full) and os.path.isfile(
                                self.path_of(full) or ""):
                            out.modules[alias.asname or alias.name] = full
                if node.module.rpartition(".")[0] not in self.package_dirs:
                    continue
                theirs = self.scope(node.module)
                for alias in node.names:
                    local = alias.asname or alias.name
                    if local not in once:
                        continue
                    if alias.name in theirs.records:
                        out.records[local] = theirs.records[alias.name]
                    elif alias.name in theirs.replacers:
                        out.replacers[local] = theirs.replacers[alias.name]
                    elif alias.name in theirs.library:
                        out.library[local] = theirs.library[alias.name]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and alias.asname in once and self.path_of(alias.name) and os.path.isfile(
                            self.path_of(alias.name) or ""):
                        out.modules[alias.asname] = alias.name
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                  and node.targets[0].id in once and isinstance(node.value, ast.Call)
                  and isinstance(node.value.func, ast.Name) and node.value.func.id in replacer_names
                  and not node.value.keywords and node.value.args
                  and isinstance(node.value.args[0], ast.Name) and node.value.args[0].id in out.records):
                cls = out.records[node.value.args[0].id]
                fields = tuple(a.value for a in node.value.args[1:] if isinstance(a, ast.Constant))
                if (len(fields) == len(node.value.args) - 1 and all(f in cls.fields for f in fields)
                        and len(set(fields)) == len(fields) and 0 < len(fields) <= 10 and len(cls.fields) <= 64):
                    out.replacers[node.targets[0].id] = Replacer(module, node.targets[0].id, cls, fields)
        return out

    def resolve(self, annotation: ast.expr | None, module: str) -> Hint | None:
        """``KafkaState`` -> a record; ``tuple`` / ``tuple[X, ...]`` -> a tuple (of X); names as ``module`` sees them."""
        ann = annotation
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(ann, ast.Name):
            cls = self.scope(module).records.get(ann.id)
            if cls is not None:
                return ("record", cls)
            return ("tuple", None) if ann.id == "tuple" else None
        if (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id == "tuple"
                and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) == 2
                and isinstance(ann.slice.elts[1], ast.Constant) and ann.slice.elts[1].value is Ellipsis):
            return ("tuple", self.resolve(ann.slice.elts[0], module))
        return None


def _bound_names(node: ast.AST, nested: bool = True) -> Iterator[str]:
    """Names ``node`` binds in its own scope (and, with ``nested``, anywhere inside it)."""
    nodes = ast.walk(node) if nested else [node]
    for n in nodes:
        targets: list[ast.AST] = []
        if isinstance(n, ast.Assign):
            targets = list(n.targets)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
            targets = [n.target]
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in n.items if i.optional_vars is not None]
        elif isinstance(n, ast.ExceptHandler) and n.name:
            yield n.name
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield n.name
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                yield (a.asname or a.name).split(".")[0]
        elif isinstance(n, (ast.Global, ast.Nonlocal)) and nested:
            yield from n.names
        for t in targets:
            for m in ast.walk(t):
                if isinstance(m, ast.Name):
                    yield m.id


class _FunctionTypes:
    """The types suggested for one function's names and expressions."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, registry: Registry, module: str) -> None:
        self.registry = registry
        self.module = module
        self.scope = registry.scope(module)
        self.known = self.scope.records
        self.hints: dict[str, Hint] = {}
        assigned: dict[str, int] = {}
        for name in _bound_names(fn):
            assigned[name] = assigned.get(name, 0) + 1
        assigned[fn.name] = assigned.get(fn.name, 1) - 1  # the function's own name is bound outside it
        self.local_names = {n for n, k in assigned.items() if k > 0}
        a = fn.args
        for arg in a.posonlyargs + a.args + a.kwonlyargs:
            hint = registry.resolve(arg.annotation, module)
            self.local_names.add(arg.arg)
            if hint is not None and not assigned.get(arg.arg):
                self.hints[arg.arg] = hint
        for extra in (a.vararg, a.kwarg):
            if extra is not None:
                self.local_names.add(extra.arg)
        # Names bound once, in source order so that one hint can feed the next.
        binders = sorted((n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.For, ast.AnnAssign))),
                         key=lambda n: (n.lineno, n.col_offset))
        for node in binders:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name, hint = node.targets[0].id, self.type_of(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                name = node.target.id
                hint = registry.resolve(node.annotation, module) or self.type_of(node.value)
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                seq = self.type_of(node.iter)
                name, hint = node.target.id, (seq[1] if seq is not None and seq[0] == "tuple" else None)
            elif (isinstance(node, ast.For) and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2
                  and isinstance(node.target.elts[1], ast.Name) and isinstance(node.iter, ast.Call)
                  and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "enumerate"
                  and len(node.iter.args) == 1 and not node.iter.keywords):
                # ``for i, x in enumerate(seq)``: x is an item of seq (a suggestion, like every hint)
                seq = self.type_of(node.iter.args[0])
                name, hint = node.target.elts[1].id, (seq[1] if seq is not None and seq[0] == "tuple" else None)
            else:
                continue
            if hint is not None and assigned.get(name) == 1 and name not in self.hints:
                self.hints[name] = hint

    def type_of(self, expr: ast.expr) -> Hint | None:
        """The type suggested for ``expr``, or None."""
        if isinstance(expr, ast.Name):
            return self.hints.get(expr.id)
        if isinstance(expr, ast.Attribute):
            owner = self.type_of(expr.value)
            if owner is not None and owner[0] == "record":
                cls: RecordClass = owner[1]
                return self.registry.resolve(cls.annotations.get(expr.attr), cls.module)
            return None
        if isinstance(expr, ast.Subscript) and not isinstance(expr.slice, (ast.Slice, ast.Tuple)):
            seq = self.type_of(expr.value)
            return seq[1] if seq is not None and seq[0] == "tuple" else None
        if isinstance(expr, ast.IfExp):  # `x if c else None`: the one branch's type
            body, orelse = self.type_of(expr.body), self.type_of(expr.orelse)
            if _is_none(expr.orelse) or body == orelse:
                return body
            return orelse if _is_none(expr.body) else None
        built = self.constructed(expr)
        if built is not None:
            return ("record", built)
        replaced = self.replacer_called(expr)
        if replaced is not None:
            return ("record", replaced.cls)
        kw = self.kwreplace_called(expr)
        if kw is not None:
            return ("record", kw)
        return ("tuple", None) if self.library_called(expr) == "replace_at" else None

    def library_called(self, expr: ast.expr) -> str | None:
        """The :data:`LIBRARY_HELPERS` function ``expr`` calls with its three arguments (``replace_at(t, i, v)``)."""
        if not (isinstance(expr, ast.Call) and not expr.keywords and len(expr.args) == 3
                and not any(isinstance(a, ast.Starred) for a in expr.args)):
            return None
        f = expr.func
        if isinstance(f, ast.Name) and f.id not in self.local_names:
            return self.scope.library.get(f.id)
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id not in self.local_names
                and f.value.id in self.scope.modules):
            return self.registry.scope(self.scope.modules[f.value.id]).library.get(f.attr)
        return None

    def kwreplace_called(self, expr: ast.expr) -> RecordClass | None:
        """The record class when ``expr`` is ``x._replace(field=value, ...)`` on a suggested record ``x``."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "_replace"
                and not expr.args and expr.keywords and len(expr.keywords) <= 10):
            return None
        owner = self.type_of(expr.func.value)
        if owner is None or owner[0] != "record":
            return None
        cls: RecordClass = owner[1]
        names = [k.arg for k in expr.keywords]
        if any(n is None or n not in cls.fields for n in names) or len(cls.fields) > 64:
            return None
        return cls

    def kwreplace_among(self, expr: ast.expr) -> list[RecordClass] | None:
        """The module's record classes that have every field named, when ``expr`` is ``x._replace(field=value,
        ...)`` on a name ``x`` whose class is not suggested (a message taken from a set of several kinds),
        written on one line (each class gets a branch, so the values are written once per branch)."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "_replace"
                and isinstance(expr.func.value, ast.Name) and not expr.args and expr.keywords
                and len(expr.keywords) <= 10 and expr.lineno == expr.end_lineno):
            return None
        names = [k.arg for k in expr.keywords]
        if any(n is None for n in names) or self.type_of(expr.func.value) is not None:
            return None
        found = {cls for cls in self.known.values() if len(cls.fields) <= 64 and all(n in cls.fields for n in names)}
        if not 1 <= len(found) <= MAX_AMONG:
            return None
        return sorted(found, key=lambda c: (c.module, c.name))

    def replacer_called(self, expr: ast.expr) -> Replacer | None:
        """The replacer ``expr`` calls with a record and one value per field (``kr.with_x(s, v)``)."""
        if not (isinstance(expr, ast.Call) and not expr.keywords
                and not any(isinstance(a, ast.Starred) for a in expr.args)):
            return None
        f = expr.func
        found = None
        if isinstance(f, ast.Name) and f.id not in self.local_names:
            found = self.scope.replacers.get(f.id)
        elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id not in self.local_names
              and f.value.id in self.scope.modules):
            found = self.registry.scope(self.scope.modules[f.value.id]).replacers.get(f.attr)
        if found is not None and len(expr.args) == 1 + len(found.fields):
            return found
        return None

    def constructed(self, expr: ast.expr) -> RecordClass | None:
        """The record class ``expr`` builds when it calls one by its module-level name with every field."""
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in self.known
                and expr.func.id not in self.local_names and not expr.keywords
                and not any(isinstance(a, ast.Starred) for a in expr.args)
                and len(expr.args) == len(self.known[expr.func.id].fields)):
            return self.known[expr.func.id]
        return None


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _functions(tree: ast.AST) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[ast.AST]]]:
    """Each function with the nodes of its own body.

    Nested functions and classes are left to their own turn.  F-strings are
    left out: before Python 3.12 the positions of the expressions inside them
    are not reliable enough to splice.
    """
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            own: list[ast.AST] = []
            stack: list[ast.AST] = list(fn.body)
            while stack:
                node = stack.pop()
                own.append(node)
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.JoinedStr)):
                    stack.extend(ast.iter_child_nodes(node))
            yield fn, own


def _captured_name(table: dict, thing: object, name: str) -> str:
    """``thing``'s C variable in ``table``: ``name``, made unique among the table's names on first use."""
    if thing not in table:
        taken = set(table.values())
        while name in taken:
            name += "_"
        table[thing] = name
    return table[thing]


def _positions(cls: RecordClass, names: tuple) -> int:
    """The fields' indices in ``cls``, six bits each in the order given: what the C replace helpers take."""
    return sum(cls.fields.index(f) << (6 * k) for k, f in enumerate(names))


class _Splicer:
    """Turns the chosen expression nodes into helper calls, in the source text, line by line."""

    def __init__(self, source: str) -> None:
        self.data = source.encode("utf-8")
        self.starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.targets: dict[int, str] = {}  # id(node) -> what kind of rewrite
        self.types: dict[int, _FunctionTypes] = {}
        self.aliases: dict[RecordClass, str] = {}  # each class the helpers test for, by its C-level name
        self.replacers: dict[Replacer, str] = {}  # each replacer the helpers test for, likewise
        self.library: set[str] = set()  # the LIBRARY_HELPERS called
        self.arities: set[tuple[str, int]] = set()  # (helper, number of values): the C wrappers to emit
        self.kwreplaced: set[RecordClass] = set()  # classes whose ``_replace`` calls were rewritten
        self.direct: set[str] = set()  # the module's helpers called directly (declared cpdef)
        self.modattr_sites = 0  # ``module.name`` reads, each with its own cache
        self.field_sites = 0  # ``m.field`` reads of an unsuggested name, each with its own cache

    def alias(self, cls: RecordClass) -> str:
        """The module-level C variable the class is captured in when the module has loaded."""
        return _captured_name(self.aliases, cls, f"{PREFIX}T_{cls.name}")

    def replacer_alias(self, r: Replacer) -> str:
        """The C variable the replacer is captured in."""
        return _captured_name(self.replacers, r, f"{PREFIX}R_{r.name}")

    def span(self, node: ast.AST) -> tuple[int, int]:
        """``node``'s start and end as byte offsets into the source."""
        return (self.starts[node.lineno - 1] + node.col_offset,
                self.starts[node.end_lineno - 1] + node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        """``node``'s text with the rewrites inside it applied."""
        start, end = self.span(node)
        parts: list[str] = []
        pos = start
        for inner in sorted(self._outermost_inside(node), key=lambda n: self.span(n)[0]):
            a, b = self.span(inner)
            parts.append(self.data[pos:a].decode("utf-8"))
            parts.append(self.render(inner))
            pos = b
        parts.append(self.data[pos:end].decode("utf-8"))
        return "".join(parts)

    def _outermost_inside(self, node: ast.AST) -> Iterator[ast.AST]:
        for child in ast.iter_child_nodes(node):
            if id(child) in self.targets:
                yield child
            else:
                yield from self._outermost_inside(child)

    def render(self, node: ast.AST) -> str:
        """The helper call replacing a chosen node (its parts rewritten too), or its own text.

        A call spanning several lines keeps them: the newlines it lost are
        put back before its closing parenthesis, so the lines after it do
        not move.
        """
        kind = self.targets.get(id(node))
        if kind is None:
            return self.segment(node)
        text = self._call(node, kind)
        missing = node.end_lineno - node.lineno - text.count("\n")  # type: ignore[attr-defined]
        return text[:-1] + "\n" * missing + ")" if missing > 0 else text

    def _call(self, node: ast.AST, kind: str) -> str:
        types = self.types[id(node)]
        if kind == "get":
            assert isinstance(node, ast.Attribute)
            cls: RecordClass = types.type_of(node.value)[1]  # type: ignore[index]
            index = cls.fields.index(node.attr)
            self.alias(cls)
            slot = list(self.aliases).index(cls)  # the classes' slots in mc_classes: the aliases' order
            return f"{PREFIX}get(({self.render(node.value)}), {index}, {slot}, {node.attr!r})"
        if kind == "pyfn":
            assert isinstance(node, ast.Name)
            return f"{PREFIX}pyfn({node.id})"
        if kind == "modattr":
            assert isinstance(node, ast.Attribute)
            site = self.modattr_sites
            self.modattr_sites += 1
            return f"{PREFIX}modattr(({self.render(node.value)}), {node.attr!r}, {site})"
        if kind == "field":
            assert isinstance(node, ast.Attribute)
            site = self.field_sites
            self.field_sites += 1
            return f"{PREFIX}field(({self.render(node.value)}), {node.attr!r}, {site})"
        if kind == "with":
            assert isinstance(node, ast.BinOp) and isinstance(node.right, ast.Set)
            return f"{PREFIX}with(({self.render(node.left)}), ({self.render(node.right.elts[0])}))"
        if kind == "comprehension":  # the clauses in brackets, inside the call's own parentheses
            assert isinstance(node, ast.GeneratorExp)
            return "([" + self.segment(node)[1:-1] + "])"
        if kind == "item":
            assert isinstance(node, ast.Subscript)
            return f"{PREFIX}item(({self.render(node.value)}), ({self.render(node.slice)}))"
        assert isinstance(node, ast.Call)
        if kind == "direct":  # the arguments are written twice, but only one branch runs
            assert isinstance(node.func, ast.Name)
            name = node.func.id
            self.direct.add(name)
            values = ", ".join(f"({self.render(a)})" for a in node.args)
            return f"({name}({values}) if {name} is {PREFIX}H_{name} else {PREFIX}pyfn({name})({values}))"
        if kind == "kwreplace":
            assert isinstance(node.func, ast.Attribute)
            cls = types.kwreplace_called(node)
            assert cls is not None
            self.kwreplaced.add(cls)
            names = tuple(k.arg for k in node.keywords)
            positions = _positions(cls, names)
            values = "".join(f", ({self.render(k.value)})" for k in node.keywords)
            self.arities.add(("kwreplace", len(names)))
            return (f"{PREFIX}kwreplace_{len(names)}(({self.render(node.func.value)}), {self.alias(cls)}, "
                    f"{len(cls.fields)}, {positions}, {names!r}{values})")
        if kind == "kwreplace_among":  # one branch per class, tested by exact type; else the call as written
            assert isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
            x = node.func.value.id
            names = tuple(k.arg for k in node.keywords)
            values = "".join(f", ({self.render(k.value)})" for k in node.keywords)
            self.arities.add(("kwreplace", len(names)))
            branches = []
            for cls in types.kwreplace_among(node) or ():
                self.kwreplaced.add(cls)
                alias = self.alias(cls)
                branches.append(f"{PREFIX}kwreplace_{len(names)}({x}, {alias}, {len(cls.fields)}, "
                                f"{_positions(cls, names)}, {names!r}{values}) if {PREFIX}is({x}, {alias}) else ")
            return "(" + "".join(branches) + self.segment(node) + ")"
        args = "".join(f", ({self.render(a)})" for a in node.args)
        if kind == "library":
            name = types.library_called(node)
            assert name is not None
            self.library.add(name)
            return f"{PREFIX}{name}(({self.render(node.func)}), {PREFIX}F_{name}{args})"
        if kind == "replace":
            r = types.replacer_called(node)
            assert r is not None
            self.arities.add(("replace", len(r.fields)))
            return (f"{PREFIX}replace_{len(r.fields)}(({self.render(node.func)}), {self.replacer_alias(r)}, "
                    f"{self.alias(r.cls)}, {len(r.cls.fields)}, {r.positions}{args})")
        assert isinstance(node.func, ast.Name)
        built = types.constructed(node)
        assert built is not None
        self.arities.add(("new", len(node.args)))
        return f"{PREFIX}new_{len(node.args)}({node.func.id}, {self.alias(built)}{args})"

    def splice(self, roots: list[ast.AST]) -> str:
        """The source with the outermost rewrites, ``roots``, applied (those inside them come along)."""
        data = self.data
        for node in sorted(roots, key=lambda n: self.span(n)[0], reverse=True):
            a, b = self.span(node)
            data = data[:a] + self.render(node).encode("utf-8") + data[b:]
        return data.decode("utf-8")


def _annotated_class_fields(tree: ast.Module) -> set[str]:
    """The names annotated in the bodies of the module's classes: an attrs class's fields (a spec's constants,
    ``c.Replicas``), read through the per-site cache (``FIELD_C``) where the reader's class is not suggested."""
    return {s.target.id for node in tree.body if isinstance(node, ast.ClassDef)
            for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}


def _is_set_addition(node: ast.AST) -> bool:
    """Whether ``node`` is ``a | {x}``: a union with a set display of one element."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and isinstance(node.right, ast.Set)
            and len(node.right.elts) == 1 and not isinstance(node.right.elts[0], ast.Starred))


WHOLE_CONSUMERS = frozenset({"tuple", "list", "sorted"})
"""Builtins that take all of an iterable's items before doing anything with one of them."""

_NOT_IN_CLAUSES = (ast.Call, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.Lambda)

_CATCHING = tuple(getattr(ast, name) for name in ("Try", "TryStar", "With", "AsyncWith") if hasattr(ast, name))
"""Statements that can stop an exception on its way out of the function."""


def _consumed_generator(node: ast.AST) -> ast.GeneratorExp | None:
    """The generator expression ``node`` hands whole to ``tuple``, ``list`` or ``sorted`` (by their names), or
    None.  ``sorted`` may have keywords that are names or constants (evaluated after the items either way)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in WHOLE_CONSUMERS
            and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)):
        return None
    if node.keywords and (node.func.id != "sorted" or not all(
            k.arg is not None and isinstance(k.value, (ast.Name, ast.Constant)) for k in node.keywords)):
        return None
    return node.args[0]


def _whole_consumed(node: ast.AST, catches: bool, source: bytes, span: tuple[int, int],
                    shadowed: set[str]) -> bool:
    """Whether ``node``, a generator expression passed whole to a builtin consumer (:func:`_consumed_generator`),
    may become the list comprehension of the same clauses.

    Exact where the clauses call nothing (no code of the spec's runs inside but operands' special methods)
    and the function has no ``try`` or ``with`` (an exception raised inside leaves the function in either
    form), so that the only difference, a ``StopIteration`` from inside reported as itself rather than as
    the generator's ``RuntimeError``, changes at most the spec error's message.  The text must be the
    clauses in parentheses, checked by parsing it back as a comprehension.
    """
    assert isinstance(node, ast.GeneratorExp)
    if catches or shadowed or any(g.is_async for g in node.generators):
        return False
    inside: list[ast.AST] = [node.elt]
    for k, g in enumerate(node.generators):
        inside += [g.target, *g.ifs] + ([g.iter] if k else [])  # the first iterable is evaluated outside it
    if any(isinstance(n, _NOT_IN_CLAUSES) for part in inside for n in ast.walk(part)):
        return False
    text = source[span[0]:span[1]]
    if not (text.startswith(b"(") and text.endswith(b")")):
        return False
    try:
        back = ast.parse(b"[" + text[1:-1] + b"]", mode="eval").body
    except SyntaxError:
        return False
    return (isinstance(back, ast.ListComp) and ast.dump(back.elt) == ast.dump(node.elt)
            and [ast.dump(g) for g in back.generators] == [ast.dump(g) for g in node.generators])


def _splicable(node: ast.AST) -> bool:
    """Whether the node's parts can be moved into a helper call's arguments as they are."""
    return not any(isinstance(n, (ast.NamedExpr, ast.Starred, ast.Yield, ast.YieldFrom, ast.Await))
                   for n in ast.walk(node))


def rewrite(source: str, module: str, package_dirs: Mapping[str, str]) -> Rewritten:
    """``module``'s ``source`` with record reads, tuple items and constructions turned into guarded helpers.

    ``package_dirs`` maps each compiled package to its directory, where the
    record classes ``module`` imports are looked up (as source).
    """
    unchanged = Rewritten(source, "", (), 0, 0, 0, 0)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return unchanged  # Cython will report it
    if any(n.startswith(PREFIX) for n in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
           | set(_module_bindings(tree))):
        return unchanged
    # The actions' guards and effects for the memo tables (modelcheck.memo.split), after the spec's last line.
    splits = built_source(tree)
    if splits:
        source = source + ("" if source.endswith("\n") else "\n") + "\n\n" + "\n\n\n".join(splits) + "\n"
        tree = ast.parse(source)
        unchanged = Rewritten(source, "", (), 0, 0, 0, 0, splits=len(splits))
    registry = Registry(package_dirs)
    scope = registry.scope(module, tree)
    bound = _module_bindings(tree)
    once = {name for name, k in bound.items() if k == 1}
    helpers = _covered_helpers(tree, _direct_helpers(tree, once))
    entries = _entries(tree, once, source.split("\n"))
    if not (scope.records or scope.replacers or scope.modules or scope.library or helpers or entries
            or any(_is_set_addition(n) or _consumed_generator(n) for n in ast.walk(tree))):
        return unchanged
    splicer = _Splicer(source)
    counts = {"get": 0, "item": 0, "new": 0, "replace": 0, "library": 0, "kwreplace": 0, "direct": 0, "modattr": 0,
              "pyfn": 0, "kwreplace_among": 0, "field": 0, "with": 0, "comprehension": 0}
    fields = {f for cls in scope.records.values() for f in cls.fields} | _annotated_class_fields(tree)
    module_names = set(bound)
    for fn, own in _functions(tree):
        types = _FunctionTypes(fn, registry, module)
        called = {id(n.func) for n in own if isinstance(n, ast.Call)}  # m.method(...): Cython's own method call
        catches = any(isinstance(n, _CATCHING) for n in ast.walk(fn))
        for node in own:
            kind = None
            consumed = _consumed_generator(node)
            if consumed is not None and _whole_consumed(
                    consumed, catches, splicer.data, splicer.span(consumed),
                    {node.func.id} & (types.local_names | module_names)):  # type: ignore[attr-defined]
                splicer.targets[id(consumed)] = "comprehension"
                splicer.types[id(consumed)] = types
                counts["comprehension"] += 1
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                owner = types.type_of(node.value)
                if owner is not None and owner[0] == "record" and node.attr in owner[1].fields:
                    kind = "get"
                elif (isinstance(node.value, ast.Name) and node.value.id in scope.modules
                      and node.value.id not in types.local_names):
                    kind = "modattr"  # kr.helper: a lookup cached while the module's namespace is unchanged
                elif (owner is None and isinstance(node.value, ast.Name) and node.value.id in types.local_names
                      and node.attr in fields and id(node) not in called):
                    kind = "field"  # m.type on a message of one of several record kinds
            elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                  and not isinstance(node.slice, (ast.Slice, ast.Tuple))):
                seq = types.type_of(node.value)
                if seq is not None and seq[0] == "tuple":
                    kind = "item"
            elif _is_set_addition(node):
                kind = "with"
            elif isinstance(node, ast.Call) and types.constructed(node) is not None:
                kind = "new"
            elif isinstance(node, ast.Call) and types.replacer_called(node) is not None:
                kind = "replace"
            elif isinstance(node, ast.Call) and types.library_called(node) is not None:
                kind = "library"
            elif isinstance(node, ast.Call) and types.kwreplace_called(node) is not None:
                kind = "kwreplace"
            elif isinstance(node, ast.Call) and types.kwreplace_among(node) is not None:
                kind = "kwreplace_among"
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers
                  and node.func.id not in types.local_names):
                if (not node.keywords and len(node.args) == len(helpers[node.func.id])
                        and node.lineno == node.end_lineno and _splicable(node)):
                    kind = "direct"  # one line only: its arguments are written twice (see _Splicer._call)
                else:  # called the Python way: declared cpdef, the name alone would make it a C call
                    node, kind = node.func, "pyfn"
            if kind is not None and _splicable(node):
                splicer.targets[id(node)] = kind
                splicer.types[id(node)] = types
                counts[kind] += 1
    if not splicer.targets and not entries:
        return unchanged
    targets = [n for n in ast.walk(tree) if id(n) in splicer.targets]
    inside = {id(d) for t in targets for d in ast.walk(t) if d is not t}
    text = _apply_entry_decorators(splicer.splice([n for n in targets if id(n) not in inside]), entries)
    if not text.endswith("\n"):
        text += "\n"
    text += _trailer(scope, splicer.aliases, splicer.replacers, splicer.library, splicer.kwreplaced, splicer.direct)
    direct = {name: helpers[name] for name in sorted(splicer.direct)}
    entry_params = {name: params for name, (params, _node) in entries.items()}
    return Rewritten(text, _pxd([*splicer.aliases.values(), *splicer.replacers.values()], splicer.library,
                                splicer.arities, direct, splicer.modattr_sites, entry_params, splicer.field_sites),
                     tuple(sorted(registry.read.items())),
                     counts["get"], counts["item"], counts["new"],
                     counts["replace"] + counts["library"] + counts["kwreplace"] + counts["kwreplace_among"], counts["direct"],
                     splicer.modattr_sites, len(entries), unchanged.splits, splicer.field_sites,
                     counts["with"], counts["comprehension"])


def _trailer(scope: ModuleScope, classes: Mapping[RecordClass, str], replacers: Mapping[Replacer, str],
             library: set[str], kwreplaced: set[RecordClass], direct: set[str]) -> str:
    """The captured classes, replacers and direct helpers, and their check, appended after the spec's last line.

    Each alias is a C variable (declared in the ``.pxd``) that stays None, so
    every helper takes its slow path, until this runs, and stays None if any
    class's fields are not in the order the indices assume or a replacer is
    not the one the source declares.  What the module does not name itself
    is imported for the capture.
    """
    lines = ["", "", "# --- appended by modelcheck.build.record_rewrite (compiled build only; see that module) ---"]
    local = {cls: name for name, cls in scope.records.items()}
    local.update({r: name for name, r in scope.replacers.items()})
    for thing, alias in [*classes.items(), *replacers.items()]:
        if thing not in local:
            local[thing] = f"{PREFIX}import{alias[len(PREFIX) + 1:]}"
            lines.append(f"from {thing.module} import {thing.name} as {local[thing]}")
    checks = [f"getattr({local[cls]}, '_fields', None) == {cls.fields!r}" for cls in classes]
    checks += [f"getattr({local[r]}, 'replaces', None) == ({local[r.cls]}, {r.fields!r})" for r in replacers]
    if kwreplaced:  # every namedtuple's _replace shares one code object: the one the C helper reproduces
        lines.append(f"{PREFIX}replace_code = __import__('collections').namedtuple('_', 'a')._replace.__code__")
        checks += [f"getattr(getattr({local[cls]}, '_replace', None), '__code__', None) is {PREFIX}replace_code"
                   for cls in sorted(kwreplaced, key=lambda c: (c.module, c.name))]
    lines.append(f"{PREFIX}ok = {' and '.join(checks) or 'True'}")
    lines += [f"{alias} = {local[thing]} if {PREFIX}ok else None"
              for thing, alias in [*classes.items(), *replacers.items()]]
    lines += [f"{PREFIX}set_class({slot}, {alias})" for slot, alias in enumerate(classes.values())]
    for name in sorted(library):  # what the helper reproduces is this function: captured by identity
        lines.append(f"from {LIBRARY} import {name} as {PREFIX}import_{name}")
        lines.append(f"{PREFIX}F_{name} = {PREFIX}import_{name}")
    for name in sorted(direct):  # until this runs, calls of the helper go the Python way
        lines.append(f"{PREFIX}H_{name} = {name}")
    return "\n".join(lines) + "\n"


HELPERS_C = r"""
#if defined(__GNUC__)
#define MC_INLINE static inline __attribute__((always_inline))
#else
#define MC_INLINE static CYTHON_INLINE
#endif

/* x.<field i>: the tuple item when x's type is exactly the class in slot `slot` of mc_classes (NULL or None
   until the module has loaded).  The class is read from a C array rather than passed as an object: Cython
   takes and drops a reference to a module variable it passes, two writes per read of a field. */
MC_INLINE PyObject *mc_get(PyObject *x, Py_ssize_t i, Py_ssize_t slot, PyObject *name) {
    if ((PyObject *)Py_TYPE(x) == mc_classes[slot] && i < PyTuple_GET_SIZE(x)) {
        PyObject *item = PyTuple_GET_ITEM(x, i);
        Py_INCREF(item);
        return item;
    }
    return PyObject_GetAttr(x, name);
}

/* PyLong_AsSsize_t(k) for an exact int: before 3.12 an int of at most one digit (every index) is read in
   place (Include/cpython/longintrepr.h), which spares a call per tuple index. */
MC_INLINE Py_ssize_t mc_index(PyObject *k) {
#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API)
    Py_ssize_t size = Py_SIZE(k);
    if (size == 0)
        return 0;
    if (size == 1)
        return (Py_ssize_t)((PyLongObject *)k)->ob_digit[0];
    if (size == -1)
        return -(Py_ssize_t)((PyLongObject *)k)->ob_digit[0];
#endif
    return PyLong_AsSsize_t(k);
}

/* x[k]: the item directly for an exact tuple and int in range; anything else the generic way. */
MC_INLINE PyObject *mc_item(PyObject *x, PyObject *k) {
    if (PyTuple_CheckExact(x) && PyLong_CheckExact(k)) {
        Py_ssize_t n = PyTuple_GET_SIZE(x);
        Py_ssize_t j = mc_index(k);
        if (j == -1 && PyErr_Occurred()) {
            PyErr_Clear();  /* too large: the generic path raises the usual error */
        } else {
            if (j < 0) j += n;
            if (j >= 0 && j < n) {
                PyObject *item = PyTuple_GET_ITEM(x, j);
                Py_INCREF(item);
                return item;
            }
        }
    }
    return PyObject_GetItem(x, k);
}

/* Set by the appended code when the module has loaded: the record classes by slot, each held. */
static int mc_set_class(Py_ssize_t slot, PyObject *cls) {
    Py_INCREF(cls);
    Py_XSETREF(mc_classes[slot], cls);
    return 0;
}

/* What one ``module.name`` read site saw last: valid while that module dict keeps its version tag. */
typedef struct {
    PyObject *dict;
    uint64_t version;
    PyObject *value;  /* borrowed: the dict holds it while its version is unchanged */
} mc_attr_cache;

/* x itself, as a new reference: ``_mc_pyfn(helper)(...)`` makes Cython call a direct helper the Python way. */
MC_INLINE PyObject *mc_identity(PyObject *x) {
    Py_INCREF(x);
    return x;
}

/* Anything else, the way Python calls it: fn(*items). */
static PyObject *mc_call(PyObject *fn, Py_ssize_t n, PyObject *const *items) {
    PyObject *args = PyTuple_New(n), *r;
    Py_ssize_t i;
    if (args == NULL) return NULL;
    for (i = 0; i < n; i++) {
        Py_INCREF(items[i]);
        PyTuple_SET_ITEM(args, i, items[i]);
    }
    r = PyObject_Call(fn, args, NULL);
    Py_DECREF(args);
    return r;
}

/* cls(*items): for the NamedTuple class itself, what its __new__ does (tuple.__new__(cls, items)). */
MC_INLINE PyObject *mc_new(PyObject *cls, PyObject *expected, Py_ssize_t n, PyObject *const *items) {
    if (cls == expected) {
        Py_ssize_t i;
        PyObject *r = ((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, n);
        if (r == NULL) return NULL;
        for (i = 0; i < n; i++) {
            Py_INCREF(items[i]);
            PyTuple_SET_ITEM(r, i, items[i]);
        }
        return r;
    }
    return mc_call(cls, n, items);
}

/* A new cls record: s's items, those at `positions` (six bits each) replaced by values. */
MC_INLINE PyObject *mc_replaced(PyObject *cls, Py_ssize_t size, PyObject *s, unsigned long long positions,
                                Py_ssize_t m, PyObject *const *values) {
    Py_ssize_t i, k;
    PyObject *r = ((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, size);
    if (r == NULL) return NULL;
    for (i = 0; i < size; i++) {
        PyObject *item = PyTuple_GET_ITEM(s, i);
        Py_INCREF(item);
        PyTuple_SET_ITEM(r, i, item);
    }
    for (k = 0; k < m; k++) {
        Py_ssize_t p = (Py_ssize_t)((positions >> (6 * k)) & 63);
        PyObject *old = PyTuple_GET_ITEM(r, p);
        Py_INCREF(values[k]);
        PyTuple_SET_ITEM(r, p, values[k]);
        Py_DECREF(old);
    }
    return r;
}

/* fn(s, *values) for a replacer of cls. */
MC_INLINE PyObject *mc_replace(PyObject *fn, PyObject *expected, PyObject *cls, Py_ssize_t size,
                               unsigned long long positions, Py_ssize_t m, PyObject *const *args) {
    PyObject *s = args[0];
    if (fn == expected && (PyObject *)Py_TYPE(s) == cls && PyTuple_GET_SIZE(s) == size)
        return mc_replaced(cls, size, s, positions, m, args + 1);
    return mc_call(fn, m + 1, args);
}

/* s._replace(**dict(zip(names, values))) the way Python does it, for a value of another type. */
static PyObject *mc_kwcall(PyObject *s, PyObject *names, Py_ssize_t m, PyObject *const *values) {
    PyObject *method = PyObject_GetAttrString(s, "_replace"), *kw, *empty, *r = NULL;
    Py_ssize_t k;
    if (method == NULL) return NULL;
    kw = PyDict_New();
    if (kw != NULL) {
        for (k = 0; k < m; k++)
            if (PyDict_SetItem(kw, PyTuple_GET_ITEM(names, k), values[k]) < 0) break;
        if (k == m && (empty = PyTuple_New(0)) != NULL) {
            r = PyObject_Call(method, empty, kw);
            Py_DECREF(empty);
        }
        Py_DECREF(kw);
    }
    Py_DECREF(method);
    return r;
}

/* Whether s is exactly of class cls (cls None while the module's capture has not run or failed its checks). */
MC_INLINE int mc_is(PyObject *s, PyObject *cls) {
    return (PyObject *)Py_TYPE(s) == cls;
}

/* s._replace(name=value, ...) for a record of cls (its namedtuple _replace, checked when the module loaded). */
MC_INLINE PyObject *mc_kwreplace(PyObject *s, PyObject *cls, Py_ssize_t size, unsigned long long positions,
                                 PyObject *names, Py_ssize_t m, PyObject *const *values) {
    if ((PyObject *)Py_TYPE(s) == cls && PyTuple_GET_SIZE(s) == size)
        return mc_replaced(cls, size, s, positions, m, values);
    return mc_kwcall(s, names, m, values);
}

/* replace_at(values, index, value) of modelcheck.spec.replace: the tuple with one item replaced. */
MC_INLINE PyObject *mc_replace_at(PyObject *fn, PyObject *expected, PyObject *values, PyObject *index,
                                  PyObject *value) {
    if (fn == expected && PyTuple_CheckExact(values) && PyLong_CheckExact(index)) {
        Py_ssize_t n = PyTuple_GET_SIZE(values), j = mc_index(index), i;
        if (j == -1 && PyErr_Occurred()) {
            PyErr_Clear();  /* too large: the function itself raises the usual error */
        } else {
            if (j < 0) j += n;
            if (j >= 0 && j < n) {
                PyObject *r = PyTuple_New(n);
                if (r == NULL) return NULL;
                for (i = 0; i < n; i++) {
                    PyObject *item = i == j ? value : PyTuple_GET_ITEM(values, i);
                    Py_INCREF(item);
                    PyTuple_SET_ITEM(r, i, item);
                }
                return r;
            }
        }
    }
    {
        PyObject *args[3] = {values, index, value};
        return mc_call(fn, 3, args);
    }
}
"""
"""The helpers, in C: Cython cannot be made to inline a function of its own at every call site."""

MODATTR_C = r"""
/* module.name at read site `site` (the caches are per module, sized by the rewrite).  For a plain module
   object, getattr finds no descriptor of ModuleType by that name and takes the name from the module's
   dict; while that dict is not modified (its version tag, unique across dicts, is unchanged) the answer is
   the one cached.  Anything else (another type, a miss, a version tag to compare only before 3.12) is a
   plain getattr. */
MC_INLINE PyObject *mc_modattr(PyObject *m, PyObject *name, Py_ssize_t site) {
#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API)
    mc_attr_cache *c = &mc_attr_caches[site];
    if (PyModule_CheckExact(m)) {
        PyObject *d = PyModule_GetDict(m), *v, *dv;
        if (d == c->dict && ((PyDictObject *)d)->ma_version_tag == c->version) {
            Py_INCREF(c->value);
            return c->value;
        }
        v = PyObject_GetAttr(m, name);
        if (v != NULL && d != NULL && _PyType_Lookup(&PyModule_Type, name) == NULL) {
            dv = PyDict_GetItemWithError(d, name);
            if (dv == v) {
                c->dict = d;
                c->version = ((PyDictObject *)d)->ma_version_tag;
                c->value = v;
            } else if (dv == NULL && PyErr_Occurred()) {
                PyErr_Clear();
            }
        }
        return v;
    }
#endif
    return PyObject_GetAttr(m, name);
}
"""
"""The cached ``module.name`` read (after the caches' declaration, which needs the number of sites)."""

FIELD_C = r"""
/* m.field at read site `site`, m of no suggested class (a message of one of several record kinds).  A type's
   version tag is unique to the type as it is (CPython gives a type a new one, or none, whenever the type
   or a base is modified, and never reuses one), so a tag the site has seen names a type whose getattr is
   the generic one and whose attribute `field` is namedtuple's field getter at a known index: a data
   descriptor, which the instance cannot shadow, returning that item of the tuple.  Before 3.12 only; a
   type not seen, or anything else, is a plain getattr, whose answer the cache is checked against before
   it keeps a type.  The same holds for a slot of a __slots__ class (an attrs class's field, such as a
   spec's constants `c.Replicas`): its attribute is a member descriptor, also a data descriptor, reading
   the object pointer at a known offset, which the cache keeps as -(offset + 1).  A site keeps eight types
   (a message set of several kinds); one that has filled MC_FIELD_FILLS entries (more kinds than it keeps,
   or classes made anew) stops keeping more and reads the plain way. */
#include "structmember.h"
#define MC_FIELD_WAYS 8
#define MC_FIELD_FILLS 64
typedef struct {
    unsigned int tag[MC_FIELD_WAYS];
    Py_ssize_t index[MC_FIELD_WAYS];  /* a tuple item's index, or -(offset + 1) of a slot */
    unsigned int fills;
} mc_field_cache;

static mc_field_cache mc_field_caches[MC_FIELD_SITES];

static PyObject *mc_tuplegetter_type;  /* _collections._tuplegetter, held once found */

/* The index a namedtuple field getter reads (from its __reduce__: (_tuplegetter, (index, doc))), or -1. */
static Py_ssize_t mc_tuplegetter_index(PyObject *d) {
    PyObject *red, *args;
    Py_ssize_t i = -1;
    if (mc_tuplegetter_type == NULL) {
        PyObject *mod = PyImport_ImportModule("_collections");
        if (mod == NULL) { PyErr_Clear(); return -1; }
        mc_tuplegetter_type = PyObject_GetAttrString(mod, "_tuplegetter");
        Py_DECREF(mod);
        if (mc_tuplegetter_type == NULL) { PyErr_Clear(); return -1; }
    }
    if ((PyObject *)Py_TYPE(d) != mc_tuplegetter_type) return -1;
    red = PyObject_CallMethod(d, "__reduce__", NULL);
    if (red == NULL) { PyErr_Clear(); return -1; }
    if (PyTuple_Check(red) && PyTuple_GET_SIZE(red) == 2 && PyTuple_Check(args = PyTuple_GET_ITEM(red, 1))
            && PyTuple_GET_SIZE(args) >= 1 && PyLong_CheckExact(PyTuple_GET_ITEM(args, 0))) {
        i = PyLong_AsSsize_t(PyTuple_GET_ITEM(args, 0));
        if (i == -1 && PyErr_Occurred()) PyErr_Clear();
    }
    Py_DECREF(red);
    return i;
}

/* -(offset + 1) of the object slot a member descriptor reads, or 0: only a plain object slot (T_OBJECT_EX,
   which raises AttributeError where the slot is empty), read without an audit event. */
static Py_ssize_t mc_slot_member(PyObject *d) {
    PyMemberDef *def;
    if (!Py_IS_TYPE(d, &PyMemberDescr_Type)) return 0;
    def = ((PyMemberDescrObject *)d)->d_member;
    if (def->type != T_OBJECT_EX || (def->flags & PY_AUDIT_READ) || def->offset < (Py_ssize_t)sizeof(PyObject))
        return 0;
    return -(def->offset + 1);
}

static PyObject *mc_field_slow(PyObject *m, PyObject *name, Py_ssize_t site) {
    PyObject *v = PyObject_GetAttr(m, name);
#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API)
    PyTypeObject *t = Py_TYPE(m);
    if (v != NULL && t->tp_getattro == PyObject_GenericGetAttr && mc_field_caches[site].fills < MC_FIELD_FILLS) {
        PyObject *d = _PyType_Lookup(t, name);  /* borrowed; gives t a version tag if it can have one */
        unsigned int tag = t->tp_version_tag;
        if (d != NULL && tag != 0 && (t->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) {
            Py_ssize_t i = -1, slot = 0;
            Py_INCREF(d);
            if (PyTuple_Check(m))
                i = mc_tuplegetter_index(d);
            else
                slot = mc_slot_member(d);
            Py_DECREF(d);
            if (t->tp_version_tag == tag
                    && ((i >= 0 && i < PyTuple_GET_SIZE(m) && PyTuple_GET_ITEM(m, i) == v)
                        || (slot < 0 && *(PyObject **)((char *)m + (-slot - 1)) == v))) {
                mc_field_cache *c = &mc_field_caches[site];
                unsigned int k = c->fills++ % MC_FIELD_WAYS;
                c->tag[k] = tag;
                c->index[k] = i >= 0 ? i : slot;
            }
        }
    }
#endif
    return v;
}

MC_INLINE PyObject *mc_field(PyObject *m, PyObject *name, Py_ssize_t site) {
#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API)
    const mc_field_cache *c = &mc_field_caches[site];
    unsigned int tag = Py_TYPE(m)->tp_version_tag;
    int k;
    if (tag != 0) {
        for (k = 0; k < MC_FIELD_WAYS; k++) {
            if (c->tag[k] == tag) {
                Py_ssize_t i = c->index[k];
                PyObject *item;
                if (i >= 0) {  /* kept for a tuple class only */
                    if (i < PyTuple_GET_SIZE(m)) {
                        item = PyTuple_GET_ITEM(m, i);
                        Py_INCREF(item);
                        return item;
                    }
                } else if ((item = *(PyObject **)((char *)m + (-i - 1))) != NULL) {
                    Py_INCREF(item);
                    return item;
                }
                break;
            }
        }
    }
#endif
    return mc_field_slow(m, name, site);
}
"""
"""The cached read of a record field whose class is not suggested (after its caches' declaration)."""


WITH_C = r"""
/* Whether hashing v and comparing it with == run no Python code of v's: an int, float, str or None, or a
   tuple (a NamedTuple too) of such whose hash and equality are the tuple's own. */
static inline int mc_inert(PyObject *v, int depth) {
    PyTypeObject *t = Py_TYPE(v);
    Py_ssize_t i;
    if (t == &PyLong_Type || t == &PyBool_Type || t == &PyFloat_Type || t == &PyUnicode_Type || v == Py_None)
        return 1;
    if (depth >= 8 || !PyTuple_Check(v) || t->tp_hash != PyTuple_Type.tp_hash
            || t->tp_richcompare != PyTuple_Type.tp_richcompare)
        return 0;
    for (i = 0; i < PyTuple_GET_SIZE(v); i++)
        if (!mc_inert(PyTuple_GET_ITEM(v, i), depth + 1)) return 0;
    return 1;
}

/* a | {x}.  CPython (before 3.12, whose setobject.c this follows) makes the union by copying a, then merging
   {x} into the copy.  The copy takes a's slots one for one, so iterates in a's order, when a has no dummy
   slots and its table is the size the copy gets (the smallest power of two above twice a's length, or the
   8-slot small table for fewer than five elements); merging {x} then resizes first only if the copy is
   full enough, and adds nothing when x is there.  So under those conditions, with x in a, the union equals
   a element for element (the same objects) and in iteration order, and a itself is the answer: nothing is
   copied, and a successor that sends a message already sent shares its parent's set.  The lookup hashes x
   once, as building {x} does, and compares it with the same elements the union's insertion would.  Where
   x is not in a, the union as written follows, hashing x and making those comparisons again: x must be
   inert, and elements of a with x's hash compare as values do (as a spec's values must).  Anything else
   is the union as written: {x} built, then a | {x}. */
MC_INLINE int mc_union_copies_slots(PyObject *a) {
#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API)
    const PySetObject *so = (const PySetObject *)a;
    Py_ssize_t used = so->used;
    size_t size = 8;
    if (so->fill != used) return 0;
    if (used >= 5)
        while (size <= (size_t)used * 2) size <<= 1;
    return (size_t)so->mask == size - 1 && (size_t)(used + 1) * 5 < (size - 1) * 3;
#else
    return 0;
#endif
}

MC_INLINE PyObject *mc_with(PyObject *a, PyObject *x) {
    PyObject *one, *r;
    if (Py_IS_TYPE(a, &PyFrozenSet_Type) && mc_union_copies_slots(a) && mc_inert(x, 0)) {
        int has = PySet_Contains(a, x);
        if (has < 0) return NULL;
        if (has) {
            Py_INCREF(a);
            return a;
        }
    }
    one = PySet_New(NULL);
    if (one == NULL) return NULL;
    if (PySet_Add(one, x) < 0) {
        Py_DECREF(one);
        return NULL;
    }
    r = PyNumber_Or(a, one);
    Py_DECREF(one);
    return r;
}
"""
"""``a | {x}`` without the copy where the copy would be ``a`` over again."""


def _fixed_arity(kind: str, n: int) -> tuple[str, str]:
    """A C wrapper of ``mc_new`` or ``mc_replace`` taking ``n`` values as arguments, and its Cython declaration.

    Cython passes each argument as it is; a wrapper per arity spares the
    tuple that one variadic helper would need for every record built.
    """
    values = ", ".join(f"PyObject *v{i}" for i in range(n))
    array = ", ".join(f"v{i}" for i in range(n))
    objs = ", ".join(["object"] * n)
    if kind == "new":
        c = (f"MC_INLINE PyObject *mc_new_{n}(PyObject *cls, PyObject *expected, {values}) {{\n"
             f"    PyObject *items[{n}] = {{{array}}};\n"
             f"    return mc_new(cls, expected, {n}, items);\n}}")
        return c, f'    object {PREFIX}new_{n} "mc_new_{n}"(object, object, {objs})'
    if kind == "kwreplace":
        c = (f"MC_INLINE PyObject *mc_kwreplace_{n}(PyObject *s, PyObject *cls, Py_ssize_t size,\n"
             f"                                    unsigned long long positions, PyObject *names, {values}) {{\n"
             f"    PyObject *values[{n}] = {{{array}}};\n"
             f"    return mc_kwreplace(s, cls, size, positions, names, {n}, values);\n}}")
        return c, (f'    object {PREFIX}kwreplace_{n} "mc_kwreplace_{n}"(object, object, Py_ssize_t, '
                   f'unsigned long long, tuple, {objs})')
    c = (f"MC_INLINE PyObject *mc_replace_{n}(PyObject *fn, PyObject *expected, PyObject *cls, Py_ssize_t size,\n"
         f"                                  unsigned long long positions, PyObject *s, {values}) {{\n"
         f"    PyObject *args[{n + 1}] = {{s, {array}}};\n"
         f"    return mc_replace(fn, expected, cls, size, positions, {n}, args);\n}}")
    return c, (f'    object {PREFIX}replace_{n} "mc_replace_{n}"(object, object, object, Py_ssize_t, '
               f'unsigned long long, object, {objs})')


def _pxd(aliases: list[str], library: set[str], arities: set[tuple[str, int]],
         direct: Mapping[str, list[str]] | None = None, modattr_sites: int = 0,
         entries: Mapping[str, list[str]] | None = None, field_sites: int = 0) -> str:
    """The augmenting ``.pxd``: the C helpers, the captured classes and functions as C variables, and the
    direct helpers and entries declared ``cpdef`` (each taking and returning Python objects, as the ``def``
    does)."""
    direct, entries = direct or {}, entries or {}
    wrappers = [_fixed_arity(kind, n) for kind, n in sorted(arities)]
    c_code = (f"static PyObject *mc_classes[{max(len(aliases), 1)}];\n\n" + HELPERS_C.strip("\n")
              + f"\n\nstatic mc_attr_cache mc_attr_caches[{max(modattr_sites, 1)}];\n"
              + MODATTR_C + f"\n#define MC_FIELD_SITES {max(field_sites, 1)}\n" + FIELD_C + WITH_C
              + "\n\n" + "\n\n".join(c for c, _ in wrappers))
    body = "\n".join("    " + ln if ln else "" for ln in c_code.split("\n"))
    decls = [f'    object {PREFIX}get "mc_get"(object, Py_ssize_t, Py_ssize_t, object)',
             f'    int {PREFIX}set_class "mc_set_class"(Py_ssize_t, object)',
             f'    object {PREFIX}item "mc_item"(object, object)',
             f'    object {PREFIX}replace_at "mc_replace_at"(object, object, object, object, object)',
             f'    object {PREFIX}pyfn "mc_identity"(object)',
             f'    bint {PREFIX}is "mc_is"(object, object)',
             f'    object {PREFIX}modattr "mc_modattr"(object, object, Py_ssize_t)',
             f'    object {PREFIX}field "mc_field"(object, object, Py_ssize_t)',
             f'    object {PREFIX}with "mc_with"(object, object)',
             *(d for _, d in wrappers)]
    captured = [*aliases, *(f"{PREFIX}F_{name}" for name in sorted(library)),
                *(f"{PREFIX}H_{name}" for name in direct), *(f"{ENTRY_GUARD}{name}" for name in entries)]
    declared = "".join(f"cpdef object {name}({', '.join('object ' + p for p in params)})\n"
                       for name, params in [*direct.items(), *entries.items()])
    return (f'cdef extern from *:\n    """\n{body}\n    """\n' + "\n".join(decls) + "\n\n"
            + "".join(f"cdef object {a}\n" for a in captured) + declared)
