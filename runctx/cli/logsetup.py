"""Logging for the command line: the one place that configures structlog.

Quiet by default (warnings only). ``-v`` shows each run's verdict and its
reasons, ``-vv`` every field that could not be read, ``--log-json`` writes the
events as JSON lines (alone, the events ``-v`` shows). Logs go to stderr, so
``--json`` output stays clean. Imported by :mod:`runctx.cli.main` only when
events will be shown: ``logging`` and structlog are not loaded otherwise.
"""

from __future__ import annotations

import logging
import sys

import structlog

from runctx._log import DEBUG, INFO, LOGGER_NAME, WARNING
from runctx.present.escape import visible_lines


def level_for(verbosity: int) -> int:
    """The log level for ``-v`` given ``verbosity`` times."""
    if verbosity <= 0:
        return WARNING
    if verbosity == 1:
        return INFO
    return DEBUG


def configure_logging(verbosity: int, *, json_lines: bool) -> None:
    """Route runctx's events to stderr at the level asked for (``-v`` or ``--log-json``)."""
    # --log-json alone asks for the events: what -v shows, as JSON lines.
    level = level_for(max(verbosity, 1) if json_lines else verbosity)
    logger = logging.getLogger(LOGGER_NAME)
    logger.setLevel(level)

    class VisibleFormatter(logging.Formatter):
        """Log lines escaped like every other text on the terminal."""

        def format(self, record: logging.LogRecord) -> str:
            return visible_lines(super().format(record))

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(VisibleFormatter("%(message)s"))
    logger.handlers[:] = [handler]
    logger.propagate = False
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
