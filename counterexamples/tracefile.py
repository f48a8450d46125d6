"""The trace file: a versioned JSON document holding one counterexample.

``modelcheck check --out DIR`` writes it; ``modelcheck render TRACE.json``
reads it back and renders it again without re-running the check.  Renderers
work from this document only, which keeps them independent of the spec.

Schema (``format`` = ``modelcheck-trace``, ``version`` = 1)::

    {
      "format": "modelcheck-trace", "version": 1,
      "spec": "truncate-to-hw", "title": "...",
      "constants": {"Replicas": 3, ...},
      "violation": {"kind": "invariant" | "deadlock" | "step" | "liveness", "name": "StrongIsr", "description": "...",
                    "loop_start": 2, "loop_action": "Inc", "stuttering": false,  (liveness only: the lasso's loop)
                    "loop_actions": [{"action": "Inc", "fairness": "weak", "enabled": "every", "taken": true}],
                                      (liveness only, optional: the actions enabled or taken in the loop)
                    "loop_part": "r = r1 (one of its 3 parts, one for each r)",
                                      (liveness only, optional: the part of a quantified property it breaks)
                    "explanation": "record 0@e1 at offset 0 is below ...",         (optional: the invariant's explain)
                    "culprits": [{"lane": "r3", "field": "log", "offset": 0}, {"variable": "quorumState.isr"}]},
      "story": "One sentence on what the trace shows."               (optional; the known traces have one)
      "steps": [
        {"index": 1, "action": null | "LeaderWrite(r1)", "action_name": null | "LeaderWrite",
         "params": {"replica": "r1"},
         "state": {...nested variables...},
         "lanes": {"r1": {"log": "[0@e1]", "LEO": 1, ...}, ...}   (optional),
         "messages": [{"send": "id", "from": "controller", "to": "r1", "label": "...", "kind": "LeaderAndIsr"},
                      {"receive": "id"}, {"drop": "id", "why": "..."}]   (optional, steps 2..N: the spec's messages)
         "changed": ["replicaLog.r1", ...]}                         (dotted names)
      ]
    }

Loading validates everything a renderer relies on and refuses files that are
truncated, malformed, too large or of another format with a one-line
:class:`TraceFileError`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from modelcheck.counterexamples.text import changed_fields, render_text
from modelcheck.errors import TraceFileError

FORMAT = "modelcheck-trace"
VERSION = 1
MAX_BYTES = 64 * 1024 * 1024
MAX_STEPS = 100_000


def trace_document(spec_name: str, title: str, constants: dict, violation_kind: str, violation_name: str,
                   description: str, steps: list[dict], story: str | None = None,
                   explanation: dict | None = None, loop: dict | None = None) -> dict:
    """Build the document from JSON trace steps (``modelcheck.output.json_form.trace_to_json``).

    ``explanation`` is ``{"explanation": sentence, "culprits": [...]}`` from the
    violated invariant's ``explain`` (:func:`modelcheck.output.json_form.explanation_json`).
    ``loop`` is, for a liveness violation, ``{"loop_start": N, "loop_action": label}`` (N the 1-based step
    the last step goes back to, forever) or ``{"loop_start": None, "stuttering": True}``.
    """
    out_steps = []
    prev = None
    for i, step in enumerate(steps, start=1):
        item = {
            "index": i,
            "action": step.get("action"),
            "action_name": step.get("action_name"),
            "params": dict(step.get("params") or {}),
            "state": step["state"],
        }
        if step.get("lanes") is not None:
            item["lanes"] = step["lanes"]
        if step.get("messages") is not None:
            item["messages"] = step["messages"]
        item["changed"] = [] if prev is None else changed_fields(prev, step["state"])
        out_steps.append(item)
        prev = step["state"]
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "spec": spec_name,
        "title": title,
        "constants": dict(constants),
        "violation": {"kind": violation_kind, "name": violation_name, "description": description,
                      **(explanation or {}), **(loop or {})},
    }
    if story:
        doc["story"] = story
    doc["steps"] = out_steps
    return doc


def document_from_violation(spec: Any, consts: Any, violation: Any, story: str | None = None) -> dict:
    """The document for one violation of a check; ``story`` says in words what it shows, when someone wrote it."""
    from modelcheck.spec.constants import constants_to_dict
    from modelcheck.output.json_form import explanation_json, trace_to_json

    from modelcheck.counterexamples.loopinfo import loop_actions, violated_part

    loop = loop_of(violation)
    if loop is not None:
        loop["loop_actions"] = loop_actions(spec, consts, violation)
        part = violated_part(spec, consts, violation)
        if part is not None:
            loop["loop_part"] = part
    return trace_document(spec.name, spec.title, constants_to_dict(consts), violation.kind, violation.name,
                          violation.description, trace_to_json(spec, consts, violation.trace), story,
                          explanation_json(spec, consts, violation), loop)


def loop_of(violation: Any) -> dict | None:
    """The trace document's loop fields for a liveness violation (None for any other)."""
    if violation.kind != "liveness":
        return None
    if violation.loop_start is None:
        return {"loop_start": None, "stuttering": True}
    return {"loop_start": violation.loop_start + 1, "loop_action": violation.loop_action, "stuttering": False}


def loop_line(doc: dict) -> str:
    """TLC's last line of a lasso: ``Back to state N`` or stuttering; empty for a trace without a loop."""
    v = doc["violation"]
    if v.get("stuttering"):
        return f"Stuttering: the behavior stays in state {len(doc['steps'])} forever."
    if v.get("loop_start") is not None:
        via = f" <{v['loop_action']}>" if v.get("loop_action") else ""
        return f"Back to state {v['loop_start']}{via}: states {v['loop_start']} to {len(doc['steps'])} repeat forever."
    return ""


def counterexample_text(spec: Any, consts: Any, violation: Any, *, only_changes: bool = True) -> str:
    """A violation's counterexample as ``modelcheck check`` prints it: its trace (only what each step changed,
    unless ``only_changes`` is false), then for a lasso its :func:`loop_line` (no newline at the end)."""
    from modelcheck.output.json_form import trace_to_json

    text = render_text(trace_to_json(spec, consts, violation.trace), only_changes=only_changes)
    if violation.kind == "liveness":
        text += "\n" + loop_line({"violation": loop_of(violation), "steps": violation.trace})
    return text


def dumps(doc: dict) -> str:
    """Deterministic JSON text (sorted keys are not used: variable order is meaningful)."""
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def load(path: str) -> dict:
    """Read and validate a trace file."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise TraceFileError(f"cannot read trace file {path}: {exc.strerror}") from None
    if size > MAX_BYTES:
        raise TraceFileError(f"trace file {path} is {size} bytes, over the {MAX_BYTES}-byte limit")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise TraceFileError(f"trace file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise TraceFileError(f"cannot read trace file {path}: {exc.strerror}") from None
    depth = _nesting_depth(text)
    if depth > MAX_NESTING:
        raise TraceFileError(f"trace file {path} nests {depth} levels deep, over the limit of {MAX_NESTING}")
    try:
        doc = json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise TraceFileError(f"trace file {path} is not valid JSON (truncated?): {exc.msg} at line {exc.lineno}") from None
    except (ValueError, RecursionError) as exc:
        raise TraceFileError(f"trace file {path} is malformed: {exc}") from None
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise TraceFileError(f"trace file {path} holds a string that is not Unicode text (a lone surrogate, "
                             f"U+{ord(exc.object[exc.start]):04X})") from None
    validate(doc, path)
    return doc


MAX_NESTING = 64
"""JSON nesting a trace file may have: states nest a few levels; a crafted file must not exhaust the stack."""

MAX_INT_DIGITS = 40


def _nesting_depth(text: str) -> int:
    """The deepest nesting of brackets outside strings (a linear scan, before the parser recurses)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits")
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _require(cond: bool, path: str, what: str) -> None:
    if not cond:
        raise TraceFileError(f"trace file {path} is malformed: {what}")


# Checked by hand, not with jsonschema: the dependencies are a fixed set, and jsonschema is not one of them.
def validate(doc: Any, path: str = "<trace>") -> None:
    """Refuse anything a renderer could trip over, with the first problem named."""
    _require(isinstance(doc, dict), path, "the top level is not an object")
    _require(doc.get("format") == FORMAT, path, f"format is {doc.get('format')!r}, expected {FORMAT!r}")
    _require(type(doc.get("version")) is int and doc.get("version") == VERSION, path,
             f"version {doc.get('version')!r} is not supported (this is {VERSION})")
    for key in ("spec", "title"):
        _require(isinstance(doc.get(key), str), path, f"{key!r} must be a string")
    _require(isinstance(doc.get("constants"), dict), path, "'constants' must be an object")
    v = doc.get("violation")
    _require(isinstance(v, dict), path, "'violation' must be an object")
    for key in ("kind", "name", "description"):
        _require(isinstance(v.get(key), str), path, f"violation.{key} must be a string")
    _require(isinstance(v.get("explanation", ""), str), path, "violation.explanation must be a string")
    culprits = v.get("culprits", [])
    _require(isinstance(culprits, list) and all(_is_culprit(c) for c in culprits), path,
             "violation.culprits must be a list of {lane, field, offset} or {variable} objects")
    _require(isinstance(doc.get("story", ""), str), path, "'story' must be a string")
    loop_start = v.get("loop_start")
    _require(loop_start is None or (type(loop_start) is int and 1 <= loop_start <= len(doc.get("steps") or [])),
             path, "violation.loop_start must be a step index")
    _require(isinstance(v.get("loop_action") or "", str) and isinstance(v.get("stuttering", False), bool), path,
             "violation.loop_action must be a string and violation.stuttering a boolean")
    _require(isinstance(v.get("loop_part", ""), str), path, "violation.loop_part must be a string")
    _require(_are_loop_actions(v.get("loop_actions", [])), path,
             "violation.loop_actions must be a list of {action, fairness, enabled, taken} objects")
    steps = doc.get("steps")
    _require(isinstance(steps, list) and len(steps) > 0, path, "'steps' must be a non-empty list")
    _require(len(steps) <= MAX_STEPS, path, f"more than {MAX_STEPS} steps")
    for i, step in enumerate(steps, start=1):
        _require(isinstance(step, dict), path, f"step {i} is not an object")
        _require(type(step.get("index")) is int and step["index"] == i, path,
                 f"step {i} has index {repr(step.get('index'))[:40]}")
        action = step.get("action")
        _require(action is None if i == 1 else isinstance(action, str), path,
                 f"step {i} action must be {'null' if i == 1 else 'a string'}")
        _require(isinstance(step.get("state"), dict), path, f"step {i} state must be an object")
        _require(isinstance(step.get("params", {}), dict), path, f"step {i} params must be an object")
        changed = step.get("changed", [])
        _require(isinstance(changed, list) and all(isinstance(c, str) for c in changed), path,
                 f"step {i} changed must be a list of strings")
        lanes = step.get("lanes")
        _require(lanes is None or (isinstance(lanes, dict) and all(isinstance(x, dict) for x in lanes.values())),
                 path, f"step {i} lanes must map lane names to objects")
        msgs = step.get("messages", [])
        _require(isinstance(msgs, list), path, f"step {i} messages must be a list")
        for m in msgs:
            _require(is_message(m), path, f"step {i} has a malformed message event: {str(m)[:80]}")


def _are_loop_actions(items: Any) -> bool:
    """``loop_actions``: a list of objects with a string ``action`` and ``fairness``, ``enabled`` one of
    every/some/no, and a boolean ``taken``."""
    return isinstance(items, list) and all(
        isinstance(a, dict) and set(a) == {"action", "fairness", "enabled", "taken"}
        and isinstance(a["action"], str) and isinstance(a["fairness"], str)
        and a["enabled"] in ("every", "some", "no") and isinstance(a["taken"], bool)
        for a in items)


def _is_culprit(c: Any) -> bool:
    """A culprit names a lane cell (``lane``, ``field``, optional integer ``offset``) or a ``variable``."""
    if not isinstance(c, dict) or not c or set(c) - {"lane", "field", "offset", "variable"}:
        return False
    if any(k in c and not isinstance(c[k], str) for k in ("lane", "field", "variable")):
        return False
    return "offset" not in c or (type(c["offset"]) is int and c["offset"] >= 0)


_SEND_KEYS = {"send", "from", "to", "label", "kind", "delivered", "response"}


def is_message(m: Any) -> bool:
    """One message event: a send (id, from, to, label; optional kind, delivered, response), a receive or a drop."""
    if not isinstance(m, dict):
        return False
    if "send" in m:
        return (set(m) <= _SEND_KEYS and all(isinstance(m.get(k), str) for k in ("send", "from", "to", "label"))
                and isinstance(m.get("kind", ""), str)
                and all(isinstance(m.get(k, False), bool) for k in ("delivered", "response")))
    if "receive" in m:
        return set(m) == {"receive"} and isinstance(m["receive"], str)
    if "drop" in m:
        return set(m) <= {"drop", "why"} and isinstance(m["drop"], str) and isinstance(m.get("why", ""), str)
    return False
