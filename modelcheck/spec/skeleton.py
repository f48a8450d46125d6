"""``modelcheck new NAME``: a small runnable spec to start from, with the parts to change marked.

A blank page is the hardest part of a first spec.  The skeleton is a
complete spec (constants, state, init, an action with a parameter, an
invariant, a ``sometimes`` property) that checks as it is, so that each
change can be checked at once; docs/writing-specs.md explains every part.
"""

from __future__ import annotations

import keyword
import os
from string import Template

from modelcheck.errors import UsageError

TEMPLATE = Template('''\
"""${title}: a spec to make your own (written by `modelcheck new ${name}`).

The example: a leader (replica r1) appends records and the followers copy
them.  Replace it with your protocol part by part, checking as you go:

    modelcheck check ${name}.py

Each part is explained in docs/writing-specs.md (in the modelcheck repository).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant, sometimes
from modelcheck.spec.replace import replace_at, replacer


# -- constants: each one finite, with its range (modelcheck check ... --const Replicas=3) --------------
@attrs.frozen
class Config:
    Replicas: int = constant(2, "number of replicas", minimum=1, maximum=5)
    MaxRecords: int = constant(2, "records the leader appends in all", minimum=0, maximum=5)


# -- the state: one NamedTuple of ints, bools, tuples and frozensets (no lists, dicts, str or None) ---
class State(NamedTuple):
    logs: tuple[tuple[int, ...], ...]
    """Per replica, its log: the records' ids."""


def init(c: Config) -> list[State]:
    """The initial states: a list, even of one."""
    return [State(logs=((),) * c.Replicas)]


REPLICA = Domain("replica", lambda c: range(c.Replicas), lambda r: f"r{r + 1}")
LEADER = 0
with_logs = replacer(State, "logs")


# -- actions: return None while disabled, else the next state (or a list of next states) --------------
@action("Append")
def append(c: Config, s: State) -> State | None:
    """The leader appends the next record."""
    log = s.logs[LEADER]
    if len(log) >= c.MaxRecords:
        return None
    return with_logs(s, replace_at(s.logs, LEADER, log + (len(log),)))


@action("Copy", follower=REPLICA)
def copy(c: Config, s: State, follower: int) -> State | None:
    """A follower copies the leader's next record."""
    if follower == LEADER:
        return None
    mine, leaders = s.logs[follower], s.logs[LEADER]
    if len(mine) >= len(leaders):
        return None
    return with_logs(s, replace_at(s.logs, follower, leaders[:len(mine) + 1]))


# -- invariants: True or False in every reachable state ------------------------------------------------
@invariant("FollowersArePrefixes", "Every follower's log is a prefix of the leader's.")
def followers_are_prefixes(c: Config, s: State) -> bool:
    return all(s.logs[LEADER][:len(log)] == log for log in s.logs)


# -- sometimes: must hold in some reachable state, or the check warns that it may be vacuous ----------
@sometimes("AllReplicated", "Every replica holds every record.")
def all_replicated(c: Config, s: State) -> bool:
    return all(len(log) == c.MaxRecords for log in s.logs)


SPEC = Spec(
    name="${spec_name}",
    title="${title}",
    constants=Config,
    init=init,
    actions=[append, copy],
    invariants=[followers_are_prefixes],
    sometimes=[all_replicated],
    deadlock_expected=True,  # once every replica holds every record, nothing is enabled: expected
)
''')


def skeleton(name: str) -> str:
    """The skeleton spec's source for a module named ``name``."""
    return TEMPLATE.substitute(name=name, spec_name=name.replace("_", "-"),
                               title=name.replace("_", " ").strip().capitalize())


def write_skeleton(name: str, directory: str = ".") -> str:
    """Write ``NAME.py`` in ``directory`` (never over an existing file); its path."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise UsageError(f"{name!r} is not a Python module name (letters, digits and _, not starting with a digit)")
    shadowed = _shadowed(name, directory)
    if shadowed:
        raise UsageError(f"{name}.py would shadow {shadowed} (run from its directory, it is imported in its "
                         "place); choose another name")
    path = os.path.join(directory, name + ".py") if directory != "." else name + ".py"
    try:
        with open(path, "x", encoding="utf-8") as f:
            f.write(skeleton(name))
    except FileExistsError:
        raise UsageError(f"{path} exists; choose another name or remove it") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    return path


def _shadowed(name: str, directory: str) -> str | None:
    """What a module ``NAME.py`` in ``directory`` would hide: modelcheck, a standard or an installed module."""
    import importlib.util
    import sys

    if name == "modelcheck" or name in ("specs", "invariants", "counterexamples", "spark_explore"):
        return "the modelcheck package" if name == "modelcheck" else f"modelcheck's own {name} package"
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return f"the standard library's {name} module"
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if found is None:
        return None
    origin = found.origin or next(iter(found.submodule_search_locations or ()), None)
    if origin and os.path.dirname(os.path.abspath(origin)) == os.path.abspath(directory):
        return None  # the directory's own file: refused below as existing
    return f"the installed module {name}"
