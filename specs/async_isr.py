"""AsyncIsr.tla: the leader changes the ISR by asking the controller, asynchronously (AlterIsr).

The leader sends ISR change requests tagged with the ISR version it knows and,
until the controller's update comes back, computes its high watermark over the
union of the current and the pending ISR.  ``ValidHighWatermark`` says every
member of the controller's ISR has reached that high watermark, so a replica
the controller could elect never lacks committed data.

The TLA+ module leaves offsets and versions unbounded (its ``MaxOffset`` is
declared but unused).  Here they are bounded by a state constraint, as a TLC
CONSTRAINT would: states where the leader's offset exceeds ``MaxOffset`` or the
controller's ISR version exceeds ``MaxVersion`` are neither stored nor
explored.  The leader is replica ``r1``; followers are interchangeable.

ISRs are kept as sorted tuples of replica indices (not frozensets) so that the
request and update sets can be stored as sorted tuples too: the same sets, in
an order that iterates identically in every process.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant
from modelcheck.spec import Witness, culprit
from modelcheck.specs.naming import replica_name, replica_set

NIL = -1
LEADER = 0


@attrs.frozen
class AsyncIsrConstants:
    """Replicas and the two bounds that make the unbounded TLA+ model finite."""

    Replicas: int = constant(3, "number of replicas; r1 is the leader", minimum=1, maximum=5)
    MaxOffset: int = constant(2, "state constraint: the leader's log end offset stays <= MaxOffset", minimum=0, maximum=10)
    MaxVersion: int = constant(3, "state constraint: the controller's ISR version stays <= MaxVersion", minimum=0, maximum=10)


class Message(NamedTuple):
    """An ISR change request (leader to controller) or update (controller to leader)."""

    isr: tuple
    version: int


class ControllerState(NamedTuple):
    isr: tuple
    version: int


class LeaderState(NamedTuple):
    isr: tuple
    version: int
    pending_isr: tuple
    pending_version: int
    offsets: tuple  # log end offset per replica, as the leader knows it


class AsyncIsrState(NamedTuple):
    controller_state: ControllerState
    leader_state: LeaderState
    requests: tuple  # sorted tuple of Message: a set
    updates: tuple  # sorted tuple of Message: a set


def _set(*xs: int) -> tuple:
    return tuple(sorted(set(xs)))


def _union(a: tuple, b: tuple) -> tuple:
    return tuple(sorted(set(a) | set(b)))


def _minus(a: tuple, x: int) -> tuple:
    return tuple(r for r in a if r != x)


def _add_message(messages: tuple, m: Message) -> tuple:
    return messages if m in messages else tuple(sorted(messages + (m,)))


REPLICA = Domain("replica", lambda c: range(c.Replicas), replica_name)


def high_watermark(s: AsyncIsrState) -> int:
    """HighWatermark: the smallest offset over the current and pending ISR."""
    ls = s.leader_state
    return min(ls.offsets[r] for r in _union(ls.isr, ls.pending_isr))


def init(c: AsyncIsrConstants):
    everyone = tuple(range(c.Replicas))
    yield AsyncIsrState(
        ControllerState(everyone, 0),
        LeaderState(everyone, 0, (), NIL, (0,) * c.Replicas),
        (),
        (),
    )


@action("ControllerShrinkIsr", replica=REPLICA)
def controller_shrink_isr(c: AsyncIsrConstants, s: AsyncIsrState, replica: int):
    """The controller removes a failed follower and tells the leader (a new ISR version)."""
    cs = s.controller_state
    if replica == LEADER or replica not in cs.isr:
        return None
    version = cs.version + 1
    isr = _minus(cs.isr, replica)
    return s._replace(controller_state=ControllerState(isr, version),
                      updates=_add_message(s.updates, Message(isr, version)))


@action("ControllerHandleRequest")
def controller_handle_request(c: AsyncIsrConstants, s: AsyncIsrState):
    """The controller accepts a request made against its current version and publishes it."""
    cs = s.controller_state
    out = []
    for m in s.requests:
        if m.version == cs.version:
            version = cs.version + 1
            out.append(s._replace(controller_state=ControllerState(m.isr, version),
                                  updates=_add_message(s.updates, Message(m.isr, version))))
    return out or None


@action("LeaderRequestShrinkIsr", replica=REPLICA)
def leader_request_shrink_isr(c: AsyncIsrConstants, s: AsyncIsrState, replica: int):
    """The leader asks to drop a follower; until answered, the HW still counts the pending ISR."""
    ls = s.leader_state
    if replica == LEADER or replica not in ls.isr:
        return None
    isr = _minus(ls.isr, replica)
    return s._replace(
        requests=_add_message(s.requests, Message(isr, ls.version)),
        leader_state=ls._replace(pending_isr=_union(ls.pending_isr, isr), pending_version=ls.version),
    )


@action("LeaderRequestExpandIsr", replica=REPLICA)
def leader_request_expand_isr(c: AsyncIsrConstants, s: AsyncIsrState, replica: int):
    """The leader asks to add a follower that has reached the HW; the HW counts it at once."""
    ls = s.leader_state
    if replica in ls.isr or ls.offsets[replica] < high_watermark(s):
        return None
    isr = _union(ls.isr, (replica,))
    return s._replace(
        requests=_add_message(s.requests, Message(isr, ls.version)),
        leader_state=ls._replace(pending_isr=_union(ls.pending_isr, isr), pending_version=ls.version),
    )


@action("LeaderWrite")
def leader_write(c: AsyncIsrConstants, s: AsyncIsrState):
    """The leader appends a record."""
    ls = s.leader_state
    offsets = (ls.offsets[LEADER] + 1,) + ls.offsets[1:]
    return s._replace(leader_state=ls._replace(offsets=offsets))


@action("LeaderHandleUpdate")
def leader_handle_update(c: AsyncIsrConstants, s: AsyncIsrState):
    """The leader adopts a newer ISR version from the controller and clears its pending ISR."""
    ls = s.leader_state
    out = []
    for u in s.updates:
        if u.version > ls.version:
            out.append(s._replace(leader_state=LeaderState(u.isr, u.version, (), NIL, ls.offsets)))
    return out or None


@action("FollowerReplicate", replica=REPLICA)
def follower_replicate(c: AsyncIsrConstants, s: AsyncIsrState, replica: int):
    """A follower behind the leader fetches one more record."""
    ls = s.leader_state
    if replica == LEADER or ls.offsets[replica] >= ls.offsets[LEADER]:
        return None
    offsets = ls.offsets[:replica] + (ls.offsets[replica] + 1,) + ls.offsets[replica + 1:]
    return s._replace(leader_state=ls._replace(offsets=offsets))


def explain_valid_high_watermark(c: AsyncIsrConstants, s: AsyncIsrState) -> Witness:
    """The controller-ISR member below the leader's HW, and the ISR the HW was computed over."""
    hw = high_watermark(s)
    ls = s.leader_state
    r = next(r for r in s.controller_state.isr if ls.offsets[r] < hw)
    name = replica_name(r)
    return Witness(
        f"{name} is in the controller's ISR {replica_set(s.controller_state.isr)} but has reached only offset "
        f"{ls.offsets[r]}, below leader r1's HW {hw} (the smallest offset over the ISR and pending ISR "
        f"{replica_set(_union(ls.isr, ls.pending_isr))}): offset {ls.offsets[r]} is committed but missing on {name}",
        (culprit(name, "LEO"), culprit(name, "controller's ISR"), culprit(replica_name(LEADER), "HW")))


def explain_type_ok(c: AsyncIsrConstants, s: AsyncIsrState) -> Witness:
    """TypeOk's parts, named: which variable is out of type."""
    n = c.Replicas
    ls, cs = s.leader_state, s.controller_state
    for what, isr in (("controllerState.isr", cs.isr), ("leaderState.isr", ls.isr),
                      ("leaderState.pendingIsr", ls.pending_isr)):
        if list(isr) != sorted(set(isr)) or not all(0 <= r < n for r in isr):
            return Witness(f"{what} {isr} is not a set of replicas", (culprit(variable=what),))
    if len(ls.offsets) != n or not all(o >= 0 for o in ls.offsets):
        return Witness(f"the leader's offsets {ls.offsets} are not one natural per replica")
    return Witness("a version, or an ISR in a request or update, is out of type",
                   (culprit(variable="controllerState.version"), culprit(variable="leaderState.version")))


@invariant("ValidHighWatermark", explain=explain_valid_high_watermark)
def valid_high_watermark(c: AsyncIsrConstants, s: AsyncIsrState) -> bool:
    """Every member of the controller's ISR has reached the leader's high watermark."""
    hw = high_watermark(s)
    return all(s.leader_state.offsets[r] >= hw for r in s.controller_state.isr)


@invariant("TypeOk", explain=explain_type_ok)
def type_ok(c: AsyncIsrConstants, s: AsyncIsrState) -> bool:
    """Versions are naturals (pending version Nil or natural), ISRs are sets of replicas, offsets naturals."""
    n = c.Replicas

    def isr_ok(isr: tuple) -> bool:
        return list(isr) == sorted(set(isr)) and all(0 <= r < n for r in isr)

    ls = s.leader_state
    cs = s.controller_state
    return (
        isr_ok(cs.isr) and cs.version >= 0
        and isr_ok(ls.isr) and isr_ok(ls.pending_isr) and ls.version >= 0
        and (ls.pending_version == NIL or ls.pending_version >= 0)
        and len(ls.offsets) == n and all(o >= 0 for o in ls.offsets)
        and all(isr_ok(m.isr) and m.version >= 0 for m in s.requests + s.updates)
    )


def within_bounds(c: AsyncIsrConstants, s: AsyncIsrState) -> bool:
    """The state constraint: the leader's offset and the controller's version stay within bounds."""
    return s.leader_state.offsets[LEADER] <= c.MaxOffset and s.controller_state.version <= c.MaxVersion


def view(c: AsyncIsrConstants, s: AsyncIsrState) -> dict[str, Any]:
    ls = s.leader_state
    return {
        "controllerState": {"isr": replica_set(s.controller_state.isr), "version": s.controller_state.version},
        "leaderState": {
            "isr": replica_set(ls.isr),
            "version": ls.version,
            "pendingIsr": replica_set(ls.pending_isr),
            "pendingVersion": "Nil" if ls.pending_version == NIL else ls.pending_version,
            "offsets": {replica_name(r): o for r, o in enumerate(ls.offsets)},
        },
        "highWatermark": high_watermark(s),
        "requests": [f"[isr {replica_set(m.isr)}, version {m.version}]" for m in s.requests],
        "updates": [f"[isr {replica_set(m.isr)}, version {m.version}]" for m in s.updates],
    }


def lanes(c: AsyncIsrConstants, s: AsyncIsrState) -> dict[str, dict[str, Any]]:
    ls = s.leader_state
    hw = high_watermark(s)
    return {
        replica_name(r): {
            "LEO": ls.offsets[r],
            "HW": hw if r == LEADER else "",
            "role": "leader" if r == LEADER else "follower",
            "leader's ISR": r in ls.isr,
            "controller's ISR": r in s.controller_state.isr,
        }
        for r in range(c.Replicas)
    }


def _request_id(m: Message) -> str:
    return f"AlterIsr {replica_set(m.isr)} v{m.version}"


def _update_id(m: Message) -> str:
    return f"IsrUpdate {replica_set(m.isr)} v{m.version}"


def messages(c: AsyncIsrConstants, s: AsyncIsrState, t: AsyncIsrState, action: str,
             params: dict[str, str]) -> list[dict]:
    """The model's own messages: the leader's ISR change requests and the controller's updates.

    A request is sent when it joins ``requests`` and applied when the
    controller accepts it; once the controller's version moves past a
    request's, it can never be accepted (dropped as stale).  An update is
    sent when it joins ``updates`` and applied when the leader adopts its
    version; the updates it skipped over are dropped.
    """
    # Sends written out rather than with message_events.send, which would reorder their keys in trace files.
    out: list[dict] = []
    leader = replica_name(LEADER)
    for m in t.requests:
        if m not in s.requests:
            out.append({"send": _request_id(m), "from": leader, "to": "controller", "kind": "AlterIsr",
                        "label": f"AlterIsr(isr {replica_set(m.isr)}, version {m.version})"})
    cs0, cs1 = s.controller_state, t.controller_state
    if cs1.version > cs0.version:
        for m in s.requests:
            if m.version == cs0.version:
                if action == "ControllerHandleRequest" and m.isr == cs1.isr:
                    out.append({"receive": _request_id(m)})
                else:
                    out.append({"drop": _request_id(m), "why": f"version {m.version} is stale"})
    for m in t.updates:
        if m not in s.updates:
            out.append({"send": _update_id(m), "from": "controller", "to": leader, "kind": "IsrUpdate",
                        "label": f"IsrUpdate(isr {replica_set(m.isr)}, version {m.version})"})
    v0, v1 = s.leader_state.version, t.leader_state.version
    if v1 > v0:
        for m in s.updates:
            if m.version == v1 and m.isr == t.leader_state.isr:
                out.append({"receive": _update_id(m)})
            elif v0 < m.version < v1:
                out.append({"drop": _update_id(m), "why": f"superseded by version {v1}"})
    return out


SPEC = Spec(
    name="async-isr",
    title="AsyncIsr (ISR changes requested asynchronously from the controller)",
    constants=AsyncIsrConstants,
    init=init,
    actions=[
        controller_shrink_isr,
        controller_handle_request,
        leader_request_shrink_isr,
        leader_request_expand_isr,
        leader_write,
        leader_handle_update,
        follower_replicate,
    ],
    invariants=[type_ok, valid_high_watermark],
    default_invariants=["ValidHighWatermark"],
    state_constraint=within_bounds,
    deadlock_expected=True,
    view=view,
    lanes=lanes,
    messages=messages,
    description=__doc__,
    reference="modelcheck.specs.async_isr:SPEC",
)
