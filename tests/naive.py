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
