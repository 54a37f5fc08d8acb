"""What a test run does when another run of its checkout is live: ``on-same-checkout``.

Its own module so that reading the settings (on the hook's path for every
command) creates the enum only when a file sets a mode.
"""

from __future__ import annotations

import enum


class Mode(enum.StrEnum):
    """What a test run does when another run of its checkout is live (``on-same-checkout``)."""

    STOP = "stop"
    """Do not start (a hook denies, ``runctx run`` and the plugin exit 75)."""
    ASK = "ask"
    """Ask the user first, where a face can ask; elsewhere, as ``stop``."""
    WARN = "warn"
    """Say so, and start anyway."""
    WAIT = "wait"
    """Wait for the other run to end (a hook cannot wait, so it stops and says how)."""


DEFAULT_MODE = Mode.STOP
"""What a checkout that sets nothing does: stop."""
