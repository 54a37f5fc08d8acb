"""The ready hook files that ship with runctx (``runctx/ready/`` in the package).

For each agent, the settings file ``runctx install AGENT`` writes into an
empty project (``ready/claude/settings.json``, ...), for people who install by
hand; and the git ``pre-push`` hook (``ready/git/pre-push``), which
``runctx install git`` puts where git runs it. They are package data, so a
``pip install`` or ``pipx install`` has them: ``runctx install AGENT
--dry-run`` and ``runctx install git --dry-run`` print what would be written.
"""

from __future__ import annotations

import os

READY_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ready")
"""Where the ready files are installed."""

PRE_PUSH = os.path.join(READY_DIR, "git", "pre-push")
"""The ready git ``pre-push`` hook."""
