"""A benchmark suite of published TLA+ specifications that modelcheck was not tuned on.

Each module here is a faithful port of a specification from the public
tlaplus/Examples repository (github.com/tlaplus/Examples, MIT-licensed), written by
people outside this project: the same variables, action names and constants (in
Python: model values and strings as strs (TwoPhase) or small ints (the older ports), tuples for functions, NamedTuples for
records, frozensets for sets), each module's docstring crediting its source and
saying how every TLA+ construct was mapped.  What the suite measures is how the
checker does on protocols whose shape nobody here chose: a set of messages that
most actions read whole (PaxosCommit, TwoPhase, MultiPaxos), many initial states
and a liveness property (EWD840), a consensus protocol with nested records and
symmetry (MultiPaxos).

Every port generates exactly the states TLC generates: TLC counts one state per
satisfied disjunct and per witness of an ``\\E`` (also in an enabling condition),
stuttering successors included, and each port says where that happens.

``SUITE`` lists, per spec: its name, its module (a file beside this one, checked as
``modelcheck check bench/published/<module>.py``), the constants of the manifest's
model, the manifest's model (``path`` in the Examples repository, the TLA+ module
TLC runs, and the distinct states, states generated and depth recorded in the
folder's ``manifest.json``), and what is checked: invariants, properties, and
whether the model needs ``--symmetry``.  ``tests/test_published_specs.py`` checks
small configurations of each; ``bench/vs_tlc.py --suite published`` runs the
manifest models against TLC.

Where the manifest's figures and TLC's differ, ``manifest_note`` says so: the
EWD840 manifest records depth 10, while TLC 2.20 (and modelcheck) report 9 for
the same 302 states and 2,001 states generated.

The large models, checked by ``bench/vs_tlc.py --suite published`` rather than by
the tests (2026-11-28, TLC 2.20 with one worker; modelcheck on its default path
and with ``--no-memo``, all with the same counts):

* PaxosCommit.cfg: 1,321,761 distinct states, 16,959,159 generated, depth 28, the
  manifest's figures.  Nearly every state has a ``msgs`` of its own, so the memo
  tables learn almost as often as they answer: run to the end, they ran the spec's
  code 15.2 million times for 17 million successors, at 4.6 times the CPU of
  ``--no-memo``; they now give way to the spec's own code early in the search.
* MultiPaxos_MC_small.cfg: 343,796 / 736,012 / 28 under its SYMMETRY (the
  manifest's; also a slow test), and without it (``multipaxos-nosym``, no manifest
  figure) 2,062,561 / 4,415,485 / 28, TLC's figures too.
"""

SUITE = [
    {
        "name": "tcommit",
        "module": "tcommit_examples",
        "constants": {"RM": 3},
        "manifest": {"folder": "specifications/transaction_commit", "tla": "TCommit.tla", "cfg": "TCommit.cfg",
                     "distinct": 34, "generated": 94, "depth": 7},
        "invariants": ["TCTypeOK", "TCConsistent"],
        "properties": [],
        "symmetry": False,
    },
    {
        "name": "twophase",
        "module": "twophase",
        "constants": {"RM": "{r1, r2, r3}"},
        "manifest": {"folder": "specifications/transaction_commit", "tla": "TwoPhase.tla", "cfg": "TwoPhase.cfg",
                     "distinct": 288, "generated": 1146, "depth": 11},
        "invariants": ["TPTypeOK"],
        "properties": [],
        "symmetry": False,
    },
    {
        "name": "ewd840",
        "module": "ewd840",
        "constants": {"N": 3},
        "manifest": {"folder": "specifications/ewd840", "tla": "EWD840.tla", "cfg": "EWD840.cfg",
                     "distinct": 302, "generated": 2001, "depth": 10},
        "manifest_note": "TLC 2.20 reports depth 9 on EWD840.cfg (with and without its properties), as modelcheck does",
        "tlc_depth": 9,
        "invariants": ["TypeOK", "TerminationDetection", "Inv"],
        "properties": ["Liveness"],  # TDSpec (a refinement) is not ported
        "symmetry": False,
    },
    {
        "name": "paxos-commit",
        "module": "paxos_commit",
        "constants": {"RM": 2, "Acceptor": 3, "MaxBallot": 1},
        "manifest": {"folder": "specifications/transaction_commit", "tla": "PaxosCommit.tla",
                     "cfg": "PaxosCommit.cfg", "distinct": 1321761, "generated": 16959159, "depth": 28},
        "invariants": ["PCTypeOK"],
        "properties": [],
        "symmetry": False,
    },
    {
        # Not a port to read: PaxosCommit with msgs as membership bits, measuring the tables on a message set
        # kept per element (paxos_commit_bits.py). TLC runs the same PaxosCommit.tla.
        "name": "paxos-commit-bits",
        "module": "paxos_commit_bits",
        "constants": {"RM": 2, "Acceptor": 3, "MaxBallot": 1},
        "manifest": {"folder": "specifications/transaction_commit", "tla": "PaxosCommit.tla",
                     "cfg": "PaxosCommit.cfg", "distinct": 1321761, "generated": 16959159, "depth": 28},
        "invariants": ["PCTypeOK"],
        "properties": [],
        "symmetry": False,
    },
    {
        "name": "multipaxos",
        "module": "multipaxos",
        "constants": {"Replicas": 3, "Writes": 1, "Reads": 1, "MaxBallot": 2},
        "manifest": {"folder": "specifications/MultiPaxos-SMR", "tla": "MultiPaxos_MC.tla",
                     "cfg": "MultiPaxos_MC_small.cfg", "distinct": 343796, "generated": 736012, "depth": 28},
        "invariants": ["TypeOK", "Linearizability"],
        "properties": [],
        "symmetry": True,  # the model's SYMMETRY SymmetricPerms
    },
]
"""The suite: one entry per ported spec, with its manifest model's recorded counts."""
