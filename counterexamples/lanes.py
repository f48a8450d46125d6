"""What the renderers read from a spec's lanes, by convention, and which variables the lanes already show.

Renderers know nothing of Kafka.  A spec's ``lanes`` hook returns, per lane
(replica), fields of its choosing; a few field names carry a meaning every
renderer honours, so that logs, markers and crashed brokers are drawn the
same way for any spec:

* ``log``: a text ``[item, item, ...]`` is drawn as one cell per offset;
  an item written ``id@eN`` is coloured by its epoch ``N``;
* ``HW`` and ``LEO``: integers, drawn as markers between the log's cells;
* ``alive``: when ``False`` the lane is greyed (a crashed broker).

A state variable whose dotted name has a lane as a later component
(``replicaState.r1.isr``) belongs to that lane.  The lanes show it when the
spec's lanes hook has a field for it; :func:`unshown_changes` is the safety
net for specs whose lanes do not: a change of a lane's variable in a step
where none of that lane's fields changed is listed with the other variables,
so no change is ever invisible.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

LOG = "log"
HW = "HW"
LEO = "LEO"
ALIVE = "alive"
_EPOCH = re.compile(r"@e([0-9]{1,18})$")
"""An epoch: ASCII digits, few enough to be a number (``@e`` and 5,000 digits is no epoch, drawn uncoloured)."""


def log_items(value: Any) -> list[str] | None:
    """The items of a log written ``[a, b, c]``, or None when the value is not written as a log."""
    if not isinstance(value, str) or not (value.startswith("[") and value.endswith("]")):
        return None
    inner = value[1:-1].strip()
    return [item.strip() for item in inner.split(",")] if inner else []


def epoch_of(item: str) -> int | None:
    """The epoch of a log item written ``id@eN``, or None."""
    m = _EPOCH.search(item)
    return int(m.group(1)) if m else None


def is_down(fields: dict) -> bool:
    """Whether a lane is drawn greyed: its ``alive`` field is ``False``."""
    return fields.get(ALIVE) is False


def fields_of(lanes: dict) -> list[str]:
    """Every field of a state's lanes, in the spec's order (lanes need not all have the same fields: a leader's
    lane may hold only its log while the others hold a batch's fields)."""
    out: list[str] = []
    for fields in lanes.values():
        out += [f for f in fields if f not in out]
    return out


def lane_of(name: str, lanes: Iterable[str]) -> str | None:
    """The lane a dotted variable belongs to (a component after the first names it), or None."""
    names = set(lanes)
    for part in name.split(".")[1:]:
        if part in names:
            return part
    return None


def lane_changes(prev: dict | None, step: dict) -> dict[str, list[str]]:
    """Per lane, the fields that differ from the previous step's (none for the first step)."""
    if prev is None:
        return {}
    before = prev.get("lanes") or {}
    return {lane: [k for k, v in fields.items() if before.get(lane, {}).get(k) != v]
            for lane, fields in (step.get("lanes") or {}).items()}


def unshown_changes(step: dict, changes: dict[str, list[str]]) -> list[str]:
    """Changed variables the lanes do not already show: every non-lane variable, and a lane's variable
    that changed while none of that lane's fields did."""
    lanes = step.get("lanes") or {}
    out = []
    for name in step.get("changed", []):
        lane = lane_of(name, lanes) if lanes else None
        if lane is None or not changes.get(lane):
            out.append(name)
    return out


def max_log_length(steps: list[dict]) -> int:
    """The longest log of any lane in any step (how many offset cells a log column needs)."""
    longest = 0
    for step in steps:
        for fields in (step.get("lanes") or {}).values():
            items = log_items(fields.get(LOG))
            if items is not None:
                longest = max(longest, len(items))
    return longest


def culprit_cells(violation: dict) -> dict[tuple[str, str], set[int | None]]:
    """The culprit lane cells of a violation: ``(lane, field) -> offsets`` (None: the whole cell)."""
    out: dict[tuple[str, str], set[int | None]] = {}
    for c in violation.get("culprits", []):
        if "lane" in c and "field" in c:
            out.setdefault((c["lane"], c["field"]), set()).add(c.get("offset"))
    return out


def culprit_variables(violation: dict) -> set[str]:
    """The culprit variables of a violation (dotted names)."""
    return {c["variable"] for c in violation.get("culprits", []) if "variable" in c}
