"""A spec module that fails to import (for the CLI error-path tests)."""

raise RuntimeError("this module is broken on purpose")
