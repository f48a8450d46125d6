"""The memo tables' allowlist (modelcheck.memo.allowlist): what it accepts, what it refuses, and where it says.

Each function of tests/models/allowlist_cases.py is reviewed alone (with the
state classes where the construct hides in a method); the expected answer is
a fragment of the refusal (None: accepted).  Whole specs with these
constructs are compared with the spec's own code and an independent explorer
in tests/test_memo_corpus.py and tests/test_memo_defence.py.
"""

from __future__ import annotations

import pytest

from modelcheck.memo.allowlist import review
from models import allowlist_cases as cases

EXPECTED = {
    "plain": None,
    "uses_methods": None,
    "uses_library": None,
    "uses_generator": None,
    "local_named_id": None,
    "uses_match": "pattern matching (`match`)",
    "uses_type_in_method": "the builtin `type`",
    "uses_isinstance_in_property": "the builtin `isinstance`",
    "uses_lru_cache": "functools.lru_cache",
    "uses_dispatch": "the builtin `type`",
    "uses_operator_is": "`operator.is_`",
    "uses_map_type": "the builtin `type`",
    "uses_partial": "the builtin `type`",
    "uses_import_inside": "an import inside a function",
    "uses_global_store": "an assignment into a module-level object",
    "uses_setdefault": "`.setdefault()` on a module-level object",
    "uses_mutable_default": "a mutable default argument",
    "uses_dunder": "the dunder attribute `.__class__`",
    "uses_getattr": "the builtin `getattr`",
    "uses_try": "`try`",
    "uses_module_iterator": "itertools.count object",
    "uses_identity": "an identity comparison",
    "uses_global_statement": "`global`",
    "shadows_a_builtin_elsewhere": "the builtin `type`",
    "uses_format_of_a_part": "`%` whose left operand may be text",
    "uses_format_through_names": "`%` whose left operand may be text",
    "uses_format_from_a_parameter": "`%` whose left operand may be text",
    "uses_format_from_a_constant": "`%` whose left operand may be text",
    "uses_format_in_place": "`%` whose left operand may be text",
    "uses_remainder_of_a_part": "`%` whose left operand may be text",
    "uses_remainder_of_an_int": None,
    "uses_remainder_of_text_made_by_arithmetic": "Label.__add__ may make that arithmetic text",
    "uses_format_with_a_tuple": None,
    "uses_modulo": None,
    "uses_operator_add": None,
    "uses_an_alias_of_a_module_dict": "`.update()` on an object this call did not make",
    "uses_a_helper_changing_a_module_dict": "_put changes what its parameter `d` names, and this call passes an object",
    "uses_a_helper_changing_what_the_call_made": None,
    "uses_a_helper_changing_a_module_object": "_bump changes what its parameter `o` names, and this call passes",
    "uses_a_changing_helper_passed_on": "_bump changes what its parameter `o` names, and is reached otherwise",
    "uses_a_default_that_is_changed": "_peek changes what its parameter `o` names, and this call leaves it to its default",
    "uses_an_attribute_of_an_alias": "an assignment to an attribute of an object this call did not make",
    "uses_an_object_it_makes": None,
    "uses_an_item_of_what_it_made": "an assignment into an object this call did not make",
    "uses_sum_from_a_part": "`sum` with a start that may be a state part",
    "uses_sum_from_zero": None,
    "uses_setitem_function": "is not among the functions the memo tables can follow",
    "uses_list_append_unbound": "is not among the functions the memo tables can follow",
    "uses_concat": "is not among the functions the memo tables can follow",
    "uses_a_post_init_that_changes_another": "an assignment to an attribute of an object this call did not make",
    "uses_an_enum_call_as_if_it_made_an_object": "an assignment to an attribute of an object this call did not make",
    "uses_a_copy_method_of_its_own": "an assignment to an attribute of an object this call did not make",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_construct(name):
    found = review([getattr(cases, name)]).refusal
    want = EXPECTED[name]
    if want is None:
        assert found is None
    else:
        assert found is not None and want in found, found
        assert "allowlist_cases.py:" in found  # the file and line, so the author can find it


def test_every_case_is_expected():
    names = {n for n, v in vars(cases).items() if callable(v) and getattr(v, "__module__", "") == cases.__name__
             and (n.startswith("uses_") or n in EXPECTED)}
    assert names <= set(EXPECTED)


def test_the_constants_methods_and_values_are_reviewed_though_no_name_reaches_them():
    """``c.same(x, y)`` or ``c.Tag(x)`` reads an attribute of the constants every function is handed: the
    memo backend passes the constants object, whose class's methods and whose values are reviewed."""
    assert review([cases.plain], constants=cases.PlainConstants()).refusal is None
    found = review([cases.plain], constants=cases.ConstantsWithMethod()).refusal
    assert found is not None and "an identity comparison" in found and "allowlist_cases.py:" in found
    found = review([cases.plain], constants=cases.ConstantsHoldingAFunction()).refusal
    assert found is not None and "the builtin `type`" in found


def test_an_action_parameter_s_methods_are_reviewed():
    """An action called with an object (a Domain of records) may call its methods: ``p.kind()``."""
    assert review([cases.plain], parameters=(((1,), (2,)),)).refusal is None
    found = review([cases.plain], parameters=(((cases.Typed(1),),),)).refusal
    assert found is not None and "the builtin `type`" in found


def test_a_state_class_method_is_reviewed_though_no_action_names_it():
    """A method the actions call on the state they are given (never naming its class) is reached through the
    state's classes, which the memo backend passes from the initial states."""
    def action(c, s):
        return s.kind()

    assert review([cases.plain]).refusal is None
    found = review([cases.plain], [cases.Typed]).refusal
    assert found is not None and "the builtin `type`" in found


def test_module_level_containers_are_reported_for_watching():
    r = review([cases.uses_dispatch.__globals__["plain"]])
    assert r.refusal is None and r.mutables == []
    r = review([_reads_cache])
    assert r.refusal is None and [obj for _w, obj in r.mutables] == [cases.CACHE]


def _reads_cache(c, s):
    return cases.CACHE.get(s.a, s)


def _module_named(name: str, path, source: str):
    import importlib.util
    import sys

    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


LRU_SOURCE = """
import functools

@functools.lru_cache(maxsize=None)
def cached(x):
    return x + 1

def action(c, s):
    return cached(s)
"""


@pytest.mark.parametrize("name", ["modelcheck.specs.review_bait", "modelcheck.specsbait", "modelcheck_user_bait"])
def test_a_spec_compiled_under_the_project_s_name_is_reviewed(tmp_path, name):
    """Only the spec API (``modelcheck.spec`` and its modules) is trusted unread: the project's own specs,
    compiled as ``modelcheck.specs.*``, are reviewed as any spec is (a prefix match once let them through)."""
    import sys

    module = _module_named(name, tmp_path / "bait.py", LRU_SOURCE)
    try:
        found = review([module.action]).refusal
    finally:
        del sys.modules[name]
    assert found is not None and "functools.lru_cache" in found


API_SOURCE = """
from typing import NamedTuple

from modelcheck.spec.renamed import renamed_set
from modelcheck.spec.replace import replace_at, replacer


class S(NamedTuple):
    a: tuple
    b: frozenset


SET_B = replacer(S, "b")


def action(c, s):
    return SET_B(s._replace(a=replace_at(s.a, 0, 1)), renamed_set((1, 0), s.b))
"""


def test_the_spec_api_is_trusted_and_its_generated_functions_too(tmp_path):
    """The spec API's helpers, and the functions ``replacer`` generates, are followed unread."""
    import sys

    module = _module_named("modelcheck_user_api_bait", tmp_path / "api_bait.py", API_SOURCE)
    try:
        assert module.SET_B.__module__ == "modelcheck.spec.replace"
        assert review([module.action]).refusal is None
    finally:
        del sys.modules["modelcheck_user_api_bait"]


RENAMED_SOURCE = """
def _calling(fn):
    def one(c, s, b):
        return fn(c, s, b)
    return one

def step(c, s, b):
    return s

def with_type(c, s, b):
    return type(s)

def named(fn, n):
    one = _calling(fn)
    one.__name__ = one.__qualname__ = fn.__name__ + "_b" + str(n)
    return one

STEP = named(step, 1)
TYPED = named(with_type, 2)
"""


def test_a_function_whose_qualname_was_rewritten_is_found_by_its_code(tmp_path):
    """A generated action renamed after its parameter (``step_b1``) is still found in its source, and what it
    calls is reviewed."""
    import sys

    module = _module_named("modelcheck_user_renamed_bait", tmp_path / "renamed_bait.py", RENAMED_SOURCE)
    try:
        assert review([module.STEP]).refusal is None
        found = review([module.TYPED]).refusal
    finally:
        del sys.modules["modelcheck_user_renamed_bait"]
    assert found is not None and "the builtin `type`" in found, found


WRAPS_SOURCE = """
import functools


def guarded(fn):
    @functools.wraps(fn)
    def wrapper(c, s):
        if type(s) is not tuple:
            return None
        return fn(c, s)
    return wrapper


@guarded
def act(c, s):
    return s
"""


def test_a_wrapper_is_reviewed_not_the_function_whose_name_it_carries(tmp_path):
    """``functools.wraps`` gives the wrapper the wrapped function's ``__qualname__``: the review finds the code
    that runs (the wrapper, inside its decorator), not the clean function the name points at."""
    import sys

    module = _module_named("modelcheck_user_wraps_bait", tmp_path / "wraps_bait.py", WRAPS_SOURCE)
    try:
        assert module.act.__qualname__ == "act"
        found = review([module.act]).refusal
    finally:
        del sys.modules["modelcheck_user_wraps_bait"]
    assert found is not None and "wraps_bait.py" in found, found
