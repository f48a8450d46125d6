"""Functions for tests/test_memo_allowlist.py: each one a construct the memo tables' allowlist must accept or
refuse (the expected answer is in the test, beside each name).  Not a spec: the functions only need a source."""

import enum
import functools
import itertools
import math
import operator
from typing import Callable, NamedTuple

import attrs


class S(NamedTuple):
    a: int
    b: tuple

    def bumped(self):
        return self._replace(a=self.a + 1)


class Typed(NamedTuple):
    a: int

    def kind(self):
        return type(self.a) is int


@attrs.frozen
class PlainConstants:
    N: int = 3
    Names: frozenset = frozenset({"a", "b"})


@attrs.frozen
class ConstantsWithMethod:
    N: int = 3

    def same(self, v, w):
        return v is w  # called as ``c.same(...)``: no name in the spec resolves to it


def _tag_type(v):
    return type(v).__name__


@attrs.frozen
class ConstantsHoldingAFunction:
    N: int = 3
    Tag: Callable = _tag_type  # called as ``c.Tag(x)``


class WithProperty(NamedTuple):
    a: int

    @property
    def first(self):
        return isinstance(self.a, bool)


def plain(c, s):
    x = [v + 1 for v in s.b]
    d = {}
    d[1] = 2
    if any(x) and s.a is not None and math.floor(s.a) >= 0:
        return S(s.a + 1, tuple(sorted(x, key=lambda v: -v)))
    return None


def uses_methods(c, s):
    return s.bumped() if frozenset.union(frozenset(), *[frozenset(s.b)]) else None


def uses_library(c, s):
    return functools.reduce(operator.add, itertools.chain(s.b, (s.a,)), 0)


def generator_helper(s):
    for x in s.b:
        yield x


def uses_generator(c, s):
    return sum(generator_helper(s))


def uses_match(c, s):
    match s.a:
        case 0:
            return None
    return s


def uses_type_in_method(c, s):
    return Typed(s.a).kind()


def uses_isinstance_in_property(c, s):
    return WithProperty(s.a).first


@functools.lru_cache
def cached(x):
    return x + 1


def uses_lru_cache(c, s):
    return cached(s.a)


DISPATCH = {0: lambda s: type(s.a)}


def uses_dispatch(c, s):
    return DISPATCH[0](s)


def uses_operator_is(c, s):
    return operator.is_(s.a, True)


def uses_map_type(c, s):
    return list(map(type, s.b))


def type_of(x):
    return type(x)


PARTIAL = functools.partial(type_of)


def uses_partial(c, s):
    return PARTIAL(s.a)


def uses_import_inside(c, s):
    from math import floor
    return floor(s.a)


CACHE = {}


def uses_global_store(c, s):
    CACHE[s.a] = 1
    return s


def uses_setdefault(c, s):
    return CACHE.setdefault(s.a, s)


def uses_mutable_default(c, s, acc=[]):  # noqa: B006 - the construct under test
    acc.append(1)
    return s


def uses_dunder(c, s):
    return s.a.__class__


def uses_getattr(c, s):
    return getattr(s.a, "real")


def uses_try(c, s):
    try:
        return s.b[5]
    except IndexError:
        return None


COUNTER = itertools.count()


def uses_module_iterator(c, s):
    return next(COUNTER)


def uses_identity(c, s):
    def inner(x):
        return x is s.a
    return inner(1)


def uses_global_statement(c, s):
    global COUNTER
    return s


def shadows_a_builtin_elsewhere(c, s):
    def other():
        type = 3  # noqa: F841 - a local of another scope
    return type(s.a)


def local_named_id(c, s):
    id = s.a  # a local that happens to bear a builtin's name
    return id + 1


FORMAT = "%s"


def uses_format_of_a_part(c, s):
    return "%s" % s.b  # a tuple part: Python formats its items, the tables would format the part


def uses_format_through_names(c, s):
    label = "b=" + FORMAT
    return label % s.b


def label_of(fmt, part):
    return fmt % part  # ``fmt`` is a parameter: it may be text


def uses_format_from_a_parameter(c, s):
    return label_of("%s", s.b)


def uses_format_from_a_constant(c, s):
    return c.Format % s.b


def uses_format_in_place(c, s):
    text = "%s"
    text %= s.b
    return text


class Label(NamedTuple):
    name: str

    def __add__(self, other):
        return f"{self.name}%s"  # arithmetic that gives text: a ``%`` after it formats


LABEL = Label("b=")


def uses_remainder_of_text_made_by_arithmetic(c, s):
    return (LABEL + 1) % s.b


def uses_remainder_of_a_part(c, s):
    return s.a % c.N  # neither side is known not to be text: ``int(s.a) % c.N`` says it


def uses_remainder_of_an_int(c, s):
    total = len(s.b)
    total += 1
    return int(s.a) % c.N + total % c.N + (s.a - 1) % c.N + abs(s.a) % s.a


def uses_format_with_a_tuple(c, s):
    return "%s %d" % (s.b, s.a) if f"{s.a}" else None


def uses_modulo(c, s):
    n = s.a + 1
    return s.a % 3 + n % len(s.b) + (s.a + 1) % 2


def uses_operator_add(c, s):
    return operator.add(s.b, (1,))


# -- changing objects: only what the call made may change -------------------------------------------------

TALLY = {"n": 0}


@attrs.define
class Box:
    n: int = 0

    def __attrs_post_init__(self):
        self.n = self.n + 1  # the object being made: allowed


BOX = Box()


def uses_an_alias_of_a_module_dict(c, s):
    d = TALLY
    d.update(n=d["n"] + 1)
    return s


def _put(d, k, v):
    d[k] = v
    return d


def uses_a_helper_changing_a_module_dict(c, s):
    _put(TALLY, "n", True)
    return s


def uses_a_helper_changing_what_the_call_made(c, s):
    made = _put({}, "a", s.a)
    made["b"] = len(s.b)  # ``_put`` returns what it was given: made here
    rows = [list(s.b)]
    rows.append([1])
    return made if made else None


def _bump(o):
    o.n += 1


def uses_a_helper_changing_a_module_object(c, s):
    _bump(BOX)
    return s


def uses_a_changing_helper_passed_on(c, s):
    list(map(_bump, [BOX]))
    return s


def _peek(o=BOX):
    o.n -= 1
    return o.n


def uses_a_default_that_is_changed(c, s):
    return _peek() + s.a


def uses_an_attribute_of_an_alias(c, s):
    b = BOX
    b.n = s.a
    return s


def uses_an_object_it_makes(c, s):
    b = Box(s.a)
    return b.n


def uses_an_item_of_what_it_made(c, s):
    rows = [TALLY]
    rows[0]["n"] = s.a  # the list is new, the dict in it is not
    return s


def uses_sum_from_a_part(c, s):
    return sum(s.b, s.a)


def uses_sum_from_zero(c, s):
    return sum(s.b, 0) + sum(s.b, start=1)


def uses_setitem_function(c, s):
    operator.setitem(TALLY, "n", s.a)
    return s


def uses_list_append_unbound(c, s):
    list(map(list.append, [[]], [s.a]))
    return s


def uses_concat(c, s):
    return operator.concat(s.b, (1,))


@attrs.define
class Poke:
    other: object = None

    def __attrs_post_init__(self):
        o = self.other
        o.n = o.n + 1  # the object handed in, not the one being made


def uses_a_post_init_that_changes_another(c, s):
    Poke(BOX)
    return s


class Colour(enum.Enum):
    RED = 1
    BLUE = 2


def uses_an_enum_call_as_if_it_made_an_object(c, s):
    shade = Colour(1)  # the member, made once
    shade.seen = s.a
    return s


class Shared:
    def copy(self):
        return BOX


def uses_a_copy_method_of_its_own(c, s):
    b = Shared().copy()
    b.n = s.a
    return s
