"""The memo tables: a spec's successor function run once per distinct path through its code.

A state is split into components (the leaves of its records and of its
fixed-length tuples, :mod:`.layout`), each value interned to a small int, so
a state is a row of ints.  Each (action, binding) and each predicate becomes
a decision tree over component ids (:mod:`.tries`), grown by running the
readable spec on states whose components note their use (:mod:`.traced`):
a tree's path is the order in which the function first used components, so
every state that agrees on them gets the stored result.  A C loop
(:mod:`.kernel`) walks the trees for a whole level, with helper threads
walking parents ahead under ``--workers``; the readable spec runs only where
a tree has no branch yet (:mod:`.backend`).
"""
