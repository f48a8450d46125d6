"""The explicit list of registered specs: the names users type, and where each lives.

Specs are imported lazily (``module:attr``), so listing one does not import all.
"""

REGISTRY: dict[str, str] = {
}
