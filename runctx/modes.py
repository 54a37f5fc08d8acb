"""What a test run does next to other runs: the modes a setting names.

``on-same-checkout``, ``on-shared-tree``, ``on-environment-change`` and
``on-busy-box``, each an enum, and ``on-watcher``.
They have their own module so that reading the settings (on the hook's path
for every command) creates the enums only when a file or the environment
sets a mode, or a face asks for one.
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

SHARED_TREE_MODES = (Mode.STOP, Mode.ASK, Mode.WARN)
"""What ``on-shared-tree`` may say: another user's run cannot be waited for."""
DEFAULT_SHARED_TREE_MODE = Mode.STOP
"""Another user's run in this very checkout writes its caches, coverage files and
build dirs, and leaves files this user may not be able to replace: the same
conflict as a second run of the checkout (whose default is ``stop``), and one
runctx cannot undo (it never stops or waits for another user's run). The
evidence is exact (one directory by device and inode, a known other uid), so a
stop is never a guess. A checkout that expects it (a root CI job in a
developer's tree) sets ``warn``."""

ENVIRONMENT_CHANGE_MODES = (Mode.STOP, Mode.ASK, Mode.WARN)
"""What ``on-environment-change`` may say: a command that changes nothing is not waited for."""
DEFAULT_ENVIRONMENT_CHANGE_MODE = Mode.WARN
"""``pip install -e .`` next to a live run that imports from the same environment is a
hazard to that run, not necessarily a mistake (reinstalling a shared venv on purpose):
warn by default, and let a checkout that shares one venv across worktrees stop or ask."""


WATCHER_MODES = (Mode.STOP, Mode.ASK, Mode.WARN, Mode.WAIT)
"""What ``on-watcher`` may say (:mod:`runctx.watchers`)."""
DEFAULT_WATCHER_MODE = Mode.WARN
"""A run of this checkout that re-runs its tests on change (``watch -n 600 pytest`` in a
person's terminal pane, ``ptw``, ``jest --watch``) lives for hours and never ends by
itself: refusing next to it would refuse every test run for as long as it lives, and
waiting for it would wait for ever. So a test run goes ahead with one line naming it;
a checkout that wants its runs kept apart sets ``stop``, ``ask`` or ``wait``."""


class BoxMode(enum.StrEnum):
    """What a test run does while the box is busy, whoever's runs make it so (``on-busy-box``)."""

    OFF = "off"
    """Nothing beyond the usual note on busy foreign runs."""
    WARN = "warn"
    """Say that the box is busy (one line), and start."""
    WAIT = "wait"
    """Wait until it is not (``runctx run``, the plugin); a hook stops and says how to wait."""


DEFAULT_BOX_MODE = BoxMode.OFF
"""What a busy box does when nothing sets it: nothing beyond the usual note."""
