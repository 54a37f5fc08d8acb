"""What a face does with a command: the actions of a decision, from the quietest to the firmest.

Its own module because both :mod:`runctx.policy`, which decides, and
:mod:`runctx.waiting`, which carries out a wait, need it.
"""

from __future__ import annotations

import enum


class Action(enum.StrEnum):
    """What a face does with a command, from the quietest to the firmest."""

    SILENT = "silent"
    """Nothing worth a word is live: say nothing, let it run."""
    NOTE = "note"
    """Only foreign runs, busy now (or a busy box): let it run, with a note on the contention."""
    WARN = "warn"
    """Another run of this checkout is live, but the checkout only warns: let it run."""
    ASK = "ask"
    """Another run of this checkout is live: ask the user first."""
    WAIT = "wait"
    """Wait, then start: for this checkout's earlier runs (``same_action``), for room on
    the box (``box_action``), or both. A face that cannot wait (a hook) refuses and
    says how to wait."""
    STOP = "stop"
    """Do not start, and no waiting changes that."""
