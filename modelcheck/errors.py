"""One small exception hierarchy for everything a user can get wrong.

Every error a user can cause derives from :class:`ModelCheckError`, so the CLI
can turn any of them into one clear line and exit status 2 without catching
programming errors of our own by accident.  The subclasses do not overlap: each
names who is at fault (the command line, the spec, or a file on disk).
"""

from __future__ import annotations


class ModelCheckError(Exception):
    """Base class: a problem the user can fix, reported as one line."""


class UsageError(ModelCheckError):
    """Bad command-line input: unknown spec, invariant, constant, or option value."""


class ConstantError(UsageError):
    """A constant with the wrong type or out of its declared range."""


class SpecDefinitionError(ModelCheckError):
    """A spec that is malformed as declared (found when it is loaded, before any state)."""


class SpecLoadError(ModelCheckError):
    """A spec module that cannot be found or fails to import."""


class SpecRuntimeError(ModelCheckError):
    """A spec function (init, action, invariant, constraint) raised or misbehaved.

    Carries the spec, the function, and the trace of states that led there, so
    the author can reproduce the failure.
    """

    def __init__(self, message: str, *, spec: str, where: str, trace: list | None = None) -> None:
        super().__init__(message)
        self.spec = spec
        self.where = where
        self.trace = trace or []


class SpecResultError(SpecRuntimeError):
    """A spec function returned a value of the wrong kind (an invariant a generator, an action a bool...).

    The check cannot go on: such a value would be judged by its truthiness
    or taken for a state, and the search would be silently wrong.
    """


class StateError(SpecRuntimeError):
    """A state that is unhashable or not canonical (e.g. a list, set, dict, str or None inside)."""


class TraceFileError(ModelCheckError):
    """A trace JSON file that is missing, truncated, malformed or unsafe."""


class RenderError(ModelCheckError):
    """A rendering that cannot be produced (e.g. Graphviz missing for SVG/PNG, a graph over its size limit)."""


class CheckpointError(ModelCheckError):
    """A checkpoint that cannot be written, or does not match the run being resumed."""


class EngineSignal(BaseException):
    """An interruption modelcheck itself raises in whatever code is running.

    The wrappers around spec code turn every exception the spec raises,
    ``SystemExit`` and ``KeyboardInterrupt`` included, into a
    :class:`SpecRuntimeError`, so that a spec cannot steer the exit status.
    They let this one through: it comes from the engine's own signal
    handlers (a real Ctrl-C, a worker told to drop its level), not from the
    spec.
    """


class UserInterrupt(KeyboardInterrupt, EngineSignal):
    """A real Ctrl-C or SIGTERM, raised by modelcheck's signal handler (a ``KeyboardInterrupt`` to everyone else)."""


class OutputFailure(EngineSignal):
    """Standard output could not be written (a full disk, a reader that left the pipe).

    The output's failure, not the spec's, even when a spec's ``print`` meets
    it (an :class:`EngineSignal`: the spec wrappers let it through); the
    command line turns it into its own exit status (see ``modelcheck.cli``).
    """

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error
