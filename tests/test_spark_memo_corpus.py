"""Spark's executors on the memo tables against the spec's own code, on the corpus of ordinary-Python baits.

``tests/memo_corpus/`` holds small specs written with the Python a user
writes and a recording stand-in could get wrong (``match``, ``type()``,
caches, ``1`` and ``True``, ``-0.0``...).  On Spark each executor's Python
worker builds and learns its own tables, and candidates cross processes as
rows of parts numbered per chunk: so every module must give on Spark, by
default, exactly what the spec's own code gives in one process (verdict,
counts, depth, shortest trace), and where an executor's tables stood aside
the run says so.
"""

from __future__ import annotations

import pytest

import modelcheck
from modelcheck.errors import SpecRuntimeError
from corpus_support import summary
from test_memo_corpus import KNOWN_GAPS, SPECS

pytestmark = [pytest.mark.spark]


@pytest.fixture(params=SPECS, ids=[p.stem for p in SPECS])
def corpus_spec(request):
    if request.param.stem in KNOWN_GAPS:
        pytest.skip(KNOWN_GAPS[request.param.stem])
    return str(request.param)


def _outcome(run) -> dict | str:
    try:
        return summary(run(), sometimes=True)
    except SpecRuntimeError as err:
        return "error: " + str(err).splitlines()[0]


def test_spark_on_the_tables_gives_the_specs_own_answer(corpus_spec, sc, record_property):
    plain = _outcome(lambda: modelcheck.check(corpus_spec, memo=False))
    result: dict = {}

    def on_spark():
        r = modelcheck.check(corpus_spec, engine="spark", spark_context=sc)
        result["run"] = r
        return r

    spark = _outcome(on_spark)
    assert spark == plain, f"Spark on the tables: {spark}; the spec's own code in one process: {plain}"
    run = result.get("run")
    if run is not None:
        held = (run.engine_report or {}).get("executor_successors", {})
        record_property("executors", str(held))
        aside = [w for w in run.warnings if w.startswith("the memo tables") and "Spark worker" in w]
        off = [name for name, how in held.items() if how.startswith("the spec's own code:")]  # the tables stood aside
        assert all(how == "memo tables" or how.startswith("the spec's own code") for how in held.values()), held
        assert bool(aside) == bool(off) and all(any(name in w for w in aside) for name in off), run.warnings

