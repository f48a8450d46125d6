"""The spec API: what a spec author imports to declare a model as plain Python functions.

``from modelcheck import Spec, action, invariant, constant`` re-exports the
same names; this package also holds how specs are found by name
(:mod:`.loader`) and the helpers for building states (:mod:`.replace`).
"""

from __future__ import annotations

from modelcheck.spec.constants import constant
from modelcheck.spec.declare import (Action, Domain, Predicate, Spec, State, Symmetry, Witness, action, culprit,
                                     invariant, sometimes)

__all__ = ["Action", "Domain", "Predicate", "Spec", "State", "Symmetry", "Witness", "action", "constant", "culprit",
           "invariant", "sometimes"]
