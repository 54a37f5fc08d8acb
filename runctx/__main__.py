"""``python -m runctx``."""

from runctx.cli import console

raise SystemExit(console())
