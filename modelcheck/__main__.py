"""``python -m modelcheck`` runs the CLI."""

from .cli import run

run()
