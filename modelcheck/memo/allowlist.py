"""Which spec code the memo tables may run on traced state parts: an allowlist, followed into all it reaches.

The tables learn an answer by running a spec function once on a state whose
parts are :class:`~modelcheck.memo.traced.Traced` wrappers, and reuse it for
every state that agrees on the parts the run read.  That is exact only if the
function cannot tell a wrapper from its value.  Python has many ways to tell
them apart (``type()``, identity, pattern matching, ``isinstance`` compiled
into a C type test, exceptions a wrapper raises where the value would not,
a cache that hands one run's wrapper to the next, ...), and a list of the
ways known to be unsafe is never complete.  So the tables serve a spec only
when every construct its code can run is on the list below of constructs
known to be safe, and this is checked through everything the code can reach:
the functions, lambdas, methods, classes, ``functools.partial`` objects and
modules its names resolve to, their defaults and closures, and the callables
held in containers it reads.  Anything else keeps the whole spec on its own
code, with one line naming the file, the line and the construct.

What is allowed (the rest is refused):

* syntax: ``def``/``lambda`` (without ``global``/``nonlocal``), ``return``,
  ``yield``, assignments to local names (and to items or attributes of
  local objects), ``if``/``for``/``while``/``break``/``continue``/``pass``,
  ``assert``, ``raise``, boolean, comparison (``is`` only against ``None``,
  and only while no state part holds None: see :attr:`Review.compares_none`),
  arithmetic and bit operators (``%`` only where the left operand is surely not
  text or the right one cannot be a traced part, ``"%s" % (x,)``, ``int(a) % n``:
  Python formats a tuple operand as its items and a traced part as one value,
  and a parameter, attribute or item may be text), conditional expressions, comprehensions and
  generator expressions, tuple/list/set/dict displays, subscripts and slices,
  f-strings, the walrus, attribute reads that are not dunders, and calls;
* builtins: :data:`BUILTINS` and every exception class;
* the standard library's :data:`LIBRARY` functions (``math``, ``operator``
  but ``is_``/``is_not``, ``itertools``, ``functools.reduce``/``partial``/
  ``cmp_to_key``, ``collections.Counter``/``defaultdict``), and the spec
  API of :mod:`modelcheck.spec`;
* the spec's own functions and classes (their methods, properties, static
  and class methods, checked the same way), NamedTuple classes, attrs and
  enum classes, and module-level values built of ints, bools, floats,
  strings, bytes, ``None``, tuples and frozensets of them, or of allowed
  callables.  Module-level lists, dicts and sets are allowed to be read:
  :func:`review` lists them so that the memo backend can check,
  after each batch it learns, that no evaluation changed them (state kept
  between evaluations, such as a memoising dict, stops the tables).

Refused, among others: ``match``, ``try``, ``with``, ``global``/
``nonlocal``, ``del``, imports and classes inside functions, ``type``/
``id``/``isinstance``/``issubclass``/``callable``/``getattr``/``hasattr``/
``vars``/``eval``, dunder attributes (``x.__class__``), ``is`` between
values, decorators that keep state (``functools.lru_cache``, ``cache``),
mutable default arguments, module-level objects of other types (an
iterator, a random generator), functions whose source cannot be read, and
a change (an item or attribute set, ``.append()`` and the like) to an object
the call did not make: only what a display, a constructor or a local name
bound only to such holds may change, or what a parameter names where every
direct call passes an object its caller made (:meth:`_Verifier.check_changed_params`).
"""

from __future__ import annotations

import ast
import builtins
import collections
import enum
import functools
import itertools
import math
import operator
import sys
import types
from typing import Any, Callable, Iterable

from modelcheck.memo.source import function_defs, inside_classes, is_outside, parsed_source, short_path, source_path

BUILTINS = frozenset((
    abs, all, any, bool, dict, divmod, enumerate, filter, float, format, frozenset, hash, int, iter, len,
    list, map, max, min, next, pow, print, range, repr, reversed, round, set, slice, sorted, str, sum, tuple,
    zip, bin, hex, oct, chr, ord,
))
"""Builtins that act on a traced part exactly as on its value (each operation goes through its methods)."""

_REFUSED_OPERATOR = frozenset(getattr(operator, name) for name in (
    "is_", "is_not", "mod", "concat", "setitem", "delitem", "iadd", "iand", "iconcat", "ifloordiv", "ilshift",
    "imatmul", "imod", "imul", "ior", "ipow", "irshift", "isub", "itruediv", "ixor"))
"""``is``; ``%`` as a function (formatting with it is out of reach of the ``%`` rule: passed to ``reduce``,
``map`` or ``partial``, a traced tuple part is formatted as one value); ``concat`` (it asks only that its
operands have items, which a stand-in for a number has); and the functions that change their first
argument in place (``setitem``, ``iadd``, ``ior`` ...), which the review cannot follow to what they change."""

_NAMED_GETTERS = (operator.attrgetter, operator.methodcaller)
"""Getters that take names as strings: each name must be a plain field or method name, or a dunder path could
reach ``type`` or ``id`` (``attrgetter("__class__.__class__")``)."""

LIBRARY = frozenset(
    [f for f in vars(math).values() if callable(f)]
    + [f for f in vars(operator).values() if callable(f) and not isinstance(f, type) and f not in _REFUSED_OPERATOR]
    + [operator.itemgetter, operator.attrgetter, operator.methodcaller]
    + [itertools.product, itertools.permutations, itertools.combinations, itertools.combinations_with_replacement,
       itertools.chain, itertools.accumulate, itertools.islice, itertools.starmap, itertools.groupby,
       itertools.zip_longest, itertools.repeat, itertools.pairwise, itertools.compress, itertools.dropwhile,
       itertools.takewhile, itertools.filterfalse, itertools.count, itertools.cycle]
    + [functools.reduce, functools.partial, functools.cmp_to_key, collections.Counter, collections.defaultdict]
)
"""Standard-library callables allowed by identity (C functions that act on their arguments' values)."""

_MUTABLE = (list, dict, set, bytearray, collections.Counter, collections.defaultdict)
_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_REFUSED_NODES: dict[type, str] = {
    ast.Match: "pattern matching (`match`)",
    ast.Try: "`try` (an exception a traced part raises could take another branch)",
    ast.With: "`with`",
    ast.AsyncWith: "`async with`",
    ast.Global: "`global`",
    ast.Nonlocal: "`nonlocal`",
    ast.Delete: "`del`",
    ast.Import: "an import inside a function",
    ast.ImportFrom: "an import inside a function",
    ast.ClassDef: "a class defined inside a function",
    ast.AsyncFunctionDef: "an async function",
    ast.Await: "`await`",
}
if hasattr(ast, "TryStar"):
    _REFUSED_NODES[ast.TryStar] = "`try`"

_MUTATORS = frozenset(("append", "extend", "insert", "remove", "pop", "clear", "update", "setdefault", "add",
                       "discard", "sort", "reverse", "popitem", "difference_update", "intersection_update",
                       "symmetric_difference_update", "__setitem__", "__delitem__"))
_CONSTRUCTORS = (list, dict, set, bytearray, sorted, collections.Counter, collections.defaultdict,
                 collections.OrderedDict, collections.deque)
"""Callables that return a new container of their own, which the call that made it may change."""
_ATTRS_HOOKS = frozenset(("__attrs_pre_init__", "__attrs_post_init__"))
"""Methods an attrs class runs while it builds an object that the spec writes, not attrs."""
_INITIALISERS = frozenset(("__init__", "__post_init__", "__attrs_post_init__", "__setstate__"))
_NAMEDTUPLE_METHODS = frozenset(("_replace", "_make", "_asdict", "__new__", "__repr__", "__getnewargs__"))
_TRUSTED_PACKAGE = "modelcheck.spec"
"""The spec API: its helpers (``replace_at``, ``Domain``) are the checker's own, written for traced parts.
Only this package: the project's own specs, compiled as ``modelcheck.specs.*``, are reviewed as any spec is."""


def _trusted_name(name: str) -> bool:
    """Whether a module of this name is the spec API (the package itself or a module inside it)."""
    return name == _TRUSTED_PACKAGE or name.startswith(_TRUSTED_PACKAGE + ".")


class Refused(Exception):  # noqa: N818 - the reason is the point
    """A construct outside the allowlist, with where it is."""


class Review:
    """What :func:`review` found: the first construct refused (or None), and the module-level containers read."""

    def __init__(self, refusal: str | None, mutables: list[tuple[str, Any]], compares_none: str | None = None) -> None:
        self.refusal = refusal
        self.mutables = mutables
        self.compares_none = compares_none
        """``file:line`` of the first ``is None`` (or ``is not None``) the code can run, or None.  A traced
        part whose value is None is not None itself, so the caller keeps the tables only while no state part
        holds None."""


def review(functions: Iterable[Callable], classes: Iterable[type] = (), constants: Any = None,
           parameters: Any = ()) -> Review:
    """Check the given spec functions, ``classes`` (the state's record types: their methods can be called
    on any state), ``constants`` (the object every function gets as ``c``) and ``parameters`` (the values
    the actions are called with), with everything they can reach, against the allowlist.  An object handed
    in is reached as ``c.name`` or ``p.method()``, which no name in the code resolves to: its class's
    methods and the values it holds are reviewed with it.

    ``refusal`` is ``file:line: construct`` for the first thing outside it;
    ``mutables`` lists ``(where, object)`` for each module-level list, dict or
    set the code can read, for the caller to watch for changes.
    """
    v = _Verifier()
    try:
        for cls in classes:
            v.value(cls, "the state's type")
        if constants is not None:
            v.built_once.add(type(constants))
            v.value(constants, "the constants")
        v.value(parameters, "an action's parameter")
        for fn in functions:
            v.value(fn, "a checked function")
        v.drain()
        v.check_changed_params()
        for where, dunders in v.arithmetic_mods:
            defined = sorted(v.operator_dunders[d] for d in dunders if d in v.operator_dunders)
            if defined:
                raise Refused(f"{where}: `%` taken as arithmetic, but {defined[0]} may make that arithmetic text "
                              "(Python formats a tuple operand as its items, and a traced part as one value)")
    except Refused as r:
        return Review(str(r), [])
    return Review(None, list(v.mutables.values()), v.compares_none)


class _Verifier:
    """One walk over everything reachable; state lives on the instance."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.keep: list = []  # keeps ids stable while the walk runs
        self.queue: list[tuple[Callable, str]] = []
        self.read: set[tuple[str, int, int]] = set()
        self.mutables: dict[int, tuple[str, Any]] = {}
        self.compares_none: str | None = None
        """Where the first ``is None`` comparison is (see :attr:`Review.compares_none`)."""
        self.arithmetic_mods: list[tuple[str, frozenset]] = []
        """``%`` sites passed as arithmetic because of operators on values of unknown type: (where, the
        dunders that would have to return text for the site to format)."""
        self.built_once: set[type] = set()
        """Classes whose field hooks never run on a traced part: the constants' (built before the search)."""
        self.operator_dunders: dict[str, str] = {}
        """Dunder name -> ``Class.dunder`` for each such method a reviewed spec class defines."""
        self.changes_params: dict[int, tuple[Any, dict[str, str]]] = {}
        """Per function that changes objects its parameters name (``changes[k] = v`` on a parameter): the
        function and, per such parameter, where it changes it."""
        self.calls: list[tuple[Any, dict[str, Any], str, Any]] = []
        """Direct calls of the spec's functions by name: (the function, per parameter what the call passes,
        where, the calling function): ``"fresh"`` (an object the caller made), ``("param", the caller's
        parameter)`` or ``"other"``."""
        self.returned: dict[int, set[str] | None] = {}
        """Per spec function asked about: :meth:`returns_made`'s answer."""
        self.escaped: set[int] = set()
        """Functions reached otherwise than as the callee of a direct call (passed on, stored, a method)."""

    def returns_made(self, fn: Any) -> set[str] | None:
        """Whether ``fn`` (a spec function) returns only objects it made, or what a parameter names: the set
        of such parameters (a call returns an object of its caller's making where it passes one for each), or
        None where it may return anything else."""
        key = id(fn)
        if key in self.returned:
            return self.returned[key]
        self.returned[key] = None  # a recursive call: not known to make what it returns
        self.keep.append(fn)
        module = sys.modules.get(getattr(fn, "__module__", None) or "")
        code = getattr(fn, "__code__", None)
        path = source_path(module) if module is not None and code is not None and not is_outside(module) else None
        node = _own_def(parsed_source(path), code) if path is not None else None
        if not isinstance(node, ast.FunctionDef) or getattr(fn, "__closure__", None) \
                or not isinstance(getattr(fn, "__globals__", None), dict):
            return None
        body = _Body(self, short_path(path), fn.__globals__, {}, fn)
        nodes = _executed(node)
        local = _local_loads(node)
        fresh = body.fresh_names(node, local)
        rebound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)} - rebound
        inner = {id(x) for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                 and n is not node for x in ast.walk(n)}
        out: set[str] = set()
        for n in nodes:
            if isinstance(n, (ast.Yield, ast.YieldFrom)):
                return None
            if isinstance(n, ast.Return) and n.value is not None and id(n) not in inner:
                if isinstance(n.value, ast.Name) and id(n.value) in local and n.value.id in params:
                    out.add(n.value.id)
                elif not body.is_fresh(n.value, local, fresh):
                    return None
        self.returned[key] = out
        return out

    def check_changed_params(self) -> None:
        """A function that changes an object a parameter names keeps state between calls unless every caller
        made that object itself: so each must be reached only by direct calls by name, each passing such an
        object (or its own parameter, which its callers must then make: followed to a fixed point), never
        leaving it to a default."""
        sites: dict[int, list[tuple[dict[str, Any], str]]] = {}
        for callee, passed, where, _caller in self.calls:
            sites.setdefault(id(callee), []).append((passed, where))
        changed = {fid: dict(params) for fid, (_fn, params) in self.changes_params.items()}
        fns = {fid: fn for fid, (fn, _params) in self.changes_params.items()}
        grew = True
        while grew:
            grew = False
            for callee, passed, where, caller in self.calls:
                for name in list(changed.get(id(callee), {})):
                    what = passed.get(name)
                    if isinstance(what, tuple):
                        if what[1] not in changed.setdefault(id(caller), {}):
                            changed[id(caller)][what[1]] = where
                            fns[id(caller)] = caller
                            grew = True
        for fid, params in changed.items():
            if not params:
                continue
            fn = fns[fid]
            name, (param, at) = _name(fn), next(iter(params.items()))
            if fid in self.escaped:
                raise Refused(f"{at}: {name} changes what its parameter `{param}` names, and is reached otherwise "
                              "than by a direct call (what it changes may be module-level: state kept between calls)")
            for passed, where in sites.get(fid, []):
                for p in params:
                    what = passed.get(p, "default")
                    if what == "other" or what == "default":
                        raise Refused(f"{where}: {name} changes what its parameter `{p}` names, and this call "
                                      f"{'leaves it to its default' if what == 'default' else 'passes an object it did not make'} "
                                      "(state kept between calls)")

    def drain(self) -> None:
        while self.queue:
            fn, where = self.queue.pop()
            self.function(fn, where)

    # -- values a name can stand for ---------------------------------------------------------

    def value(self, obj: Any, where: str, direct: bool = False) -> None:
        """Review ``obj``, reached at ``where``; ``direct``: as the callee of a call by its name."""
        if isinstance(obj, _SCALARS):
            return
        if not direct and _is_function(obj):
            self.escaped.add(id(obj))
        if id(obj) in self.seen:
            return
        self.seen.add(id(obj))
        self.keep.append(obj)
        if isinstance(obj, (tuple, frozenset)) and type(obj) in (tuple, frozenset):
            for x in obj:
                self.value(x, where)
            return
        if isinstance(obj, _MUTABLE):
            self.mutables[id(obj)] = (where, obj)
            items = obj.items() if isinstance(obj, dict) else obj
            for x in items:
                self.value(x, where)
            return
        if isinstance(obj, types.ModuleType):
            return  # its members are checked as they are named
        if isinstance(obj, type):
            self.klass(obj, where)
            return
        if isinstance(obj, functools.partial):
            self.value(obj.func, where)
            self.value(obj.args, where)
            for x in obj.keywords.values():
                self.value(x, where)
            return
        if _is_trusted(obj):
            fn = getattr(obj, "fn", None)  # an action object: its function is the spec's
            if fn is not None:
                self.value(fn, where)
            return
        if isinstance(obj, functools._lru_cache_wrapper):  # type: ignore[attr-defined]
            raise Refused(f"{where} is wrapped by functools.lru_cache/cache (it hands one evaluation's results, "
                          "traced parts and all, to the next)")
        if _is_value_method(obj):
            return
        if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType)) or _is_library(obj):
            if obj in BUILTINS or obj in LIBRARY:
                return
            raise Refused(f"{where} is not among the functions the memo tables can follow")
        if _is_function(obj):
            if not direct:
                self.escaped.add(id(obj))
            self.queue.append((obj, where))
            return
        if isinstance(obj, (staticmethod, classmethod)):
            self.value(obj.__func__, where)
            return
        if isinstance(obj, property):
            for f in (obj.fget, obj.fset, obj.fdel):
                if f is not None:
                    self.value(f, where)
            return
        if isinstance(obj, enum.Enum):
            self.klass(type(obj), where)  # its class's hooks (``__eq__``, ``_missing_``...) run on what it meets
            return
        if isinstance(obj, tuple) and hasattr(type(obj), "_fields"):
            self.klass(type(obj), where)
            for x in obj:
                self.value(x, where)
            return
        cls = type(obj)
        if _is_spec_class(cls):
            self.klass(cls, where)
            for x in _attribute_values(obj):
                self.value(x, where)
            return
        raise Refused(f"{where} is a {cls.__module__}.{cls.__qualname__} object, whose code the memo tables "
                      "cannot follow")

    def enum_class(self, cls: type, where: str) -> None:
        """An enum of the spec's: the methods its body defines (``_missing_``, ``__eq__``, ``__lt__``, ``__add__``
        run on whatever ``Phase(x)``, ``Phase.A == x`` or ``Phase.A + x`` meets) and its mixins; its members and
        what the enum machinery puts in its dictionary are data."""
        for base in cls.__mro__[1:]:
            if base is not object and _is_spec_class(base):
                self.klass(base, where)
        for attr, member in vars(cls).items():
            if isinstance(member, cls):
                continue
            f = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
            if isinstance(member, property) or (callable(f) and getattr(f, "__module__", None) == cls.__module__):
                self.value(member, f"{where}: {cls.__qualname__}.{attr}")

    def klass(self, cls: type, where: str) -> None:
        if cls in BUILTINS or cls in LIBRARY or cls is object:
            return
        if issubclass(cls, BaseException):
            return
        if issubclass(cls, enum.Enum):
            if _is_spec_class(cls):
                self.enum_class(cls, where)
            return
        if not _is_spec_class(cls):
            if _is_trusted(cls):
                return
            raise Refused(f"{where}: {cls.__module__}.{cls.__qualname__} is not a class the memo tables can "
                          "follow")
        meta = type(cls)
        if meta is not type and not issubclass(cls, enum.Enum):
            raise Refused(f"{where}: {cls.__qualname__} has the metaclass {meta.__qualname__}")
        named = hasattr(cls, "_fields") and issubclass(cls, tuple)
        made_by_attrs = hasattr(cls, "__attrs_attrs__")
        own = [m for m in ("__eq__", "__ne__", "__hash__") if m in vars(cls)]
        if own and not made_by_attrs:
            raise Refused(f"{where}: {cls.__qualname__} defines {own[0]} (the checker's visited set compares states "
                          "with it, the memo tables compare their values)")
        for base in cls.__mro__[1:]:
            if base in (object, tuple) or (named and base.__module__ == "typing"):
                continue
            self.klass(base, where)
        for attr, member in vars(cls).items():
            if attr in ("__dict__", "__weakref__", "__doc__", "__module__", "__qualname__", "__slots__",
                        "__annotations__", "__orig_bases__", "__match_args__", "_fields", "_field_defaults",
                        "__parameters__", "__init_subclass__", "__class_getitem__"):
                continue
            if named and attr in _NAMEDTUPLE_METHODS:
                continue  # made by collections.namedtuple for every record type
            if named and type(member).__name__ == "_tuplegetter":
                continue  # a field's accessor
            if isinstance(member, types.MemberDescriptorType):
                continue  # a slot: what it holds is reviewed with the object
            if _attrs_generated(member) or (made_by_attrs and attr not in _ATTRS_HOOKS
                                            and (attr.startswith("__attrs") or _from_attrs(member))):
                continue
            if attr in _OPERATOR_DUNDERS:
                self.operator_dunders.setdefault(attr, f"{cls.__qualname__}.{attr}")
            self.value(member, f"{where}: {cls.__qualname__}.{attr}")
        if made_by_attrs and cls not in self.built_once:
            self.field_hooks(cls, where)

    def field_hooks(self, cls: type, where: str) -> None:
        """The functions an attrs class runs on the values it is built with (``Box(s.x)`` in an action): each
        field's converter, validator, default factory, ``eq``/``order`` key and ``on_setattr``."""
        for a in getattr(cls, "__attrs_attrs__", ()):
            default = a.default
            hooks = [a.converter, a.validator, a.eq_key, a.order_key, a.on_setattr,
                     getattr(default, "factory", None) if type(default).__name__ == "Factory" else None]
            for hook in hooks:
                if hook is None or (not callable(hook) and type(hook).__module__.split(".")[0] == "attr"):
                    continue  # none, or a sentinel of attrs' own (``setters.NO_OP``)
                self.value(getattr(hook, "converter", hook) if type(hook).__name__ == "Converter" else hook,
                           f"{where}: {cls.__qualname__}.{a.name}")

    # -- a function's code -------------------------------------------------------------------

    def function(self, fn: Callable, where: str) -> None:
        module = sys.modules.get(getattr(fn, "__module__", None) or "")
        if module is not None and _trusted_name(module.__name__):
            return  # the spec API's own (compiled, or generated as ``replacer``'s functions are)
        code = getattr(fn, "__code__", None)
        if module is None or code is None:
            raise Refused(f"{where}: {_name(fn)} has no source the memo tables can check")
        if is_outside(module):
            raise Refused(f"{where}: {module.__name__}.{_name(fn)} is not among the functions the memo tables can "
                          "follow")
        path = source_path(module)
        if path is None:
            raise Refused(f"{module.__name__}: no Python source to check")
        try:
            tree = parsed_source(path)
        except (OSError, SyntaxError, ValueError):
            raise Refused(f"{short_path(path)}: cannot be read to check") from None
        # By the code first (a ``functools.wraps`` wrapper carries the wrapped function's ``__qualname__``),
        # then by the qualified name, where it names a definition holding the code's first line.
        node = _def_at(tree, code)
        if node is None:
            node = _outermost_def(tree, fn, code)
            if node is not None and not _holds_line(node, getattr(code, "co_firstlineno", None)):
                node = None
        if node is None:
            raise Refused(f"{short_path(path)}: {_name(fn)} cannot be found in the source to check")
        where = f"{short_path(path)}:{getattr(node, 'lineno', '?')}: {_name(fn)}"
        if not isinstance(fn, types.FunctionType):
            # Compiled (Cython): the function keeps its closure's cells where Python cannot read them, so
            # what a cell holds (a factory's parameter) could not be reviewed below.
            own = _own_def(tree, code)
            cells = sorted(_closure_names(node, own)) if own is not None and own is not node else []
            if cells:
                raise Refused(f"{short_path(path)}:{own.lineno}: a compiled function's closure (`{cells[0]}`) "
                              "cannot be read to review: pass the value as an argument, or hold it in an "
                              "object's attribute")
        defaults = list(getattr(fn, "__defaults__", None) or ()) + list((getattr(fn, "__kwdefaults__", None) or {}).values())
        for d in defaults:
            if isinstance(d, _MUTABLE):
                raise Refused(f"{where} has a mutable default argument (it keeps state between calls)")
            self.value(d, where)
        key = (path, node.lineno, node.col_offset)
        if key in self.read:
            return
        self.read.add(key)
        namespace = getattr(fn, "__globals__", None)
        if not isinstance(namespace, dict):
            namespace = vars(module)
        closure = {}
        for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                continue
        if id(node) in inside_classes(tree):
            private = _private_name(node)
            if private is not None:
                raise Refused(f"{short_path(path)}:{private[1]}: the private name `{private[0]}` inside a class "
                              "(Python renames it there, so the name the memo tables would follow is not the one "
                              "the code reads): drop the leading underscores")
        body = _Body(self, short_path(path), namespace, closure, fn)
        body.check(node)
        if body.changed_params:
            self.changes_params[id(fn)] = (fn, body.changed_params)
        self.calls += body.calls
        # What the closure holds is reachable whatever the body calls it: a cell bound to a parameter of the
        # enclosing ``def`` (``def make(fn): def act(c, s): return fn(c, s)``) reads as a local name there.
        for name, obj in closure.items():
            self.value(obj, f"{where}: `{name}`")


class _Body:
    """The allowlist applied to one outermost ``def`` (or ``lambda``), nested functions included."""

    def __init__(self, v: _Verifier, path: str, namespace: dict, closure: dict, fn: Any = None) -> None:
        self.v = v
        self.fn = fn
        self.path = path
        self.namespace = namespace
        self.closure = closure
        self.changed_params: dict[str, str] = {}
        """The outermost ``def``'s parameters whose objects it changes, with where."""
        self.calls: list[tuple[Any, dict[str, Any], str, Any]] = []
        """Its direct calls of spec functions (:attr:`_Verifier.calls`)."""

    def refuse(self, node: Any, what: str) -> None:
        raise Refused(f"{self.path}:{getattr(node, 'lineno', '?')}: {what}")

    def check(self, top: Any) -> None:
        nodes = _executed(top)
        local = _local_loads(top)

        def is_local(expr: Any) -> bool:
            root = _root(expr)
            return root is None or id(root) in local  # a root that is not a name is a value made here

        fresh = self.fresh_names(top, local)

        def may_change(expr: Any) -> bool:
            """Whether the object ``expr`` evaluates to may be changed here: this call made it (a display, a
            constructor's call, or a local name bound only to such; not an item or attribute of one, which
            may be older), so no other evaluation can see the change."""
            if isinstance(expr, ast.Name) and id(expr) in local and expr.id in own_params:
                # What the caller passed: each direct call must pass an object it made (checked in ``review``).
                self.changed_params.setdefault(expr.id, f"{self.path}:{getattr(expr, 'lineno', '?')}")
                return True
            return self.is_fresh(expr, local, fresh)

        rebound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        own_params = set()
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            own_params = {a.arg for a in (*top.args.posonlyargs, *top.args.args, *top.args.kwonlyargs)} - rebound
            nested = [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp,
                                                          ast.SetComp, ast.DictComp, ast.GeneratorExp)) and n is not top]
            own_params -= set().union(*(_bound_in(n) for n in nested)) if nested else set()
        callees = {id(n.func) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        for call in nodes:
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and id(call.func) not in local:
                callee = self.closure.get(call.func.id, self.namespace.get(call.func.id))
                if _is_function(callee):
                    self.calls.append((callee, self.passed(callee, call, local, fresh, own_params),
                                       f"{self.path}:{getattr(call, 'lineno', '?')}", self.fn))

        # Builtins first: on a line such as ``type(x) is int`` the call is the construct to name.
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in local \
                    and node.id not in self.closure and node.id not in self.namespace and hasattr(builtins, node.id):
                self.name(node)
        for node in nodes:
            what = _REFUSED_NODES.get(type(node))
            if what is not None:
                self.refuse(node, what)
            if isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not top:
                for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                    if isinstance(d, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
                        self.refuse(d, "a mutable default argument (it keeps state between calls)")
                if isinstance(node, ast.FunctionDef) and node.decorator_list:
                    self.refuse(node, "a decorated function inside a function")
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                for op, a, b in zip(node.ops, operands, operands[1:]):
                    if isinstance(op, (ast.Is, ast.IsNot)) and not (_is_none(a) or _is_none(b)):
                        self.refuse(node, "an identity comparison (`is` between values: a traced part is "
                                          "not the value it stands for)")
                    if isinstance(op, (ast.Is, ast.IsNot)) and self.v.compares_none is None:
                        self.v.compares_none = f"{self.path}:{getattr(node, 'lineno', '?')}"
            elif isinstance(node, ast.Attribute):
                if node.attr.startswith("__") and node.attr.endswith("__"):
                    self.refuse(node, f"the dunder attribute `.{node.attr}`")
                if isinstance(node.ctx, (ast.Store, ast.Del)) and not is_local(node):
                    self.refuse(node, "an assignment to an attribute of a module-level object (state kept "
                                      "between calls)")
                elif isinstance(node.ctx, (ast.Store, ast.Del)) and not _initialising(top, node) \
                        and not may_change(node.value):
                    self.refuse(node, "an assignment to an attribute of an object this call did not make (it may "
                                      "be module-level, so state kept between calls)")
                if isinstance(node.ctx, ast.Load) and isinstance(_root(node), ast.Name) and not is_local(node):
                    self.attribute(node)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
                if not is_local(node):
                    self.refuse(node, "an assignment into a module-level object (state kept between calls)")
                elif not may_change(node.value):
                    self.refuse(node, "an assignment into an object this call did not make (it may be "
                                      "module-level, so state kept between calls)")
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in local:
                self.name(node, id(node) in callees)
            if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Mod):
                left = node.left if isinstance(node, ast.BinOp) else node.target
                right = node.right if isinstance(node, ast.BinOp) else node.value
                relied: set[str] = set()
                if self.may_be_part(right, local):
                    if not self.not_text(left, top, local, set(), relied):
                        self.refuse(node, "`%` whose left operand may be text and whose right operand may be a "
                                          "state part (Python formats a tuple operand as its items, and a traced "
                                          "part as one value): write `fmt % (x,)` to format, or `int(a) % b` for "
                                          "arithmetic")
                    if relied:
                        self.v.arithmetic_mods.append((f"{self.path}:{getattr(node, 'lineno', '?')}",
                                                       frozenset(relied)))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum" \
                    and id(node.func) not in local and self.lookup(node.func, "sum") is builtins.sum:
                start = node.args[1:2] + [k.value for k in node.keywords if k.arg == "start"]
                if any(self.may_be_part(x, local) for x in start):
                    self.refuse(node, "`sum` with a start that may be a state part (sum refuses a str start by "
                                      "its type, which a stand-in for it does not have)")
            getter = self.resolved(node.func, local) if isinstance(node, ast.Call) else None
            if any(getter is g for g in _NAMED_GETTERS):
                names = node.args[:1] if getter is operator.methodcaller else node.args
                if node.keywords and getter is not operator.methodcaller or any(
                        not (isinstance(a, ast.Constant) and isinstance(a.value, str))
                        or any(part.startswith("__") for part in a.value.split(".")) for a in names):
                    self.refuse(node, "`operator.attrgetter`/`methodcaller` with a name that is not a plain field "
                                      "or method name written out (a dunder path reaches `type` and `id`)")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in _MUTATORS and not self.is_module(node.func.value, local):
                    # ``operator.add`` is a function, not a change
                    if not is_local(node.func.value):
                        self.refuse(node, f"`.{node.func.attr}()` on a module-level object (state kept between "
                                          "calls)")
                    elif not may_change(node.func.value):
                        self.refuse(node, f"`.{node.func.attr}()` on an object this call did not make (it may be "
                                          "module-level, so state kept between calls)")

    def fresh_names(self, top: Any, local: set[int]) -> set[str]:
        """The names ``top`` binds only to objects made there (:meth:`is_fresh`), by plain assignment (one
        name, or names from a display of as many values; or ``+=`` on them, or an annotated one): changing
        what they hold changes nothing another call sees.  A parameter, a loop or ``with`` variable, a name
        bound to anything else is not one (it may hold a module-level object, or the constants')."""
        params = {a.arg for n in ast.walk(top) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                  for a in (*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs,
                            *[x for x in (n.args.vararg, n.args.kwarg) if x])}
        made: dict[str, bool] = {}
        plain: set[int] = set()
        for n in ast.walk(top):
            if isinstance(n, ast.Assign):
                new = self.is_fresh(n.value, local, None)
                for target in n.targets:
                    if isinstance(target, ast.Name):
                        plain.add(id(target))
                        made[target.id] = made.get(target.id, True) and new
                    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(n.value, (ast.Tuple, ast.List)) \
                            and len(target.elts) == len(n.value.elts) \
                            and all(isinstance(t, ast.Name) for t in target.elts):  # ``a, b = [0] * n, []``
                        for t, v in zip(target.elts, n.value.elts):
                            plain.add(id(t))
                            made[t.id] = made.get(t.id, True) and self.is_fresh(v, local, None)
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
                plain.add(id(n.target))
                made[n.target.id] = made.get(n.target.id, True) and self.is_fresh(n.value, local, None)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                plain.add(id(n.target))  # ``xs += ...`` changes the object ``xs`` names, or binds a new one
        for n in ast.walk(top):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and id(n) not in plain:
                made[n.id] = False
        return {name for name, new in made.items() if new and name not in params}

    def is_fresh(self, expr: Any, local: set[int], fresh: set[str] | None) -> bool:
        """Whether ``expr`` makes a new container or object: a list, dict or set display or comprehension, a
        list display repeated or added to (``[None] * n``), a call of a builtin or library constructor, of a
        spec class that makes a new object (not an enum's, nor one with its own ``__new__``) or of a spec
        function that returns what it made, or a choice between such; with ``fresh``, also a local name
        bound only to such.  Not ``x.copy()``: what ``x`` is, and so what its ``copy`` returns, is not known
        here."""
        if isinstance(expr, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
            return True
        if isinstance(expr, ast.IfExp):
            return self.is_fresh(expr.body, local, fresh) and self.is_fresh(expr.orelse, local, fresh)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Mult)) \
                and any(isinstance(x, (ast.List, ast.ListComp)) for x in (expr.left, expr.right)):
            return True  # ``[None] * n``, ``xs + [x]``: a list's own operators make a new list
        if isinstance(expr, ast.Name):
            return fresh is not None and id(expr) in local and expr.id in fresh
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Name) and id(func) not in local:
                made = self.closure.get(func.id, self.namespace.get(func.id, getattr(builtins, func.id, None)))
            else:
                made = self.resolved(func, local)
            if _is_function(made) and not (isinstance(func, ast.Name) and id(func) in local):
                returned = self.v.returns_made(made)
                if returned is None:
                    return False
                passed = self.passed(made, expr, local, fresh or set(), set())
                return all(passed.get(p) == "fresh" for p in returned)
            return any(made is k for k in _CONSTRUCTORS) or (isinstance(made, type) and _is_spec_class(made)
                                                             and _makes_new(made))
        return False

    def resolved(self, expr: Any, local: set[int]) -> Any:
        """What ``expr`` is bound to where it is a module-level name or a module's attribute, else None."""
        if isinstance(expr, ast.Name) and id(expr) not in local:
            return self.closure.get(expr.id, self.namespace.get(expr.id))
        if isinstance(expr, ast.Attribute) and self.is_module(expr.value, local):
            return getattr(self.closure.get(expr.value.id, self.namespace.get(expr.value.id)), expr.attr, None)
        return None

    def is_module(self, expr: Any, local: set[int]) -> bool:
        """Whether ``expr`` is a module-level name bound to a module."""
        if not isinstance(expr, ast.Name) or id(expr) in local:
            return False
        return isinstance(self.closure.get(expr.id, self.namespace.get(expr.id)), types.ModuleType)

    def may_be_part(self, expr: Any, local: set[int]) -> bool:
        """Whether ``expr`` can evaluate to a traced state part itself, not a value computed from one: a name, an
        attribute, an item, a call of the spec's own function, or a choice between such.  Literals, arithmetic and
        comparisons give plain values on every path."""
        if isinstance(expr, (ast.Constant, ast.Tuple, ast.JoinedStr, ast.BinOp, ast.UnaryOp, ast.Compare, ast.List,
                             ast.ListComp, ast.Set, ast.SetComp, ast.Dict, ast.DictComp)):
            return False
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and id(expr.func) not in local:
            name = expr.func.id
            return name not in _NUMERIC_BUILTINS | _TEXT_BUILTINS \
                or self.lookup(expr.func, name) is not getattr(builtins, name)
        return True

    def not_text(self, expr: Any, top: Any, local: set[int], names: set[str], relied: set[str]) -> bool:
        """Whether ``expr`` is surely not a str or bytes, as far as its source shows: a number, arithmetic that
        text does not support, a builtin with a numeric result, or a name bound only to such values.  A
        parameter, an attribute or an item can be text, so ``%`` on it may format.  Where the answer rests on
        an operator (or ``abs``, ``round``, ``sum``, ``divmod``) over values of unknown type, the dunders a
        spec class would have to define to make it text are added to ``relied``."""
        if isinstance(expr, ast.Constant):
            return not isinstance(expr.value, (str, bytes))
        if isinstance(expr, ast.UnaryOp):
            if not isinstance(expr.op, ast.Not):
                relied.update(_UNARY_DUNDERS[type(expr.op)])
            return True
        if isinstance(expr, ast.Compare):
            relied.update(_COMPARE_DUNDERS)
            return True
        if isinstance(expr, ast.BinOp):
            relied.update(_BINARY_DUNDERS[type(expr.op)])
            if isinstance(expr.op, _NON_TEXT_OPS):
                return True
            left = self.not_text(expr.left, top, local, names, relied)
            if isinstance(expr.op, ast.Add):  # text + a non-text value raises before any ``%``
                return left or self.not_text(expr.right, top, local, names, relied)
            if isinstance(expr.op, ast.Mod):  # a number's remainder; text on the left formats
                return left
            return left and self.not_text(expr.right, top, local, names, relied)
        if isinstance(expr, ast.Call):
            f = expr.func
            if isinstance(f, ast.Name) and id(f) not in local and f.id in _NUMERIC_BUILTINS \
                    and self.lookup(f, f.id) is getattr(builtins, f.id):
                relied.update(_CALL_DUNDERS.get(f.id, ()))
                return True
            return False
        if isinstance(expr, ast.Name):
            if id(expr) not in local:
                return not isinstance(self.closure.get(expr.id, self.namespace.get(expr.id)), (str, bytes))
            if expr.id in names:
                return True  # a name bound in terms of itself: its other bindings decide
            return self.local_not_text(expr.id, top, local, names | {expr.id}, relied)
        return False

    def local_not_text(self, name: str, top: Any, local: set[int], names: set[str], relied: set[str]) -> bool:
        """Whether every binding of the local ``name`` in ``top`` is an assignment of a surely non-text value
        (a parameter, a loop target or an unpacking can be anything)."""
        for node in ast.walk(top):
            if isinstance(node, ast.arg) and node.arg == name:
                return False
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id == name:
                        if not self.not_text(node.value, top, local, names, relied):
                            return False
                    elif any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(t)):
                        return False
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name) \
                    and node.target.id == name:
                if node.value is None or not self.not_text(node.value, top, local, names, relied):
                    return False
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                if not self.not_text(ast.BinOp(left=node.target, op=node.op, right=node.value), top, local, names,
                                     relied):
                    return False
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.ExceptHandler,
                                   ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
                bound = getattr(node, "target", None) or getattr(node, "optional_vars", None)
                if bound is not None and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(bound)):
                    return False
                if getattr(node, "name", None) == name:
                    return False
        return True

    def lookup(self, node: Any, name: str) -> Any:
        if name in self.closure:
            return self.closure[name]
        if name in self.namespace:
            return self.namespace[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        self.refuse(node, f"the name `{name}` is not defined where the memo tables can see it")
        return None

    def passed(self, callee: Any, call: ast.Call, local: set[int], fresh: set[str], own_params: set[str]) \
            -> dict[str, Any]:
        """Per parameter of ``callee``, what ``call`` passes it (:attr:`_Verifier.calls`); every parameter
        ``"other"`` where the call unpacks ``*`` or ``**``."""
        code = getattr(callee, "__code__", None)
        names = list(getattr(code, "co_varnames", ()))[:getattr(code, "co_argcount", 0)
                                                        + getattr(code, "co_kwonlyargcount", 0)]
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return {name: "other" for name in names}
        out: dict[str, Any] = {}
        for name, arg in [*zip(names, call.args), *[(k.arg, k.value) for k in call.keywords]]:
            if isinstance(arg, ast.Name) and id(arg) in local and arg.id in own_params:
                out[name] = ("param", arg.id)
            elif self.is_fresh(arg, local, fresh):
                out[name] = "fresh"
            else:
                out[name] = "other"
        return out

    def name(self, node: ast.Name, direct: bool = False) -> None:
        obj = self.lookup(node, node.id)
        where = f"{self.path}:{node.lineno}: `{node.id}`"
        if getattr(builtins, node.id, None) is obj and obj is not None and not isinstance(obj, _SCALARS):
            if isinstance(obj, type) and issubclass(obj, BaseException):
                return
            if obj not in BUILTINS:
                self.refuse(node, f"the builtin `{node.id}` (it can tell a traced part from its value)")
            return
        if isinstance(obj, types.ModuleType):
            return  # checked where its members are named (``attribute``)
        self.v.value(obj, where, direct)

    def attribute(self, node: ast.Attribute) -> None:
        """A chain ``name.a.b`` rooted at a module-level name: each step resolved, the object reached checked."""
        chain = []
        root: Any = node
        while isinstance(root, ast.Attribute):
            chain.append(root.attr)
            root = root.value
        chain.reverse()
        if not isinstance(root, ast.Name):
            return  # an attribute of a value made here (a call's result, a subscript's item)
        obj = self.lookup(root, root.id)
        for attr in chain:
            # A function's own attributes (``bump.calls = []``) are module-level objects too, reached by name.
            own = _is_function(obj) and attr in (getattr(obj, "__dict__", None) or {})
            if not isinstance(obj, (types.ModuleType, type)) and not _is_spec_class(type(obj)) and not own:
                return  # an attribute of a value: a field or a method of an allowed type
            try:
                obj = getattr(obj, attr)
            except AttributeError:
                self.refuse(node, f"`{root.id}.{'.'.join(chain)}` cannot be resolved")
        self.v.value(obj, f"{self.path}:{node.lineno}: `{root.id}.{'.'.join(chain)}`")


# -- small helpers ------------------------------------------------------------------------------


_VALUE_TYPES = (int, bool, float, str, bytes, tuple, frozenset, list, dict, set)

_NUMERIC_BUILTINS = frozenset(("len", "int", "float", "abs", "hash", "ord", "round", "bool", "sum", "divmod"))
"""Builtins whose result is a number (or raises): a ``%`` on it is arithmetic."""

_BINARY_DUNDERS = {
    op: (f"__{name}__", f"__r{name}__") for op, name in (
        (ast.Add, "add"), (ast.Sub, "sub"), (ast.Mult, "mul"), (ast.Div, "truediv"), (ast.FloorDiv, "floordiv"),
        (ast.Mod, "mod"), (ast.Pow, "pow"), (ast.LShift, "lshift"), (ast.RShift, "rshift"), (ast.BitAnd, "and"),
        (ast.BitOr, "or"), (ast.BitXor, "xor"), (ast.MatMult, "matmul"))}
"""Each binary operator's methods: a spec class defining one decides what the operator gives."""

_UNARY_DUNDERS = {ast.USub: ("__neg__",), ast.UAdd: ("__pos__",), ast.Invert: ("__invert__",)}

_COMPARE_DUNDERS = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__")

_CALL_DUNDERS = {"abs": ("__abs__",), "round": ("__round__",), "sum": ("__add__", "__radd__"),
                 "divmod": ("__divmod__", "__rdivmod__")}
"""The numeric builtins whose result a spec class's method decides (``int()``, ``len()`` and kin insist on a
number)."""

_OPERATOR_DUNDERS = frozenset(d for ds in (*_BINARY_DUNDERS.values(), *_UNARY_DUNDERS.values(), _COMPARE_DUNDERS,
                                           *_CALL_DUNDERS.values()) for d in ds)

_NON_TEXT_OPS = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor,
                 ast.MatMult)
"""Binary operators that text does not support: their result is never text."""


_TEXT_BUILTINS = frozenset(("str", "repr", "ascii", "format", "chr", "bytes", "bin", "hex", "oct"))
"""Builtins whose result is text: never a traced part."""


def _is_value_method(obj: Any) -> bool:
    """A method of a builtin value type reached through the type (``frozenset.union``, ``int.bit_length``,
    ``dict.fromkeys``) or bound to a constant (``", ".join``): it acts on its arguments' values."""
    if isinstance(obj, (types.MethodDescriptorType, types.WrapperDescriptorType, types.ClassMethodDescriptorType)):
        # ``list.append`` handed to ``map`` changes what it is given: not a value's method
        return getattr(obj, "__objclass__", None) in _VALUE_TYPES and getattr(obj, "__name__", "") not in _MUTATORS
    if isinstance(obj, types.BuiltinMethodType):
        owner = getattr(obj, "__self__", None)
        return owner in _VALUE_TYPES or isinstance(owner, _SCALARS)
    return False


def _is_function(obj: Any) -> bool:
    return isinstance(obj, types.FunctionType) or type(obj).__name__ in ("cython_function_or_method",
                                                                        "fused_cython_function")


def _is_library(obj: Any) -> bool:
    """A callable of the standard library or an installed package (checked against the allowlist by identity)."""
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    return callable(obj) and not isinstance(obj, type) and (module is None or is_outside(module)) \
        and not (module is not None and _trusted_name(module.__name__)) and not _is_function(obj)


def _is_trusted(obj: Any) -> bool:
    mod = getattr(type(obj) if not isinstance(obj, type) else obj, "__module__", "") or ""
    return _trusted_name(mod)


def _is_spec_class(cls: type) -> bool:
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    return module is not None and not is_outside(module)


def _attribute_values(obj: Any) -> list:
    """The values an object holds in its ``__dict__`` and in the slots of its classes (an attrs class with
    slots, the usual constants class, has no ``__dict__``)."""
    values = list(getattr(obj, "__dict__", {}).values())
    for cls in type(obj).__mro__:
        slots = vars(cls).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__"):
                if name.startswith("__") and not name.endswith("__"):
                    name = f"_{cls.__name__.lstrip('_')}{name}"  # a private slot's mangled name
                try:
                    values.append(getattr(obj, name))
                except AttributeError:
                    pass
    return values


def _from_attrs(member: Any) -> bool:
    """A method attrs puts on the classes it makes from its own module (``__ne__``, a frozen class's
    ``__setattr__``), not generated per class."""
    return (getattr(member, "__module__", None) or "").split(".")[0] == "attr"


def _attrs_generated(member: Any) -> bool:
    code = getattr(member, "__code__", None)
    return code is not None and str(getattr(code, "co_filename", "")).startswith("<attrs generated")


def _name(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__


def _is_none(node: Any) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _makes_new(cls: type) -> bool:
    """Whether calling ``cls`` makes a new object: not an enum's call (it returns a member, made once) nor
    a class with a ``__new__`` of its own, which may return any object."""
    if issubclass(cls, enum.Enum):
        return False
    return all("__new__" not in vars(k) for k in cls.__mro__ if k not in (object, tuple))


def _initialising(top: Any, node: ast.Attribute) -> bool:
    """Whether ``node`` sets an attribute of the object ``top`` initialises: ``self.x = ...`` in ``__init__``
    (or attrs' and dataclasses' post-init, or ``__setstate__``), which runs on an object just made."""
    return isinstance(top, ast.FunctionDef) and top.name in _INITIALISERS and bool(top.args.args) \
        and isinstance(node.value, ast.Name) and node.value.id == top.args.args[0].arg


def _root(node: Any) -> Any:
    """The name an attribute or subscript chain starts from (``a`` in ``a.b[0].c``), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node if isinstance(node, ast.Name) else None


def _executed(top: Any) -> list:
    """The nodes of ``top`` that run when it is called: not its decorators (they ran when it was defined)
    nor annotations (never evaluated for a call)."""
    skip: set[int] = set()
    for node in ast.walk(top):
        parts: list = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts = [node.returns] + (list(node.decorator_list) if node is top else [])
        elif isinstance(node, ast.arg):
            parts = [node.annotation]
        elif isinstance(node, ast.AnnAssign):
            parts = [node.annotation]
        for part in parts:
            if part is not None:
                skip.update(id(n) for n in ast.walk(part))
    return [n for n in ast.walk(top) if id(n) not in skip]


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _bound_in(scope: Any) -> set[str]:
    """The names a function, lambda or comprehension binds itself (not those its nested scopes bind)."""
    out: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        out.update(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [y for y in (a.vararg, a.kwarg) if y])
        body = scope.body if isinstance(scope.body, list) else [scope.body]
    else:
        body = [g.target for g in scope.generators]
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(node.name)  # its body is its own scope
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            out.add(node.target.id)  # binds in the enclosing function, even from a comprehension
            stack.append(node.value)
        elif not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(_walrus_targets(node))
    return out


def _walrus_targets(comp: Any) -> list:
    return [n for n in ast.walk(comp) if isinstance(n, ast.NamedExpr)]


def _local_loads(top: Any) -> set[int]:
    """The ids of the ``Name`` nodes in ``top`` that read a local (of ``top`` or a scope inside it), by
    Python's scoping: a name is local where an enclosing function, lambda or comprehension binds it."""
    out: set[int] = set()

    def visit(node: Any, scopes: list[set[str]]) -> None:
        if isinstance(node, _SCOPES):
            scopes = scopes + [_bound_in(node)]
        if isinstance(node, ast.Name) and any(node.id in sc for sc in scopes):
            out.add(id(node))
        for child in ast.iter_child_nodes(node):
            visit(child, scopes)

    visit(top, [])
    return out


def _private_name(node: Any) -> tuple[str, int] | None:
    """The first name in ``node`` that Python renames inside a class (``__x``, not ``__x__``), with its line."""
    for n in ast.walk(node):
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else \
            n.arg if isinstance(n, ast.arg) else n.name if isinstance(n, (ast.FunctionDef, ast.ClassDef)) else None
        if name is not None and name.startswith("__") and not name.endswith("__"):
            return name, getattr(n, "lineno", getattr(node, "lineno", 0))
    return None


def _own_def(tree: Any, code: Any) -> Any:
    """The ``def`` or ``lambda`` node ``code`` was compiled from, where its name and first line single one out."""
    name, line = getattr(code, "co_name", None), getattr(code, "co_firstlineno", None)
    if name == "<lambda>":
        found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == line]
    else:
        found = [n for n in function_defs(tree) if n.name == name
                 and line in (n.lineno, *(d.lineno for d in n.decorator_list))]
    return found[0] if len(found) == 1 else None


def _closure_names(outer: Any, own: Any) -> set[str]:
    """The names ``own`` (a ``def`` or ``lambda`` inside ``outer``) reads from an enclosing function's scope:
    its closure's cells."""
    names: set[str] = set()

    def visit(node: Any, scopes: list[tuple[set[str], bool]], inside: bool) -> None:
        if isinstance(node, _SCOPES):
            inside = inside or node is own
            scopes = scopes + [(_bound_in(node), inside)]
        if inside and isinstance(node, ast.Name):
            for bound, in_own in reversed(scopes):
                if node.id in bound:
                    if not in_own:
                        names.add(node.id)
                    break
        for child in ast.iter_child_nodes(node):
            visit(child, scopes, inside)

    visit(outer, [], False)
    return names


def _outermost_def(tree: Any, fn: Callable, code: Any) -> Any:
    """The ``def`` or ``lambda`` node of ``fn`` (for a nested function, its outermost enclosing ``def``)."""
    qualname = getattr(fn, "__qualname__", "") or ""
    outer = qualname.split(".<locals>")[0]
    if "<lambda>" in outer:
        line = getattr(code, "co_firstlineno", None)
        lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == line]
        if len(lambdas) == 1:
            enclosing = _enclosing_def(tree, lambdas[0])
            return enclosing if enclosing is not None else lambdas[0]
        if lambdas:
            # several on one line: check the statement that holds them all
            stmt = next((s for s in ast.walk(tree) if isinstance(s, ast.stmt) and s.lineno <= line <=
                         (s.end_lineno or s.lineno) and not isinstance(s, (ast.FunctionDef, ast.ClassDef))), None)
            return stmt
        return None
    node = tree
    for part in outer.split("."):
        node = next((n for n in getattr(node, "body", []) if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
    if not isinstance(node, ast.FunctionDef):
        return None
    return node


def _def_at(tree: Any, code: Any) -> Any:
    """The outermost ``def`` enclosing the one ``code`` was compiled from, found by its name and first line
    (None for a lambda, or where that does not single one out)."""
    name, line = getattr(code, "co_name", None), getattr(code, "co_firstlineno", None)
    defs = function_defs(tree)
    found = [n for n in defs if n.name == name and line in (n.lineno, *(d.lineno for d in n.decorator_list))]
    if len(found) != 1:
        return None
    target = found[0]
    outer = [n for n in defs if n.lineno <= target.lineno <= (n.end_lineno or n.lineno)]
    return min(outer, key=lambda n: n.lineno)


def _holds_line(node: Any, line: int | None) -> bool:
    """Whether ``line`` is within ``node`` (its decorators included)."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return line is not None and first <= line <= (node.end_lineno or node.lineno)


def _enclosing_def(tree: Any, target: Any) -> Any:
    best = None
    for node in function_defs(tree):
        if node.lineno <= target.lineno <= (node.end_lineno or node.lineno):
            if best is None or node.lineno > best.lineno:
                best = node
    return best
