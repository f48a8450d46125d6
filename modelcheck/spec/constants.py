"""Declaring and parsing a spec's constants.

A spec's constants are a frozen attrs class.  Each field is declared with
:func:`constant`, which attaches a default, a one-line description and the
range checks as attrs metadata and validators.  Validation therefore happens in
one place (the attrs ``__init__``) whether constants come from the CLI, a test
or a Spark executor, and the CLI can list and parse them without knowing the
spec.

A constant is an int, a bool, a str, or, as a TLC model gives it, a set or
a sequence of such values to any depth (``RM = {r1, r2, r3}``, model values
being strs; :mod:`modelcheck.spec.tla_values`).  A set or sequence constant
given as text (the command line, a checkpoint's identity, a Spark job) is
parsed where it is set, by the field's converter, so every path reads it
the same way.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import attrs

from modelcheck.errors import ConstantError, UsageError
from modelcheck.spec import tla_values

STRUCTURED = (frozenset, tuple)
"""The kinds of constant written in TLC's notation rather than as one word."""

_META = "modelcheck"


def constant(
    default: Any,
    description: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    choices: Iterable[str] | None = None,
) -> Any:
    """Declare one constant field: its default, a one-line description, its valid range.

    The type is taken from the default: int, bool, str, or a set or sequence
    (a ``frozenset``/``set``, a ``tuple``/``list``) of such values, to any
    depth.  ``choices`` restricts a str constant; ``minimum``/``maximum`` bound
    an int one.  Ranges exist so that absurd values (negative sizes, 10**9
    replicas) are refused before the search starts rather than hanging it.
    """
    if isinstance(default, (set, frozenset, list)) or type(default) is tuple:
        default = tla_values.freeze(default, name="default")
    kind = frozenset if isinstance(default, frozenset) else tuple if isinstance(default, tuple) else type(default)
    if kind not in (int, bool, str, *STRUCTURED):
        raise TypeError(f"constant default must be int, bool, str, or a set or tuple of them, not {kind.__name__}")
    if kind in STRUCTURED and (minimum is not None or maximum is not None or choices is not None):
        raise TypeError("minimum, maximum and choices bound an int or str constant, not a set or tuple")
    choice_tuple = tuple(choices) if choices is not None else None

    def convert(value: Any) -> Any:
        if kind not in STRUCTURED:
            return value
        if isinstance(value, str):
            return tla_values.parse(value)
        try:
            return tla_values.freeze(value)
        except ConstantError:
            return value  # the validator names the constant

    def validate(instance: Any, attribute: attrs.Attribute, value: Any) -> None:
        name = attribute.name
        if kind in STRUCTURED:
            if isinstance(value, (set, frozenset, list, tuple)):
                tla_values.freeze(value, name=name)  # names what in it a state could not hold
            if not isinstance(value, kind):
                what = "a set, e.g. {r1, r2}" if kind is frozenset else "a sequence, e.g. <<1, 2>>"
                raise ConstantError(f"constant {name} must be {what}, got {tla_values.text_or_repr(value)}")
            return
        if kind is int and (type(value) is not int):
            raise ConstantError(f"constant {name} must be an integer, got {value!r}")
        if kind is bool and type(value) is not bool:
            raise ConstantError(f"constant {name} must be true or false, got {value!r}")
        if kind is str and type(value) is not str:
            raise ConstantError(f"constant {name} must be a string, got {value!r}")
        if minimum is not None and value < minimum:
            raise ConstantError(f"constant {name}={value} is below its minimum {minimum}")
        if maximum is not None and value > maximum:
            raise ConstantError(f"constant {name}={value} is above its maximum {maximum}")
        if choice_tuple is not None and value not in choice_tuple:
            raise ConstantError(
                f"constant {name}={value!r} is not one of {', '.join(choice_tuple)}"
            )

    return attrs.field(
        default=default,
        converter=convert,
        validator=validate,
        metadata={
            _META: {
                "description": description,
                "kind": kind,
                "minimum": minimum,
                "maximum": maximum,
                "choices": choice_tuple,
            }
        },
    )


@attrs.frozen
class ConstantInfo:
    """What the CLI shows and parses for one declared constant."""

    name: str
    """The constant's name, as written on the command line (``--const NAME=VALUE``)."""
    kind: type
    """int, bool, str, frozenset or tuple."""
    default: Any
    """The value used when the user gives none."""
    description: str
    """One line saying what the constant bounds or selects."""
    minimum: int | None = None
    """Smallest accepted int value, if bounded."""
    maximum: int | None = None
    """Largest accepted int value, if bounded."""
    choices: tuple[str, ...] | None = None
    """The accepted values of a str constant, if restricted."""

    @property
    def default_text(self) -> str:
        """The default as the command line takes it (TLC's notation for a set or sequence)."""
        return str(value_text(self.default))

    def describe_range(self) -> str:
        """A short human description of the accepted values."""
        if self.kind is frozenset:
            return "set"
        if self.kind is tuple:
            return "sequence"
        if self.choices:
            return "|".join(self.choices)
        if self.kind is bool:
            return "true|false"
        lo = "" if self.minimum is None else str(self.minimum)
        hi = "" if self.maximum is None else str(self.maximum)
        return f"{lo}..{hi}" if (lo or hi) else self.kind.__name__


def constant_infos(cls: type) -> tuple[ConstantInfo, ...]:
    """The declared constants of a constants class, in declaration order."""
    infos = []
    for field in attrs.fields(cls):
        meta = field.metadata.get(_META)
        if meta is None:
            raise TypeError(f"{cls.__name__}.{field.name} is not declared with constant()")
        infos.append(
            ConstantInfo(
                name=field.name,
                kind=meta["kind"],
                default=field.default,
                description=meta["description"],
                minimum=meta["minimum"],
                maximum=meta["maximum"],
                choices=meta["choices"],
            )
        )
    return tuple(infos)


def parse_value(info: ConstantInfo, text: str) -> Any:
    """Parse one command-line value for a constant, with a clear error when it is wrong."""
    text = text.strip()
    if info.kind in STRUCTURED:
        return tla_values.parse(text, name=info.name)
    if info.kind is bool:
        lowered = text.lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
        raise ConstantError(f"constant {info.name} must be true or false, got {text!r}")
    if info.kind is int:
        try:
            return int(text, 10)
        except ValueError:
            raise ConstantError(f"constant {info.name} must be an integer, got {text!r}") from None
    return text


def make_constants(cls: type, values: Mapping[str, Any]) -> Any:
    """Build a validated constants instance, refusing names the spec does not declare."""
    known = {info.name: info for info in constant_infos(cls)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ConstantError(
            f"unknown constant {unknown[0]!r}; this spec declares: {', '.join(known) or 'none'}"
        )
    return cls(**values)


def build_constants(spec: Any, values: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> Any:
    """The constants of ``spec`` with ``values`` (a mapping or (name, value) pairs) set by name.

    Text, as typed on a command line, is parsed into the constant's type.
    """
    infos = {i.name: i for i in spec.constant_infos}
    parsed: dict[str, Any] = {}
    for name, value in dict(values).items():
        if name not in infos:
            raise UsageError(
                f"unknown constant {name!r} for spec {spec.name}; it declares: {', '.join(infos) or 'none'}"
            )
        info = infos[name]
        parsed[name] = parse_value(info, value) if isinstance(value, str) and info.kind is not str else value
    return make_constants(spec.constants_class, parsed)


def value_text(value: Any) -> Any:
    """A constant's value as JSON and the command line hold it: itself, or TLC's notation for a set or sequence."""
    return tla_values.text(value) if isinstance(value, STRUCTURED) else value


def constants_to_dict(consts: Any) -> dict[str, Any]:
    """The constants as a plain dict of JSON values (for output, Spark shipping and checkpoints).

    A set or sequence is its text in TLC's notation, the same in every
    process; setting the constant from that text gives the value back.
    """
    return {f.name: value_text(getattr(consts, f.name)) for f in attrs.fields(type(consts))}
