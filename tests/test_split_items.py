"""A symmetry signature split into the items of the tuple it returns (``modelcheck.memo.split.split_items``).

Each item function must give exactly the item the whole signature gives, on
every state, and a signature whose items could see each other's work (a call
of the spec's own code, ``:=``, ``key=``, a builtin's name shadowed) or whose
body is not reads of parts then one tuple display is not split.  The C
loop's limit on items is the split's.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import textwrap

import pytest

import modelcheck
from modelcheck.memo.orbits import KeyOrder
from modelcheck.memo.split import MAX_ITEMS, split_items
from conftest import ROOT, needs_memo_tables

SOURCE = '''
from typing import NamedTuple

class S(NamedTuple):
    level: tuple
    isr: frozenset
    leader: int

NONE = -1

def facts(c, s, r):
    """Reads of parts, then a tuple display."""
    lv = s.level
    return (lv[r], s.leader == r, s.leader == NONE, len(s.isr), r in s.isr, min(s.isr) if s.isr else 0)

def helper(s, r):
    return r

def calls_the_spec(c, s, r):
    return (s.level[r], helper(s, r))

def walrus(c, s, r):
    return ((x := s.level[r]), x + 1)

def keyword(c, s, r):
    return (s.level[r], max(s.isr, key=abs, default=0))

def prefix_calls(c, s, r):
    n = len(s.isr)
    return (s.level[r], n)

def not_a_display(c, s, r):
    t = (s.level[r], 1)
    return t

def early_return(c, s, r):
    if r in s.isr:
        return (0, 0)
    return (s.level[r], 1)

def starred(c, s, r):
    return (s.level[r], *s.level)

def one_item(c, s, r):
    return (s.level[r],)

def shadowed(c, s, r, len=sorted):
    return (s.level[r], len(s.isr))

def comprehension_shadow(c, s, r):
    return (s.level[r], [len(x) for len in [abs] for x in [r]])

def many(c, s, r):
    return (''' + ", ".join(["r"] * (MAX_ITEMS + 1)) + ''')

def make(k):
    def closure(c, s, r):
        return (s.level[r], k)
    return closure
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    path = tmp_path_factory.mktemp("items") / "items_sample.py"
    path.write_text(textwrap.dedent(SOURCE))
    spec = importlib.util.spec_from_file_location("items_sample", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["items_sample"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["items_sample"]


def _states(mod):
    return [mod.S(level, isr, leader) for level in ((0, 1, 2), (2, 2, 0)) for isr in (frozenset(), frozenset({0, 2}),
                                                                                         frozenset({1}))
            for leader in (-1, 0, 1)]


def test_each_item_function_gives_that_item_of_the_signature(mod):
    items = split_items(mod.facts)
    assert items is not None and len(items) == 6
    for s in _states(mod):
        for r in range(3):
            assert tuple(f(None, s, r) for f in items) == mod.facts(None, s, r)


@pytest.mark.parametrize("name", ["calls_the_spec", "walrus", "keyword", "prefix_calls", "not_a_display",
                                  "early_return", "starred", "one_item", "shadowed", "comprehension_shadow",
                                  "many"])
def test_what_is_not_split(mod, name):
    assert split_items(getattr(mod, name)) is None


def test_a_closure_is_not_split(mod):
    assert split_items(mod.make(3)) is None


def test_keys_compared_item_by_item_rank_as_tuples(mod):
    """Ranks per item, compared in turn, order the values as sorting the whole keys does."""
    order = KeyOrder(6)
    items = split_items(mod.facts)
    keys = [mod.facts(None, s, r) for s in _states(mod) for r in range(3)]
    ids = [[order.id_of(f(None, s, r), i) for i, f in enumerate(items)] for s in _states(mod) for r in range(3)]
    assert all(all(row) for row in ids)
    ranks = [tuple(int(order.rank[x]) for x in row) for row in ids]  # read once every key is in
    by_ranks = sorted(range(len(keys)), key=lambda j: (ranks[j], j))
    assert by_ranks == sorted(range(len(keys)), key=keys.__getitem__)
    for a in range(len(keys)):
        for b in range(len(keys)):
            assert (ranks[a] == ranks[b]) == (keys[a] == keys[b])


def test_the_c_loop_takes_as_many_items_as_the_split_gives():
    kernel = (ROOT / "modelcheck" / "memo" / "kernel.pxd").read_text()
    assert int(re.search(r"#define MC_MAX_ITEMS (\d+)", kernel).group(1)) == MAX_ITEMS


@needs_memo_tables
def test_the_kafka_signature_is_learnt_an_item_at_a_time():
    r = modelcheck.check("kip320", {"MaxLeaderEpoch": 1}, symmetry=True)
    own = modelcheck.check("kip320", {"MaxLeaderEpoch": 1}, symmetry=True, memo=False)
    orbits = r.engine_report["orbits"]
    assert orbits["trees"] and orbits["signature_items"] == 9, orbits
    assert (r.distinct_states, r.states_generated, r.depth) == (own.distinct_states, own.states_generated, own.depth)
