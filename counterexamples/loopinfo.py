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
    taken = {step.action_name for step in trace[start + 1:]}
    enabled_in: dict[str, int] = {}
    fp = model.fingerprint
    back_fp = fp(trace[start].state) if violation.loop_start is not None else None
    for k, s in enumerate(loop):
        here: set[str] = set()
        for ai, b, t in model.successors(s):
            if t == s or not model.in_model(t) or not model.action_allowed(s, t):
                continue
            name = model.actions[ai].name
            here.add(name)
            if k == len(loop) - 1 and back_fp is not None and name not in taken and fp(t) == back_fp \
                    and model.step(ai, b, t).action == violation.loop_action:
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
