"""Broken user specs: each stops the check with exit 2 and one line naming the function, never a wrong verdict.

Every spec in tests/models/broken/ is a mistake a spec author makes: an
invariant returning a generator, None or an int, an action returning a bool,
a tuple that is not a state or a list of mixed types, ``init`` returning one
state, a constraint or property returning something else than a bool, spec
code raising (``SystemExit`` and ``KeyboardInterrupt`` included).  The
expected lines and traces are worked out from the specs' source: which state
first reaches the mistake in breadth-first order, and where the function is
defined (the line numbers are looked up in the file, not pasted).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import attrs
import pytest

from conftest import MODELS, ROOT, check, run_cli
from modelcheck.errors import SpecRuntimeError
from modelcheck.options import CheckOptions
from modelcheck.spec.loader import load_spec

BROKEN = MODELS / "broken"
BUILDS_ON = {"MODELCHECK_USER_BUILD": ""}


def rel(name: str) -> str:
    return os.path.relpath(BROKEN / name, ROOT)


def line_of(name: str, text: str, whole: bool = False) -> int:
    """The 1-based line of ``name`` holding ``text`` (the first one; ``whole``: the line is ``text``, indented)."""
    for number, line in enumerate((BROKEN / name).read_text().splitlines(), 1):
        if (line.strip() == text) if whole else (text in line):
            return number
    raise AssertionError(f"{text!r} not in {name}")


def defined_at(name: str, fn: str) -> str:
    """``path:line`` of ``def fn``."""
    return f"{rel(name)}:{line_of(name, f'def {fn}(')}"


# (spec file, the one line, the trace's states as the CLI prints them)
CASES = [
    ("invariant_generator.py",
     f"invariant HwWithinLog returned a generator, not a bool: wrap it in all(...) or any(...) "
     f"(defined at {defined_at('invariant_generator.py', 'hw_within_log')})",
     ["<Initial predicate> S(logs=((), ()), hws=(1, 1))"]),
    ("invariant_none.py",
     f"invariant Bounded returned None, not a bool: is a return statement missing? "
     f"(defined at {defined_at('invariant_none.py', 'bounded')})",
     ["<Initial predicate> S(x=0)"]),
    ("invariant_int.py",
     f"invariant LogNotEmpty returned 0 (an int), not a bool: write the comparison, e.g. x != 0 "
     f"(defined at {defined_at('invariant_int.py', 'log_not_empty')})",
     ["<Initial predicate> S(log=())"]),
    # Inc(which=c1) is first disabled on counts (2, 0), reached by Inc(which=c1) twice.
    ("action_returns_bool.py",
     "action Inc(which=c1) returned False, not a state of type S: return None when the action is disabled "
     f"('guard and state' gives False when the guard fails) (defined at {defined_at('action_returns_bool.py', 'inc')})",
     ["<Initial predicate> S(counts=(0, 0))", "<Inc(which=c1)> S(counts=(1, 0))", "<Inc(which=c1)> S(counts=(2, 0))"]),
    ("action_returns_tuple.py",
     "action IncY returned the tuple (1, 1), not a state of type S: return None (disabled), a state of type S, "
     f"or a list of them (defined at {defined_at('action_returns_tuple.py', 'inc_y')})",
     ["<Initial predicate> S(x=0, y=0)", "<IncX> S(x=1, y=0)"]),
    ("action_returns_mixed_list.py",
     "action Step returned a list mixing S and int: every item must be a state of type S "
     f"(defined at {defined_at('action_returns_mixed_list.py', 'step')})",
     ["<Initial predicate> S(x=0)", "<Step> S(x=1)"]),
    ("init_single_state.py",
     "init returned a single state of type S, not an iterable of states: return [S(...)] "
     f"(defined at {defined_at('init_single_state.py', 'init')})",
     []),
    # The constraint returns None from x = 6 on (N = 5): the trace ends at that state.
    ("constraint_returns_none.py",
     "state_constraint returned None, not a bool: is a return statement missing? "
     f"(defined at {defined_at('constraint_returns_none.py', 'small')})",
     ["<Initial predicate> S(x=0)"] + [f"<Inc> S(x={x})" for x in range(1, 7)]),
    ("sometimes_returns_list.py",
     "property ReachesTwo returned the list [], not a bool "
     f"(defined at {defined_at('sometimes_returns_list.py', 'reaches_two')})",
     ["<Initial predicate> S(xs=())"]),
    ("action_constraint_returns_int.py",
     "action_constraint returned 1 (an int), not a bool: write the comparison, e.g. x != 0 "
     f"(defined at {defined_at('action_constraint_returns_int.py', 'grows')})",
     ["<Initial predicate> S(x=0)", "<Inc> S(x=1)"]),
    ("raises_in_action.py",
     f"action Step raised KeyError: 'missing' (at {rel('raises_in_action.py')}:"
     f"{line_of('raises_in_action.py', 'return {}[')})",
     ["<Initial predicate> 0", "<Step> 1", "<Step> 2"]),
    # The invariant divides by 3 - s: it raises on the state 3, which the trace now ends with.
    ("raises_in_invariant.py",
     "invariant Small raised ZeroDivisionError: integer division or modulo by zero "
     f"(at {rel('raises_in_invariant.py')}:{line_of('raises_in_invariant.py', '10 // (3 - s)')})",
     ["<Initial predicate> 0", "<Step> 1", "<Step> 2", "<Step> 3"]),
]

SPEC_NAMES = {
    "invariant_generator.py": "invariant-generator", "invariant_none.py": "invariant-none",
    "invariant_int.py": "invariant-int", "action_returns_bool.py": "action-bool",
    "action_returns_tuple.py": "action-tuple", "action_returns_mixed_list.py": "action-mixed-list",
    "init_single_state.py": "init-single", "constraint_returns_none.py": "constraint-none",
    "sometimes_returns_list.py": "sometimes-list", "action_constraint_returns_int.py": "action-constraint-int",
    "raises_in_action.py": "raises", "raises_in_invariant.py": "raises-inv",
}


def expected_stderr(name: str, line: str, trace: list[str]) -> list[str]:
    out = [f"error: spec {SPEC_NAMES[name]}: {line}"]
    if trace:
        out.append(f"The behavior up to the failing state ({len(trace)} state{'s' if len(trace) > 1 else ''}):")
        out += [f"  State {i}: {step}" for i, step in enumerate(trace, 1)]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2", "2 --no-memo"], ids=["one", "threads", "processes"])
@pytest.mark.parametrize("name,line,trace", CASES, ids=[c[0][:-3] for c in CASES])
def test_a_broken_spec_gives_one_line_naming_the_function_and_exit_2(name, line, trace, workers):
    p = run_cli("check", str(BROKEN / name), "-q", "--workers", *workers.split())
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.splitlines() == expected_stderr(name, line, trace)
    assert "No error has been found" not in p.stdout


@pytest.fixture(scope="module")
def compiled_broken():
    """The broken specs compiled (``modelcheck compile FILE``, cached by digest in the build directory)."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: user specs stay interpreted")
    names = sorted({c[0] for c in CASES} | {"raises_base_exception.py"})
    p = run_cli("compile", *(str(BROKEN / n) for n in names), env=BUILDS_ON)
    assert p.returncode == 0, p.stderr
    return BUILDS_ON


@pytest.mark.slow
@pytest.mark.parametrize("name,line,trace", CASES, ids=[c[0][:-3] for c in CASES])
def test_a_compiled_broken_spec_gives_the_same_line(name, line, trace, compiled_broken):
    """Compiled, spec functions are Cython functions called from C: the same errors, lines and traces."""
    p = run_cli("check", str(BROKEN / name), "-q", env=compiled_broken)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "; spec compiled" in p.stdout
    assert p.stderr.splitlines() == expected_stderr(name, line, trace)


@pytest.mark.slow
def test_debug_after_the_command_shows_the_traceback_and_still_exits_2():
    for args in (("--debug", "check", str(BROKEN / "invariant_generator.py"), "-q"),
                 ("check", str(BROKEN / "invariant_generator.py"), "-q", "--debug")):
        p = run_cli(*args)
        assert p.returncode == 2, (args, p.stderr)
        assert "Traceback (most recent call last)" in p.stderr
        name, line, trace = CASES[0]
        assert p.stderr.splitlines()[-3:] == expected_stderr(name, line, trace)


WHERE = ["init", "action", "invariant", "property", "state-constraint", "action-constraint"]
KINDS = {  # Kind -> what the line says was raised
    "exit0": "SystemExit: 0", "exit3": "SystemExit: 3", "keyboard-interrupt": "KeyboardInterrupt",
    "generator-exit": "GeneratorExit: closed", "base-exception": "Custom: the spec's own",
}
FUNCTION = {"init": "init", "action": "action Inc", "invariant": "invariant Fine", "property": "property Reaches",
            "state-constraint": "state_constraint", "action-constraint": "action_constraint"}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("where", WHERE)
def test_the_spec_cannot_steer_the_exit_status(where, kind):
    """SystemExit, KeyboardInterrupt, GeneratorExit and any BaseException from spec code: exit 2, one line."""
    p = run_cli("check", str(BROKEN / "raises_base_exception.py"), "--const", f"Where={where}",
                "--const", f"Kind={kind}", "-q")
    _assert_base_exception(p, where, kind)


@pytest.mark.slow
@pytest.mark.parametrize("where", WHERE)
def test_a_compiled_spec_cannot_steer_the_exit_status_either(where, compiled_broken):
    p = run_cli("check", str(BROKEN / "raises_base_exception.py"), "--const", f"Where={where}",
                "--const", "Kind=exit3", "-q", env=compiled_broken)
    assert "; spec compiled" in p.stdout
    _assert_base_exception(p, where, "exit3")


def _assert_base_exception(p, where: str, kind: str) -> None:
    assert p.returncode == 2, (p.stdout, p.stderr)
    name = "raises_base_exception.py"
    raising = {"exit0": "sys.exit(0)", "exit3": "sys.exit(3)", "keyboard-interrupt": "raise KeyboardInterrupt",
               "generator-exit": 'raise GeneratorExit("closed")', "base-exception": 'raise Custom("the spec\'s own")'}[kind]
    lines = p.stderr.splitlines()
    assert lines[0] == (f"error: spec base-exceptions: {FUNCTION[where]} raised {KINDS[kind]} "
                        f"(at {rel(name)}:{line_of(name, raising, whole=True)})")
    # init raises before any state; every other function raises on the state x == 1, reached by Inc.
    expected = [] if where == "init" else [
        "The behavior up to the failing state (2 states):", "  State 1: <Initial predicate> S(x=0)",
        "  State 2: <Inc> S(x=1)"]
    assert lines[1:] == expected
    assert "Traceback" not in p.stderr


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2", "2 --no-memo"], ids=["one", "threads", "processes"])
def test_sys_exit_in_an_action_is_a_spec_error_with_workers(workers):
    p = run_cli("check", str(BROKEN / "raises_base_exception.py"), "--const", "Kind=exit3", "-q",
                "--workers", *workers.split())
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("error: spec base-exceptions: action Inc raised SystemExit: 3 (at ")


def test_sys_exit_at_import_is_a_spec_error():
    name = "exits_at_import.py"
    p = run_cli("check", str(BROKEN / name))
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines() == [
        f"error: spec module {rel(name)} failed to import: SystemExit: 3 (at {rel(name)}:{line_of(name, 'sys.exit(3)', whole=True)})"]


def test_a_real_ctrl_c_inside_spec_code_still_interrupts(tmp_path):
    """A KeyboardInterrupt from a real Ctrl-C is the user's, even while spec code runs (here: a slow init)."""
    spec = tmp_path / "slow_init.py"
    spec.write_text(
        "import sys, time\n"
        "from typing import NamedTuple\n"
        "import attrs\n"
        "from modelcheck import Spec, action, constant\n"
        "@attrs.frozen\n"
        "class C:\n"
        "    N: int = constant(1, 'unused', minimum=0, maximum=1)\n"
        "def init(c):\n"
        "    print('init started', file=sys.stderr, flush=True)\n"
        "    time.sleep(60)\n"
        "    return [0]\n"
        "@action('Stay')\n"
        "def stay(c, s):\n"
        "    return None\n"
        "SPEC = Spec(name='slow-init', title='t', constants=C, init=init, actions=[stay], deadlock_expected=True)\n")
    # As from a terminal: a test run started as a background job of a non-interactive shell has SIGINT ignored,
    # which its children would inherit (and a command started with SIGINT ignored keeps ignoring it).
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", "check", str(spec), "-q"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 60
        seen = ""
        while "init started" not in seen and time.time() < deadline:
            seen += p.stderr.readline()
        assert "init started" in seen
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "Interrupted." in err and "error:" not in err


def test_a_spec_error_from_python_names_the_function_and_carries_the_trace():
    import modelcheck
    from modelcheck.errors import SpecResultError

    with pytest.raises(SpecResultError) as err:
        modelcheck.check(str(BROKEN / "action_returns_bool.py"))
    assert str(err.value).startswith("spec action-bool: action Inc(which=c1) returned False, not a state of type S")
    assert [t.state.counts for t in err.value.trace] == [(0, 0), (1, 0), (2, 0)]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_symmetry_that_raises_is_a_spec_error(workers):
    """permute is spec code too: the preflight walk meets the failing state (sum 3) first, one line, exit 2."""
    name = "symmetry_raises.py"
    p = run_cli("check", str(BROKEN / name), "--symmetry", "-q", "--workers", *workers.split())
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines() == [
        "error: spec symmetry-raises: symmetry raised ValueError: permute cannot rename this state "
        f"(at {rel(name)}:{line_of(name, 'raise ValueError(')})"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_symmetry_that_raises_in_the_search_stops_at_the_parent(workers):
    """Without the preflight walk, the search meets it: (2, 1) is the first state of sum 3 (level 4, reached
    from (2, 0), the representative of its orbit), so the trace leads to (2, 0)."""
    spec = load_spec(str(BROKEN / "symmetry_raises.py"))
    with pytest.raises(SpecRuntimeError) as err:
        check(spec, spec.constants_class(), CheckOptions(symmetry=True), workers=workers)
    assert str(err.value).startswith("spec symmetry-raises: symmetry raised ValueError: permute cannot rename")
    assert [t.state.xs for t in err.value.trace] == [(0, 0), (1, 0), (2, 0)]


@pytest.mark.parametrize("path", [{}, {"memo": False}, {"workers": 2}, {"workers": 2, "memo": False}],
                         ids=["tables", "spec-code", "threads", "processes"])
def test_a_permute_that_returns_none_is_a_spec_error_on_every_path(path):
    """Its fingerprint would have stood for an orbit: the same states as the raising permute's, one error."""
    spec = load_spec(str(BROKEN / "symmetry_returns_none.py"))
    with pytest.raises(SpecRuntimeError) as err:
        check(spec, spec.constants_class(), CheckOptions(symmetry=True), **path)
    assert str(err.value).startswith("spec symmetry-returns-none: symmetry raised TypeError: permute returned None, "
                                     "not a state of type S")
    assert [t.state.xs for t in err.value.trace] == [(0, 0), (1, 0), (2, 0)]


def test_running_out_of_memory_in_an_action_is_not_the_specs_error():
    """A MemoryError is the machine's condition, not a bug of the spec: the wrappers let it through unchanged."""
    from modelcheck import Spec, action, constant
    from modelcheck.model.bound import BoundModel

    @attrs.frozen
    class C:
        N: int = constant(1, "unused", minimum=0, maximum=1)

    @action("Grow")
    def grow(c, s):
        raise MemoryError

    spec = Spec(name="oom", title="t", constants=C, init=lambda c: [0], actions=[grow])
    model = BoundModel(spec, C(), CheckOptions())
    for expand in (model.expand, lambda s: model.expand_into(s, [], [])):
        with pytest.raises(MemoryError):
            expand(0)
    with pytest.raises(MemoryError):
        model._call("init", grow, C(), 0)


def test_two_spec_files_of_one_name_are_not_confused(tmp_path):
    """A spec file is imported under a name made from its file name; a second, different file of that name in
    the same process is refused in one line instead of silently checking the first one again."""
    from modelcheck.errors import SpecLoadError
    from modelcheck.spec.loader import load_spec

    source = (ROOT / "tests" / "models" / "tcommit.py").read_text()
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "same_name_spec.py").write_text(source)
    (b / "same_name_spec.py").write_text(source.replace("number of resource managers", "resource managers"))
    assert load_spec(str(a / "same_name_spec.py")).name == "tcommit"
    assert load_spec(str(a / "same_name_spec.py")).name == "tcommit"  # the same file again: fine
    with pytest.raises(SpecLoadError, match="a different spec file of the same name"):
        load_spec(str(b / "same_name_spec.py"))


def test_a_subclass_of_a_builtin_in_the_state_is_named_as_such():
    """A frozenset subclass is refused for what it is, not for the ``__eq__`` of the builtin it subclasses."""
    p = run_cli("check", str(ROOT / "tests" / "memo_corpus" / "state_frozenset_subclass.py"), "-q")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "a value of class Ids, a subclass of frozenset" in p.stderr and "__eq__" not in p.stderr
