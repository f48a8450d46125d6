"""What a liveness lasso's loop allows: the actions enabled or taken in it, each with its fairness.

A lasso refutes a property only because the spec's fairness lets the
behaviour stay in its loop (or stutter in its last state) forever.  A reader
checking that claim needs to know which actions could have taken the
behaviour out, and why fairness does not force them: an action with no
fairness may be neglected forever; a weakly fair one must be taken or be
disabled somewhere in the loop; a strongly fair one must be taken or never
be enabled there.  The renderers read only the trace document, so this is
computed once, from the spec, when the document is built, and stored in it
as ``violation.loop_actions``.
"""

from __future__ import annotations

from typing import Any

FAIRNESS_KINDS = ("weak", "strong", "none")


def fairness_by_action(spec: Any) -> dict[str, str]:
    """Each action's fairness as declared (``weak``, ``strong``, ``weak, each binding``...); absent: none."""
    out: dict[str, str] = {}
    for f, ai in spec_fairness(spec):
        name = spec.actions[ai].name
        kind = f.kind + (", each binding" if f.each else "")
        out[name] = f"{out[name]}; {kind}" if name in out else kind
    return out


def spec_fairness(spec: Any) -> list[tuple[Any, int]]:
    """The spec's fairness conditions with the index of their action (as :class:`~modelcheck.Spec` keeps them)."""
    return list(getattr(spec, "fairness", ()) or ())


def loop_actions(spec: Any, consts: Any, violation: Any) -> list[dict]:
    """Per action enabled in some state of the loop, taken in it, or fair: its fairness and how it stands there.

    The loop is ``trace[loop_start:]`` closed by ``loop_action``, or the last
    state alone when the behaviour stutters there.  As in the liveness
    check, an action is enabled in a state when it has a successor inside
    the model that differs from the state (a step that changes nothing is
    stuttering).  Each entry: ``action`` (the bare name), ``fairness``,
    ``enabled`` (in ``every`` loop state, ``some`` or ``no``) and ``taken``.
    Fair actions are always listed, so a reader sees that each one is taken,
    or disabled where its fairness says it may be.
    """
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions

    trace = violation.trace
    if violation.kind != "liveness" or not trace:
        return []
    model = BoundModel(spec, consts, CheckOptions(invariants=()))
    start = len(trace) - 1 if violation.loop_start is None else violation.loop_start
    loop = [step.state for step in trace[start:]]
    taken: set[str] = set()
    enabled_in: dict[str, int] = {}
    fp = model.fingerprint
    if violation.loop_start is not None:  # each step of the loop, the one back to its first state included
        after = [fp(t) for t in loop[1:]] + [fp(loop[0])]
    for k, s in enumerate(loop):
        here: set[str] = set()
        for ai, b, t in model.successors(s):
            if t == s or not model.in_model(t) or not model.action_allowed(s, t):
                continue
            name = model.actions[ai].name
            here.add(name)
            # A step is an A-step when some instance of A makes it (as fairness reads it), whichever
            # action the trace's label names.
            if violation.loop_start is not None and name not in taken and fp(t) == after[k]:
                taken.add(name)
        for name in here:
            enabled_in[name] = enabled_in.get(name, 0) + 1
    fair = fairness_by_action(spec)
    out = []
    for a in model.actions:
        if a.name not in enabled_in and a.name not in taken and a.name not in fair:
            continue
        count = enabled_in.get(a.name, 0)
        out.append({"action": a.name, "fairness": fair.get(a.name, "none"),
                    "enabled": "every" if count == len(loop) else ("some" if count else "no"),
                    "taken": a.name in taken})
    return out


def violated_part(spec: Any, consts: Any, violation: Any) -> str | None:
    """Which part of a quantified property the lasso breaks, as ``r = r1``: None when it is not a conjunction,
    or when its parts do not differ by a value a reader can name.

    ``\\A r: P(r) ~> Q(r)`` is written ``all_of(... for r in ...)``; the
    lasso breaks it for one ``r``, and a reader looking at three replicas
    wants to know which.  The parts are told apart by the values their
    predicates close over (or take as defaults, ``lambda c, s, r=r``): the
    variable whose value differs from part to part names the part, written
    as the spec's actions write a value of the domain of that name
    (``replica`` for ``r``: ``r1``)."""
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.spec.temporal import AllOf

    if violation.kind != "liveness" or not violation.trace:
        return None
    try:
        model = BoundModel(spec, consts, CheckOptions(invariants=(), properties=(violation.name,)))
        formula = model.formulas[0]
    except Exception:  # a property the model cannot rebuild here: say nothing rather than guess
        return None
    if not isinstance(formula, AllOf) or len(formula.parts) < 2:
        return None
    states = [step.state for step in violation.trace]
    start = violation.loop_start if violation.loop_start is not None else len(states) - 1
    broken = [k for k, part in enumerate(formula.parts) if _holds(part, consts, states, start) is False]
    if not broken:
        return None
    names = [_bound_values(part) for part in formula.parts]
    varying = [v for v in names[broken[0]] if len({n.get(v) for n in names}) == len(names)]
    if not varying:
        return None
    shown = ", ".join(f"{v} = {_show(spec, consts, v, names[broken[0]][v])}" for v in varying)
    return f"{shown} (one of its {len(formula.parts)} parts, one for each {', '.join(varying)})"


def _holds(f: Any, c: Any, states: list, start: int) -> bool | None:
    """Whether the lasso (``states``, looping from ``start``, or stuttering in the last when it is the last)
    satisfies ``f``; None for a form this reading does not know (a step predicate)."""
    from modelcheck.spec.temporal import AllOf, AlwaysEventually, AnyOf, Eventually, EventuallyAlways, LeadsTo

    loop = states[start:]
    if isinstance(f, Eventually):
        return any(f.p(c, s) for s in states)
    if isinstance(f, AlwaysEventually):
        return any(f.p(c, s) for s in loop)
    if isinstance(f, EventuallyAlways):
        return all(f.p(c, s) for s in loop)
    if isinstance(f, LeadsTo):
        q_in_loop = any(f.q(c, s) for s in loop)
        for i, s in enumerate(states):  # after a P state in the loop, every loop state comes again
            if f.p(c, s) and not (q_in_loop or any(f.q(c, t) for t in states[i:])):
                return False
        return True
    if isinstance(f, (AllOf, AnyOf)):
        parts = [_holds(p, c, states, start) for p in f.parts]
        if None in parts:
            return None
        return all(parts) if isinstance(f, AllOf) else any(parts)
    return None


def _bound_values(f: Any) -> dict[str, Any]:
    """The plain values (ints, strings) the predicates of ``f`` close over or take as defaults, by name; a
    name bound to two values within one part is left out (it is not what tells the parts apart)."""
    from modelcheck.spec.temporal import predicates_of

    try:
        preds = predicates_of(f)
    except TypeError:
        return {}
    seen: dict[str, Any] = {}
    clash: set[str] = set()
    for fn in preds:
        code = getattr(fn, "__code__", None)
        if code is None:
            continue
        pairs = list(zip(code.co_freevars, [cell.cell_contents for cell in (fn.__closure__ or ())]))
        defaults = fn.__defaults__ or ()
        if defaults:
            pairs += list(zip(code.co_varnames[code.co_argcount - len(defaults):code.co_argcount], defaults))
        for name, value in pairs:
            if type(value) not in (int, str):
                continue
            if name in seen and seen[name] != value:
                clash.add(name)
            seen.setdefault(name, value)
    return {k: v for k, v in seen.items() if k not in clash}


def _show(spec: Any, consts: Any, name: str, value: Any) -> str:
    """``value`` as the spec's actions write a value of the domain ``name`` abbreviates (``r`` -> replica)."""
    for a in spec.actions:
        for pname, dom in a.params:
            if isinstance(value, int) and (pname == name or dom.name == name or dom.name.startswith(name)):
                try:
                    return str(dom.show(value))
                except Exception:
                    return str(value)
    return str(value)
