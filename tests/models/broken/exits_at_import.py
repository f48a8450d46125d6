"""A spec module that calls ``sys.exit(3)`` while it is imported: a spec error (exit 2), not exit 3."""

import sys

sys.exit(3)
