"""The Kafka replication specs (installed as ``modelcheck.specs``).

See :mod:`modelcheck.specs.registry` for the names users type.
"""
