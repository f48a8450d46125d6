"""Named predicates over states, pure and side-effect free (installed as ``modelcheck.invariants``)."""
