"""How a ``broker-failures`` state is shown (traces, swim lanes) and renamed (symmetry)."""

from __future__ import annotations

from typing import Any

from modelcheck.model.symmetry import renamed_set
from modelcheck.specs.broker_state import NONE, UNKNOWN, FailureConstants, FailureState, replica_name


def log_text(log: tuple) -> str:
    """``[0@e0, 1@e1]``: record id at leader epoch, offset by offset."""
    return "[" + ", ".join(f"{rec.id}@e{rec.epoch}" for rec in log) + "]"


def _names(rs: frozenset) -> str:
    return "{" + ", ".join(replica_name(r) for r in sorted(rs)) + "}"


def _epochs_text(epochs: tuple) -> str:
    return "{" + ", ".join(f"e{e}: {start}" for e, start in epochs) + "}"


def _fetch_text(fetch: tuple) -> str:
    if not fetch:
        return "-"
    start, records, hw = fetch
    return f"from {start}: {log_text(records)}, leader HW {hw}"


def _num(x: int) -> Any:
    return "?" if x == UNKNOWN else x


def view(c: FailureConstants, s: FailureState) -> dict[str, Any]:
    """Every variable by name, as the seeds' tables list them."""
    reps = {}
    for i, rep in enumerate(s.replicas):
        reps[replica_name(i)] = {
            "log": log_text(rep.log),
            "LEO": len(rep.log),
            "HW": rep.hw,
            "checkpointHW": rep.checkpoint_hw,
            "epochCache": _epochs_text(rep.epochs),
            "alive": rep.alive,
            "leader": rep.leader,
            "epoch": _num(rep.epoch),
            "fetchResponse": _fetch_text(rep.fetch),
        }
    lead = s.controller_leader
    return {
        "replicas": reps,
        "controller": {"leader": replica_name(lead), "epoch": s.controller_epoch, "isr": _names(s.controller_isr)},
        "leaderIsr": _names(s.leader_isr),
        "remoteLEO": {
            replica_name(i): _num(leo) for i, leo in enumerate(s.remote_leo) if i != lead and lead != NONE
        },
        "producer": {"nextId": s.next_id, "pending": sorted(s.pending), "acked": sorted(s.acked)},
        "consumerVisible": log_text(s.visible),
        "crashes": s.crashes,
    }


def lanes(c: FailureConstants, s: FailureState) -> dict[str, dict[str, Any]]:
    """One swim lane per broker: log, LEO, HW, checkpointed HW, epoch and role."""
    out = {}
    for i, rep in enumerate(s.replicas):
        if not rep.alive:
            role = "crashed"
        elif rep.leader:
            role = "leader"
        else:
            role = "follower"
        out[replica_name(i)] = {
            "log": log_text(rep.log),
            "LEO": len(rep.log),
            "HW": rep.hw,
            "ckpt HW": rep.checkpoint_hw,
            "epoch": _num(rep.epoch),
            "role": role,
            "in ISR": i in s.controller_isr,
        }
    return out


def permute(c: FailureConstants, s: FailureState, perm: tuple[int, ...]) -> FailureState:
    """Rename broker ``i`` to ``perm[i]`` everywhere (brokers are interchangeable but for their state)."""
    n = len(perm)
    reps: list = [None] * n
    remote = [0] * n
    for i in range(n):
        reps[perm[i]] = s.replicas[i]
        remote[perm[i]] = s.remote_leo[i]
    return s._replace(
        replicas=tuple(reps),
        controller_leader=NONE if s.controller_leader == NONE else perm[s.controller_leader],
        controller_isr=renamed_set(perm, s.controller_isr),
        leader_isr=renamed_set(perm, s.leader_isr),
        remote_leo=tuple(remote),
    )


def broker_signature(c: FailureConstants, s: FailureState, r: int) -> tuple:
    """What renaming brokers carries along with broker ``r``: its own copy and how the controller and leader see it."""
    return (s.replicas[r], s.controller_leader == r, r in s.controller_isr, r in s.leader_isr, s.remote_leo[r])
