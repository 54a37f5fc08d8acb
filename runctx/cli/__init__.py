"""The ``runctx`` command line: one module per subcommand, entered through :func:`console`."""

import sys


def console() -> int:
    """The ``runctx`` command: ``runctx hook FACE`` goes to the hook, anything else to the CLI.

    The hook runs before every shell command an agent issues, so the console
    script imports the hook's fast path (:mod:`runctx.hooks.main`) or the
    command line (:mod:`runctx.cli.main`: argparse, every subcommand's parser),
    never both, and nothing else first.
    """
    if sys.argv[1:2] == ["hook"]:
        from runctx.hooks.main import main  # noqa: PLC0415 - the hook alone: see the docstring

        return main(sys.argv[2:])
    from runctx.cli.main import main as command_line  # noqa: PLC0415 - never on the hook's path

    return command_line()
