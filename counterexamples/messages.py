"""Messages between actors, from the message events a spec's ``messages`` hook wrote into each step.

A spec declares how its state maps to messages with
``Spec(messages=fn)``: ``fn(c, s, t, action_name, params)`` returns, for the
step ``s -> t``, a list of events:

* ``{"send": ID, "from": ACTOR, "to": ACTOR, "label": TEXT}``, optionally
  ``"kind"`` (the message type, which picks its colour), ``"response": true``
  (drawn dashed) and ``"delivered": true`` (applied by its receiver in the
  same step: the model makes that round trip atomic);
* ``{"receive": ID}``: the receiver applies the message sent earlier with
  this id;
* ``{"drop": ID, "why": TEXT}``: it is lost (its receiver crashed, a newer
  one superseded it).

An id needs only be unique among the messages in flight at once; a receive
or drop of an id with nothing in flight is ignored.  Actors are the spec's
lanes (brokers) plus any other name the events use (a controller, a
producer).  :func:`arrows` pairs the events into one :class:`Arrow` per
message; the sequence diagram draws them.
"""

from __future__ import annotations

import attrs


@attrs.define
class Arrow:
    """One message: sent at one step, and delivered, dropped, or still in flight at the end."""

    ident: str
    sender: str
    receiver: str
    label: str
    kind: str
    response: bool
    sent: int
    """Index (0-based) of the step whose transition sent it."""
    ended: int | None = None
    """Index of the step that delivered or dropped it; None while still in flight after the last step."""
    outcome: str = "in flight"
    """``delivered``, ``dropped`` or ``in flight``."""
    why: str = ""


def arrows(steps: list[dict]) -> list[Arrow]:
    """Every message of a trace, in the order sent."""
    out: list[Arrow] = []
    open_: dict[str, Arrow] = {}
    for i, step in enumerate(steps):
        for ev in step.get("messages") or []:
            if "send" in ev:
                a = Arrow(ev["send"], ev["from"], ev["to"], ev["label"], ev.get("kind", ""),
                          bool(ev.get("response")), i)
                out.append(a)
                if ev.get("delivered"):
                    a.ended, a.outcome = i, "delivered"
                else:
                    open_[a.ident] = a
            elif "receive" in ev and ev["receive"] in open_:
                a = open_.pop(ev["receive"])
                a.ended, a.outcome = i, "delivered"
            elif "drop" in ev and ev["drop"] in open_:
                a = open_.pop(ev["drop"])
                a.ended, a.outcome, a.why = i, "dropped", ev.get("why", "")
    return out


def has_messages(steps: list[dict]) -> bool:
    """Whether the trace carries message events at all (its spec declares a ``messages`` hook)."""
    return any("messages" in step for step in steps)


def actors(steps: list[dict], found: list[Arrow]) -> list[str]:
    """The diagram's columns: actors that are not lanes (controller, producer...) in order of first
    appearance, then the lanes in the spec's order."""
    lanes = list((steps[0].get("lanes") or {}).keys()) if steps else []
    extra: list[str] = []
    for a in found:
        for name in (a.sender, a.receiver):
            if name not in lanes and name not in extra:
                extra.append(name)
    return extra + lanes
