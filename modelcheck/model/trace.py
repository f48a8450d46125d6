"""One step of a behaviour: the action that led to a state, and the state.

The model builds traces (replaying a spec along fingerprints, naming the
actions of its steps); the search and the output carry them.  It lives with
the model so that the model does not import the output layer to build one.
"""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class TraceStep:
    """One step of a trace: the action that led here (None for an initial state) and the state."""

    action: str | None
    """The action label as users read it, e.g. ``LeaderWrite(r1)``."""
    action_name: str | None
    """The bare action name, e.g. ``LeaderWrite``."""
    params: dict[str, str]
    """The action's parameters by name, as shown."""
    state: Any
    """The canonical state itself."""
