"""How the trace page shows a liveness lasso's loop: where it starts, how it closes, what fairness allows.

A liveness counterexample is an infinite behaviour: no single state breaks
the property, the whole loop does.  So every view marks the loop's steps
and ends with the step that closes it ("back to step N" or "stutters
forever") rather than a red "violated" state, and the verdict names the
actions that could have left the loop, with the fairness that fails to
force them (``violation.loop_actions``, from :mod:`.loopinfo`).
"""

from __future__ import annotations

from modelcheck.counterexamples.html_parts import action_html, esc
from modelcheck.counterexamples.lasso import Loop


FAIRNESS_WORDS = {"weak": "weakly fair", "strong": "strongly fair", "none": "no fairness"}


def _fairness(kind: str) -> str:
    return FAIRNESS_WORDS.get(kind, kind)


def closing_row_html(loop: Loop) -> str:
    """The steps list's last row: a link back to the loop's first step (not an option of the listbox)."""
    mark = "&#x27F2;" if loop.stuttering else "&#x21BA;"
    return (f'<li class="loopback" role="presentation" data-goto="{loop.start - 1}">'
            f'<a href="#step-{loop.start}"><span class="n">{mark}</span>'
            f'<span>{action_html(loop.closing_text())}</span></a></li>')


def verdict_html(doc: dict, loop: Loop) -> str:
    """The sentences under a liveness verdict: the loop, the part of the property it breaks, and why the
    spec's fairness lets the behaviour stay in it.

    A reader has to be convinced that the behaviour may really go on this
    way forever, so the actions are grouped by what they do for that claim:
    the fair ones taken in the loop, the fair ones enabled only in some of
    its states (weak fairness does not force them), the fair ones never
    enabled there, the unfair steps that make the loop, and the unfair ones
    that could leave it but may be neglected."""
    v = doc["violation"]
    name = esc(v["name"])
    part = f" for {esc(v['loop_part'])}" if v.get("loop_part") else ""
    if loop.stuttering:
        where = (f"after state {loop.end} nothing changes the state again (it stutters forever), and "
                 f"{name} fails{part}: what it promises never happens.")
    else:
        closing = f" <code>{esc(loop.action)}</code>" if loop.action else ""
        first = loop.start + 1
        steps = f"step {first}" if first == loop.end else f"steps {first} to {loop.end}"
        where = (f"from state {loop.start}, {steps} and the step{closing} back to state {loop.start} repeat "
                 f"forever ({loop.end - loop.start + 1} steps a round), and {name} fails{part}: what it "
                 f"promises never happens along them.")
    acts = v.get("loop_actions") or []
    parts = [f'<p class="loop"><b>An infinite behaviour:</b> {where}</p>']
    groups = _groups(acts, loop)
    if groups:
        parts.append('<ul class="loopwhy">' + "".join(f"<li>{g}</li>" for g in groups) + "</ul>")
    return "".join(parts)


def _names(acts: list[dict], fairness: bool = True) -> str:
    return ", ".join(f"<code>{esc(a['action'])}</code>" + (f" ({esc(_fairness(a['fairness']))})" if fairness else "")
                     for a in acts)


def _groups(acts: list[dict], loop: Loop) -> list[str]:
    """One sentence per group of actions, saying why fairness allows the loop (or the stuttering)."""
    fair = [a for a in acts if a["fairness"] != "none"]
    unfair = [a for a in acts if a["fairness"] == "none"]
    where = f"in state {loop.end}" if loop.stuttering else "in the loop"
    out = []
    taken = [a for a in fair if a["taken"]]
    if taken:
        out.append(f"Fair and taken {where}: {_names(taken)}.")
    partly = [a for a in fair if not a["taken"] and a["enabled"] == "some"]
    if partly:
        out.append(f"Fair, enabled in only some states of the loop and never taken: {_names(partly)}; "
                   "weak fairness does not force an action that is not enabled all along.")
    always = [a for a in fair if not a["taken"] and a["enabled"] == "every"]
    if always:  # the search never returns such a loop; said plainly should a document claim it
        out.append(f"Fair, enabled {'there' if loop.stuttering else 'all along the loop'} and never taken: "
                   f"{_names(always)}.")
    never = [a for a in fair if not a["taken"] and a["enabled"] == "no"]
    if never:
        out.append(f"Fair but never enabled {where}, so fairness does not force them: {_names(never)}.")
    driving = [a for a in unfair if a["taken"]]
    if driving:
        out.append(f"The loop's steps with no fairness: {_names(driving, False)} keep the behaviour in it.")
    neglected = [a for a in unfair if not a["taken"] and a["enabled"] != "no"]
    if neglected:
        if loop.stuttering:
            how, could = where, "could change the state"
        else:
            every = all(a["enabled"] == "every" for a in neglected)
            how, could = ("in every state of the loop" if every else where), "could leave the loop"
        out.append(f"Enabled {how} with no fairness, so they may be neglected forever: "
                   f"{_names(neglected, False)} {could}.")
    return out
