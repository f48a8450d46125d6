"""The spec API: what a spec author imports to declare a model as plain Python functions.

``from modelcheck import Spec, action, invariant, constant`` re-exports the
same names; this package also holds how specs are found by name
(:mod:`.loader`) and the helpers for building states (:mod:`.replace`).
"""

from __future__ import annotations

from modelcheck.spec.constants import constant
from modelcheck.spec.declare import (Action, Domain, Predicate, Spec, State, Symmetry, Witness, action, culprit,
                                     invariant, sometimes)
from modelcheck.spec.refinement import Refinement, refines
from modelcheck.spec.temporal import (PropertyGroup, all_of, always_eventually, always_eventually_step, any_of,
                                      eventually, eventually_always, initial_property, leads_to, liveness,
                                      step_property, strong, strongly_fair, weak, weakly_fair)

__all__ = ["Action", "Domain", "Predicate", "PropertyGroup", "Refinement", "Spec", "State", "Symmetry", "Witness",
           "action", "all_of", "always_eventually", "always_eventually_step", "any_of", "constant", "culprit",
           "eventually", "eventually_always", "initial_property", "invariant", "leads_to", "liveness", "refines",
           "sometimes", "step_property", "strong", "strongly_fair", "weak", "weakly_fair"]
