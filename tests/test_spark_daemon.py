"""The Python worker daemon for Spark: quiet when the JVM hangs up, loud for anything else."""

from __future__ import annotations

import traceback

import pytest

from modelcheck.spark_explore.daemon import _QuietTraceback


@pytest.mark.parametrize("exc", [BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")])
def test_a_closed_connection_is_not_reported(capsys, exc) -> None:
    try:
        raise exc
    except OSError:
        _QuietTraceback().print_exc()
    assert capsys.readouterr().err == ""


def test_other_failures_keep_their_traceback(capsys) -> None:
    quiet = _QuietTraceback()
    try:
        raise ValueError("a real worker failure")
    except ValueError:
        quiet.print_exc()
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert err.rstrip().endswith("ValueError: a real worker failure")
    assert quiet.format_exc is traceback.format_exc  # everything else is the traceback module's
