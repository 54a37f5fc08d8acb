"""The ``runctx`` command line: one module per subcommand, entered through :func:`console`."""

from runctx.fastpath.hook import console

__all__ = ["console"]
