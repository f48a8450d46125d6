"""The Spark engine gives exactly the local engine's results (counts, coverage, first violation and trace)."""

from __future__ import annotations

import json

import pytest

from conftest import MODELS, check, run_cli
from modelcheck.options import CheckOptions
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec
from spark_support import differences

pytestmark = pytest.mark.spark




def both(sc, ref: str, consts=(), **opts):
    spec = load_spec(ref)
    c = build_constants(spec, consts)
    options = CheckOptions(**opts)
    return check(spec, c, options), check(spec, c, options, engine="spark", sc=sc, ref=ref)


CASES = [
    # Every spec of the reference table, at configurations that fit in CI.
    ("kip320", (("Replicas", "2"),), {}),
    ("kip279", (("Replicas", "2"),), {}),
    ("truncate-to-hw", (), {}),
    ("kip101", (), {}),
    ("kip279", (), {}),
    ("kip320-first-try", (("Replicas", "2"),), {}),
    ("async-isr", (("MaxOffset", "1"), ("MaxVersion", "2")), {}),
    ("broker-failures", (), {}),
    ("broker-failures", (("Truncation", "kip279"),), {}),
    # Engine features.
    (str(MODELS / "die_hard.py"), (), {}),
    (str(MODELS / "die_hard.py"), (), {"continue_after_violation": True}),
    (str(MODELS / "tcommit.py"), (), {"symmetry": True}),
    (str(MODELS / "tcommit.py"), (), {"check_deadlock": True}),
    ("kip320", (("Replicas", "2"),), {"max_states": 1000}),
    ("kip320", (("Replicas", "2"),), {"max_depth": 7}),
    ("truncate-to-hw", (), {"symmetry": True}),
    (str(MODELS / "counter_grid.py"), (("Counters", "2"), ("Max", "6"), ("Limit", "9")), {}),
]


@pytest.mark.parametrize("ref,consts,opts", CASES, ids=[f"{c[0].split('/')[-1]}-{i}" for i, c in enumerate(CASES)])
def test_spark_matches_local(sc, ref, consts, opts):
    local, spark = both(sc, ref, consts, **opts)
    assert spark.engine == "spark"
    assert differences(local, spark) == []
    if local.successors == "memo tables":  # where one process runs on the tables, so do the executors
        assert set(spark.engine_report["executor_successors"].values()) == {"memo tables"}, spark.warnings


OWN_CODE_CASES = [CASES[0], CASES[2], CASES[10], CASES[12], CASES[13]]


@pytest.mark.parametrize("ref,consts,opts", OWN_CODE_CASES,
                         ids=[f"{c[0].split('/')[-1]}-{i}" for i, c in enumerate(OWN_CODE_CASES)])
def test_spark_on_the_specs_own_code_matches_local(sc, ref, consts, opts):
    """``--no-memo``: the executors run the spec's own code and ship pickled states; the same results."""
    spec = load_spec(ref)
    c = build_constants(spec, consts)
    options = CheckOptions(**opts)
    local = check(spec, c, options)
    spark = check(spec, c, options, engine="spark", sc=sc, ref=ref, memo=False)
    assert differences(local, spark) == []
    assert set(spark.engine_report["executor_successors"].values()) == {"the spec's own code, as the run chose"}
    assert spark.engine_report["shuffle"]["candidates"] > 0


def test_orbit_trees_standing_aside_on_an_executor_are_named(sc):
    """A signature the tables' review refuses keeps each worker's orbit trees aside: the counts are the local
    engine's, and the run names the workers, as the local engine notes its own trees."""
    ref = f"{MODELS / 'symmetric_counters.py'}:SPEC_REFUSED_SIGNATURE"
    local, spark = both(sc, ref, (("N", "3"), ("Max", "2")), symmetry=True, continue_after_violation=True)
    assert [d for d in differences(local, spark) if not d.startswith("warnings:")] == []  # notes: below
    assert set(spark.engine_report["executor_successors"].values()) == {"memo tables"}
    aside = spark.engine_report["executor_orbit_trees_aside"]
    assert aside and all("isinstance" in why for why in aside.values()), aside
    local_note = [w for w in local.warnings if w.startswith("the orbit trees stood aside")]
    spark_note = [w for w in spark.warnings if w.startswith("the orbit trees stood aside on Spark worker")]
    assert len(local_note) == 1 and "isinstance" in local_note[0], local.warnings
    assert len(spark_note) == 1 and all(name in spark_note[0] for name in aside), spark.warnings


def test_memo_on_spark_insists_on_the_tables_in_every_worker():
    """``--memo`` with Spark: a run whose workers all ran on the tables reports it; one whose worker could not
    is refused in one line (exit 2), as the local engine refuses it."""
    ok = run_cli("check", "kip320", "--const", "Replicas=2", "--engine", "spark", "--master", "local[1]", "--memo",
                 "-q", "--json")
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert set(json.loads(ok.stdout)["spark"]["executor_successors"].values()) == {"memo tables"}
    refused = run_cli("check", str(MODELS.parent / "memo_corpus" / "cache_lru.py"), "--engine", "spark",
                      "--master", "local[1]", "--memo", "-q")
    assert refused.returncode == 2, refused.stderr[-2000:]
    lines = [ln for ln in refused.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and "lru_cache" in lines[0] and "Traceback" not in refused.stderr


def test_spec_error_on_an_executor_is_reported_like_the_local_engine(sc):
    """An action that raises on an executor: the same message and the same trace to the failing state.

    The states are ints, whose fingerprints are small ints: state 2 once collided with the merge's
    shard-record tag and vanished, so this run wrongly "held".
    """
    from modelcheck.errors import SpecRuntimeError

    ref = str(MODELS / "broken" / "raises_in_action.py")
    spec = load_spec(ref)
    c = build_constants(spec, ())
    with pytest.raises(SpecRuntimeError) as local_err:
        check(spec, c)
    with pytest.raises(SpecRuntimeError) as spark_err:
        check(spec, c, engine="spark", sc=sc, ref=ref)
    assert str(spark_err.value) == str(local_err.value)
    assert [(t.action, t.state) for t in spark_err.value.trace] == [(t.action, t.state) for t in local_err.value.trace]
    assert [t.state for t in spark_err.value.trace] == [0, 1, 2]


@pytest.mark.parametrize("name,consts", [
    ("raises_in_invariant.py", ()),
    ("invariant_generator.py", ()),
    ("action_returns_bool.py", ()),
    ("action_returns_mixed_list.py", ()),
    ("constraint_returns_none.py", ()),
    ("action_constraint_returns_int.py", ()),
    ("sometimes_returns_list.py", ()),
    ("raises_base_exception.py", (("Where", "action"), ("Kind", "exit3"))),
    ("raises_base_exception.py", (("Where", "invariant"), ("Kind", "keyboard-interrupt"))),
])
def test_broken_specs_fail_on_executors_as_on_the_local_engine(sc, name, consts):
    """A wrong return value or a BaseException in spec code on an executor: the same error class, line and trace."""
    from modelcheck.errors import SpecRuntimeError

    ref = str(MODELS / "broken" / name)
    spec = load_spec(ref)
    c = build_constants(spec, consts)
    with pytest.raises(SpecRuntimeError) as local_err:
        check(spec, c)
    with pytest.raises(SpecRuntimeError) as spark_err:
        check(spec, c, engine="spark", sc=sc, ref=ref)
    assert type(spark_err.value) is type(local_err.value)
    assert str(spark_err.value) == str(local_err.value)
    assert [(t.action, t.state) for t in spark_err.value.trace] == [(t.action, t.state) for t in local_err.value.trace]


def test_cli_engine_spark_prints_the_same_summary():
    args = ("check", str(MODELS / "die_hard.py"), "--json", "-q")
    local = json.loads(run_cli(*args).stdout)
    p = run_cli(*args, "--engine", "spark", "--master", "local[1]")
    assert p.returncode == 1, p.stderr[-2000:]
    spark = json.loads(p.stdout)
    for key in ("result", "distinct_states", "states_generated", "depth", "actions", "violation"):
        assert spark[key] == local[key]
    assert spark["engine"] == "spark"


def test_bad_master_is_a_clear_error():
    p = run_cli("check", str(MODELS / "die_hard.py"), "--engine", "spark", "--master", "nonsense://x")
    assert p.returncode == 2
    assert "could not start Spark with master nonsense://x" in p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("master", ["local[0]", "local[x]"])
def test_a_local_master_without_threads_is_one_line_before_spark_starts(master):
    """Spark refuses local[0] only once its JVM is up, after a page of Java log; it is refused before."""
    p = run_cli("check", str(MODELS / "die_hard.py"), "--master", master)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [f"error: --master {master}: a local master runs at least one thread: "
                                             "local, local[N] with N >= 1, or local[*]"]


def test_the_jvm_compiles_with_c1_only(sc):
    """The driver JVM (local executors included) got the JIT option; cluster executors are configured for it."""
    from modelcheck.spark_explore.session import JIT_OPTION

    args = list(sc._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
    assert JIT_OPTION in args
    assert JIT_OPTION in sc.getConf().get("spark.executor.extraJavaOptions").split()


def test_the_driver_keeps_no_parent_records_and_traces_walk_the_shards(sc):
    """The driver holds level sizes only; a trace of length L costs L - 1 lookups in the executors' shards.

    Kip101 with two replicas violates StrongIsr with a 12-state trace (the
    local engine gives the same trace: ``test_spark_matches_local``).
    """
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.search.driver import LevelDriver
    from modelcheck.spark_explore.backend import SparkBackend

    spec = load_spec("kip101")
    c = build_constants(spec, (("Replicas", "2"),))
    local = check(spec, c)
    model = BoundModel(spec, c, CheckOptions())
    backend = SparkBackend(model, "kip101", sc=sc)
    driver = LevelDriver(model, backend)
    result = driver.run()
    assert differences(local, result) == []
    assert driver.parents is None  # handed to the shards when the first level started
    assert sum(driver.level_sizes) == result.distinct_states
    trace = result.violations[0].trace
    assert len(trace) == 12
    report = result.engine_report
    assert report["trace_lookups"] == len(trace) - 1
    assert sum(report["shard_states"]) >= result.distinct_states  # shards hold the whole last level found
    assert report["driver_peak_rss_bytes"] > 0
