"""A message set held as one bit per message behaves as the frozenset it stands for, and the tables read it per bit.

The set operations are checked against Python's own frozenset on random
sequences of sends; the PaxosCommit port that holds its messages this way
(bench/published/paxos_commit_bits.py) is checked against the frozenset port
(same counts: the two representations correspond one to one) on the memo
tables and on its own code, and the tables must learn far fewer evaluations
than they answer, which is the representation's point.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import attrs
import pytest

import modelcheck
from modelcheck import MessageSpace, MessageUniverse
from conftest import ROOT


class Ping(NamedTuple):
    src: int
    dst: int


class Vote(NamedTuple):
    voter: int
    bal: int
    val: str


MESSAGES = [Vote(v, b, x) for v in range(3) for b in range(2) for x in ("a", "b")] + \
    [Ping(s, d) for s in range(3) for d in range(3) if s != d]


def test_the_set_operations_agree_with_a_frozenset():
    u = MessageUniverse(reversed(MESSAGES))
    rng = random.Random(7)
    for _ in range(200):
        msgs, plain = u.empty(), frozenset()
        for m in rng.sample(MESSAGES, rng.randrange(len(MESSAGES))):
            msgs, plain = u.send(msgs, m), plain | {m}
            assert u.send(msgs, m) == msgs  # sending again changes nothing, as a set union
        assert u.as_set(msgs) == plain
        assert all(u.has(msgs, m) == (m in plain) for m in MESSAGES)
        assert list(u.sent(msgs, Vote)) == sorted(m for m in plain if type(m) is Vote)
        assert list(u.sent(msgs, Vote, bal=1, val="b")) == sorted(m for m in plain if type(m) is Vote
                                                                  and m.bal == 1 and m.val == "b")
        assert list(u.sent(msgs, Ping, dst=0)) == sorted(m for m in plain if type(m) is Ping and m.dst == 0)


def test_sent_reads_only_the_bits_of_the_messages_that_match():
    """A tuple that fails on any other index stands for the state's bits: only the matching ones are read."""
    u = MessageUniverse(MESSAGES)
    wanted = {u.index[m] for m in MESSAGES if type(m) is Vote and m.voter == 2}

    class OnlyThese(tuple):
        def __getitem__(self, i):
            assert i in wanted, f"read bit {i}"
            return True

    assert len(list(u.sent(OnlyThese(u.empty()), Vote, voter=2))) == len(wanted)


def test_a_message_outside_the_universe_is_an_error_naming_it():
    u = MessageUniverse(MESSAGES)
    with pytest.raises(KeyError, match="Ping\\(src=1, dst=1\\)"):
        u.send(u.empty(), Ping(1, 1))
    with pytest.raises(ValueError, match="two equal messages"):
        MessageUniverse([Ping(0, 1), (0, 1)])


def test_a_space_builds_its_universe_once_per_constants_object():
    @attrs.frozen
    class C:
        n: int = 2

    built = []
    space = MessageSpace(lambda c: built.append(c) or [Ping(s, d) for s in range(c.n) for d in range(c.n)])
    c = C()
    assert space.of(c) is space.of(c) and len(built) == 1
    assert len(space.of(C(3))) == 9 and len(built) == 2


PORTS = ROOT / "bench" / "published"


@pytest.mark.slow
@pytest.mark.parametrize("constants", [{"RM": 1, "Acceptor": 3, "MaxBallot": 1}, {"RM": 2, "Acceptor": 1, "MaxBallot": 1}])
def test_the_paxos_commit_port_held_as_bits_counts_as_the_frozenset_port(constants):
    sets = modelcheck.check(str(PORTS / "paxos_commit.py"), constants, memo=False)
    bits = modelcheck.check(str(PORTS / "paxos_commit_bits.py"), constants)
    own = modelcheck.check(str(PORTS / "paxos_commit_bits.py"), constants, memo=False)
    expected = (sets.distinct_states, sets.states_generated, sets.depth)
    assert (bits.distinct_states, bits.states_generated, bits.depth) == expected
    assert (own.distinct_states, own.states_generated, own.depth) == expected
    assert bits.successors == "memo tables"
    assert bits.engine_report["evaluations"] * 10 < bits.states_generated, "the tables should read single bits"
