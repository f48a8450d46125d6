"""``--symmetry`` on the default search (the memo tables, orbits from the orbit trees) against the spec's own code.

Each module in ``tests/memo_corpus_symmetry/`` is a small spec written as a
user would write one, with a ``Symmetry(size, permute, signature)`` (or no
signature, or ``Symmetry.over``) whose ordinary Python a fast path could get
wrong: signature keys equal but not alike (``True``/``1.0``/``1``,
``0.0``/``-0.0``), ints and floats near 2**53, ints whose ``hash()``
collides, NaN, ``None`` and keys of two kinds (which Python cannot sort),
frozensets (a partial order), lists, NamedTuples, a class with its own
``__eq__``/``__lt__``; signatures that read many parts, the constants, the
order a frozenset iterates in, or another value (not carried along);
``permute`` functions that change the types or the shape of the state,
return ``None`` or a list, raise deep in the search, forget a part, or read
a frozenset's order.  A module's docstring says what it baits, ``EXPECTED``
(``"holds"``, ``"violated"`` or ``"error"``) what its own code gives, and
``CONSTANTS`` its constants when not the defaults.

For every module this checks that the default run and ``memo=False``, both
with ``symmetry=True`` (stopping at the first violation), agree on the
verdict, distinct states, states generated, depth, the violated invariant
and the length of its trace; for ``"error"``, that both raise the same
exception with the same first line and the same trace length.  A default
run that did not use the tables, or used them without the orbit trees,
must say why (a note, or ``engine_report["orbits"]["why"]``).

The oracle is a plain breadth-first search over full states that
fingerprints each state by its orbit as the spec's symmetry defines it,
written out here: the values sorted by signature key, every ordering within
ties tried, the smallest fingerprint of the renamed copies kept (the state
itself for the identity); without a signature, the smallest over all n!
renamings.  It expands the first state met of each orbit, checks the
invariants on each new one and stops at the first violation, so its counts
are comparable with the runs' whatever the verdict.  A module whose own
orbits depend on which of two equal states is met first (a frozenset's
iteration order) says so in ``NO_ORACLE``, and is not compared with it.
"""

from __future__ import annotations

import itertools
import sys
from collections import deque
from pathlib import Path

import pytest

import modelcheck
from modelcheck.model.fingerprint import fingerprint
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec, user_module_name
from conftest import INTERPRETED
from corpus_support import check_path_note, expect_disagreement, on_tables, path_note, summary

CORPUS = Path(__file__).resolve().parent / "memo_corpus_symmetry"
SPECS = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))
SEED = 1
"""The default run's ``memo_seed``: which parents the spec's own code expands again to check the tables."""

DISAGREEMENTS: dict[str, str] = {}
"""Modules on which the default run answers otherwise than the spec's own code: kept, and expected to fail."""


def _path_note(r) -> str:
    if on_tables(r):
        orbits = r.engine_report.get("orbits") or {}
        return "memo tables, " + ("orbit trees" if orbits.get("trees") else f"no orbit trees: {orbits.get('why')}")
    return path_note(r)


def _check_path_note(r) -> None:
    """A default run off the tables says why in one note; one on the tables without the orbit trees says why."""
    if INTERPRETED:
        assert not on_tables(r)
    check_path_note(r)
    if INTERPRETED or not on_tables(r):
        return
    orbits = r.engine_report.get("orbits")
    assert orbits is not None, f"a symmetric run on the tables reports no orbits: {r.engine_report}"
    if not orbits["trees"]:
        assert isinstance(orbits["why"], str) and orbits["why"].strip(), (
            f"the orbit trees stood aside without saying why: {orbits}")
    else:
        assert orbits["why"] is None, orbits


class OracleError(Exception):
    """The spec's own code fails (an action, an invariant, its signature or permute, or a copy's fingerprint)."""


def _orbit_fp(sym, c, s) -> int:
    """The fingerprint of ``s``'s orbit as the spec's symmetry defines it (see the module's docstring)."""
    n = sym.size(c)
    identity = tuple(range(n))

    def copy_fp(renaming: tuple) -> int:
        return fingerprint(s if renaming == identity else sym.permute(c, s, renaming))

    if sym.signature is None:
        return min(copy_fp(p) for p in itertools.permutations(identity))
    keys = [sym.signature(c, s, i) for i in identity]
    order = sorted(identity, key=keys.__getitem__)
    ties: list[list[int]] = []
    for i in order:
        if ties and keys[ties[-1][0]] == keys[i]:
            ties[-1].append(i)
        else:
            ties.append([i])
    best = None
    for combo in itertools.product(*(itertools.permutations(t) for t in ties)):
        renaming = [0] * n
        for position, value in enumerate(v for part in combo for v in part):
            renaming[value] = position  # the value at this position of the sorted order becomes this position
        h = copy_fp(tuple(renaming))
        best = h if best is None or h < best else best
    return best


def naive_orbits(spec, c) -> dict:
    """Breadth-first over full states, one state per orbit: verdict, counts, depth, first violation."""
    sym = spec.symmetry
    invariants = [spec.invariant(name) for name in spec.default_invariants]
    generated = 0
    depth: dict[int, int] = {}
    queue: deque = deque()

    def orbit(s) -> int:
        try:
            return _orbit_fp(sym, c, s)
        except Exception as err:
            raise OracleError(f"symmetry raised {type(err).__name__}: {err}") from err

    def found(s, d: int) -> dict | None:
        """Note a new state; the verdict if it breaks an invariant."""
        h = orbit(s)
        if h in depth:
            return None
        depth[h] = d
        queue.append((s, d))
        for inv in invariants:
            try:
                ok = inv.fn(c, s)
            except Exception as err:
                raise OracleError(f"invariant {inv.name} raised {type(err).__name__}") from err
            if ok is not True:
                return {"result": "violated", "violated": inv.name, "trace": d}
        return None

    def verdict(v: dict | None) -> dict:
        v = v or {"result": "holds", "violated": None, "trace": 0}
        return {**v, "distinct": len(depth), "generated": generated, "depth": max(depth.values(), default=0)}

    first = None
    for s in spec.init(c):
        generated += 1
        v = found(s, 1)
        first = first or v
    if first:
        return verdict(first)
    while queue:
        s, d = queue.popleft()
        for act in spec.actions:
            for binding in act.bindings(c):
                try:
                    r = act.fn(c, s, *binding)
                except Exception as err:
                    raise OracleError(f"action {act.name} raised {type(err).__name__}") from err
                for t in [] if r is None else (r if isinstance(r, list) else [r]):
                    generated += 1
                    v = found(t, d + 1)
                    first = first or v
        if first:  # a parent's successors are all counted before the search stops
            return verdict(first)
    return verdict(None)


def _run(path, consts, **options):
    return modelcheck.check(path, consts, symmetry=True, continue_after_violation=False, **options)


@pytest.fixture(params=SPECS, ids=[p.stem for p in SPECS])
def corpus(request):
    expect_disagreement(request, DISAGREEMENTS)
    path = str(request.param)
    spec = load_spec(path)
    module = sys.modules[user_module_name(path)]
    return path, spec, module, dict(getattr(module, "CONSTANTS", {}))


def test_symmetry_gives_the_specs_own_answer(corpus, record_property):
    """Verdict, counts, depth, invariant and trace: default run = ``memo=False`` (= the naive oracle)."""
    path, spec, module, consts = corpus
    c = build_constants(spec, consts)
    if module.EXPECTED == "error":
        return _check_both_fail(path, spec, module, c, consts, record_property)
    plain = _run(path, consts, memo=False)
    default = _run(path, consts, memo_seed=SEED)
    record_property("default_path", _path_note(default))
    found = {"default": summary(default), "memo=False": summary(plain)}
    assert found["default"] == found["memo=False"], f"{found}; default: {_path_note(default)}"
    assert plain.result == module.EXPECTED, f"the spec gives {plain.result}, its module says {module.EXPECTED}"
    _check_path_note(default)
    if getattr(module, "NO_ORACLE", None) is None:
        naive = naive_orbits(spec, c)
        assert naive == {k: found["memo=False"][k] for k in naive}, (
            f"memo=False: {found['memo=False']}, oracle: {naive}")


def _check_both_fail(path, spec, module, c, consts, record_property) -> None:
    """A spec whose own code fails must fail the same way on the default path (and in the oracle)."""
    if getattr(module, "NO_ORACLE", None) is None:
        with pytest.raises(OracleError):
            naive_orbits(spec, c)
    try:
        plain = _run(path, consts, memo=False)
    except Exception as err:  # noqa: BLE001 - whatever the spec's own code raises
        own = (type(err).__name__, str(err).splitlines()[0], len(getattr(err, "trace", None) or []))
    else:
        pytest.fail(f"the module says its own code fails, but memo=False answers {summary(plain)}")
    try:
        default = _run(path, consts, memo_seed=SEED)
    except Exception as err:  # noqa: BLE001
        record_property("default_path", "error, as the spec's own code")
        assert (type(err).__name__, str(err).splitlines()[0], len(getattr(err, "trace", None) or [])) == own
        return
    record_property("default_path", _path_note(default))
    pytest.fail(f"memo=False stops with {own}, the default run answers {summary(default)} ({_path_note(default)})")
