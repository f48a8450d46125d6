"""An independent, deliberately naive explorer used to cross-check the engines.

It keeps every full state in a dict (no fingerprints, no parent arrays, no
levels bookkeeping beyond a plain BFS queue), so a bug in the engine's hashing,
deduplication or depth counting would show up as a different count here.
"""

from __future__ import annotations

from collections import deque
from typing import Any


def naive_explore(spec: Any, consts: Any) -> dict[str, int]:
    """Distinct states, generated successors (initial states included) and depth, the slow way."""
    depth_of: dict[Any, int] = {}
    queue: deque = deque()
    generated = 0
    for s in spec.init(consts):
        generated += 1
        if s not in depth_of:
            depth_of[s] = 1
            queue.append(s)
    while queue:
        s = queue.popleft()
        for act in spec.actions:
            for binding in act.bindings(consts):
                r = act.fn(consts, s, *binding)
                succs = [] if r is None else (r if isinstance(r, list) else [r])
                for t in succs:
                    generated += 1
                    if spec.state_constraint is not None and not spec.state_constraint(consts, t):
                        continue
                    if spec.action_constraint is not None and not spec.action_constraint(consts, s, t):
                        continue
                    if t not in depth_of:
                        depth_of[t] = depth_of[s] + 1
                        queue.append(t)
    return {
        "distinct": len(depth_of),
        "generated": generated,
        "depth": max(depth_of.values(), default=0),
    }


def successors(spec: Any, consts: Any, s: Any) -> list:
    """Every successor of ``s`` by the spec's own actions, in their order (duplicates kept)."""
    out = []
    for act in spec.actions:
        for binding in act.bindings(consts):
            r = act.fn(consts, s, *binding)
            out.extend([] if r is None else (r if isinstance(r, list) else [r]))
    return out


def naive_shortest(spec: Any, consts: Any, invariant: str) -> int:
    """States on a shortest path to a state violating ``invariant`` (0 if none), by a plain BFS over full states."""
    pred = spec.invariant(invariant).fn
    depth: dict[Any, int] = {}
    queue: deque = deque()
    for s in spec.init(consts):
        if s not in depth:
            depth[s] = 1
            queue.append(s)
    while queue:
        s = queue.popleft()
        if not pred(consts, s):
            return depth[s]
        for t in successors(spec, consts, s):
            if t not in depth:
                depth[t] = depth[s] + 1
                queue.append(t)
    return 0


def naive_terminal_states(spec: Any, consts: Any) -> list:
    """Every reachable state without a successor (what a deadlock check reports), the slow way."""
    seen: set = set()
    queue: deque = deque()
    terminal = []
    for s in spec.init(consts):
        if s not in seen:
            seen.add(s)
            queue.append(s)
    while queue:
        s = queue.popleft()
        succs = successors(spec, consts, s)
        if not succs:
            terminal.append(s)
        for t in succs:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return terminal
