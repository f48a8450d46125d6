"""The ``workers`` backend: one level expanded by N forked processes, states owned by fingerprint."""
