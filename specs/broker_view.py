"""How a ``broker-failures`` state is shown (traces, swim lanes) and renamed (symmetry)."""

from __future__ import annotations

from typing import Any

from modelcheck.spec.renamed import renamed_set
from modelcheck.specs.broker_state import NONE, UNKNOWN, FailureConstants, FailureState, leader_alive
from modelcheck.specs.broker_truncation import epoch_rounds
from modelcheck.specs.message_events import send
from modelcheck.specs.naming import replica_name, replica_set


def log_text(log: tuple) -> str:
    """``[0@e0, 1@e1]``: record id at leader epoch, offset by offset."""
    return "[" + ", ".join(f"{rec.id}@e{rec.epoch}" for rec in log) + "]"


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
        "controller": {"leader": replica_name(lead), "epoch": s.controller_epoch, "isr": replica_set(s.controller_isr)},
        "leaderIsr": replica_set(s.leader_isr),
        "remoteLEO": {
            replica_name(i): _num(leo) for i, leo in enumerate(s.remote_leo) if i != lead and lead != NONE
        },
        "producer": {"nextId": s.next_id, "pending": sorted(s.pending), "acked": sorted(s.acked)},
        "consumerVisible": log_text(s.visible),
        "crashes": s.crashes,
    }


def lanes(c: FailureConstants, s: FailureState) -> dict[str, dict[str, Any]]:
    """One swim lane per broker: its log, LEO, HW, checkpointed HW, epochs, role, and what the leader knows of it.

    Every per-broker variable of :func:`view` has a field here: the epoch
    cache, whether the broker is up (``alive``: renderers grey a crashed
    broker), the remote LEO the leader holds for it, and the fetch response on
    its way to it (``in flight``), whose leader HW is what the follower's HW
    will become.
    """
    out = {}
    lead = s.controller_leader
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
            "epoch cache": _epochs_text(rep.epochs),
            "role": role,
            "alive": rep.alive,
            "in ISR": i in s.controller_isr,
            "remote LEO": "-" if lead == NONE or i == lead else _num(s.remote_leo[i]),
            "in flight": _fetch_text(rep.fetch),
        }
    return out


CONTROLLER = "controller"
PRODUCER = "producer"
RESTARTS = ("restart_truncate_to_hw", "restart_truncate_by_epoch", "restart_without_leader")


def _lai(s: FailureState) -> str:
    return (f"LeaderAndIsr(epoch {s.controller_epoch}, leader {replica_name(s.controller_leader)}, "
            f"isr {replica_set(s.controller_isr)})")


def _answer(answer: Any) -> str:
    if answer is None:
        return "UNDEFINED: epoch unknown"
    if isinstance(answer, tuple):
        return f"epoch {answer[0]} ends at offset {answer[1]}"
    return f"end offset {answer}"


def messages(c: FailureConstants, s: FailureState, t: FailureState, action: str, params: dict[str, str]) -> list[dict]:
    """What the step ``s -> t`` sends and delivers between the producer, the controller and the brokers.

    * produce: the producer's request, appended by the leader at once; the
      ack goes back when the record is acknowledged (at once with acks=1, when
      the HW passes it with acks=all).
    * A fetch is two steps, as in the spec: ``follower_fetch`` delivers the
      follower's request and sends the response (records and the leader's
      HW); ``follower_append`` applies it; a crash or a new epoch drops it.
    * An election sends LeaderAndIsr to the new leader (applied at once) and
      to every other live broker (applied when it becomes a follower); a
      restarted broker gets one on startup.  A broker that truncates by
      leader epoch asks the leader OffsetsForLeaderEpoch first (one question
      per round, KIP-279 walking back).
    * ISR changes the leader makes are written to ZooKeeper: a message to the
      controller.
    """
    out: list[dict] = []
    rep = params.get("replica") or params.get("follower")
    who = None if rep is None else int(rep[1:]) - 1
    if action == "produce":
        rec = t.replicas[t.controller_leader].log[-1]
        out.append(send(f"Produce {rec.id}", PRODUCER, replica_name(t.controller_leader),
                        f"Produce(record {rec.id}, {params['acks']})", "Produce", delivered=True))
    if action == "follower_fetch":
        f = s.replicas[who]
        out.append(send(f"Fetch by {rep}", rep, replica_name(s.controller_leader),
                        f"Fetch(offset {len(f.log)}, epoch {_num(f.epoch)})", "Fetch", delivered=True))
    if action in ("elect_leader", "elect_leader_unclean"):
        out.append(send(f"LeaderAndIsr e{t.controller_epoch} to {rep}", CONTROLLER, rep, _lai(t), "LeaderAndIsr",
                        delivered=True))
        for r, other in enumerate(t.replicas):
            if r != who and other.alive:
                out.append(send(f"LeaderAndIsr e{t.controller_epoch} to {replica_name(r)}", CONTROLLER,
                                replica_name(r), _lai(t), "LeaderAndIsr", delivered=False))
    if action in RESTARTS:
        if leader_alive(s):
            out.append(send(f"LeaderAndIsr e{t.controller_epoch} to {rep} on restart", CONTROLLER, rep, _lai(t),
                            "LeaderAndIsr", delivered=True))
    if action.startswith("become_follower"):
        out.append({"receive": f"LeaderAndIsr e{t.controller_epoch} to {rep}"})
    if action in ("restart_truncate_by_epoch", "become_follower_truncate_by_epoch"):
        f, ld = s.replicas[who], s.replicas[s.controller_leader]
        hw = min(f.checkpoint_hw, len(f.log)) if action.startswith("restart") else f.hw
        lead = replica_name(s.controller_leader)
        for i, (asked, answer) in enumerate(epoch_rounds(c.Truncation, f.log, f.epochs, hw, ld.log, ld.epochs)):
            out.append(send(f"OffsetsForLeaderEpoch {i} by {rep}", rep, lead, f"OffsetsForLeaderEpoch(epoch {asked})",
                            "OffsetsForLeaderEpoch", delivered=True))
            out.append(send(f"OffsetsForLeaderEpoch {i} by {rep} response", lead, rep, _answer(answer),
                            "OffsetsForLeaderEpoch", delivered=True, response=True))
    for r in range(c.Replicas):
        before, after = s.replicas[r].fetch, t.replicas[r].fetch
        ident = f"FetchResponse to {replica_name(r)}"
        if before and before != after:
            if action == "follower_append":
                out.append({"receive": ident})
            else:
                why = ("crashed" if not t.replicas[r].alive else "became leader" if t.replicas[r].leader
                       else "dropped it for the new epoch")
                out.append({"drop": ident, "why": f"{replica_name(r)} {why}"})
        if after and before != after:
            start, records, hw = after
            if start < len(s.replicas[r].log):
                label = f"FetchResponse(offset out of range: truncate to {start}, HW {hw})"
            else:
                label = f"FetchResponse(records {log_text(records)}, HW {hw})"
            out.append(send(ident, replica_name(s.controller_leader), replica_name(r), label, "Fetch", delivered=False,
                            response=True))
    # A LeaderAndIsr still on its way is lost when its broker crashes, or superseded by the next election.
    # (A broker whose epoch is UNKNOWN restarted since: its crash dropped what was on its way.)
    if action == "crash" and who != s.controller_leader and s.replicas[who].epoch not in (s.controller_epoch, UNKNOWN):
        out.append({"drop": f"LeaderAndIsr e{s.controller_epoch} to {rep}", "why": f"{rep} crashed"})
    if action in ("elect_leader", "elect_leader_unclean"):
        for r, other in enumerate(s.replicas):
            if other.alive and other.epoch not in (s.controller_epoch, UNKNOWN) and r != s.controller_leader:
                out.append({"drop": f"LeaderAndIsr e{s.controller_epoch} to {replica_name(r)}",
                            "why": f"superseded by epoch {t.controller_epoch}"})
    if t.controller_isr != s.controller_isr and action in ("follower_fetch", "shrink_isr"):
        out.append(send("IsrUpdate", replica_name(s.controller_leader), CONTROLLER,
                        f"ISR update {replica_set(t.controller_isr)}", "IsrUpdate", delivered=True))
    for rid in sorted(t.acked - s.acked):
        out.append(send(f"Ack {rid}", replica_name(t.controller_leader), PRODUCER, f"ack(record {rid})", "Produce",
                        delivered=True, response=True))
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
