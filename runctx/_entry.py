"""The ``runctx`` console script: send ``runctx hook`` straight to the hook.

The hook runs before every shell command an agent issues, so its way in
imports as little as possible; every other subcommand goes through
:mod:`runctx.cli.main`.
"""

import sys


def main() -> int:
    """Run ``runctx`` with the process's arguments; return the exit status."""
    args = sys.argv[1:]
    if args[:1] == ["hook"]:
        from runctx.hooks.cli import main as hook_main  # noqa: PLC0415 - the fast path

        status: int = hook_main(args[1:])
        return status
    from runctx.cli.main import main as cli_main  # noqa: PLC0415

    return cli_main(args)
