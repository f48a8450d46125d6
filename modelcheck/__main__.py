"""``python -m modelcheck`` runs the CLI."""

from modelcheck.cli import run

run()
