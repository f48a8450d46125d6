"""A spec bound to its constants and options: successors, fingerprints, symmetry, and replay.

Everything here is about one state at a time and knows nothing of how a
search is organised; the search (:mod:`modelcheck.search`) and the random
walks build on it.
"""
