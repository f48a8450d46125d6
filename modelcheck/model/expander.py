"""Successor generation, compiled once per bound model: the hot loop of every engine.

Every state calls every (action, parameter binding) pair, and most calls
return None (a disabled action): 51 calls per state for Kip320 with three
replicas, 37.6 million in a run.  The call itself is then the cost, and a
generic loop adds to each one the iteration, the binding tuple's indexing and
the checks of a per-arity dispatch.  So the engine generates, once per run,
straight-line Python with one call per binding and the binding's values as
constants (``r = f4(c, s, 0, 2)``), which is faster than the loop
(docs/benchmarks.md has the measurements).  Spec authors still write plain
functions; nothing here changes what they see.

Two forms are built from the same plan:

* :func:`loop_expander` — ``expand(s)``, a list of (action index, binding,
  result); the reference form, used by replay, simulation, Spark, and to name
  the action when spec code raises;
* :func:`compile_expander` — ``expand_into(s, ais, ts)``, which appends each
  generated successor (a list result counts once per element, as TLC counts
  each satisfied disjunct) and its action index to two lists: the columns the
  engines keep per batch.  It is the generated straight-line code when this
  module is interpreted, and a plain loop over the bindings when ``modelcheck
  compile`` has built this module (the loop is then C, faster again).

Both forms check every result (:mod:`modelcheck.model.validate`): a state
of the spec's state type, None, or an iterable of states.  The hot forms
test ``type(r) is S`` where they tested ``type(r) is list`` before (the
common case costs nothing more), and hand anything else to
:func:`~modelcheck.model.validate.as_successors`; what it refuses is
named, with the action and its parameters, by the loop form.
"""

# modelcheck: compile

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

from modelcheck.errors import SpecRuntimeError
from modelcheck.model.blame import passes_through, spec_error
from modelcheck.model.validate import BadResult, action_error, as_successors
from modelcheck.spec.declare import Action, State

try:
    import cython  # read by Cython when ``modelcheck compile`` builds this module (see ``_loop_into``)

    _COMPILED = cython.compiled
except ImportError:  # Cython is the optional ``compile`` extra; interpreted, local annotations are never evaluated
    _COMPILED = False

ENTRY_GUARD = "_mc_A_"
"""``_mc_A_<name>``: how a compiled spec module exports an action's function beside its C entry.

The record rewrite (:mod:`modelcheck.build.record_rewrite`) emits the name;
:func:`c_entry` looks it up to make sure the entry is still the function the
spec declares.  The contract is defined here, by its user, and the build
follows it."""

UNROLL_LIMIT = 64
"""Actions with more bindings than this get a generated loop instead of one call per binding (code size)."""

UNROLL_TOTAL = 2048
"""Bindings unrolled in all; the actions after this budget is spent get loops (a model of many actions
would otherwise compile to a function of tens of thousands of lines)."""

Expansion = list[tuple[int, tuple[Any, ...], Any]]


def _plan(actions: Sequence[Action], bindings: Sequence[Sequence[tuple[Any, ...]]], labels: bool = False) -> tuple:
    """(index, function, bindings, arity) per action: what both loop forms iterate over.

    The index appended with each successor is the action's; with ``labels``,
    each binding is a step of its own and the index is the binding's *label*
    (its place in the spec's bindings, all actions together), which is what
    fairness of one action instance needs.
    """
    if not labels:
        return tuple((ai, a.fn, tuple(bindings[ai]), len(a.params)) for ai, a in enumerate(actions))
    plan = []
    label = 0
    for ai, a in enumerate(actions):
        for b in bindings[ai]:
            plan.append((label, a.fn, (b,), len(a.params)))
            label += 1
    return tuple(plan)


def loop_expander(
    spec_name: str, actions: Sequence[Action], bindings: Sequence[Sequence[tuple[Any, ...]]], c: Any, *,
    state_type: type,
) -> Callable[[State], Expansion]:
    """``expand(s)``: every (action index, binding, result) whose result is not None, in the spec's order.

    A result is a state of ``state_type`` or a list of them (an iterable of
    states becomes a list); any other result, and any exception, raises
    :class:`SpecRuntimeError` naming the action with its parameters.
    Actions of one or two parameters are called with plain positional
    arguments, because ``fn(c, s, *b)`` costs more than twice as much as
    ``fn(c, s, b[0], b[1])`` on CPython 3.11.
    """
    plan = _plan(actions, bindings)
    S = state_type

    def expand(s: State) -> Expansion:
        found: Expansion = []
        add = found.append
        ai = -1
        b: tuple[Any, ...] = ()
        try:
            for ai, fn, bs, arity in plan:
                if arity == 2:
                    for b in bs:
                        r = fn(c, s, b[0], b[1])
                        if r is not None:
                            add((ai, b, r if type(r) is S else as_successors(r, S)))
                elif arity == 1:
                    for b in bs:
                        r = fn(c, s, b[0])
                        if r is not None:
                            add((ai, b, r if type(r) is S else as_successors(r, S)))
                elif arity == 0:
                    b = ()
                    r = fn(c, s)
                    if r is not None:
                        add((ai, b, r if type(r) is S else as_successors(r, S)))
                else:
                    for b in bs:
                        r = fn(c, s, *b)
                        if r is not None:
                            add((ai, b, r if type(r) is S else as_successors(r, S)))
        except BadResult as bad:
            raise action_error(spec_name, actions[ai].label(b), actions[ai].fn, bad, S) from None
        except SpecRuntimeError:
            raise
        except BaseException as exc:  # noqa: BLE001 - anything spec code raises is the spec's error
            if passes_through(exc):
                raise
            raise spec_error(spec_name, f"action {actions[ai].label(b)}", exc, actions[ai].fn) from exc
        return found

    return expand


def _literal(value: Any) -> str | None:
    """Source text for a binding value that compiles to a constant, or None (then it is looked up)."""
    if type(value) is int or type(value) is bool:
        return repr(value)
    return None


def _runs_compiled() -> bool:
    from modelcheck.build.compiled import is_compiled

    return is_compiled(sys.modules[__name__])


def compile_expander(
    spec_name: str, actions: Sequence[Action], bindings: Sequence[Sequence[tuple[Any, ...]]], c: Any,
    form: str | None = None, labels: bool = False, *, state_type: type,
) -> Callable[[State, list, list], None]:
    """``expand_into(s, ais, ts)``: append every successor of ``s`` to ``ts`` and its action index to ``ais``.

    Same successors, same order and same errors as :func:`loop_expander`.  When
    spec code raises, the state is expanded again by the loop form, which names
    the action (spec functions are pure, so it raises the same way); the lists
    may then hold part of ``s``'s successors, which callers drop.

    ``form`` is ``"unrolled"`` (generated straight-line Python, one call per
    binding) or ``"loop"`` (a loop over the bindings in this module).  By
    default the loop when this module itself runs compiled (``modelcheck
    compile``): a C loop expanded Kip320's states 9 % faster than the
    interpreted unrolled code; otherwise the unrolled code, 10 to 15 % faster
    than an interpreted loop.
    """
    if form is None:
        form = "loop" if _runs_compiled() else "unrolled"
    if form not in ("loop", "unrolled"):
        raise ValueError(f"form must be 'loop' or 'unrolled', not {form!r}")
    reference = loop_expander(spec_name, actions, bindings, c, state_type=state_type)

    def locate(s: State, exc: BaseException) -> None:
        """Raise the loop form's error naming the action; if it does not raise, name none."""
        if passes_through(exc):
            raise exc
        reference(s)
        raise SpecRuntimeError(
            f"spec {spec_name}: an action raised {type(exc).__name__}: {exc} (not again when repeated:"
            " is the spec deterministic?)",
            spec=spec_name,
            where="an action",
        ) from exc

    if form == "loop":
        return _loop_into(_plan(actions, bindings, labels), c, locate, state_type)
    scope: dict[str, Any] = {"c": c, "_locate": None, "S": state_type, "V": as_successors}
    body: list[str] = []

    def emit(call: str, ai: int | str, indent: str) -> None:
        # The successor's type is tested first (the common result), a list item by item; anything
        # else is accepted or refused by V (as_successors), and the loop form names the action.
        body.extend([
            f"{indent}r = {call}",
            f"{indent}if r is not None:",
            f"{indent}    if type(r) is S:",
            f"{indent}        A({ai})",
            f"{indent}        T(r)",
            f"{indent}    elif type(r) is list:",
            f"{indent}        for x in r:",
            f"{indent}            if type(x) is not S:",
            f"{indent}                V(r, S)",
            f"{indent}            A({ai})",
            f"{indent}            T(x)",
            f"{indent}    else:",
            f"{indent}        for x in V(r, S):",
            f"{indent}            A({ai})",
            f"{indent}            T(x)",
        ])

    budget = UNROLL_TOTAL
    first_label = 0
    for ai, a in enumerate(actions):
        fn = f"f{ai}"
        scope[fn] = a.fn
        bs = tuple(bindings[ai])
        arity = len(a.params)
        if len(bs) <= min(UNROLL_LIMIT, budget):
            budget -= len(bs)
            for bi, b in enumerate(bs):
                args = []
                for j, value in enumerate(b):
                    text = _literal(value)
                    if text is None:
                        text = f"v{ai}_{bi}_{j}"
                        scope[text] = value
                    args.append(text)
                emit(f"{fn}(c, s{''.join(', ' + x for x in args)})", first_label + bi if labels else ai, "        ")
        else:
            scope[f"B{ai}"] = bs
            body.append(f"        for bi, b in enumerate(B{ai}):" if labels else f"        for b in B{ai}:")
            args = "".join(f", b[{j}]" for j in range(arity)) if arity <= 3 else ", *b"
            emit(f"{fn}(c, s{args})", f"{first_label} + bi" if labels else ai, "            ")
        first_label += len(bs)
    source = "\n".join([
        "def expand_into(s, ais, ts):",
        "    A = ais.append",
        "    T = ts.append",
        "    try:",
        *(body or ["        pass"]),
        "    except BaseException as exc:",
        "        _locate(s, exc)",
        "        raise",
    ]) + "\n"

    scope["_locate"] = locate
    exec(compile(source, f"<expander of {spec_name}>", "exec"), scope)  # noqa: S102 - generated from the plan
    return scope["expand_into"]


ENTRY_ARITY = 3
"""Actions of at most this many parameters are called by their C entry (``mc_expand`` in ``expander.pxd``)."""


def c_entry(fn: Callable, arity: int) -> Any:
    """``fn`` as a C function, exported by its compiled spec module; None: call it the Python way.

    ``modelcheck compile`` declares a spec's actions ``cpdef``
    (:func:`modelcheck.build.record_rewrite._entries`), so Cython exports each as
    a C function in the module's ``__pyx_capi__``, beside ``_mc_A_<name>``,
    the function object the module bound.  Called through that pointer, an
    action costs no vectorcall, CyFunction dispatch or argument parsing.
    The entry is used only when that object *is* ``fn`` (not a wrapper a
    decorator returned, nor a function patched in since) and the C
    signature takes Python objects only, as the ``def`` does.
    """
    if not _COMPILED or arity > ENTRY_ARITY:
        return None
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    capi = getattr(module, "__pyx_capi__", None)
    name = getattr(fn, "__name__", None)
    if not isinstance(capi, dict) or not isinstance(name, str):
        return None
    entry, guard = capi.get(name), capi.get(ENTRY_GUARD + name)
    if entry is None or guard is None:
        return None
    return mc_entry_of(fn, entry, guard, "PyObject *(" + "PyObject *, " * (arity + 2) + "int __pyx_skip_dispatch)")


def _loop_into(plan: tuple, c: Any, locate: Callable[[State, BaseException], None],
               state_type: type) -> Callable[[State, list, list], None]:
    """The loop form of ``expand_into``, for when this module is compiled (see :func:`compile_expander`).

    Compiled, the whole expansion is one C loop over a plan built here once
    (``mc_expand`` in ``expander.pxd``): every call ``fn(c, s, *binding)``
    is a call of the action's C entry (:func:`c_entry`), or else a direct
    vectorcall, and each result is taken when its type is ``state_type``
    (a pointer comparison), item by item for a list, and through
    :func:`~modelcheck.model.validate.as_successors` otherwise.  A Cython
    loop over the plan's Python tuples cost
    about a hundred instructions a call more (callgrind, Kip320: unpacking
    each step, a module global read, the arity's conversion).  Interpreted
    (a test asking for this form), or with an action of more than
    ``MC_MAX_ARITY`` parameters, the same loop in Python.
    """
    S = state_type
    if _COMPILED and all(arity <= MC_MAX_ARITY for _ai, _fn, _bs, arity in plan):
        cplan = mc_plan_new(plan, tuple(c_entry(fn, arity) for _ai, fn, _bs, arity in plan), S, as_successors)

        def expand_into(s: State, ais: list, ts: list) -> None:
            try:
                mc_expand(cplan, c, s, ais, ts)
            except BaseException as exc:  # noqa: BLE001 - named by the loop form
                locate(s, exc)
                raise

        return expand_into

    def expand_into_py(s: State, ais: list, ts: list) -> None:
        try:
            for ai, fn, bs, _arity in plan:
                for b in bs:
                    r = fn(c, s, *b)
                    if r is not None:
                        if type(r) is S:
                            ais.append(ai)
                            ts.append(r)
                        else:
                            for x in as_successors(r, S):
                                ais.append(ai)
                                ts.append(x)
        except BaseException as exc:  # noqa: BLE001 - named by the loop form
            locate(s, exc)
            raise

    return expand_into_py
