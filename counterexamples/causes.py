"""How a violation came about: for each culprit cell, the step that last changed it.

Read from the trace document only (its steps' lanes and the violation's
culprits), so it knows nothing of any spec.  A culprit names a lane's field,
and for a log one offset of it; the cell's *cause* is the last step whose
value differs from the step before (for a log offset: the item at that offset,
written, replaced or truncated away).  A cell no step changed is as it was
in the initial state (step 1).  :func:`causal_line` strings the causes
together, in step order, into the sentence under the explanation.
"""

from __future__ import annotations

from dataclasses import dataclass

from modelcheck.counterexamples import lanes as L

MAX_LISTED = 4
"""At most this many (lane, field) causes in the causal line; the rest are counted."""


@dataclass(frozen=True)
class Cause:
    """The step (1-based) that last changed a culprit cell, and that step's action label.

    ``step`` is 1 with ``action`` None when no step changed it (it is as in the initial state)."""

    lane: str
    field: str
    offset: int | None
    step: int
    action: str | None

    @property
    def changed(self) -> bool:
        return self.action is not None and self.step > 1

    def tooltip(self) -> str:
        """``changed at step 6 (Action(a=b))``, or that the initial state already had it."""
        if not self.changed:
            return "unchanged since the initial state (step 1)"
        return f"changed at step {self.step} ({self.action})"


def _value(step: dict, lane: str, field: str, offset: int | None) -> object:
    """A culprit cell's value in one step (for a log offset: the item there, None when the log is shorter)."""
    fields = (step.get("lanes") or {}).get(lane)
    if fields is None:
        return ("no lane",)
    value = fields.get(field)
    if field == L.LOG and offset is not None:
        items = L.log_items(value)
        if items is not None:
            return items[offset] if 0 <= offset < len(items) else None
    return value


def cause_of(steps: list[dict], lane: str, field: str, offset: int | None = None) -> Cause:
    """The step that last changed one cell of the last state, walking back from the end."""
    for i in range(len(steps) - 1, 0, -1):
        if _value(steps[i], lane, field, offset) != _value(steps[i - 1], lane, field, offset):
            return Cause(lane, field, offset, i + 1, steps[i].get("action") or steps[i].get("action_name"))
    return Cause(lane, field, offset, 1, None)


def culprit_causes(doc: dict) -> dict[tuple[str, str, int | None], Cause]:
    """Every lane culprit of the violation, ``(lane, field, offset) -> Cause`` (offset None: the whole field)."""
    steps = doc.get("steps") or []
    out: dict[tuple[str, str, int | None], Cause] = {}
    if not steps or not steps[-1].get("lanes"):
        return out
    for (lane, field), offsets in L.culprit_cells(doc.get("violation") or {}).items():
        for off in sorted(offsets, key=lambda o: -1 if o is None else o):
            out[(lane, field, off)] = cause_of(steps, lane, field, off)
    return out


def field_causes(doc: dict) -> list[Cause]:
    """One cause per culprit (lane, field), the latest of its cells', in step order (unchanged ones last)."""
    by_field: dict[tuple[str, str], Cause] = {}
    for (lane, field, _off), c in culprit_causes(doc).items():
        best = by_field.get((lane, field))
        if best is None or c.step > best.step:
            by_field[(lane, field)] = c
    order = list(by_field.values())
    return sorted(order, key=lambda c: (not c.changed, c.step))


def causal_parts(doc: dict, limit: int = MAX_LISTED) -> tuple[list[Cause], int]:
    """The causes the causal line lists (the ``limit`` latest changes, then unchanged cells while there is room,
    in step order) and how many it leaves out."""
    causes = field_causes(doc)
    changed = [c for c in causes if c.changed]
    same = [c for c in causes if not c.changed]
    listed = sorted(changed[-limit:], key=lambda c: c.step) if len(changed) > limit else changed
    listed += same[:max(0, limit - len(listed))]
    return listed, len(causes) - len(listed)


def _group(listed: list[Cause]) -> list[list[Cause]]:
    """Neighbouring causes of one lane and one step, together (``b1's replica and leader epoch at step 8``)."""
    groups: list[list[Cause]] = []
    for c in listed:
        g = groups[-1] if groups else None
        if g and g[0].lane == c.lane and g[0].step == c.step and g[0].changed == c.changed:
            g.append(c)
        else:
            groups.append([c])
    return groups


def phrase_parts(group: list[Cause], first: bool) -> tuple[str, int | None, str]:
    """Causes of one lane and step in words, as the text before ``step N``, N (None: no step named) and the
    text after: ``r3's log changed at `` 9 `` (A(x=1))`` (only the first says "changed"; the rest are short)."""
    c = group[0]
    names = [g.field for g in group]
    who = f"{c.lane}'s " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])
    if not c.changed:
        return f"{who} unchanged since the initial state", None, ""
    return f"{who} {'changed ' if first else ''}at ", c.step, f" ({c.action})"


def causal_phrases(doc: dict, limit: int = MAX_LISTED) -> tuple[list[tuple[str, int | None, str]], int]:
    """The causal line's phrases (see :func:`phrase_parts`) and how many culprit fields it leaves out."""
    listed, more = causal_parts(doc, limit)
    return [phrase_parts(g, k == 0) for k, g in enumerate(_group(listed))], more


def causal_line(doc: dict, limit: int = MAX_LISTED) -> str:
    """The causes as one sentence, or "" when the violation has no lane culprits."""
    phrases, more = causal_phrases(doc, limit)
    text = "; ".join(before + (f"step {n}" if n is not None else "") + after for before, n, after in phrases)
    if more:
        text += f"; and {more} more"
    return text
