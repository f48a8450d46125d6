"""Discovery keys: both forms order candidates as one process meets them, with the same limit in every backend."""

from __future__ import annotations

import random

import pytest

from conftest import check
from modelcheck.errors import SpecRuntimeError
from modelcheck.options import CheckOptions
from modelcheck.search import discovery
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec

WIDE = '''
import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class Wide:
    Width: int = constant(1000, "successors of the initial state", minimum=1, maximum=1000000)


def init(c):
    yield 0


@action("Spread")
def spread(c, s):
    return list(range(1, c.Width + 1)) if s == 0 else None


SPEC = Spec(name="wide", title="Wide", constants=Wide, init=init, actions=[spread], invariants=[],
            deadlock_expected=True)
'''

WIDE_AFTER_A_VIOLATION = '''
import attrs

from modelcheck import Spec, action, constant, invariant


@attrs.frozen
class Wide:
    Width: int = constant(1000, "successors of the second initial state", minimum=1, maximum=1000000)


def init(c):
    yield 0
    yield 1


@action("Spread")
def spread(c, s):
    if s == 0:
        return -1
    return list(range(2, c.Width + 2)) if s == 1 else None


@invariant("NonNegative", "no state is negative")
def non_negative(c, s):
    return s >= 0


SPEC = Spec(name="wide", title="Wide", constants=Wide, init=init, actions=[spread], invariants=[non_negative],
            deadlock_expected=True)
'''


def test_path_keys_compare_as_the_sequences_of_indices_they_encode():
    rng = random.Random(7)
    bounds = [1, 127, 128, 16_383, 16_384, 2**21 - 1, 2**21, discovery.MAX_SUCCESSORS, 2**56 - 1]
    numbers = bounds + [rng.randrange(0, 2**k) for k in range(1, 57) for _ in range(20)]
    digits = {n: discovery.digit(n) for n in numbers}
    ordered = sorted(numbers)
    assert sorted(numbers, key=digits.get) == ordered  # one digit compares as its number
    paths = [tuple(rng.choice(numbers) for _ in range(rng.randrange(1, 5))) for _ in range(3000)]
    paths = [p for p in paths if len(p) == 3]  # keys of one level have one length
    encoded = {p: b"".join(digits[n] for n in p) for p in paths}
    assert sorted(paths, key=encoded.get) == sorted(paths)  # a path compares as its sequence
    for p, key in encoded.items():
        parent, index = discovery.split(key)
        assert index == p[-1] and parent == b"".join(digits[n] for n in p[:-1])
        assert discovery.child(parent, index) == key


def test_ranked_keys_pack_and_unpack():
    for rank, index in [(0, 0), (5, discovery.MAX_SUCCESSORS - 1), (discovery.MAX_RANK - 1, 17)]:
        key = discovery.pack(rank, index)
        assert discovery.unpack(key) == (rank, index) and 0 <= key < 2**63
    assert discovery.pack(3, discovery.MAX_SUCCESSORS - 1) < discovery.pack(4, 0)


def test_a_state_may_have_as_many_successors_as_a_key_numbers_and_no_more():
    discovery.check_successor_count(discovery.MAX_SUCCESSORS, "s")
    with pytest.raises(SpecRuntimeError, match="a state has 16,777,217 successors, more than the 16,777,216"):
        discovery.check_successor_count(discovery.MAX_SUCCESSORS + 1, "s")


@pytest.mark.parametrize("workers", [1, 2])
def test_the_successor_limit_is_the_same_in_this_process_and_in_workers(tmp_path, monkeypatch, workers):
    """With the limit lowered to 1,000, a state with 1,001 successors is refused with one line, 1,000 pass."""
    import modelcheck.search.successor_rules as successor_rules

    for module in (discovery, successor_rules):
        monkeypatch.setattr(module, "MAX_SUCCESSORS", 1000)
    path = tmp_path / "wide.py"
    path.write_text(WIDE)
    spec = load_spec(str(path))
    r = check(spec, build_constants(spec, {"Width": 1000}), workers=workers)
    assert (r.result, r.distinct_states) == ("holds", 1001)
    with pytest.raises(SpecRuntimeError, match="a state has 1,001 successors, more than the 1,000"):
        check(spec, build_constants(spec, {"Width": 1001}), workers=workers)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_state_over_the_successor_limit_is_an_error_at_its_parent_after_earlier_parents(
        tmp_path, monkeypatch, workers):
    """Both Python loops refuse the wide parent as its own error, with its trace; a violation met first stands.

    Initial state 0 steps to -1 (violating NonNegative); initial state 1, the
    next parent of the same level, has 1,001 successors.
    """
    import modelcheck.search.successor_rules as successor_rules

    for module in (discovery, successor_rules):
        monkeypatch.setattr(module, "MAX_SUCCESSORS", 1000)
    path = tmp_path / "wide_after.py"
    path.write_text(WIDE_AFTER_A_VIOLATION)
    spec = load_spec(str(path))
    r = check(spec, build_constants(spec, {"Width": 1001}), workers=workers, memo=False)
    assert r.result == "violated"
    (v,) = r.violations
    assert v.name == "NonNegative" and [step.state for step in v.trace] == [0, -1]
    options = CheckOptions(invariants=())
    with pytest.raises(SpecRuntimeError, match="a state has 1,001 successors, more than the 1,000") as caught:
        check(spec, build_constants(spec, {"Width": 1001}), options, workers=workers, memo=False)
    assert [step.state for step in caught.value.trace] == [1]
