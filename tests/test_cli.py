"""The CLI as a user runs it: a subprocess, its output and its exit status."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import MODELS, ROOT, run_cli

DIE_HARD = str(MODELS / "die_hard.py")


def test_check_truncate_to_hw_prints_the_9_state_trace_and_exits_1():
    p = run_cli("check", "truncate-to-hw", "-q")
    assert p.returncode == 1, p.stderr
    assert "Error: Invariant StrongIsr is violated." in p.stdout
    assert "(9 states)" in p.stdout
    assert "State 9: <BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r3)>" in p.stdout
    # The violated invariant says why, naming the record, the offset and the replica that lacks it.
    assert ("  Why: record 0@e1 at offset 0 is below leader r1's HW 1 but missing on r3, which is in the quorum "
            "ISR {r1, r3}\n") in p.stdout
    assert "The depth of the complete state graph search is 9." in p.stdout
    assert "states generated" in p.stdout and "distinct states found" in p.stdout


def test_check_that_holds_exits_0_with_tlc_statistics():
    p = run_cli("check", "kip320", "--const", "Replicas=2", "-q")
    assert p.returncode == 0, p.stderr
    assert "No error has been found" in p.stdout
    assert "11,839 states generated, 5,973 distinct states found, 0 states left on queue." in p.stdout
    assert "The depth of the complete state graph search is 18." in p.stdout


@pytest.mark.slow
def test_json_output_is_one_parsable_object():
    p = run_cli("check", DIE_HARD, "--json", "-q")
    assert p.returncode == 1
    data = json.loads(p.stdout)
    assert data["result"] == "violated"
    assert data["violation"]["invariant"] == "NotSolved"
    trace = data["violation"]["trace"]
    assert len(trace) == 7 and trace[0]["action"] is None
    assert trace[-1]["state"] == {"small": 3, "big": 4}
    assert {"distinct_states", "states_generated", "depth", "seconds"} <= set(data)

    p = run_cli("check", DIE_HARD, "--json", "-q", "--invariant", "TypeOk")
    assert p.returncode == 0
    data = json.loads(p.stdout)
    assert (data["result"], data["distinct_states"], data["states_generated"], data["depth"]) == ("holds", 16, 97, 8)


@pytest.mark.slow
def test_deadlock_flag_and_exit_status():
    tcommit = str(MODELS / "tcommit.py")
    # TCommit declares its final states expected; --deadlock overrides that.
    assert run_cli("check", tcommit, "-q").returncode == 0
    p = run_cli("check", tcommit, "--deadlock", "-q")
    assert p.returncode == 1
    assert "Error: Deadlock reached." in p.stdout
    p = run_cli("check", DIE_HARD, "--deadlock", "-q", "--invariant", "TypeOk")
    assert p.returncode == 0  # the jugs never deadlock


@pytest.mark.slow
def test_list_and_show():
    p = run_cli("list")
    assert p.returncode == 0
    for name in ("truncate-to-hw", "kip101", "kip279", "kip320-first-try", "kip320", "async-isr"):
        assert f"{name}:" in p.stdout
    p = run_cli("show", "kip320")
    assert p.returncode == 0
    assert "Replicas = 3" in p.stdout and "FencedBecomeFollowerAndTruncate" in p.stdout and "*StrongIsr" in p.stdout


@pytest.mark.slow
def test_progress_lines_go_to_stderr():
    # A search of over a second, so that lines every 0.1 s are due however fast the machine (Kip320 with
    # MaxLeaderEpoch=1 searched for about 0.1 s once its learning was compiled, and sometimes printed none).
    p = run_cli("check", "kip320", "--progress", "0.1")
    assert p.returncode == 0
    assert "Progress(" in p.stderr and "Progress(" not in p.stdout


ERRORS = [
    (("check", "no-such-spec"), "unknown spec 'no-such-spec'"),
    (("check", "kip320", "--const", "Bogus=1"), "unknown constant 'Bogus'"),
    (("check", "kip320", "--const", "Replicas=three"), "constant Replicas must be an integer"),
    (("check", "kip320", "--const", "Replicas=1000000000"), "constant Replicas=1000000000 is above its maximum"),
    (("check", "kip320", "--const", "LogSize=-1"), "constant LogSize=-1 is below its minimum"),
    (("check", "kip320", "--const", "Replicas"), "expected NAME=VALUE"),
    (("check", "kip320", "--invariant", "Nope"), "unknown invariant 'Nope'"),
    (("check", "async-isr", "--symmetry"), "declares no symmetry"),
    (("check", str(MODELS / "broken" / "import_fails.py")), "failed to import: RuntimeError: this module is broken on purpose"),
    (("check", str(MODELS / "broken" / "raises_in_action.py")), "action Step raised KeyError"),
    (("check", str(MODELS / "broken" / "raises_in_invariant.py")), "invariant Small raised ZeroDivisionError"),
    (("check", str(MODELS / "broken" / "list_state.py")), "init produced a non-canonical state: state is a list"),
    (("check", "tests/models/missing.py"), "no spec file"),
    (("check", "kip320", "--max-depth", "0"), "Invalid value for '--max-depth'"),
    # Options the chosen search would ignore are refused rather than silently dropped.
    (("check", "kip320", "--seed", "7"), "--seed applies only with --simulate"),
    (("check", "kip320", "--walk-seconds", "5"), "--walk-seconds applies only with --simulate"),
    (("check", "kip320", "--simulate", "--workers", "2"), "--workers does not apply to --simulate"),
    (("check", "kip320", "--simulate", "--checkpoint", "ckpt"), "--checkpoint does not apply to --simulate"),
    (("check", "kip320", "--simulate", "--master", "local[1]"), "--master does not apply to --simulate"),
    (("check", "kip320", "--engine", "spark", "--workers", "2"), "--workers is for the local engine"),
    (("check", "kip320", "--master", "local[1]", "--max-memory", "500"), "--max-memory is supported by the local engine only"),
    (("check", "kip320", "--partitions", "4"), "--partitions applies to the Spark engine only"),
]


@pytest.mark.slow
@pytest.mark.parametrize("args,message", ERRORS, ids=[" ".join(a[1:]) for a, _ in ERRORS])
def test_bad_input_gives_one_clear_line_and_exit_2(args, message):
    p = run_cli(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in p.stderr
    assert "Traceback" not in p.stderr
    first = p.stderr.strip().splitlines()[-1] if "Error:" in p.stderr else p.stderr.strip().splitlines()[0]
    assert first


@pytest.mark.slow
def test_spec_error_shows_the_trace_that_led_there():
    p = run_cli("check", str(MODELS / "broken" / "raises_in_action.py"))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert lines[0].startswith("error: spec raises: action Step raised KeyError")
    assert "State 3: <Step> 2" in p.stderr


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2", "2 --no-memo"], ids=["one", "threads", "processes"])
@pytest.mark.parametrize("model,message,last_state", [
    ("raises_in_action.py", "error: spec raises: action Step raised KeyError: 'missing'", "State 3: <Step> 2"),
    ("unhashable_successor.py",
     "error: spec unhashable: action Step produced a non-canonical state: state[1] is a list",
     "State 2: <Other> (10,)"),
])
def test_spec_errors_name_the_action_and_trace_with_any_worker_count(model, message, last_state, workers):
    """Both engines expand with the compiled successor function; its error path must still name the action."""
    p = run_cli("check", str(MODELS / "broken" / model), "--workers", *workers.split())
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert lines[0].startswith(message)
    assert lines[-1].strip() == last_state
    assert "Traceback" not in p.stderr


@pytest.mark.slow
def test_debug_shows_the_traceback():
    p = run_cli("--debug", "check", str(MODELS / "broken" / "raises_in_action.py"))
    assert p.returncode != 0
    assert "Traceback" in p.stderr


# -- exit status and output ----------------------------------------------------------------------


def _cli(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "modelcheck", *args], cwd=ROOT, text=True,
                            env={**os.environ, "MODELCHECK_USER_BUILD": "off"}, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("model,status", [(("kip320", "--const", "Replicas=2"), 2), ((DIE_HARD,), 2),
                                          (("kip320", "--const", "Replicas=2", "--json"), 2)],
                         ids=["holds", "violated", "json"])
def test_stdout_on_a_full_disk_is_one_line_and_exit_2_never_1(model, status):
    with open("/dev/full", "w") as full:
        p = _cli("check", *model, "-q", stdout=full, stderr=subprocess.PIPE)
        err = p.communicate(timeout=600)[1]
    assert p.returncode == status, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "error: cannot write the output: No space left on device"


def test_a_reader_that_leaves_the_pipe_ends_the_command_quietly():
    """``| head -1``: no traceback, and never the "violated" status for a model that holds (0: see modelcheck.cli)."""
    p = _cli("check", "kip320", "--const", "Replicas=2", "-q", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.readline().startswith("modelcheck ")
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=600) == 0, err
    assert err == ""


@pytest.mark.slow
def test_a_reader_that_leaves_after_the_result_gets_the_checks_status():
    p = _cli("check", DIE_HARD, "-q", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = iter(p.stdout.readline, "")
    assert any(line.startswith("Error: Invariant NotSolved is violated.") for line in lines)
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=600) == 1, err
    assert "Traceback" not in err


@pytest.mark.parametrize("args,message", [
    (("--out", ""), "error: --out was given an empty directory name"),
    (("--checkpoint", ""), "error: --checkpoint was given an empty directory name"),
    (("--checkpoint-every", "5"), "error: --checkpoint-every applies only with --checkpoint DIR"),
], ids=["out", "checkpoint", "checkpoint-every"])
def test_options_that_would_be_dropped_silently_are_refused(args, message):
    p = run_cli("check", DIE_HARD, "-q", *args)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [p.stderr.strip().splitlines()[0]]
    assert p.stderr.startswith(message)
    assert p.stdout == ""


@pytest.mark.slow
def test_what_a_spec_prints_goes_to_stderr_with_json():
    for workers in ("1", "2"):
        p = run_cli("check", str(MODELS / "prints.py"), "--json", "-q", "--workers", workers, "--no-memo")
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["distinct_states"] == 4
        assert "Step from 2" in p.stderr


def test_a_memory_error_raised_by_an_action_is_the_specs_error():
    p = run_cli("check", str(MODELS / "broken" / "raises_memory_error.py"), "--json", "-q")
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    errors = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: spec memory: action Step raised MemoryError (at ")


def test_ctrl_c_while_the_command_starts_is_one_line():
    """SIGINT while the package is still being imported (the condition: an import reported on stderr).

    The model takes half a minute, so that a test process the machine starves of time cannot read the import
    line only after the run has ended; if the signal lands in the search all the same, the run is interrupted
    there (its statistics on stdout): exit 130 and no traceback either way."""
    # As from a terminal: a test run started as a background job of a non-interactive shell has SIGINT ignored,
    # which its children inherit, and a command started with SIGINT ignored keeps ignoring it while it starts.
    p = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "modelcheck", "check", "kip320", "--const",
                          "MaxLeaderEpoch=3", "-q"], cwd=ROOT, text=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for line in p.stderr:
        if "modelcheck.errors" in line:  # among the package's first imports, long before the CLI is ready
            break
    p.send_signal(signal.SIGINT)
    err = p.stderr.read()
    assert p.wait(timeout=60) == 130, err
    lines = [line for line in err.splitlines() if line and not line.startswith("import time:")]
    assert lines in (["Interrupted."], []), err


@pytest.mark.parametrize("name,shadowed", [("modelcheck", "the modelcheck package"),
                                           ("json", "the standard library's json module"),
                                           ("attrs", "the installed module attrs")])
def test_new_refuses_a_name_that_shadows_a_module(tmp_path, name, shadowed):
    p = subprocess.run([sys.executable, "-m", "modelcheck", "new", name], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip() == (f"error: {name}.py would shadow {shadowed} (run from its directory, it is imported "
                                "in its place); choose another name")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_an_out_failure_after_the_search_keeps_the_violations_status(tmp_path):
    """The directory passes the check before the search, but trace.json cannot be written (a directory there):
    the result is printed, one line says what was lost, and the status stays the violation's 1 (it was 2)."""
    out = tmp_path / "out"
    (out / "trace.json").mkdir(parents=True)
    p = run_cli("check", DIE_HARD, "-q", "--out", str(out))
    assert p.returncode == 1, p.stderr
    assert "Error: Invariant NotSolved is violated." in p.stdout
    assert p.stderr.strip().splitlines()[-1].startswith(f"error: could not write the counterexample to {out}: ")
    assert "Traceback" not in p.stderr


@pytest.mark.slow
def test_a_stderr_that_cannot_be_written_loses_only_its_lines(tmp_path):
    """Progress lines to a reader that left (``2>&1 | head`` once stdout is elsewhere): the check goes on."""
    with open(tmp_path / "out.txt", "w") as out:
        p = _cli("check", "kip320", "--const", "Replicas=2", "--progress", "0.1", stdout=out, stderr=subprocess.PIPE)
        p.stderr.close()
        assert p.wait(timeout=600) == 0
    assert "Model checking completed. No error has been found." in (tmp_path / "out.txt").read_text()


def _path_line(p: subprocess.CompletedProcess) -> str:
    """The header's line that names the successor path and the parallelism."""
    (line,) = [line for line in p.stdout.splitlines() if line.startswith("Successors: ")]
    return line


@pytest.mark.slow
def test_the_header_names_the_memo_tables_and_one_thread_by_default():
    p = run_cli("check", "kip320", "--const", "Replicas=2", "-q")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[1].startswith("Invariants: StrongIsr; engine: local")  # the line before it is unchanged
    if "not on the memo tables" in _path_line(p):  # no C loop built for this source: the line says why
        assert _path_line(p).startswith("Successors: the spec's own code (")
        pytest.skip("the memo tables' C loop is not built here")
    assert _path_line(p).startswith("Successors: memo tables (C loop; spec ")
    assert _path_line(p).endswith("; one thread")
    assert "11,839 states generated, 5,973 distinct states found, 0 states left on queue." in p.stdout


@pytest.mark.slow
def test_the_header_says_no_memo_runs_the_spec_s_own_code_and_why():
    p = run_cli("check", "kip320", "--const", "Replicas=2", "-q", "--no-memo")
    assert p.returncode == 0, p.stderr
    line = _path_line(p)
    assert line.startswith("Successors: the spec's own code (")
    assert ("compiled)" in line) != ("interpreted" in line)
    assert line.endswith("; one thread; not on the memo tables: --no-memo")
    assert "11,839 states generated, 5,973 distinct states found, 0 states left on queue." in p.stdout


@pytest.mark.slow
def test_the_header_says_how_many_threads_or_processes_workers_run():
    threads = run_cli("check", "kip320", "--const", "Replicas=2", "-q", "--workers", "2")
    assert threads.returncode == 0, threads.stderr
    if "not on the memo tables" not in _path_line(threads):
        assert _path_line(threads).startswith("Successors: memo tables (C loop; spec ")
        assert _path_line(threads).endswith("; 2 threads")
    processes = run_cli("check", "kip320", "--const", "Replicas=2", "-q", "--workers", "2", "--no-memo")
    assert processes.returncode == 0, processes.stderr
    assert _path_line(processes).endswith("; 2 processes; not on the memo tables: --no-memo")
    for p in (threads, processes):
        assert "11,839 states generated, 5,973 distinct states found, 0 states left on queue." in p.stdout


@pytest.mark.slow
def test_json_names_the_parallelism_beside_the_successor_path():
    default = json.loads(run_cli("check", "kip320", "--const", "Replicas=2", "--json", "-q").stdout)
    workers = json.loads(run_cli("check", "kip320", "--const", "Replicas=2", "--json", "-q", "--workers", "2",
                                 "--no-memo").stdout)
    assert default["parallelism"] == {"kind": "threads", "count": 1}
    assert workers["parallelism"] == {"kind": "processes", "count": 2}
    assert workers["successors"] == {"path": "the spec's own code", "why": "--no-memo"}
    assert default["spec_code"] == "compiled" or default["spec_code"].startswith("interpreted")
    p = run_cli("check", "kip320", "--const", "Replicas=2", "--json", "-q", "--workers", "2", "--no-memo")
    assert "Successors: the spec's own code" in p.stderr and "Successors" not in p.stdout  # stdout: JSON only


@pytest.mark.slow
def test_property_alone_says_the_spec_s_invariants_are_not_checked():
    """As a TLC model listing only PROPERTY, --property alone checks no invariant; the header says so, and names
    the ones to add, instead of a bare "Invariants: none"."""
    p = run_cli("check", "kip320", "--const", "Replicas=2", "--property", "DesignatedLeaderTakesOver", "-q")
    assert p.returncode == 0, p.stderr
    assert "Invariants: none; properties: DesignatedLeaderTakesOver" in p.stdout
    assert ("Warning: with --property alone the spec's invariants (StrongIsr) are not checked; add --invariant "
            "NAME for each to check them too") in p.stderr
    both = run_cli("check", "kip320", "--const", "Replicas=2", "--property", "DesignatedLeaderTakesOver",
                   "--invariant", "StrongIsr", "-q")
    assert both.returncode == 0 and "Invariants: StrongIsr; properties: DesignatedLeaderTakesOver" in both.stdout
    assert "are not checked" not in both.stderr
