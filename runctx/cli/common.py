"""Options shared by subcommands that take a scan."""

from __future__ import annotations

import argparse
import os

from runctx.report import Viewpoint
from runctx.scanning import viewpoint
from runctx.sources import SOURCE_NAMES


def directory_argument(text: str) -> str:
    """An argparse type: an existing directory, else a usage error."""
    if not os.path.isdir(text):
        msg = f"not a directory: {text}"
        raise argparse.ArgumentTypeError(msg)
    return text


def _uid(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        msg = f"not a uid (a non-negative integer): {text}"
        raise argparse.ArgumentTypeError(msg)
    return value


def add_viewpoint_options(parser: argparse.ArgumentParser) -> None:
    """``--root``, ``--uid`` and ``--source``."""
    parser.add_argument(
        "--root",
        type=directory_argument,
        metavar="DIR",
        help="judge from the checkout that holds DIR (default: the current directory's)",
    )
    parser.add_argument(
        "--uid", type=_uid, metavar="N", help="judge as uid N (default: your own uid)"
    )
    parser.add_argument(
        "--source",
        choices=SOURCE_NAMES,
        help="where to read processes from (default: $RUNCTX_SOURCE, else procfs on Linux)",
    )


def viewpoint_from(args: argparse.Namespace) -> Viewpoint:
    """The viewpoint the options ask for."""
    if args.root is not None:
        return viewpoint(cwd=args.root, uid=args.uid)
    return viewpoint(uid=args.uid)
