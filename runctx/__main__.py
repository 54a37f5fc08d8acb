"""``python -m runctx``."""

from runctx.cli.main import main

raise SystemExit(main())
