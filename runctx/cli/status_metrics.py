"""``runctx status --format openmetrics``: the metrics for Prometheus, a face of its own.

:func:`runctx.cli.status.face_module` chooses it, so that the table and
``--json`` never import the metrics renderer (:mod:`runctx.present.openmetrics`,
which brings ``importlib.metadata`` and ``hashlib``): about a quarter of what
``status`` imports, paid before any ``--timeout`` can be kept.
"""

from __future__ import annotations

import argparse

from runctx.cli.status import report_once
from runctx.present.openmetrics import RootLabel, report_metrics
from runctx.present.output import write_file_atomically, write_text


def run(args: argparse.Namespace) -> int:
    """Print (or write to ``--output``) the report as OpenMetrics."""
    report, busy = report_once(args)
    text = report_metrics(report, root_label=RootLabel(args.root_label), busy=busy)
    if args.output:
        write_file_atomically(args.output, text)
    else:
        write_text(text, utf8=True)
    return 0
