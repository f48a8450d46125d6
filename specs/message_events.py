"""The message events a spec's ``messages`` hook returns for a step, built one way for every spec.

The sequence diagram reads these events (the format is described in
:mod:`modelcheck.counterexamples.messages`).  ``delivered`` has no default:
whether the receiver applies a message in the step that sends it belongs to
each message, and is said where the message is sent.
"""

from __future__ import annotations

from typing import Any


def send(ident: str, sender: str, receiver: str, label: str, kind: str, *, delivered: bool,
         response: bool = False) -> dict[str, Any]:
    """One message leaving ``sender`` in this step (``delivered``: its receiver applies it in the same step)."""
    out: dict[str, Any] = {"send": ident, "from": sender, "to": receiver, "label": label, "kind": kind}
    if delivered:
        out["delivered"] = True
    if response:
        out["response"] = True
    return out


def exchange(ident: str, asker: str, answerer: str, question: str, answer: str, kind: str) -> list[dict[str, Any]]:
    """A request and its response within one step: the model makes this round trip one atomic action."""
    return [send(ident, asker, answerer, question, kind, delivered=True),
            send(ident + " response", answerer, asker, answer, kind, delivered=True, response=True)]
