"""The explicit list of registered specs: the names users type, and where each lives.

Specs are imported lazily (``module:attr``), so listing one does not import all.
"""

REGISTRY: dict[str, str] = {
    "truncate-to-hw": "modelcheck.specs.truncate_to_hw:SPEC",
    "kip101": "modelcheck.specs.kip101:SPEC",
    "kip279": "modelcheck.specs.kip279:SPEC",
    "kip320-first-try": "modelcheck.specs.kip320_first_try:SPEC",
    "kip320": "modelcheck.specs.kip320:SPEC",
    "async-isr": "modelcheck.specs.async_isr:SPEC",
    "broker-failures": "modelcheck.specs.broker_failures:SPEC",
    "producer-ordering": "modelcheck.specs.producer_ordering:SPEC",
    "consumer-offsets": "modelcheck.specs.consumer_offsets:SPEC",
    "controller-failover": "modelcheck.specs.controller_failover:SPEC",
    "partition-reassignment": "modelcheck.specs.partition_reassignment:SPEC",
    "kraft-replication": "modelcheck.specs.kraft_replication:SPEC",
    "kraft-elr": "modelcheck.specs.kraft_elr:SPEC",
}
