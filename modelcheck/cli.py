"""The ``modelcheck`` command line (click).

Each subcommand's docstring is its help text.  Every user error derives from
:class:`~modelcheck.errors.ModelCheckError` and becomes one line on stderr with
exit status 2; a traceback is shown only with ``--debug``.  Exit status 0 means
every checked property holds, 1 means a violation or deadlock was found.

Standard output that cannot be written is the output's failure, never the
model's: a full disk (or any other write error) is one line on stderr and exit
2, unless the check's own status is already known and not 0 (a violation keeps
1); a reader that leaves the pipe (``| head -1``) ends the command quietly,
with the check's status if its result was reached, else 0, as a writer in a
pipeline would.  Standard error that cannot be written loses its lines only:
the check goes on, its result on stdout and its status unchanged.  A Ctrl-C
at any moment, the first tenths of a second of imports included, is
``Interrupted.`` and exit 130.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import signal
import sys
import traceback
from typing import Any, Iterator

import click

from modelcheck import __version__
from modelcheck.api import MAX_WORKERS
from modelcheck.errors import ModelCheckError, OutputFailure, SpecRuntimeError, UsageError, UserInterrupt
from modelcheck.options import option_conflict
from modelcheck.output.json_form import explanation_json
from modelcheck.output.files import check_writable_file, write_atomically
from modelcheck.output.results import CheckResult
from modelcheck.output.tlc_text import coverage_lines, summary_lines
from modelcheck.spec.constants import constants_to_dict
from modelcheck.spec.declare import Spec
from modelcheck.spec.loader import load_spec, registered_specs


class FiniteFloat(click.ParamType):
    """A number of seconds: finite (``nan`` and ``inf`` are refused, not silently never reached) and >= ``minimum``."""

    name = "SECONDS"

    def __init__(self, minimum: float) -> None:
        self.minimum = minimum

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number) or number < self.minimum:
            self.fail(f"{value!r} is not a finite number of at least {self.minimum:g}", param, ctx)
        return number


class ConstParam(click.ParamType):
    """``NAME=VALUE``; the value is checked against the spec once the spec is known."""

    name = "NAME=VALUE"

    def convert(self, value: Any, param: Any, ctx: Any) -> tuple[str, str]:
        if isinstance(value, tuple):
            return value
        name, sep, text = str(value).partition("=")
        if not sep or not name.strip() or not text.strip():
            self.fail(f"expected NAME=VALUE, got {value!r}", param, ctx)
        return name.strip(), text.strip()


def _remember_debug(ctx: click.Context, _param: Any, value: bool) -> None:
    if value:
        ctx.ensure_object(dict)["debug"] = True


def debug_option(f: Any) -> Any:
    """``--debug``, before the command or after it: show the traceback of an error (which still exits 2)."""
    return click.option("--debug", is_flag=True, expose_value=False, callback=_remember_debug,
                        help="Show full tracebacks for errors.")(f)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="modelcheck")
@debug_option
def main() -> None:
    """A TLA+-style explicit-state model checker for Kafka replication."""
    # numpy's OpenBLAS starts a thread per core that spins for a while after the import (about 0.1 s of
    # CPU); nothing here multiplies matrices.  Set before numpy is first imported; a user's value stays.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@main.command("list")
@debug_option
def list_cmd() -> None:
    """List the registered specs with their constants, actions and invariants."""
    for name in sorted(registered_specs()):
        spec = load_spec(name)
        consts = ", ".join(f"{i.name}={i.default_text}" for i in spec.constant_infos)
        click.echo(f"{name}: {spec.title}")
        click.echo(f"  constants:  {consts}")
        click.echo(f"  actions:    {', '.join(a.name for a in spec.actions)}")
        invs = ", ".join(
            p.name + ("*" if p.name in spec.default_invariants else "") for p in spec.invariants
        )
        click.echo(f"  invariants: {invs}  (* checked by default)")
        if spec.properties:
            props = ", ".join(p.name + ("*" if p.name in spec.default_properties else "") for p in spec.properties)
            click.echo(f"  properties: {props}  (--property NAME{'; * checked by default' if spec.default_properties else ''})")


@main.command("show")
@debug_option
@click.argument("spec_ref", metavar="SPEC")
def show_cmd(spec_ref: str) -> None:
    """Describe one spec: what it models, its constants with ranges, actions and invariants."""
    spec = load_spec(spec_ref)
    click.echo(f"{spec.name}: {spec.title}")
    if spec.description:
        click.echo("")
        click.echo(spec.description.strip())
    click.echo("\nConstants:")
    for i in spec.constant_infos:
        click.echo(f"  {i.name} = {i.default_text}  [{i.describe_range()}]  {i.description}")
    click.echo("\nActions:")
    for a in spec.actions:
        params = ", ".join(p for p, _ in a.params)
        click.echo(f"  {a.name}({params})  {a.description}" if params else f"  {a.name}  {a.description}")
    click.echo("\nInvariants (* checked by default):")
    for p in spec.invariants:
        star = "*" if p.name in spec.default_invariants else " "
        click.echo(f" {star}{p.name}  {p.description}")
    if spec.properties:
        click.echo("\nLiveness and step properties (checked with --property NAME"
                   + ("; * also by default" if spec.default_properties else "") + "):")
        for p in spec.properties:
            star = "*" if p.name in spec.default_properties else " "
            click.echo(f" {star}{p.name}  [{p.kind}]  {p.description}")
    if spec.fairness:
        click.echo("\nFairness: " + ", ".join(f.describe(spec.actions[ai].name) for f, ai in spec.fairness))
    if spec.sometimes:
        click.echo("\nSometimes properties (must be reachable):")
        for p in spec.sometimes:
            click.echo(f"  {p.name}  {p.description}")
    extras = []
    if spec.symmetry:
        extras.append("symmetry (--symmetry)")
    if spec.state_constraint:
        extras.append("state constraint")
    if spec.action_constraint:
        extras.append("action constraint")
    extras.append("deadlocks expected" if spec.deadlock_expected else "deadlock checked")
    click.echo(f"\nOptions: {', '.join(extras)}")


@main.command("check")
@debug_option
@click.argument("spec_ref", metavar="SPEC")
@click.option("--const", "consts", type=ConstParam(), multiple=True, help="Set a constant, e.g. --const Replicas=3.")
@click.option("--invariant", "invariants", multiple=True, metavar="NAME", help="Invariant to check (repeatable; default: the spec's).")
@click.option("--property", "properties", multiple=True, metavar="NAME",
              help="Liveness or step property to check (repeatable; then invariants only if named with --invariant).")
@click.option("--extend", "extensions", multiple=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="Add the invariants, properties (and FAIRNESS) that FILE declares to the spec (repeatable).")
@click.option("--fairness", type=click.Choice(["spec", "none"]), default="spec", show_default=True,
              help="Check liveness under the spec's fairness, or none (a property that holds only thanks to "
                   "fairness then shows its lasso).")
@click.option("--deadlock/--no-deadlock", default=None, help="Report states without successors (default: the spec's choice).")
@click.option("--max-depth", type=click.IntRange(min=1), default=None, help="Explore at most this many BFS levels.")
@click.option("--max-states", type=click.IntRange(min=1), default=None, help="Stop once this many distinct states are found (the state that reaches the number has all its "
              "successors kept, so the count may pass it by a few).")
@click.option("--continue", "keep_going", is_flag=True, help="Keep going after a violation; report every violated invariant.")
@click.option("--symmetry", is_flag=True, help="Reduce by the spec's symmetry (interchangeable replicas).")
@click.option("--engine", type=click.Choice(["local", "spark"]), default="local", show_default=True, help="Exploration engine.")
@click.option("--master", default=None, help="Spark master URL (default local[*]); implies --engine spark.")
@click.option("--partitions", type=click.IntRange(min=1), default=None, help="Spark: number of fingerprint shards.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the result on stdout.")
@click.option("--full-trace", is_flag=True, help="Print every variable in every trace state, not only changes.")
@click.option("--coverage", is_flag=True, help="Print per-action coverage (distinct/generated).")
@click.option("--progress", "progress_seconds", type=FiniteFloat(0.1), default=5.0, show_default=True, help="Seconds between progress lines.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
@click.option("--verbose", "-v", is_flag=True, help="More detail (per-level timings on Spark).")
@click.option("--checkpoint", "checkpoint_dir", type=click.Path(file_okay=False), default=None,
              help="Write checkpoints to DIR (at BFS level boundaries, atomically).")
@click.option("--checkpoint-every", type=FiniteFloat(0), default=600.0, show_default=True,
              help="Seconds between checkpoints (one is also written on Ctrl-C, SIGTERM or --max-memory).")
@click.option("--resume", type=click.Path(file_okay=False, exists=True), default=None,
              help="Continue the run checkpointed in DIR (same spec, constants and options).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write each counterexample here: trace JSON plus text, DOT, SVG and HTML renderings.")
@click.option("--max-memory", "max_memory_mb", type=click.IntRange(min=1), default=None, metavar="MiB",
              help="Stop with a checkpoint before the process uses more memory than this.")
@click.option("--workers", type=click.IntRange(min=1, max=MAX_WORKERS), default=1, show_default=True,
              help="Local engine: explore with this many threads on the memo tables, or processes on the spec's "
                   "own code (same result as one).")
@click.option("--worker-timeout", type=FiniteFloat(1), default=None, metavar="SECONDS",
              help="--workers as processes on the spec's own code: end the run when a worker owing a reply has "
                   "used no CPU for this long (default 120).")
@click.option("--memo/--no-memo", default=None,
              help="Run the spec through its memo tables (default: whenever it can), or never.")
@click.option("--memo-verify", is_flag=True,
              help="Compare the memo tables' answers on every state with the spec's own code (default: a sample).")
@click.option("--memo-seed", type=click.IntRange(min=0), default=None, metavar="N",
              help="Seed of the sample of states compared with the spec's own code (default: random, in --json).")
@click.option("--simulate", is_flag=True,
              help="Random walks up to --max-depth (default 100) instead of an exhaustive check.")
@click.option("--seed", type=int, default=0, show_default=True, help="--simulate: random seed (runs are reproducible).")
@click.option("--walks", type=click.IntRange(min=1), default=None,
              help="--simulate: number of walks (default 1000 unless --walk-seconds is given).")
@click.option("--walk-seconds", type=FiniteFloat(0), default=None,
              help="--simulate: stop after this many seconds.")
@click.pass_context
def check_cmd(ctx: click.Context, spec_ref: str, consts: tuple, invariants: tuple, properties: tuple,
              extensions: tuple, fairness: str, deadlock: bool | None,
              max_depth: int | None, max_states: int | None, keep_going: bool, symmetry: bool,
              engine: str, master: str | None, partitions: int | None, as_json: bool, full_trace: bool,
              coverage: bool, progress_seconds: float, quiet: bool, verbose: bool,
              checkpoint_dir: str | None, checkpoint_every: float, resume: str | None,
              out_dir: str | None, max_memory_mb: int | None, workers: int = 1,
              worker_timeout: float | None = None, memo: bool | None = None, memo_verify: bool = False,
              memo_seed: int | None = None, simulate: bool = False, seed: int = 0, walks: int | None = None, walk_seconds: float | None = None) -> None:
    """Exhaustively check SPEC (a registered name, path/to/spec.py or pkg.module:SPEC).

    Prints a progress line on stderr every few seconds and TLC-like statistics
    at the end.  Exit status: 0 all invariants hold, 1 an invariant is violated
    or a deadlock was found (the shortest trace is printed), 2 bad input or a
    spec error.
    """
    from modelcheck.api import prepare

    given = _explicit_params(ctx)
    for flag, value in (("--out", out_dir), ("--checkpoint", checkpoint_dir)):
        if value is not None and not value.strip():
            raise UsageError(f"{flag} was given an empty directory name (an unset shell variable?)")
    if "checkpoint_every" in given and not (checkpoint_dir or resume):
        raise UsageError("--checkpoint-every applies only with --checkpoint DIR (or --resume DIR)")
    conflict = option_conflict(given, simulate=simulate, engine="spark" if master is not None else engine)
    if conflict:
        raise UsageError(conflict)
    plan = prepare(
        spec_ref, dict(consts), invariants=invariants or None, properties=properties or None, fairness=fairness,
        extend=extensions,
        deadlock=deadlock, max_depth=max_depth,
        max_states=max_states, continue_after_violation=keep_going, symmetry=symmetry, engine=engine,
        workers=workers, master=master, partitions=partitions, checkpoint=checkpoint_dir,
        checkpoint_every=checkpoint_every, resume=resume, max_memory_mb=max_memory_mb, simulate=simulate,
        seed=seed if "seed" in given else None, walks=walks, walk_seconds=walk_seconds,
        progress=_progress_sink(quiet, ctx.find_root().obj), progress_seconds=progress_seconds, verbose=verbose, worker_timeout=worker_timeout,
        memo=memo, memo_verify=memo_verify, memo_seed=memo_seed)
    spec, c = plan.spec, plan.constants
    out = sys.stderr if as_json else sys.stdout
    consts_text = ", ".join(f"{k}={v}" for k, v in constants_to_dict(c).items())
    click.echo(f"modelcheck {__version__}: checking {spec.name} ({spec.title}) with {consts_text}", file=out)
    mode = plan.spec_mode
    click.echo(f"Invariants: {', '.join(plan.invariants) or 'none'}; "
               f"{f'properties: {chr(44).join(plan.properties)}; ' if plan.properties else ''}engine: {plan.engine}"
               f"{'; symmetry on' if symmetry else ''}{f'; spec {mode}' if mode else ''}", file=out)
    if any(spec.property(n).kind == "liveness" for n in plan.properties):
        fair = ", ".join(f.describe(spec.actions[ai].name) for f, ai in spec.fairness) or "none"
        if plan.options.fairness == "none" and spec.fairness:
            fair = f"none (--fairness none, instead of the spec's {fair})"
        click.echo(f"Fairness: {fair}", file=out)
    for note in plan.notes:  # now, not after a run they make slow
        click.echo(f"Warning: {note}", err=True)
    if out_dir:
        from modelcheck.output.files import check_writable_directory

        check_writable_directory(out_dir, "--out")  # before the search, not after it
    # SIGTERM stops a run the way Ctrl-C does: statistics so far, exit 128+signal.
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        with _spec_output_to_stderr(as_json):  # with --json, stdout holds the JSON and nothing else
            result = plan.run(announce=lambda line: click.echo(line, file=out))
    finally:
        signal.signal(signal.SIGTERM, previous)
    ctx.ensure_object(dict)["status"] = result.exit_code  # what an output failure from here on keeps
    # What the run found is printed first: a file that cannot be written loses nothing.
    if as_json:
        click.echo(json.dumps(result.to_json(), allow_nan=False, default=str))
    else:
        _print_result(spec, c, result, full_trace=full_trace, coverage=coverage)
    if plan.options.checkpoint_dir and result.result == "interrupted":
        _say_checkpoint(result, plan.options.checkpoint_dir)
    if out_dir:
        try:
            written = result.write_trace(out_dir)
        except OSError as exc:
            click.echo(f"error: could not write the counterexample to {out_dir}: {exc.strerror or exc} "
                       "(the result above is complete)", err=True)
            ctx.exit(result.exit_code or 2)  # a violation found stays exit 1; a holding model is not made 1
        for v, files in zip(result.violations, _trace_stems(written)):
            click.echo(f"Counterexample ({v.name}) written to {files}", err=True)
    ctx.exit(result.exit_code)


def _progress_sink(quiet: bool, settings: dict[str, Any] | None) -> Any:
    """Progress lines on stderr unless ``quiet``; each also reported to the supervisor, which names the last
    statistics if the check ends without a result."""
    if quiet:
        return False
    channel = (settings or {}).get("supervisor")
    if channel is None:
        return True
    from modelcheck.search.progress import stderr_sink

    show = stderr_sink()

    def sink(p: Any) -> None:
        channel.statistics(p.level, p.generated, p.distinct, p.queue)
        show(p)

    return sink


@contextlib.contextmanager
def _spec_output_to_stderr(on: bool) -> Iterator[None]:
    """While inside (if ``on``), what spec code prints goes to stderr: file descriptor 1 too, for worker processes."""
    if not on:
        yield
        return
    saved = fd = None
    try:
        sys.stdout.flush()
        fd = sys.__stdout__.fileno()
        saved = os.dup(fd)
        os.dup2(sys.__stderr__.fileno(), fd)
    except (AttributeError, OSError, ValueError):  # no real file descriptors (an embedding program's streams)
        if saved is not None:
            os.close(saved)
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            os.dup2(saved, fd)
            os.close(saved)


class _GuardedStream:
    """Standard output whose write errors raise :class:`OutputFailure` (handled in :func:`run`), not OSError."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._buffer: _GuardedStream | None = None

    def write(self, data: Any) -> Any:
        try:
            return self._stream.write(data)
        except OSError as exc:
            raise OutputFailure(exc) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputFailure(exc) from None

    @property
    def buffer(self) -> "_GuardedStream":
        if self._buffer is None:
            self._buffer = _GuardedStream(self._stream.buffer)
        return self._buffer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _QuietStream:
    """Standard error that, once it cannot be written, drops what is written to it: diagnostics are lost, the
    result on stdout and the exit status are not."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: Any) -> Any:
        try:
            return self._stream.write(data)
        except OSError:
            _to_devnull(self._stream)
            return len(data)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError:
            _to_devnull(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _to_devnull(stream: Any) -> None:
    """Point ``stream``'s file descriptor at /dev/null: what it still buffers, and all that follows, goes nowhere."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (AttributeError, OSError, ValueError):
        pass


def _output_failed(error: OSError, status: int | None) -> int:
    """The exit status once stdout could not be written (see the module's docstring); says why unless a reader left."""
    _to_devnull(sys.__stdout__)  # what is still buffered goes nowhere, and the interpreter's last flush too
    if error.errno == errno.EPIPE:
        return status if status is not None else 0
    click.echo(f"error: cannot write the output: {error.strerror or error}", err=True)
    return status if status else 2


def _say_checkpoint(result: CheckResult, directory: str) -> None:
    """Say which checkpoint a stopped run leaves, only if one is on disk and whole."""
    if result.checkpoint is not None:
        click.echo(f"Checkpoint written to {directory} (level {result.checkpoint_level + 1}); continue with "
                   f"--resume {directory} (same spec, constants and options).", err=True)
    else:
        why = f": {result.checkpoint_note}" if result.checkpoint_note else ""
        click.echo(f"No checkpoint was written to {directory}{why}; a new run would start from the beginning.",
                   err=True)


def _explicit_params(ctx: click.Context) -> dict[str, Any]:
    """The parameters the user set on the command line or through the environment, with their values."""
    given = (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT)
    return {name: value for name, value in ctx.params.items() if ctx.get_parameter_source(name) in given}


def _write_output(path: str, data: bytes) -> None:
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise UsageError(f"--output {path}: cannot write it: {exc.strerror or exc}") from None


def _trace_stems(paths: list[str]) -> list[str]:
    """The written files grouped by counterexample: ``DIR/trace.json, .txt, ...`` as one line each."""
    groups: dict[str, list[str]] = {}
    for path in paths:
        stem = path.rsplit(".", 1)[0]
        groups.setdefault(stem, []).append(path)
    return [", ".join(files) for files in groups.values()]


@main.command("render")
@debug_option
@click.argument("trace_file", metavar="TRACE.json", type=click.Path(dir_okay=False))
@click.option("--format", "-f", "fmt",
              type=click.Choice(["text", "dot", "svg", "png", "html", "json", "graph-json", "seq-svg"]),
              default="text", show_default=True, help="Output format (seq-svg: the sequence diagram of the messages).")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None, help="Write here instead of stdout.")
def render_cmd(trace_file: str, fmt: str, output: str | None) -> None:
    """Render a trace file written by ``check --out`` again, without re-running the check."""
    from modelcheck.counterexamples.render import render
    from modelcheck.counterexamples.tracefile import load

    if output:
        check_writable_file(output, "--output")
    data = render(load(trace_file), fmt)
    if output:
        _write_output(output, data)
    elif fmt == "png":
        raise UsageError("--format png writes binary data; give --output FILE")
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


@main.command("graph")
@debug_option
@click.argument("spec_ref", metavar="SPEC")
@click.option("--const", "consts", type=ConstParam(), multiple=True, help="Set a constant.")
@click.option("--invariant", "invariants", multiple=True, metavar="NAME", help="Mark states violating these.")
@click.option("--format", "-f", "fmt", type=click.Choice(["dot", "json", "svg", "png"]), default="dot",
              show_default=True, help="svg and png are laid out by Graphviz; png needs --output.")
@click.option("--limit", type=click.IntRange(min=1), default=5000, show_default=True,
              help="Refuse graphs with more states than this.")
@click.option("--around-violation", "radius", type=click.IntRange(min=1), default=None, metavar="N",
              help="Only the counterexample of the first violation and every state within N actions of it.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None, help="Write here instead of stdout.")
def graph_cmd(spec_ref: str, consts: tuple, invariants: tuple, fmt: str, limit: int, radius: int | None,
              output: str | None) -> None:
    """Export the reachable state graph of a small model, or the neighbourhood of its counterexample (DOT, JSON, SVG, PNG)."""
    from modelcheck.api import prepare
    from modelcheck.counterexamples.statespace import neighbourhood_graph, state_graph, state_graph_output
    from modelcheck.model.bound import BoundModel

    if fmt == "png" and not output:
        raise UsageError("--format png writes binary data; give --output FILE")
    if output:
        check_writable_file(output, "--output")
    plan = prepare(spec_ref, dict(consts), invariants=invariants or None)
    model = BoundModel(plan.spec, plan.constants, plan.options)
    if radius is None:
        g = state_graph(model, limit)
    else:
        result = plan.run()
        if result.violation is None:
            raise UsageError("--around-violation: the check found no violation, so there is no counterexample")
        from modelcheck.counterexamples.tracefile import document_from_violation

        trace = [step.state for step in result.violation.trace]
        violation = document_from_violation(plan.spec, plan.constants, result.violation)["violation"]
        g = neighbourhood_graph(model, trace, radius, limit, violation)
    data = state_graph_output(g, fmt)
    if output:
        _write_output(output, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


@main.command("render-known")
@debug_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Directory to write to (default: the package's counterexamples/known/).")
def render_known_cmd(out_dir: str | None) -> None:
    """Re-run the known bugs' checks and regenerate their checked-in renderings."""
    from modelcheck.counterexamples.regenerate import KNOWN_DIR, regenerate

    for path in regenerate(out_dir or KNOWN_DIR):
        click.echo(path)


@main.command("new")
@debug_option
@click.argument("name")
def new_cmd(name: str) -> None:
    """Write NAME.py: a small spec that checks as it is, to change into your own (docs/writing-specs.md)."""
    from modelcheck.spec.skeleton import write_skeleton

    path = write_skeleton(name)
    click.echo(f"wrote {path}; check it with: modelcheck check {path}")


@main.command("compile")
@debug_option
@click.argument("user_specs", metavar="[SPEC]...", nargs=-1)
@click.option("--status", is_flag=True, help="Only report which spec modules run compiled, build nothing.")
def compile_cmd(user_specs: tuple[str, ...], status: bool) -> None:
    """Compile the registered specs with Cython (checks take about a quarter less time); needs a C compiler.

    Only modules whose current source has no build yet are compiled, so this
    is cheap to re-run; an edited spec runs interpreted until it is rebuilt.
    Also writes the class-data archive that lets the Spark engine start its
    JVM in about half the time (once per JDK and pyspark; about 15 s).

    With SPEC (path/to/spec.py or pkg.module), build that user spec now, as
    a check would in the background.
    """
    from modelcheck.build import compiled

    if user_specs:
        _compile_user_specs(user_specs)
        return

    if not status:
        report = compiled.build()
        click.echo(f"compiled {len(report.built)} modules ({len(report.current)} already current) "
                   f"into {report.root} in {report.seconds:.1f}s")
    modules = compiled.status()
    built = sum(ok for _, ok in modules)
    if os.environ.get(compiled.DISABLE_ENV):
        click.echo(f"compiled specs: off ({compiled.DISABLE_ENV} is set); {built} of {len(modules)} built")
    else:
        click.echo(f"compiled specs: {built} of {len(modules)} modules run compiled")
    if status:
        for name, ok in modules:
            click.echo(f"  {name}: {'compiled' if ok else 'interpreted (no current build)'}")
    from modelcheck.spark_explore import jvm_archive

    if status:
        path = jvm_archive.archive_path()
        state = "current" if path and os.path.isfile(path) else "not built"
        click.echo(f"Spark JVM class archive: {state}" + (f" ({path})" if path else " (no java or no pyspark)"))
    else:
        outcome, seconds = jvm_archive.build()
        click.echo(f"Spark JVM class archive: {outcome}" + (f" in {seconds:.1f}s" if outcome == "built" else ""))


def _compile_user_specs(refs: tuple[str, ...]) -> None:
    """``modelcheck compile SPEC...``: build user specs now (what a check starts in the background)."""
    import time

    from modelcheck.build import user_specs
    from modelcheck.spec.loader import user_module_name

    for ref in refs:
        target = ref.partition(":")[0]
        if target.endswith(".py") or os.sep in target:
            if not os.path.isfile(target):
                raise UsageError(f"no spec file {target}")
            module = user_specs.UserModule(user_module_name(target), os.path.abspath(target))
        else:
            found = user_specs.for_module(target)
            if found is None:
                raise UsageError(f"{target} is not a user spec module with a .py source (registered specs: "
                                 "modelcheck compile)")
            module = found
        start = time.monotonic()
        before = user_specs.current_build(module)
        so = user_specs.build(module)
        state = "already current" if before == so else f"built in {time.monotonic() - start:.1f}s"
        click.echo(f"{target}: compiled ({state})")


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise UserInterrupt  # not the spec's: spec wrappers let it through


def _print_result(spec: Spec, c: Any, result: CheckResult, *, full_trace: bool, coverage: bool) -> None:
    from modelcheck.counterexamples.tracefile import counterexample_text

    for v in result.violations:
        if v.kind == "deadlock":
            click.echo("Error: Deadlock reached.")
            click.echo("  (A reachable state has no successor. If the spec's final states are meant to have none, "
                       "declare deadlock_expected=True in its Spec, or check with --no-deadlock.)")
        elif v.kind == "liveness":
            click.echo(f"Error: Temporal property {v.name} is violated.")
            if v.description:
                click.echo(f"  ({v.name}: {v.description})")
            _print_why(spec, c, v)
            click.echo("Error: The following behavior constitutes a counter-example:")
        elif v.kind == "step":
            click.echo(f"Error: Step property {v.name} is violated by the last step.")
            if v.description:
                click.echo(f"  ({v.name}: {v.description})")
            _print_why(spec, c, v)
        elif v.kind == "initial":
            click.echo(f"Error: Initial-state property {v.name} is violated by an initial state.")
            if v.description:
                click.echo(f"  ({v.name}: {v.description})")
            _print_why(spec, c, v)
        else:
            click.echo(f"Error: Invariant {v.name} is violated.")
            if v.description:
                click.echo(f"  ({v.name}: {v.description})")
            why = explanation_json(spec, c, v).get("explanation")
            if why:
                click.echo(f"  Why: {why}")
        if v.kind != "liveness":
            click.echo(f"Error: The behavior up to this point is ({_states(len(v.trace))}):")
        click.echo(counterexample_text(spec, c, v, only_changes=not full_trace))
    if result.result == "holds":
        click.echo("Model checking completed. No error has been found.")
    elif result.result == "incomplete" and result.stopped_by in ("max-states", "max-depth"):
        click.echo(f"Model checking incomplete: --{result.stopped_by} stopped the search; no error found so far.")
    elif result.result == "incomplete":
        click.echo(f"Model checking stopped early ({result.stopped_by}); no error found so far.")
    elif result.stopped_by == "max-memory":
        click.echo("Model checking stopped: the --max-memory budget was reached; statistics so far:")
    elif result.stopped_by == "out-of-memory":
        click.echo("Model checking stopped: out of memory; statistics so far:")
    elif result.result == "interrupted":
        click.echo("Model checking interrupted; statistics so far:")
    for line in summary_lines(result):
        click.echo(line)
    if coverage:
        click.echo("Coverage (per action):")
        for line in coverage_lines(result):
            click.echo(line)
    for w in result.warnings:
        click.echo(f"Warning: {w}", err=True)


def _print_why(spec: Spec, c: Any, v: Any) -> None:
    """A property's own account of its counterexample (``explain``), indented under its name, if it gives one."""
    why = explanation_json(spec, c, v).get("explanation")
    if why:
        click.echo("  Why: " + why.replace("\n", "\n  "))


def _states(n: int) -> str:
    return f"{n} state" if n == 1 else f"{n} states"


def run() -> None:
    """Console-script entry point: errors as one line (and the trace that led there) with exit 2.

    ``--debug`` adds the traceback; the exit status stays 2.
    """
    from modelcheck.supervisor import channel as supervisor_channel, supervised

    # ``check`` runs in a child whose parent only waits: forked as the package started (modelcheck/__init__),
    # or here when this function is called some other way.
    channel = supervisor_channel() or supervised(sys.argv[1:])
    settings: dict[str, Any] = {"debug": False, "status": None, "supervisor": channel}
    try:
        _run(settings)
    except SystemExit as end:
        if channel is not None:
            code = end.code
            status = code if isinstance(code, int) else 0 if code is None else 1
            channel.done(status)
            channel.leave(status)
        raise


def _run(settings: dict[str, Any]) -> None:
    """:func:`run`'s work: every way out is ``sys.exit`` with the command's status."""
    from modelcheck.build import compiled
    from modelcheck.model.blame import real_interrupts

    import modelcheck

    if sys.stdout is not None and not isinstance(sys.stdout, _GuardedStream):
        sys.stdout = _GuardedStream(sys.stdout)
    if sys.stderr is not None and not isinstance(sys.stderr, _QuietStream):
        sys.stderr = _QuietStream(sys.stderr)
    try:
        if signal.getsignal(signal.SIGINT) is modelcheck._interrupted_while_starting:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        compiled.activate()  # before any spec or engine module is imported (see modelcheck.build.compiled)
        with real_interrupts():  # a Ctrl-C inside spec code is the user's, not the spec's
            try:
                rv = main.main(standalone_mode=False, obj=settings)
            except click.exceptions.Exit as exc:
                rv = exc.exit_code
            sys.stdout.flush()
        sys.exit(rv if isinstance(rv, int) else 0)
    except OutputFailure as failure:
        sys.exit(_output_failed(failure.error, settings["status"]))
    except MemoryError:
        click.echo("error: out of memory (before the search could report it with statistics)", err=True)
        sys.exit(3)
    except click.exceptions.Abort:
        # click turns a Ctrl-C outside the search (loading, preflight) into Abort.
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2 if exc.exit_code in (1, 2) else exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except ModelCheckError as exc:
        if settings["debug"]:
            traceback.print_exc()
        click.echo(f"error: {exc}", err=True)
        if isinstance(exc, SpecRuntimeError) and exc.trace:
            click.echo(f"The behavior up to the failing state ({_states(len(exc.trace))}):", err=True)
            for i, step in enumerate(exc.trace, 1):
                click.echo(f"  State {i}: <{step.action or 'Initial predicate'}> {step.state!r}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)


@main.command("explore")
@click.argument("spec_ref", metavar="SPEC")
@click.option("--const", "consts", type=ConstParam(), multiple=True,
              help="Set a constant (default: the trace's constants with --trace, else the spec's).")
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False), default=None,
              help="Open at the end of this counterexample (a trace.json from check --out).")
@click.option("--port", type=click.IntRange(min=0, max=65535), default=8000, show_default=True,
              help="Port to listen on, on 127.0.0.1 only (0 picks a free one).")
def explore_cmd(spec_ref: str, consts: tuple, trace_file: str | None, port: int) -> None:
    """Browse SPEC's states in a local web page: every enabled action, step forward and back.

    Serves http://127.0.0.1:PORT/ until Ctrl-C.  The page starts at an
    initial state (or at the end of --trace), lists every enabled action with
    the changes it makes, shows which invariants hold, keeps the path in its
    URL and compares two states side by side.  It replays the spec on every
    request, so no state graph is built: any state space can be browsed.
    """
    from modelcheck.counterexamples.explore.server import ExploreServer, start_path, trace_constants
    from modelcheck.counterexamples.explore.session import Explorer
    from modelcheck.counterexamples.tracefile import load
    from modelcheck.spec.constants import build_constants

    spec = load_spec(spec_ref)
    doc = load(trace_file) if trace_file else None
    if doc is not None and not consts:
        consts = trace_constants(spec, doc)
    explorer = Explorer(spec, build_constants(spec, consts))
    server = ExploreServer(explorer, port, start_path(explorer, doc))
    click.echo(f"Exploring {spec.name} at {server.url} (Ctrl-C to stop)")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("Stopped.")
    finally:
        server.server_close()
