"""What a type-directed compile of the Kafka specs would buy: Kip320 readable against a hand-typed copy.

``.venv/bin/python bench/typed_probe.py [--const Replicas=3] [--rounds 2] [--runs 3]``

An experiment for the performance issue, not a feature: the checker never
runs ``bench/typed_probe/kip320_typed.pyx``.  That file is Kip320's nine
actions and its invariant translated by hand the way a compiler trusting the
specs' type annotations could (tuple indexing by field order, C integers,
inlined helpers).  The probe builds it with Cython, then:

1. checks that on every reachable state the typed actions return exactly the
   readable spec's successors (same values, same types, same order) and the
   typed ``StrongIsr`` the same verdict; nothing is timed otherwise;
2. times the successor function over all reachable states, the readable
   (compiled) spec and the typed copy alternating, best of ``--rounds``;
3. times whole one-process checks, each in a fresh process, alternating
   (``--runs`` pairs), and checks their counts agree.

``--variant`` takes ingredients out of the typed copy, to see which ones pay:
``python-helpers`` turns the inlined helpers back into ordinary functions
called the Python way; ``object-ints`` does that and also leaves every
integer a Python object, so only the typed tuple access remains;
``class-calls`` does that and also builds records by calling their classes,
as the readable spec does, instead of with ``tuple.__new__``.

Compare the two columns of one run only: this machine's speed drifts.
"""

from __future__ import annotations

import argparse
import gc
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import attrs  # noqa: E402

from decompose import reachable  # noqa: E402
from modelcheck.spec.constants import build_constants  # noqa: E402
from modelcheck.build.compiled import CompileError, compile_module  # noqa: E402
from modelcheck.search.driver import LevelDriver  # noqa: E402
from modelcheck.search.local import LocalBackend  # noqa: E402
from modelcheck.errors import ModelCheckError  # noqa: E402
from modelcheck.model.expander import compile_expander, loop_expander  # noqa: E402
from modelcheck.spec.loader import load_spec  # noqa: E402
from modelcheck.model.bound import BoundModel  # noqa: E402
from modelcheck.options import CheckOptions  # noqa: E402

SOURCE = HERE / "typed_probe" / "kip320_typed.pyx"
ACTIONS = frozenset({
    "ControllerElectLeader", "ControllerShrinkIsr", "BecomeLeader", "FencedLeaderExpandIsr", "FencedLeaderShrinkIsr",
    "LeaderWrite", "FencedLeaderIncHighWatermark", "FencedBecomeFollowerAndTruncate", "FencedFollowerFetch",
})
"""Kip320's actions; the typed copy names each function as the readable spec does."""


VARIANTS = ("typed", "python-helpers", "object-ints", "class-calls")


def variant_source(variant: str) -> str:
    """The typed copy's source with the ingredients ``variant`` leaves out taken out (mechanical edits)."""
    if variant == "typed":
        return SOURCE.read_text()
    out = []
    for ln in SOURCE.read_text().split("\n"):
        # A helper becomes an ordinary def; a def's `tuple` argument takes only exact tuples, so a
        # state comes in as an object and is cast inside, as the actions do.
        m = re.match(r"cdef (?:inline )?(?:tuple|bint|object|Py_ssize_t) (\w+)\((c, )?(tuple s|tuple values|tuple leader_log)", ln)
        if m and m.group(1) != "I":
            ln = re.sub(r"^cdef (?:inline )?\w+ ", "def ", ln)
            if m.group(3) == "tuple s":
                out += [ln.replace("tuple s,", "s_arg,"), "    cdef tuple s = <tuple>s_arg"]
                continue
        out.append(ln)
    source = "\n".join(out)
    if variant in ("object-ints", "class-calls"):
        source = source.replace("Py_ssize_t", "object")
    if variant == "class-calls":
        for cls in ("RS", "QS", "KS", "REC"):  # _new(RS, (a, b)) -> RS(*(a, b)): the same tuple, through the class
            source = source.replace(f"_new({cls}, (", f"{cls}(*(")
    return source


def build(workdir: str, variant: str = "typed"):
    """Compile the typed copy (or a ``variant`` of it) into ``workdir`` and import it."""
    source = os.path.join(workdir, "kip320_typed.pyx")
    with open(source, "w") as f:
        f.write(variant_source(variant))
    compile_module("kip320_typed", source, _artefact(workdir), workdir)
    return load(workdir)


def _artefact(workdir: str) -> str:
    return os.path.join(workdir, "kip320_typed" + importlib.machinery.EXTENSION_SUFFIXES[0])


def load(workdir: str):
    """Import the typed copy built by :func:`build`."""
    spec = importlib.util.spec_from_file_location("kip320_typed", _artefact(workdir))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def typed_model(model: BoundModel, typed) -> BoundModel:  # noqa: ANN001 - the compiled module
    """``model`` with its actions and its one invariant replaced by the typed functions."""
    if {a.name for a in model.actions} != ACTIONS or [i.name for i in model.invariants] != ["StrongIsr"]:
        raise ModelCheckError("the typed copy covers Kip320's nine actions and StrongIsr only")
    model.actions = tuple(attrs.evolve(a, fn=getattr(typed, a.fn.__name__)) for a in model.actions)
    model.invariants = tuple(attrs.evolve(i, fn=typed.strong_isr) for i in model.invariants)
    model.expand = loop_expander(model.spec.name, model.actions, model.bindings, model.c,
                                 state_type=model.state_type)
    model.expand_into = compile_expander(model.spec.name, model.actions, model.bindings, model.c,
                                         state_type=model.state_type)
    return model


def whole_run(mode: str, pairs: tuple, workdir: str) -> None:
    """One check in this process (the parent starts a fresh process per run); prints one line.

    Timed from binding the model to the result, as the engine's own clock does.
    """
    spec = load_spec("kip320")
    consts = build_constants(spec, pairs)
    typed = load(workdir) if mode == "typed" else None
    t0 = time.perf_counter()
    model = BoundModel(spec, consts, CheckOptions())
    if typed is not None:
        model = typed_model(model, typed)
    res = LevelDriver(model, LocalBackend(model)).run()
    print(f"{time.perf_counter() - t0:.2f} {res.distinct_states} {res.states_generated} {res.depth} {res.result}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--const", action="append", default=[], help="NAME=VALUE (repeatable); default Replicas=3")
    ap.add_argument("--rounds", type=int, default=2, help="successor-function timings, best of this many")
    ap.add_argument("--runs", type=int, default=3, help="pairs of whole checks")
    ap.add_argument("--variant", choices=VARIANTS, default="typed", help="which ingredients to keep (see above)")
    ap.add_argument("--whole", choices=["readable", "typed"], help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    pairs = tuple(tuple(x.split("=", 1)) for x in (args.const or ["Replicas=3"]))
    if any(len(p) != 2 for p in pairs):
        raise ModelCheckError(f"--const expects NAME=VALUE, got {args.const}")
    if args.whole:
        whole_run(args.whole, pairs, args.workdir)
        return
    with tempfile.TemporaryDirectory(prefix="modelcheck-typed-probe-") as workdir:
        typed = build(workdir, args.variant)
        spec = load_spec("kip320")
        consts = build_constants(spec, pairs)
        readable = BoundModel(spec, consts, CheckOptions())
        fast = typed_model(BoundModel(spec, consts, CheckOptions()), typed)
        gc.disable()
        states = reachable(readable)[0]
        for s in states:
            a1, t1, a2, t2 = [], [], [], []
            readable.expand_into(s, a1, t1)
            fast.expand_into(s, a2, t2)
            if a1 != a2 or t1 != t2 or any(type(x) is not type(y) for x, y in zip(t1, t2)):
                sys.exit(f"error: the typed actions differ from the readable ones on {s!r}")
            if bool(readable.failed_invariants(s)) != bool(fast.failed_invariants(s)):
                sys.exit(f"error: the typed StrongIsr differs from the readable one on {s!r}")
        print(f"kip320 {' '.join('='.join(p) for p in pairs)}, {args.variant}: identical successors and StrongIsr verdicts "
              f"on {len(states):,} states")

        def timed(model: BoundModel) -> float:
            t0 = time.perf_counter()
            for s in states:
                model.expand_into(s, [], [])
            return time.perf_counter() - t0

        best = {"readable": float("inf"), "typed": float("inf")}
        for _ in range(args.rounds):
            best["readable"] = min(best["readable"], timed(readable))
            best["typed"] = min(best["typed"], timed(fast))
        print(f"successor function: readable {best['readable']:.2f} s, typed {best['typed']:.2f} s "
              f"(ratio {best['typed'] / best['readable']:.2f}, best of {args.rounds})")
        del states
        gc.enable()
        base = [sys.executable, __file__, "--workdir", workdir] + [f"--const={'='.join(p)}" for p in pairs]
        for r in range(args.runs):
            line = {}
            for mode in ("readable", "typed"):
                out = subprocess.run(base + ["--whole", mode], capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"error: the {mode} run failed: {out.stderr.strip().splitlines()[-1:]}")
                line[mode] = out.stdout.split()
            if line["readable"][1:] != line["typed"][1:]:
                sys.exit(f"error: the runs disagree: {line}")
            secs, distinct, generated, depth, result = line["readable"]
            print(f"whole check {r + 1}: readable {secs} s, typed {line['typed'][0]} s "
                  f"({int(distinct):,} distinct, {int(generated):,} generated, depth {depth}, {result})")


if __name__ == "__main__":
    try:
        main()
    except (ModelCheckError, CompileError) as exc:
        sys.exit(f"error: {exc}")
