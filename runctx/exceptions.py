"""Exceptions raised by runctx: each a docstring-only class."""


class RunctxError(Exception):
    """Base class of every error runctx raises on purpose."""


class UsageError(RunctxError):
    """Options of the command line that do not go together (exit status 2, as argparse's)."""


class SourceError(RunctxError):
    """No process can be read at all (no procfs mounted where one is needed)."""


class ConfigError(RunctxError):
    """A runctx setting (e.g. ``[tool.runctx]`` in ``pyproject.toml``) is malformed."""


class UnreadableConfigError(ConfigError):
    """A settings file cannot be read at all (not a regular file, denied, past runctx's bounds)."""


class PidNamespaceError(RunctxError):
    """The process source's pids are another pid namespace's: runctx acts on none of them."""
