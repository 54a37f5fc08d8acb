"""``runctx status`` as a table for a person: the text face (``--format text``, the default).

A face of its own (:func:`runctx.cli.status.face_module` chooses it), so that
``status --json`` never imports the text renderer. Also here, for the table
and for ``--watch`` (:mod:`runctx.cli.watch`): the width a table fits, and
whether each run's detail lines are asked for.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from runctx.cli.common import table_width
from runctx.cli.status import report_once
from runctx.present.output import write_file_atomically, write_lines
from runctx.present.style import use_color
from runctx.present.text import (
    FOREIGN_SHOWN,
    TextOptions,
    home_directory,
    report_lines,
    report_text,
)


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal (False for None, or a stream with no descriptor)."""
    try:
        return stream is not None and os.isatty(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False


def run(args: argparse.Namespace) -> int:
    """Print the table once (or write it, every run with whole commands, to ``--output``)."""
    report, busy = report_once(args)
    if args.output:
        options = TextOptions(wide=True, home=home_directory(), foreign_shown=None)
        write_file_atomically(args.output, report_text(report, busy, options) + "\n")
        return 0
    out = sys.stdout
    options = TextOptions(
        width=table_width(out),
        wide=args.wide,
        details=args.verbose > 0,
        home=home_directory(),
        foreign_shown=None if args.all else FOREIGN_SHOWN,
    )
    color = use_color(args.color, is_terminal=is_terminal(out))
    write_lines(report_lines(report, options, busy), out, color=color)
    return 0
