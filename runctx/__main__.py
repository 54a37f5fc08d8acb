"""``python -m runctx``."""

from runctx.hooks.main import console

raise SystemExit(console())
