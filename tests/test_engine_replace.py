"""modelcheck.spec.replace: the fast _replace helper offered to spec authors equals NamedTuple._replace."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from modelcheck.spec.replace import replacer


class P(NamedTuple):
    a: int
    b: tuple
    c: frozenset


def test_replacer_equals_replace_and_keeps_the_class():
    s = P(1, (2, 3), frozenset({4}))
    assert replacer(P, "b")(s, (9,)) == s._replace(b=(9,))
    two = replacer(P, "c", "a")(s, frozenset(), 7)
    assert two == s._replace(a=7, c=frozenset()) and type(two) is P and two.b is s.b
    assert hash(two) == hash(P(7, (2, 3), frozenset()))


def test_replacer_refuses_unknown_or_repeated_fields():
    for bad in (("x",), ("a", "a"), ()):
        with pytest.raises(ValueError):
            replacer(P, *bad)
