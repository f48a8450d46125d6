"""Constant values written as a TLC model writes them: model values, sets, sequences, ranges.

A TLA+ model gives its constants as ``RM = {r1, r2, r3}``, ``Ballot = 0..1``
or ``Majority = {{a1, a2}, {a1, a3}, {a2, a3}}``.  :func:`parse` reads that
notation into the values a Python spec holds: a set is a ``frozenset``, a
sequence ``<<a, b>>`` a ``tuple``, ``m..n`` the frozenset of its ints,
``TRUE``/``FALSE`` bools, ``"text"`` a str, and a bare name (a TLC *model
value*) the str of its name.  A model value is a symbol equal only to
itself; a str is equal only to the same str, so a spec that compares model
values for equality (all TLA+ can do with them) behaves the same.  (TLC also
keeps a model value apart from the string of the same name; a spec that
holds both ``r1`` and ``"r1"`` would see them as one value here.)

:func:`text` writes a value back in the same notation, elements of a set in
one fixed order, so the text is the same in every process; it is what
headers, ``--json`` and a checkpoint's identity show, and ``parse(text(v))
== v``.  :func:`freeze` turns a Python ``set``/``list`` given as a constant
into its frozen form and refuses what a state could not hold.
"""

from __future__ import annotations

import re
from typing import Any

from modelcheck.errors import ConstantError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TOKEN = re.compile(r"\s*(<<|>>|\.\.|[{},]|-?\d+|\"(?:[^\"\\]|\\.)*\"|[A-Za-z_][A-Za-z0-9_]*)")
_KEYWORDS = {"TRUE": True, "FALSE": False}
MAX_TEXT = 100_000
"""The longest constant text parsed (a bound on what a command line or a damaged file can make us build)."""
MAX_RANGE = 1_000_000
"""The most ints a ``m..n`` may hold."""


def parse(text: str, *, name: str = "value") -> Any:
    """The value ``text`` writes in TLC's notation; :class:`ConstantError` naming ``name`` if it is not one."""
    if len(text) > MAX_TEXT:
        raise ConstantError(f"constant {name}: its text is longer than {MAX_TEXT} characters")
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            bad = text[pos:].lstrip()[:1]
            raise ConstantError(f"constant {name}: unexpected {bad!r} at position {len(text) - len(text[pos:].lstrip())} "
                                f"in {text!r}")
        tokens.append(m.group(1))
        pos = m.end()
    reader = _Reader(tokens, text, name)
    value = reader.value()
    if reader.i != len(tokens):
        raise ConstantError(f"constant {name}: unexpected {tokens[reader.i]!r} after a whole value in {text!r}")
    return value


class _Reader:
    """A recursive-descent reader over the tokens of one constant's text."""

    def __init__(self, tokens: list[str], text: str, name: str) -> None:
        self.tokens = tokens
        self.text = text
        self.name = name
        self.i = 0

    def _fail(self, what: str) -> ConstantError:
        got = repr(self.tokens[self.i]) if self.i < len(self.tokens) else "the end"
        return ConstantError(f"constant {self.name}: expected {what}, found {got} in {self.text!r}")

    def _peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _take(self, token: str) -> None:
        if self._peek() != token:
            raise self._fail(repr(token))
        self.i += 1

    def value(self) -> Any:
        tok = self._peek()
        if tok is None:
            raise self._fail("a value")
        if tok == "{":
            self.i += 1
            items = self._items("}")
            _check_set(items, self.name)
            return frozenset(items)
        if tok == "<<":
            self.i += 1
            return tuple(self._items(">>"))
        self.i += 1
        if tok[0] == '"':
            return re.sub(r"\\(.)", r"\1", tok[1:-1])
        if tok in _KEYWORDS:
            return _KEYWORDS[tok]
        if _NAME.match(tok):
            return tok
        if tok[0] in "-0123456789":
            lo = int(tok)
            if self._peek() != "..":
                return lo
            self.i += 1
            end = self._peek()
            if end is None or not re.fullmatch(r"-?\d+", end):
                raise self._fail("an integer after '..'")
            self.i += 1
            hi = int(end)
            if hi - lo + 1 > MAX_RANGE:
                raise ConstantError(f"constant {self.name}: {lo}..{hi} holds more than {MAX_RANGE} ints")
            return frozenset(range(lo, hi + 1))
        self.i -= 1
        raise self._fail("a value")

    def _items(self, close: str) -> list:
        items: list = []
        if self._peek() == close:
            self.i += 1
            return items
        while True:
            items.append(self.value())
            if self._peek() == ",":
                self.i += 1
                continue
            self._take(close)
            return items


def _check_set(items: list, name: str) -> None:
    """Refuse a set holding both a bool and an int: Python takes ``1`` and ``TRUE`` for one value."""
    kinds = {type(x) for x in items}
    if bool in kinds and int in kinds:
        raise ConstantError(f"constant {name}: a set holds both TRUE/FALSE and integers, which Python "
                            "takes for the same values (1 == True); use one kind")


def freeze(value: Any, *, name: str = "value") -> Any:
    """``value`` with every ``set``/``list`` made a ``frozenset``/``tuple``; anything a state cannot hold is refused.

    Accepted: int, bool, str and tuples and frozensets of them, to any depth
    (what :func:`parse` builds); a NamedTuple stays as it is.
    """
    if isinstance(value, bool) or type(value) in (int, str):
        return value
    if isinstance(value, (set, frozenset)):
        items = [freeze(x, name=name) for x in value]
        _check_set(items, name)
        return frozenset(items)
    if isinstance(value, list) or type(value) is tuple:
        return tuple(freeze(x, name=name) for x in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(freeze(x, name=name) for x in value))
    raise ConstantError(f"constant {name}: a {type(value).__name__} is not a constant value "
                        "(give ints, bools, strs, and sets or tuples of them)")


def text(value: Any) -> str:
    """``value`` in TLC's notation, a set's elements in one fixed order (ints by value, then the rest by text)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if _NAME.match(value) and value not in _KEYWORDS:
            return value
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, frozenset):
        ints = sorted(x for x in value if type(x) is int)
        rest = sorted(text(x) for x in value if type(x) is not int)
        return "{" + ", ".join([str(i) for i in ints] + rest) + "}"
    if isinstance(value, tuple):
        return "<<" + ", ".join(text(x) for x in value) + ">>"
    raise TypeError(f"no TLA+ text for a {type(value).__name__}")


def text_or_repr(value: Any) -> str:
    """:func:`text` where ``value`` has one, else its ``repr`` (for error messages)."""
    try:
        return text(value)
    except TypeError:
        return repr(value)
