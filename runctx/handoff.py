"""What ``runctx run`` hands the command it starts, so that the pytest plugin does not repeat it.

``runctx run`` checks a test command with the policy and says what there is to
say; then it puts :data:`HANDOFF_ENV` into the command's environment:
``checked`` (runctx already checked and said what mattered) or ``quiet``
(``runctx run -q``: say nothing). The pytest plugin of the session it starts
reads the value once and removes it from its own environment, so that nothing
it starts (xdist workers, a pytest a test runs) inherits it; with ``checked``
its header leaves out what ``runctx run`` said, with ``quiet`` it says nothing
but a refusal. Standard library only: the plugin imports this at configure.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

HANDOFF_ENV = "RUNCTX_RUN"
CHECKED = "checked"
QUIET = "quiet"


def take_handoff(environ: MutableMapping[str, str] | None = None) -> str:
    """What ``runctx run`` handed over (``checked``, ``quiet``, ``""``), out of ``environ``."""
    environ = os.environ if environ is None else environ
    value = environ.pop(HANDOFF_ENV, "")
    return value if value in (CHECKED, QUIET) else ""
