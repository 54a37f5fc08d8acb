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

import importlib
import sys

from runctx.unknown import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LOGGER_NAME = "runctx"
DEBUG = 10
INFO = 20
WARNING = 30
_METHODS = {DEBUG: "debug", INFO: "info", WARNING: "warning", 40: "error", 50: "critical"}


def log_event(event: str, /, level: int = DEBUG, **fields: Any) -> None:  # noqa: ANN401 - any JSON-able value
    """Emit one namespaced event (``runctx.scan_finished``) with key-values.

    Below warnings, an event is dropped at once when nothing imported
    ``logging``: then nothing configured it, and the stdlib default drops such
    events anyway. This keeps the import of ``logging`` off the hot paths, and
    structlog is loaded (by name) only for an event that will be emitted.
    """
    logging = sys.modules.get("logging")
    if logging is None:
        if level < WARNING:
            return
        logging = importlib.import_module("logging")
    stdlib_logger = logging.getLogger(LOGGER_NAME)
    if not stdlib_logger.isEnabledFor(level):
        return
    structlog = importlib.import_module("structlog")
    logger = structlog.wrap_logger(stdlib_logger)
    getattr(logger, _METHODS.get(level, "info"))(event, **fields)


def log_unreadable(pid: int, **values: object) -> None:
    """One ``runctx.field_unreadable`` event per value that is an unknown."""
    for field, value in values.items():
        if isinstance(value, Unknown):
            log_event(
                "runctx.field_unreadable",
                pid=pid,
                field=field,
                reason=value.reason.value,
                detail=value.detail,
            )
