"""The seeds' failure stories: brokers that crash and restart, HW checkpoints, acks, unclean election.

The published TLA+ models abstract these away; this spec keeps them, at the
level of detail of the seed documents (see ../shared/seeds/DIGEST.md):

* **Replicas** hold a log of records (id, leader epoch), an in-memory HW and
  the HW last checkpointed to disk (replication-offset-checkpoint), whether
  they are alive, and the leader epoch they have caught up with.  The
  leader-epoch cache (epoch -> start offset) is what the log's records imply:
  Kafka assigns an entry when the first record of an epoch is appended and
  truncates it with the log, so it is derived, not stored twice.
* **The leader** keeps each follower's LEO as of its last fetch (the "remote
  LEO") and computes HW = max(HW, min LEO over the ISR).
* **The controller** holds the leader, the leader epoch and the ISR.  Leaders
  write ISR changes to ZooKeeper and to their own cache in one step, so the
  leader's and the controller's ISR agree and are kept once.
* **The producer** remembers which records were acknowledged under its acks
  setting (acks=0 promises nothing, acks=1 acknowledges on the leader's append,
  acks=all once the HW passes the record), and consumers the longest prefix of
  records they have been shown (below a leader's HW).

One fetch is one round trip, as in the seeds' worked example: the leader
records the fetch offset as the follower's remote LEO, recomputes its HW and
answers with its records and HW; the follower appends them and sets
HW = min(LEO, leader HW).  So the follower's HW needs a second fetch to catch
up.  A replica that restarts, or that sees a new leader epoch, truncates
before fetching: to its checkpointed HW (``Truncation=hw``, before Kafka 0.11),
to the leader's end offset for its latest epoch (``leader-epoch``, KIP-101 as
first shipped: OffsetsForLeaderEpoch), or back to the last offset whose epoch
matches the leader's (``kip279``).  When no leader is alive it restarts
without truncating and may be elected.  Elections are clean (from the live
ISR) unless ``UncleanElection`` is on.

Crashes are bounded by ``Crashes`` and records by ``Records``, so every run
ends; states without successors are expected.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant
from modelcheck.specs.replicated_log import Record, first_non_matching_offset_from_tail

NONE = -1
ACKS = ("0", "1", "all")
TRUNCATION = ("hw", "leader-epoch", "kip279")


@attrs.frozen
class FailureConstants:
    """Bounds and the protocol settings the stories vary."""

    Replicas: int = constant(2, "number of brokers hosting the partition (r1 starts as leader)", minimum=1, maximum=4)
    Records: int = constant(2, "records the producer sends in total", minimum=0, maximum=4)
    Crashes: int = constant(2, "broker crashes allowed in one run", minimum=0, maximum=4)
    Truncation: str = constant("hw", "how a restarted or new follower truncates", choices=TRUNCATION)
    UncleanElection: bool = constant(False, "unclean.leader.election.enable: elect a live replica outside the ISR")
    Acks: str = constant("all", "the producer's acks setting", choices=ACKS)
    MinInsyncReplicas: int = constant(1, "min.insync.replicas: acks=all writes need an ISR this large", minimum=1, maximum=4)


class Replica(NamedTuple):
    """One broker's copy of the partition."""

    log: tuple  # of Record
    hw: int  # in memory
    checkpoint_hw: int  # on disk
    alive: bool
    epoch: int  # the leader epoch this replica has caught up with (-1 after a restart)


class FailureState(NamedTuple):
    replicas: tuple  # of Replica
    leader: int  # the controller's leader, NONE when offline
    epoch: int  # the controller's leader epoch
    isr: frozenset
    remote_leo: tuple  # the leader's view of every replica's LEO (-1: no fetch in this epoch yet)
    next_id: int
    acked: frozenset  # ids of records the producer was told are written
    visible: tuple  # the longest prefix of records consumers were shown
    crashes: int


def replica_name(r: int) -> str:
    return "None" if r == NONE else f"r{r + 1}"


REPLICA = Domain("replica", lambda c: range(c.Replicas), replica_name)
ACKS_SETTING = Domain("acks", lambda c: [ACKS.index(c.Acks)], lambda v: f"acks={ACKS[v]}")


def init(c: FailureConstants):
    n = c.Replicas
    yield FailureState(
        replicas=(Replica((), 0, 0, True, 0),) * n,
        leader=0,
        epoch=0,
        isr=frozenset(range(n)),
        remote_leo=(0,) * n,
        next_id=0,
        acked=frozenset(),
        visible=(),
        crashes=0,
    )


def _set(replicas: tuple, r: int, rep: Replica) -> tuple:
    return replicas[:r] + (rep,) + replicas[r + 1:]


def leader_alive(s: FailureState) -> bool:
    return s.leader != NONE and s.replicas[s.leader].alive


def _with_leader_hw(c: FailureConstants, s: FailureState) -> FailureState:
    """Leader HW = max(HW, min LEO over the ISR); then what the new HW commits is acked and visible."""
    ld = s.replicas[s.leader]
    leos = [len(ld.log) if r == s.leader else s.remote_leo[r] for r in s.isr]
    hw = max(ld.hw, min(leos)) if leos else ld.hw
    replicas = s.replicas if hw == ld.hw else _set(s.replicas, s.leader, ld._replace(hw=hw))
    acked = s.acked
    # acks=all: acknowledged once the HW passes the record, unless the ISR has meanwhile shrunk
    # below min.insync.replicas (NOT_ENOUGH_REPLICAS_AFTER_APPEND).
    if c.Acks == "all" and hw > 0 and len(s.isr) >= c.MinInsyncReplicas:
        acked = acked | {rec.id for rec in ld.log[:hw]}
    visible = s.visible
    committed = ld.log[:hw]
    if len(committed) > len(visible) and committed[: len(visible)] == visible:
        visible = committed
    return s._replace(replicas=replicas, acked=acked, visible=visible)


# -- producer -----------------------------------------------------------------


@action("produce", acks=ACKS_SETTING)
def produce(c: FailureConstants, s: FailureState, acks: int):
    """The leader appends a new record; acks=all is refused while the ISR is below min.insync.replicas."""
    if not leader_alive(s) or s.next_id >= c.Records:
        return None
    if c.Acks == "all" and len(s.isr) < c.MinInsyncReplicas:
        return None  # NotEnoughReplicas: the write is refused
    ld = s.replicas[s.leader]
    record = Record(s.next_id, s.epoch)
    t = s._replace(
        replicas=_set(s.replicas, s.leader, ld._replace(log=ld.log + (record,))),
        next_id=s.next_id + 1,
        acked=s.acked | {record.id} if c.Acks == "1" else s.acked,
    )
    return _with_leader_hw(c, t)


# -- replication -----------------------------------------------------------------


@action("follower_fetch", follower=REPLICA)
def follower_fetch(c: FailureConstants, s: FailureState, follower: int):
    """One fetch round trip: remote LEO := fetch offset, leader HW update, append, follower HW = min(LEO, leader HW)."""
    if not leader_alive(s) or follower == s.leader:
        return None
    f = s.replicas[follower]
    if not f.alive or f.epoch != s.epoch:
        return None  # it must first truncate for the current epoch (become_follower)
    fetch_offset = len(f.log)
    t = _with_leader_hw(c, s._replace(remote_leo=_set(s.remote_leo, follower, fetch_offset)))
    ld = t.replicas[t.leader]
    new_log = f.log + ld.log[fetch_offset:]
    new_f = f._replace(log=new_log, hw=min(len(new_log), ld.hw))
    if new_f == f and t == s:
        return None  # nothing to fetch and nothing learnt: not a step worth exploring
    return t._replace(replicas=_set(t.replicas, follower, new_f))


@action("isr_shrink", follower=REPLICA)
def isr_shrink(c: FailureConstants, s: FailureState, follower: int):
    """The leader drops a follower that lags its LEO (replica.lag.time.max.ms passed) and may advance its HW."""
    if not leader_alive(s) or follower == s.leader or follower not in s.isr:
        return None
    if s.remote_leo[follower] >= len(s.replicas[s.leader].log) and s.replicas[follower].alive:
        return None
    return _with_leader_hw(c, s._replace(isr=s.isr - {follower}))


@action("isr_expand", follower=REPLICA)
def isr_expand(c: FailureConstants, s: FailureState, follower: int):
    """A live follower whose fetch offset (in this epoch) reached the leader's HW joins the ISR."""
    if not leader_alive(s) or follower in s.isr or not s.replicas[follower].alive:
        return None
    fetched = s.remote_leo[follower]
    if s.replicas[follower].epoch != s.epoch or fetched < 0 or fetched < s.replicas[s.leader].hw:
        return None
    return s._replace(isr=s.isr | {follower})


@action("checkpoint_hw", replica=REPLICA)
def checkpoint_hw(c: FailureConstants, s: FailureState, replica: int):
    """The replica writes its in-memory HW to replication-offset-checkpoint."""
    rep = s.replicas[replica]
    if not rep.alive or rep.checkpoint_hw == rep.hw:
        return None
    return s._replace(replicas=_set(s.replicas, replica, rep._replace(checkpoint_hw=rep.hw)))


# -- failures --------------------------------------------------------------------------


@action("crash", replica=REPLICA)
def crash(c: FailureConstants, s: FailureState, replica: int):
    """A broker dies: it stops and loses its in-memory state (log and HW checkpoint survive on disk).

    The controller sees the failure at once (ZooKeeper session expiry is not
    modelled): a dead leader leaves the partition offline until an election.
    """
    rep = s.replicas[replica]
    if not rep.alive or s.crashes >= c.Crashes:
        return None
    return s._replace(
        replicas=_set(s.replicas, replica, rep._replace(alive=False, hw=0, epoch=-1)),
        leader=NONE if s.leader == replica else s.leader,
        crashes=s.crashes + 1,
    )


def epoch_end_offset(leader_log: tuple, epoch: int) -> int:
    """OffsetsForLeaderEpoch as KIP-101 first shipped it: where ``epoch`` ends in the leader's log.

    The leader's latest epoch ends at its LEO; an older one ends where the next
    larger epoch starts (from the leader-epoch cache the log implies).
    """
    for offset, rec in enumerate(leader_log):
        if rec.epoch > epoch:
            return offset
    return len(leader_log)


def truncation_offset(c: FailureConstants, s: FailureState, replica: int, hw: int) -> int:
    """Where a replica following the live leader truncates, by the configured rule."""
    log = s.replicas[replica].log
    if c.Truncation == "hw":
        return min(hw, len(log))
    leader_log = s.replicas[s.leader].log
    if c.Truncation == "leader-epoch":
        if not log:
            return 0
        return min(epoch_end_offset(leader_log, log[-1].epoch), len(log))
    return first_non_matching_offset_from_tail(leader_log, log) if leader_log else 0


def _follow(c: FailureConstants, s: FailureState, replica: int, rep: Replica) -> FailureState:
    """``rep`` (alive, hw known) truncates for the live leader's epoch and starts following it."""
    s = s._replace(replicas=_set(s.replicas, replica, rep))
    cut = truncation_offset(c, s, replica, rep.hw)
    new = rep._replace(log=rep.log[:cut], hw=min(rep.hw, cut), epoch=s.epoch)
    return s._replace(replicas=_set(s.replicas, replica, new))


def _restart_following(c: FailureConstants, s: FailureState, replica: int):
    """Restart while a leader is alive: HW from the checkpoint file, truncate by the rule, follow."""
    rep = s.replicas[replica]
    if rep.alive or not leader_alive(s):
        return None
    back = rep._replace(alive=True, hw=min(rep.checkpoint_hw, len(rep.log)), epoch=-1)
    if c.Truncation == "hw":
        # Before 0.11 the new follower truncates to the HW read back from the checkpoint.
        cut = back.hw
        return s._replace(replicas=_set(s.replicas, replica, back._replace(log=rep.log[:cut], epoch=s.epoch)))
    return _follow(c, s, replica, back)


@action("restart_truncate_to_hw", replica=REPLICA)
def restart_truncate_to_hw(c: FailureConstants, s: FailureState, replica: int):
    """Before 0.11: a restarted broker truncates its log to the checkpointed HW and follows the leader."""
    return _restart_following(c, s, replica) if c.Truncation == "hw" else None


@action("restart_truncate_to_leader_epoch", replica=REPLICA)
def restart_truncate_to_leader_epoch(c: FailureConstants, s: FailureState, replica: int):
    """0.11 and later: a restarted broker asks the leader where its latest epoch ends and truncates there."""
    return _restart_following(c, s, replica) if c.Truncation != "hw" else None


@action("restart_without_leader", replica=REPLICA)
def restart_without_leader(c: FailureConstants, s: FailureState, replica: int):
    """A broker restarts while no leader is alive: no truncation; it may then be elected."""
    rep = s.replicas[replica]
    if rep.alive or leader_alive(s):
        return None
    back = rep._replace(alive=True, hw=min(rep.checkpoint_hw, len(rep.log)), epoch=-1)
    return s._replace(replicas=_set(s.replicas, replica, back))


@action("become_follower", replica=REPLICA)
def become_follower(c: FailureConstants, s: FailureState, replica: int):
    """A live replica sees a new leader epoch (LeaderAndIsr) and truncates, by the configured rule, before fetching."""
    rep = s.replicas[replica]
    if not leader_alive(s) or replica == s.leader or not rep.alive or rep.epoch == s.epoch:
        return None
    return _follow(c, s, replica, rep)


def _elect(c: FailureConstants, s: FailureState, replica: int, unclean: bool):
    if leader_alive(s) or not s.replicas[replica].alive:
        return None
    live_isr = frozenset(r for r in s.isr if s.replicas[r].alive)
    if (replica in live_isr) == unclean:
        return None
    if unclean and not c.UncleanElection:
        return None
    epoch = s.epoch + 1
    rep = s.replicas[replica]
    # The new leader starts from its own (possibly stale) HW and knows no follower's LEO yet.
    t = s._replace(
        replicas=_set(s.replicas, replica, rep._replace(epoch=epoch)),
        leader=replica,
        epoch=epoch,
        isr=frozenset((replica,)) if unclean else live_isr,
        remote_leo=(-1,) * c.Replicas,
    )
    return _with_leader_hw(c, t)


@action("elect_leader", replica=REPLICA)
def elect_leader(c: FailureConstants, s: FailureState, replica: int):
    """Clean election: with the leader dead, the controller picks a live ISR member and bumps the epoch."""
    return _elect(c, s, replica, unclean=False)


@action("elect_leader_unclean", replica=REPLICA)
def elect_leader_unclean(c: FailureConstants, s: FailureState, replica: int):
    """Unclean election (if enabled): no live ISR member is required; any live replica may lead."""
    return _elect(c, s, replica, unclean=True)


# -- symmetry and display ------------------------------------------------------------------


def permute(c: FailureConstants, s: FailureState, perm: tuple[int, ...]) -> FailureState:
    """Rename brokers (all are interchangeable once the first leader is chosen)."""
    n = len(perm)
    reps = [None] * n
    remote = [0] * n
    for i in range(n):
        reps[perm[i]] = s.replicas[i]
        remote[perm[i]] = s.remote_leo[i]
    return s._replace(
        replicas=tuple(reps),
        leader=NONE if s.leader == NONE else perm[s.leader],
        isr=frozenset(perm[r] for r in s.isr),
        remote_leo=tuple(remote),
    )


def _log_text(log: tuple) -> str:
    return "[" + ", ".join(f"{rec.id}@e{rec.epoch}" for rec in log) + "]"


def epoch_cache(log: tuple) -> dict[int, int]:
    """The leader-epoch cache the log implies: epoch -> start offset."""
    out: dict[int, int] = {}
    for offset, rec in enumerate(log):
        out.setdefault(rec.epoch, offset)
    return out


def view(c: FailureConstants, s: FailureState) -> dict[str, Any]:
    reps = {}
    for i, rep in enumerate(s.replicas):
        reps[replica_name(i)] = {
            "log": _log_text(rep.log),
            "LEO": len(rep.log),
            "HW": rep.hw,
            "checkpointHW": rep.checkpoint_hw,
            "epochCache": "{" + ", ".join(f"e{e}: {o}" for e, o in epoch_cache(rep.log).items()) + "}",
            "alive": rep.alive,
            "epoch": rep.epoch,
        }
    return {
        "replicas": reps,
        "controller": {
            "leader": replica_name(s.leader),
            "epoch": s.epoch,
            "isr": "{" + ", ".join(replica_name(r) for r in sorted(s.isr)) + "}",
        },
        "remoteLEO": {replica_name(i): leo for i, leo in enumerate(s.remote_leo) if i != s.leader},
        "producer": {"nextId": s.next_id, "acked": sorted(s.acked)},
        "consumerVisible": _log_text(s.visible),
        "crashes": s.crashes,
    }


def lanes(c: FailureConstants, s: FailureState) -> dict[str, dict[str, Any]]:
    out = {}
    for i, rep in enumerate(s.replicas):
        if not rep.alive:
            role = "crashed"
        elif i == s.leader:
            role = "leader"
        else:
            role = "follower"
        out[replica_name(i)] = {
            "log": _log_text(rep.log),
            "LEO": len(rep.log),
            "HW": rep.hw,
            "ckpt HW": rep.checkpoint_hw,
            "epoch": rep.epoch,
            "role": role,
            "in ISR": i in s.isr,
        }
    return out


def _spec(actions: list) -> Spec:
    from modelcheck.invariants import broker_failures as inv

    return Spec(
        name="broker-failures",
        title="Broker crash/restart, HW checkpoints, acks, min.insync.replicas and unclean election (the seeds' stories)",
        constants=FailureConstants,
        init=init,
        actions=actions,
        invariants=inv.ALL,
        default_invariants=["AckedRecordsSurvive"],
        sometimes=inv.SOMETIMES,
        symmetry=Symmetry(size=lambda c: c.Replicas, permute=permute),
        deadlock_expected=True,
        view=view,
        lanes=lanes,
        description=__doc__,
        reference="modelcheck.specs.broker_failures:SPEC",
    )


SPEC = _spec([
    produce,
    follower_fetch,
    isr_shrink,
    isr_expand,
    checkpoint_hw,
    crash,
    restart_truncate_to_hw,
    restart_truncate_to_leader_epoch,
    restart_without_leader,
    become_follower,
    elect_leader,
    elect_leader_unclean,
])
