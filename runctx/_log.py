"""Structured events, emitted through structlog into stdlib logging.

runctx never configures logging. Events go to the stdlib logger ``runctx`` (so
they stay quiet unless an application, the CLI or pytest's ``caplog`` asks) by
way of a structlog logger wrapped around it, which renders with whatever
processors the application configured. structlog is imported only when the
``runctx`` logger is enabled for the event's level: its import costs tens of
milliseconds, which the hot paths (a hook before every shell command, a scan
that should cost a few milliseconds) must not pay to emit nothing.
"""

from __future__ import annotations

import logging

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LOGGER_NAME = "runctx"
_stdlib_logger = logging.getLogger(LOGGER_NAME)


def log_event(event: str, /, level: int = logging.DEBUG, **fields: Any) -> None:  # noqa: ANN401 - any JSON-able value
    """Emit one namespaced event (``runctx.scan_finished``) with key-values."""
    if not _stdlib_logger.isEnabledFor(level):
        return
    import structlog  # noqa: PLC0415 - deferred on purpose, see the module docstring

    logger = structlog.wrap_logger(_stdlib_logger)
    method = logging.getLevelName(level).lower()
    getattr(logger, method)(event, **fields)
