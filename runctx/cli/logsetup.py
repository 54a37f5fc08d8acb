"""Logging for the command line: the one place that configures structlog.

Quiet by default (warnings only). ``-v`` shows each run's verdict and its
reasons, ``-vv`` every field that could not be read, ``--log-json`` writes the
events as JSON lines. Logs go to stderr, so ``--json`` output stays clean.
"""

from __future__ import annotations

import logging
import sys

from runctx._log import LOGGER_NAME


def level_for(verbosity: int) -> int:
    """The log level for ``-v`` given ``verbosity`` times."""
    if verbosity <= 0:
        return logging.WARNING
    if verbosity == 1:
        return logging.INFO
    return logging.DEBUG


def configure_logging(verbosity: int, *, json_lines: bool) -> None:
    """Route runctx's events to stderr at the level asked for."""
    level = level_for(verbosity)
    logger = logging.getLogger(LOGGER_NAME)
    logger.setLevel(level)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.handlers[:] = [handler]
    logger.propagate = False
    if level >= logging.WARNING and not json_lines:
        return  # nothing below warnings will be emitted; keep structlog unimported
    import structlog  # noqa: PLC0415 - only when events will be shown

    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if json_lines
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        cache_logger_on_first_use=False,
    )
