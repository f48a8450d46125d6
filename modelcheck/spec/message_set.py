"""Sets of messages held as one bit per possible message, so that an action reads only the messages it looks at.

Message-passing specs keep the set of every message sent (TLA+'s ``msgs``)
and most actions read it.  Held as a ``frozenset``, the set is one part of
the state: an action that looks for one message, or sends one, reads the
whole set, and since nearly every state has a set of its own, the memo
tables meet a new input at almost every state and give way to the spec's own
code (PaxosCommit: about the speed of TLC).  Held as a tuple of booleans over
a fixed *universe* of the messages the model can send, the tables split the
tuple into one part per message, and each action's decision tree reads only
the bits it looks at; a send writes one bit (PaxosCommit: three times TLC).

:class:`MessageSpace` declares the universe as a function of the constants;
``space.of(c)`` is the :class:`MessageUniverse` for the constants ``c`` (built
once per constants object), whose methods are the set operations an action
needs, each reading only what its answer depends on:

* ``u.empty()`` is ``{}``; ``u.send(msgs, m)`` is ``msgs \\cup {m}``;
* ``u.has(msgs, m)`` is ``m \\in msgs`` (one bit);
* ``u.sent(msgs, Kind, field=value, ...)`` is the messages of record class
  ``Kind`` in ``msgs`` whose fields have those values, in sorted order (the
  bits of exactly those messages): ``\\E m \\in msgs : m.type = "phase1a"``
  becomes ``for m in u.sent(msgs, Phase1a)``;
* ``u.as_set(msgs)`` is the frozenset, for views and invariants that need it.

Sending a message outside the universe raises ``KeyError`` naming it: the
universe must hold every message the model can send (a wrong universe
stops the check, it cannot change its answer).  The universe's messages are
grouped by class, each group in sorted order, so ``sent`` yields them in the
order ``sorted()`` gives a frozenset's messages of that class.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Iterable, Iterator

_PLAIN = (int, str, bool)


class MessageUniverse:
    """Every message a model can send, each with its bit's position."""

    def __init__(self, messages: Iterable[Any]) -> None:
        groups: dict[type, list] = {}
        for m in messages:
            groups.setdefault(type(m), []).append(m)
        ordered: list = []
        self._kinds: dict[type, tuple[int, ...]] = {}
        for kind, ms in groups.items():
            start = len(ordered)
            ordered.extend(sorted(set(ms)))
            self._kinds[kind] = tuple(range(start, len(ordered)))
        self.messages: tuple = tuple(ordered)
        self.index: dict[Any, int] = {m: i for i, m in enumerate(ordered)}
        self._matching: dict[tuple, tuple[int, ...]] = {}
        """(kind, fields) -> the positions of its messages, for field values that are plain ints, strs, bools."""
        if len(self.index) != len(ordered):
            raise ValueError("a message universe holds two equal messages of different classes")
        self._empty = (False,) * len(ordered)

    def __len__(self) -> int:
        return len(self.messages)

    def empty(self) -> tuple[bool, ...]:
        """The empty set."""
        return self._empty

    def has(self, msgs: tuple, m: Any) -> bool:
        """``m \\in msgs``: reads ``m``'s bit alone."""
        return msgs[self._position(m)]

    def send(self, msgs: tuple, m: Any) -> tuple:
        """``msgs \\cup {m}``: every other bit is ``msgs``' own."""
        i = self._position(m)
        out = list(msgs)
        out[i] = True
        return tuple(out)

    def sent(self, msgs: tuple, kind: type, **fields: Any) -> Iterator[Any]:
        """The messages of class ``kind`` in ``msgs`` whose named fields have the given values, in sorted order.

        The fields are compared on the universe's own messages first, so only
        the bits of the messages that match are read.
        """
        if not fields:
            positions = self._kinds.get(kind, ())
        elif all(type(v) in _PLAIN for v in fields.values()):
            key = (kind, tuple(sorted(fields.items())))
            positions = self._matching.get(key)
            if positions is None:
                positions = self._matching[key] = self._positions(kind, fields)
        else:  # a value being traced by the memo tables: compared where it is read, never kept
            positions = self._positions(kind, fields)
        messages = self.messages
        for i in positions:
            if msgs[i]:
                yield messages[i]

    def _positions(self, kind: type, fields: dict[str, Any]) -> tuple[int, ...]:
        return tuple(i for i in self._kinds.get(kind, ())
                     if all(getattr(self.messages[i], name) == value for name, value in fields.items()))

    def as_set(self, msgs: tuple) -> frozenset:
        """The set ``msgs`` holds, as a frozenset of messages."""
        return frozenset(m for m, bit in zip(self.messages, msgs) if bit)

    def _position(self, m: Any) -> int:
        i = self.index.get(m)
        if i is None:
            raise KeyError(f"message {m!r} is not in the message universe: its declaration must list every "
                           "message the model can send")
        return i


class MessageSpace:
    """A message universe declared as a function of the constants (``build(c)`` lists the messages).

    ``of(c)`` builds it once per constants object and keeps it as long as
    that object lives: an action calls ``of(c)`` at every evaluation, and the
    universe depends on nothing else.
    """

    def __init__(self, build: Callable[[Any], Iterable[Any]]) -> None:
        self.build = build
        self._built: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._last: tuple[Any, MessageUniverse] | None = None
        """The constants last asked for and their universe: a check asks for one object's at every call."""

    def of(self, c: Any) -> MessageUniverse:
        """The universe for constants ``c``."""
        last = self._last
        if last is not None and last[0] is c:
            return last[1]
        try:
            u = self._built.get(c)
        except TypeError:  # constants that cannot be weakly referenced: built each time (correct, slower)
            return MessageUniverse(self.build(c))
        if u is None:
            u = MessageUniverse(self.build(c))
            self._built[c] = u
        self._last = (c, u)
        return u
