"""Signature keys ``0.0`` and ``-0.0``: equal, so one tie, though they are not alike.

The key is a process's balance times its sign (``-1.0`` or ``1.0``): a
process with nothing and a negative sign has key ``-0.0``, one with a
positive sign ``0.0``, and the two must be tried in both orders.  Two processes.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "holds"
CONSTANTS = {"N": 2, "Top": 3}


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)
    Top: int = constant(2, "the largest balance", minimum=1, maximum=3)


class State(NamedTuple):
    balance: tuple
    sign: tuple
    """Per process: -1.0 or 1.0."""
    visits: tuple
    """Per process: how often its sign was flipped (0 or 1); the key ignores it."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (1.0,) * c.N, (0,) * c.N)]


@action("Deposit", p=P)
def deposit(c, s, p):
    if s.balance[p] >= c.Top:
        return None
    return s._replace(balance=at(s.balance, p, s.balance[p] + 1))


@action("Withdraw", p=P)
def withdraw(c, s, p):
    if s.balance[p] == 0:
        return None
    return s._replace(balance=at(s.balance, p, s.balance[p] - 1))


@action("Flip", p=P)
def flip(c, s, p):
    if s.visits[p] >= 1:
        return None
    return s._replace(sign=at(s.sign, p, -s.sign[p]), visits=at(s.visits, p, 1))


@invariant("Bounded", "Every balance is within its bounds.")
def bounded(c, s):
    return all(0 <= b <= c.Top for b in s.balance)


def permute(c, s, perm):
    balance, sign, visits = list(s.balance), list(s.sign), list(s.visits)
    for i, j in enumerate(perm):
        balance[j], sign[j], visits[j] = s.balance[i], s.sign[i], s.visits[i]
    return State(tuple(balance), tuple(sign), tuple(visits))


def signature(c, s, p):
    return s.balance[p] * s.sign[p]


SPEC = Spec(name="zero-sign-keys", title="keys 0.0 and -0.0", constants=Config, init=init,
            actions=[deposit, withdraw, flip], invariants=[bounded],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
