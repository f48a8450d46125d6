"""modelcheck: a TLA+-style explicit-state model checker for Kafka replication.

The public API is here: the spec API, so that a spec module needs one import::

    from modelcheck import Spec, Domain, action, invariant, constant

and :func:`check`, which checks a spec from Python as the command line does::

    import modelcheck
    r = modelcheck.check("kip320", constants={"Replicas": 2})
    r.result, r.distinct_states                 # "holds", 5973

Importing this package installs nothing: the compiled modules' finder goes
in when a check starts (see :mod:`modelcheck.build.compiled`).

``specs/``, ``invariants/``, ``spark_explore/`` and ``counterexamples/`` live at
the top of the repository (so the project's parts show at a glance) but install as
``modelcheck.specs`` and so on (setup.cfg ``package_dir``), so they cannot clash
with other packages of those generic names.  In a source checkout where this
package is imported straight from the tree, the repository root is added to
this package's search path so the same names resolve.
"""

from __future__ import annotations

import os as _os

_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_root, "setup.cfg")) and _os.path.isdir(_os.path.join(_root, "specs")):
    if _root not in __path__:  # type: ignore[name-defined]
        __path__.append(_root)  # type: ignore[name-defined]

__version__ = "0.1.0"


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """SIGINT before the command line's own handling is in place: one line and exit 130, no traceback."""
    _os.write(2, b"Interrupted.\n")
    _os._exit(130)


def _started_as_the_command_line() -> bool:
    """Whether this process is ``modelcheck ...`` or ``python -m modelcheck ...`` (not a program importing it)."""
    import sys

    argv0 = _os.path.basename(sys.argv[0]) if sys.argv else ""
    orig = list(getattr(sys, "orig_argv", ()))
    as_module = argv0 == "-m" and "-m" in orig and orig[orig.index("-m") + 1:][:1] == ["modelcheck"]
    return argv0 == "modelcheck" or as_module


if _started_as_the_command_line():
    # Importing the rest takes a few tenths of a second: a Ctrl-C then is the user's, and is no traceback.
    # modelcheck.cli.run puts Python's default handler back before anything else.
    import signal as _signal

    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _interrupted_while_starting)
    # ``check`` runs in a child whose parent only waits (modelcheck.supervisor); forked before the rest of
    # the package is imported, the waiting parent holds a bare interpreter's memory.
    import sys as _sys

    # The checker's arrays never call BLAS, and OpenBLAS starting a thread per core as numpy loads is a
    # noticeable part of every command's start; a user's own setting stands.
    _os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

    from modelcheck.supervisor import fork_if_supervised as _fork_if_supervised

    _fork_if_supervised(_sys.argv[1:])

from modelcheck.api import check  # noqa: E402
from modelcheck.errors import ModelCheckError  # noqa: E402
from modelcheck.output.results import CheckResult  # noqa: E402
from modelcheck.spec.branching import either, exists  # noqa: E402
from modelcheck.spec.constants import constant  # noqa: E402
from modelcheck.spec.declare import Domain, Spec, Symmetry, action, invariant, sometimes  # noqa: E402
from modelcheck.spec.functions import Function  # noqa: E402
from modelcheck.spec.message_set import MessageSpace, MessageUniverse  # noqa: E402
from modelcheck.spec.refinement import Refinement, refines  # noqa: E402
from modelcheck.spec.temporal import (all_of, always_eventually, always_eventually_step, any_of,  # noqa: E402
                                      eventually, eventually_always, initial_property, leads_to, liveness,
                                      step_property, strong, strongly_fair, weak, weakly_fair)

__all__ = [
    "CheckResult",
    "Domain",
    "Function",
    "MessageSpace",
    "MessageUniverse",
    "ModelCheckError",
    "Refinement",
    "Spec",
    "Symmetry",
    "action",
    "all_of",
    "always_eventually",
    "always_eventually_step",
    "any_of",
    "check",
    "constant",
    "either",
    "eventually",
    "eventually_always",
    "exists",
    "initial_property",
    "invariant",
    "leads_to",
    "liveness",
    "refines",
    "sometimes",
    "step_property",
    "strong",
    "strongly_fair",
    "weak",
    "weakly_fair",
    "__version__",
]
