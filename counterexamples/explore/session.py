"""A path through a spec's states, replayed from the spec itself, and what the explorer page shows of it.

A path is a list of choices: the index of an initial state, then at every
step the index of a successor among the current state's enabled ones (in the
spec's order of actions and bindings, identical successors of one action
listed once).  Replaying it calls the spec's actions again, so nothing is
precomputed and any state space can be browsed; replayed prefixes are
cached, bounded, per explorer.

Every description is built from the same HTML fragments as the trace pages
(:mod:`modelcheck.counterexamples.html_parts`), with everything from the spec
escaped.
"""

from __future__ import annotations

import re
import sys
import threading
from collections import OrderedDict
from typing import Any

from modelcheck.counterexamples import lanes as L
from modelcheck.counterexamples.html_lanes import legend_html
from modelcheck.counterexamples.html_parts import (action_html, esc, message_lists, replicas_table,
                                                   value_change, variables_table)
from modelcheck.counterexamples.seqdiagram import render_sequence_svg
from modelcheck.counterexamples.text import flatten
from modelcheck.errors import ModelCheckError, SpecRuntimeError
from modelcheck.model.blame import call_spec
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.spec import Spec

MAX_PATH = 10_000
"""Longest path accepted from a URL (a crafted one must not make the server replay forever)."""
CACHE_SIZE = 4096
CACHE_BYTES = 64 * 2**20
"""The replay cache's bound in bytes (estimated: each entry's steps times the size of its last state, which
is walked in full), whatever the paths' lengths; also at most :data:`CACHE_SIZE` entries."""
SEQ_WIDTH = 620
"""The path's sequence diagram is drawn this wide: it fits the state panel at 1400 pixels unscaled, and the
page at 800 (where the panel is the page's width)."""
_NUMBER = re.compile(r"[0-9]{1,9}")
"""A step number: ASCII digits only (``str.isdigit`` accepts ``²``, which ``int`` refuses)."""


def state_bytes(value: Any, limit: int = 1 << 20) -> int:
    """An estimate of the memory a state holds: its containers and leaves, each counted where it occurs."""
    total, stack, seen = 0, [value], 0
    while stack and seen < limit:
        v = stack.pop()
        seen += 1
        total += sys.getsizeof(v)
        if isinstance(v, (tuple, list, frozenset, set)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
    return total


class PathError(ModelCheckError):
    """A path that does not lead anywhere: malformed, too long, or a choice that is not enabled."""


def parse_path(text: str) -> list[int]:
    """``"0.3.1"`` as ``[0, 3, 1]``; refuses anything else with a one-line message."""
    text = text.strip()
    if not text:
        raise PathError("the path is empty: it starts with the index of an initial state, e.g. path=0")
    parts = text.split(".")
    if len(parts) > MAX_PATH:
        raise PathError(f"the path has {len(parts)} steps, more than the {MAX_PATH} the explorer replays")
    if not all(_NUMBER.fullmatch(p) for p in parts):
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise PathError(f"the path must be numbers separated by dots (such as 0.3.1), got {shown!r}")
    return [int(p) for p in parts]


def preview_cells(before: dict, after: dict) -> list[list[Any]]:
    """The lane cells a step from lanes ``before`` to ``after`` changes, as ``[lane, field, offset]`` (offset
    None but for a log's cells): what the page highlights while an action is pointed at, before it is taken."""
    out: list[list[Any]] = []
    for lane, fields in after.items():
        old = before.get(lane, {})
        for f, v in fields.items():
            if old.get(f) == v:
                continue
            a, b = L.log_items(old.get(f)), L.log_items(v)
            if f == L.LOG and a is not None and b is not None:
                out.extend([lane, f, k] for k in range(max(len(a), len(b)))
                           if k >= len(a) or k >= len(b) or a[k] != b[k])
            else:
                out.append([lane, f, None])
    return out


class Explorer:
    """One spec with fixed constants, browsed one path at a time.  Holds no run state but a replay cache."""

    def __init__(self, spec: Spec, consts: Any) -> None:
        self.spec = spec
        self.c = consts
        self.model = BoundModel(spec, consts, CheckOptions(invariants=tuple(p.name for p in spec.invariants)))
        self._inits = self.model.init_states()
        self._cache: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self._cache_bytes: dict[tuple[int, ...], int] = {}
        self.cache_bytes = 0
        """The replay cache's estimated size (bounded by :data:`CACHE_BYTES`)."""
        self._lock = threading.Lock()
        self.findings = self._findings()
        """Invariant name -> note, for the invariants the spec's invariants module declares as known findings
        (``FINDINGS``) that an initial state does violate: shown neutrally, not as an alarm."""

    # -- replaying ------------------------------------------------------------------------

    def successors(self, s: Any) -> list[tuple[str, dict[str, str], str, Any]]:
        """The enabled steps from ``s``: ``(label, params, action name, successor)``, in the spec's order.

        Successors outside the state constraint (or refused by the action
        constraint) are not steps of the model; identical successors of the
        same action (TLC counts each satisfied disjunct) are listed once.
        """
        out = []
        seen = set()
        for ai, binding, t in self.model.successors(s):
            if not self.model.in_model(t) or not self.model.action_allowed(s, t):
                continue
            act = self.model.actions[ai]
            key = (ai, binding, t)
            if key in seen:
                continue
            seen.add(key)
            out.append((act.label(binding), act.label_params(binding), act.name, t))
        return out

    def walk(self, path: list[int]) -> list[tuple[str | None, dict, str | None, Any]]:
        """The steps a path leads through: ``(label, params, action name, state)``, the first with no action."""
        if len(path) > MAX_PATH:
            raise PathError(f"the path has {len(path)} steps, more than the {MAX_PATH} the explorer replays")
        if not path or not 0 <= path[0] < len(self._inits):
            raise PathError(f"there is no initial state #{path[0] if path else ''}: the spec has "
                            f"{len(self._inits)} (numbered from 0)")
        start = 1
        steps: list[tuple[str | None, dict, str | None, Any]] = [(None, {}, None, self._inits[path[0]])]
        for cut in (len(path), len(path) - 1):  # the usual request: this path again, or one step further
            hit = self._cache.get(tuple(path[:cut]))
            if cut >= 1 and hit is not None:
                steps, start = list(hit), cut
                break
        for k, choice in enumerate(path[start:], start=start + 1):
            enabled = self.successors(steps[-1][3])
            if not 0 <= choice < len(enabled):
                raise PathError(f"step {k} of the path: there is no enabled action #{choice} in state {k - 1} "
                                f"({len(enabled)} {'is' if len(enabled) == 1 else 'are'} enabled, numbered from 0)")
            label, params, name, t = enabled[choice]
            steps.append((label, params, name, t))
        key = tuple(path)
        size = len(steps) * (state_bytes(steps[-1][3]) + 200)
        self.cache_bytes -= self._cache_bytes.pop(key, 0)
        self._cache[key] = tuple(steps)
        self._cache_bytes[key] = size
        self.cache_bytes += size
        self._cache.move_to_end(key)
        while self._cache and (len(self._cache) > CACHE_SIZE or self.cache_bytes > CACHE_BYTES):
            old, _ = self._cache.popitem(last=False)
            self.cache_bytes -= self._cache_bytes.pop(old)
        return steps

    def path_of_trace(self, doc: dict) -> list[int]:
        """The choices that replay a trace document (its states, in order) in this spec with these constants."""
        states = [step["state"] for step in doc["steps"]]
        first = [i for i, s in enumerate(self._inits) if self.spec.describe_state(self.c, s) == states[0]]
        if not first:
            raise PathError("the trace's first state is not an initial state of this spec with these constants")
        path = [first[0]]
        s = self._inits[first[0]]
        for k, step in enumerate(doc["steps"][1:], start=2):
            enabled = self.successors(s)
            match = [j for j, (label, _, _, t) in enumerate(enabled)
                     if label == step["action"] and self.spec.describe_state(self.c, t) == step["state"]]
            if not match:
                raise PathError(f"step {k} of the trace ({step['action']}) does not replay in this spec with "
                                "these constants")
            path.append(match[0])
            s = enabled[match[0]][3]
        return path

    # -- describing ---------------------------------------------------------------------------

    def view(self, path: list[int]) -> dict:
        """Everything the page shows for the state at the end of ``path``, as JSON with HTML fragments."""
        with self._lock:
            steps = self.walk(path)
            s = steps[-1][3]
            enabled = self.successors(s)
            invariants = self._invariants(s)
        culprits = {"culprits": [c for inv in invariants if "finding" not in inv for c in inv.get("culprits", [])]}
        described = self.spec.describe_state(self.c, s)
        flat = flatten(described)
        lanes = self._lanes(s) if self.spec.lanes else {}
        prev_state = steps[-2][3] if len(steps) > 1 else None
        prev_flat = flatten(self.spec.describe_state(self.c, prev_state)) if prev_state is not None else {}
        prev_lanes = self._lanes(prev_state) if (self.spec.lanes and prev_state is not None) else None
        changes = L.lane_changes({"lanes": prev_lanes} if prev_lanes is not None else None, {"lanes": lanes})
        changed = [k for k, v in flat.items() if prev_state is not None and prev_flat.get(k, object()) != v]
        next_lanes = [self._lanes(t) for *_, t in enabled] if self.spec.lanes else []
        # At least one offset: an empty log still shows offset 0 with its HW and LEO bars before it.
        width = max(1, L.max_log_length([{"lanes": lanes}] + [{"lanes": n} for n in next_lanes]))
        events = self._events(steps)
        msgs = message_lists(events) if events is not None else [""] * len(steps)
        broken = {i["name"] for i in invariants if not i["holds"]}
        return {
            "path": ".".join(str(p) for p in path),
            "trail": [{"step": k + 1, "action": label or "initial state",
                       "label_html": action_html(label or "initial state"), "messages": msgs[k]}
                      for k, (label, *_rest) in enumerate(steps)],
            "lanes": (legend_html([{"lanes": lanes}], empty="no record is written yet",
                                  changed="changed in the last step", preview=True)
                      + replicas_table(lanes, changes, L.culprit_cells(culprits), width, keyed=True)) if lanes else "",
            "sequence": self._sequence(steps, events, invariants) if events is not None else "",
            "variables": variables_table(flat, changed, L.culprit_variables(culprits)),
            "messages": msgs[-1],
            "invariants": invariants,
            "successors": [dict(self._successor(j, label, flat, t, broken),
                                preview=preview_cells(lanes, next_lanes[j]) if lanes else [])
                           for j, (label, _, _, t) in enumerate(enabled)],
            "deadlock": not enabled,
            "findings": dict(self.findings),
        }

    def compare(self, path: list[int], a: int, b: int) -> dict:
        """States ``a`` and ``b`` (1-based steps of ``path``) side by side, their differences highlighted."""
        with self._lock:
            steps = self.walk(path)
        for which in (a, b):
            if not 1 <= which <= len(steps):
                raise PathError(f"there is no state {which} on this path (it has {len(steps)})")
        sa, sb = steps[a - 1][3], steps[b - 1][3]
        fa, fb = flatten(self.spec.describe_state(self.c, sa)), flatten(self.spec.describe_state(self.c, sb))
        rows = []
        for name in list(fa) + [n for n in fb if n not in fa]:
            va, vb = fa.get(name, ""), fb.get(name, "")
            cls = ' class="changed"' if va != vb else ' class="same"'
            rows.append(f"<tr{cls}><td>{esc(name)}</td><td>{esc(va)}</td><td>{esc(vb)}</td></tr>")
        tables = ""
        if self.spec.lanes:
            la, lb = self._lanes(sa), self._lanes(sb)
            diff = {lane: [f for f, v in fields.items() if la.get(lane, {}).get(f) != v] for lane, fields in lb.items()}
            width = L.max_log_length([{"lanes": la}, {"lanes": lb}])
            tables = (f'<div class="pair"><div><h4>State {a}</h4>{replicas_table(la, diff, {}, width)}</div>'
                      f'<div><h4>State {b}</h4>{replicas_table(lb, diff, {}, width)}</div></div>')
        head = f"<tr><th>variable</th><th>state {a}</th><th>state {b}</th></tr>"
        return {"html": f'{tables}<table class="vars compare">{head}{"".join(rows)}</table>'}

    def _events(self, steps: list) -> list[list[dict]] | None:
        """Per step of the path, the message events the spec's ``messages`` hook gives (none for the initial
        state), or None for a spec without messages.  A receive or a drop names a message sent at an earlier
        step, so the lists and the diagram follow the whole path, as the trace page does."""
        if self.spec.messages is None:
            return None
        return [[]] + [list(call_spec(self.spec.name, "messages", self.spec.messages, self.c, steps[k - 1][3], t,
                                      name, dict(params)) or [])
                       for k, (_, params, name, t) in enumerate(steps) if k > 0]

    def _sequence(self, steps: list, events: list[list[dict]], invariants: list[dict]) -> str:
        """The path as the trace page's sequence diagram (the same renderer), so the messages of a walk read
        the way a counterexample's do; an invariant the current state violates (not a documented finding)
        closes it as a counterexample's violation would."""
        from modelcheck.spec.constants import constants_to_dict

        broken = next((i for i in invariants if not i["holds"] and "finding" not in i), None)
        violation = None if broken is None else {
            "kind": "invariant", "name": broken["name"], "description": broken["description"],
            **({"explanation": broken["explanation"]} if "explanation" in broken else {}),
            "culprits": broken.get("culprits", [])}
        doc_steps = []
        for k, (label, params, name, s) in enumerate(steps):
            step: dict[str, Any] = {"index": k + 1, "action": label, "action_name": name, "params": dict(params),
                                    "messages": events[k]}
            if self.spec.lanes:
                step["lanes"] = self._lanes(s)
            doc_steps.append(step)
        doc = {"spec": self.spec.name, "title": self.spec.title, "constants": constants_to_dict(self.c),
               "violation": violation, "steps": doc_steps}
        return render_sequence_svg(doc, SEQ_WIDTH)

    def _lanes(self, s: Any) -> dict:
        """The spec's lanes of ``s``; what the hook raises is the spec's error (500 and one line)."""
        return call_spec(self.spec.name, "lanes", self.spec.lanes, self.c, s)

    def _holds(self, p: Any, s: Any) -> bool:
        return bool(call_spec(self.spec.name, f"invariant {p.name}", p.fn, self.c, s))

    def _findings(self) -> dict[str, str]:
        out = {}
        for p in self.spec.invariants:
            note = getattr(sys.modules.get(getattr(p.fn, "__module__", "") or ""), "FINDINGS", {}).get(p.name)
            if isinstance(note, str) and any(not self._holds(p, s) for s in self._inits):
                out[p.name] = note
        return out

    def _invariants(self, s: Any) -> list[dict]:
        out = []
        for p in self.spec.invariants:
            try:
                holds = bool(p.fn(self.c, s))
            except Exception as exc:  # noqa: BLE001 - shown as a failure of the spec, the server goes on
                raise SpecRuntimeError(f"invariant {p.name} raised {type(exc).__name__}: {exc}",
                                       spec=self.spec.name, where=f"invariant {p.name}") from exc
            item: dict[str, Any] = {"name": p.name, "holds": holds, "description": p.description}
            if not holds:
                if p.name in self.findings:
                    item["finding"] = self.findings[p.name]
                w = p.witness(self.c, s)
                if w is not None:
                    item["explanation"] = w.sentence
                    item["culprits"] = [dict(c) for c in w.culprits]
            out.append(item)
        return out

    def _successor(self, j: int, label: str, flat: dict, t: Any, broken_now: set[str]) -> dict:
        """One enabled step: its label, what it changes, and the invariants it breaks or mends."""
        after = flatten(self.spec.describe_state(self.c, t))
        diffs = [(k, flat.get(k, ""), v) for k, v in after.items() if flat.get(k, object()) != v]
        violated = [p.name for p in self.spec.invariants if not self._holds(p, t)]
        shown = "".join(f"<li><code>{esc(k)}</code> {value_change(a, b)}</li>" for k, a, b in diffs[:8])
        if len(diffs) > 8:
            shown += f"<li>and {len(diffs) - 8} more</li>"
        return {"index": j, "action": label, "label_html": action_html(label),
                "changes": f'<ul class="delta">{shown or "<li>no variable changes (a self-loop)</li>"}</ul>',
                "violates": violated, "breaks": [n for n in violated if n not in broken_now],
                "mends": [p.name for p in self.spec.invariants if p.name in broken_now and p.name not in violated]}
