"""The end-to-end checks: the real agents, driven offline, run runctx's installed hooks.

They are slow (each starts a real agent program) and need the agents from the
npm registry, so ``make test`` leaves them out: they are collected only when
``RUNCTX_E2E`` is set, which ``make e2e`` does. In CI (``CI`` set) an agent
that cannot be installed fails its checks; elsewhere they skip.
"""

from __future__ import annotations

import os

E2E_ENV = "RUNCTX_E2E"

collect_ignore_glob = [] if os.environ.get(E2E_ENV) else ["test_*.py"]
