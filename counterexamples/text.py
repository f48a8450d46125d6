"""TLC-style text traces: the first state in full, then only what each step changed."""

from __future__ import annotations

import re
from typing import Any, Iterable

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with control characters written as escapes (``\\x1b``), so a trace cannot drive the terminal.

    Covers C0 and C1 controls (escape sequences, newlines that would forge
    lines), DEL, and the bidirectional overrides that reorder what is shown.
    """
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                            else f"\\u{ord(m.group()):04x}", text)


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts of a state view as dotted names (``replicaState.r1.hw``)."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    else:
        out[prefix] = value
    return out


def show(value: Any) -> str:
    """A compact, TLA+-flavoured rendering of a plain value."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, list):
        return "<<" + ", ".join(show(v) for v in value) + ">>"
    if isinstance(value, dict):
        return "[" + ", ".join(f"{k} |-> {show(v)}" for k, v in value.items()) + "]"
    return str(value)


def changed_fields(prev: dict[str, Any] | None, cur: dict[str, Any]) -> list[str]:
    """Dotted names whose value differs from the previous state (all of them for the first)."""
    flat = flatten(cur)
    if prev is None:
        return list(flat)
    before = flatten(prev)
    return [k for k, v in flat.items() if before.get(k, object()) != v]


def render_text(steps: Iterable[dict], *, only_changes: bool = True) -> str:
    """Render JSON trace steps (``{action, state}``) as a numbered TLC-style trace."""
    lines: list[str] = []
    prev = None
    for i, step in enumerate(steps, start=1):
        action = step.get("action") or "Initial predicate"
        lines.append(f"State {i}: <{printable(action)}>")
        flat = flatten(step["state"])
        keys = changed_fields(prev, step["state"]) if (only_changes and prev is not None) else list(flat)
        if not keys:
            lines.append("  (no variable changed)")
        for k in keys:
            lines.append(f"  {printable(k)} = {printable(show(flat[k]))}")
        lines.append("")
        prev = step["state"]
    return "\n".join(lines).rstrip() + "\n"
