"""The counter of fair_toys.py with weak fairness of Inc, as a spec file for the command line."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fair_toys import counter, inc  # noqa: E402

from modelcheck import weak  # noqa: E402

SPEC = counter([(weak, inc)])
