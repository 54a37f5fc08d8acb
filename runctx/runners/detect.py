"""Which runner a live process is: its argv read the way the scan needs it.

:func:`detect_runner` reads a ``/proc/PID/cmdline`` with the walk of
:mod:`runctx.runners.walk` (:func:`~runctx.runners.walk.resolve_command`), and
reads a live shell's string (``sh -c STRING``) with the shell parser
(:mod:`runctx.shell.commands`), which is itself built on the walk: the parser
imports the walk, this module imports both, and the walk imports neither.
"""

from __future__ import annotations

from runctx.runners.pattern import WRAPPER_ROLE, RunnerMatch
from runctx.runners.walk import resolve_command, table_or_builtin, title_words, worth_a_look
from runctx.runners.wrappers import WRAPPERS
from runctx.shell.commands import test_invocations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners.pattern import RunnerPattern


def detect_runner(
    argv: Sequence[str], patterns: Sequence[RunnerPattern] | None = None
) -> RunnerMatch | None:
    """The runner that ``argv`` (a ``/proc/PID/cmdline`` split on NUL) starts, or None.

    ``patterns`` is the runner table (the builtin one when None); pass the
    same tuple object on every call of a scan, so that its index is built
    once. A title the process wrote over
    its argv (``npm test`` and NUL padding) is read as its words
    (:func:`~runctx.runners.walk.title_words`). A live shell's string (``sh -c STRING``) is read by
    the shell parser; a task runner's task (``npm run unit``) gives its row's
    kind with the role :data:`~runctx.runners.pattern.TASK_ROLE`, since no
    project file is read here: folding decides whether a runner runs under it.
    A title that names a wrapper and its subcommand and nothing more
    (``npm exec``: npm titles itself with its positional words only, so
    ``npx -c 'node --test'`` is ``npm exec``) hides the command it runs: it
    gets the role :data:`~runctx.runners.pattern.WRAPPER_ROLE`, and folding
    makes it a run only when its child is one.
    Only the first :data:`~runctx.runners.walk.MAX_ARGV_WORDS` words are read
    (see :mod:`runctx.runners.walk`).
    """
    words = title_words(argv)
    if words is not argv:
        hidden = _hidden_command(words)
        if hidden is not None:
            return hidden
    argv = words
    patterns = table_or_builtin(patterns)
    if not argv or not worth_a_look(argv[0], patterns):
        return None
    resolved = resolve_command(argv, patterns)
    if resolved.task is not None:
        return resolved.task.match
    if resolved.shell_string is not None and resolved.chdir is None:
        return _shell_runner(resolved.shell_string, patterns)
    return resolved.match


def _hidden_command(words: Sequence[str]) -> RunnerMatch | None:
    """The wrapper a title's ``words`` name with no command after it, or None.

    Only a wrapper that takes its command as a shell string (``-c``) can run
    one its title does not show: ``npm exec``, ``npm x``, ``pnpm exec``.
    """
    if len(words) != 2:  # noqa: PLR2004 - a program and its subcommand
        return None
    base = words[0].rpartition("/")[2]
    wrapper = WRAPPERS.get(base)
    if wrapper is None or not wrapper.code or (words[1],) not in wrapper.subcommands:
        return None
    return RunnerMatch(f"{base}-{words[1]}", WRAPPER_ROLE)


def _shell_runner(text: str, patterns: Sequence[RunnerPattern]) -> RunnerMatch | None:
    """The runner a live shell (``sh -c TEXT``) runs first, read by the shell parser.

    Only a runner that the string starts where the shell itself stands counts:
    after a ``cd`` the runner works in another directory, and is better seen
    as its own process there. No project file is read (tasks stay tasks).
    """
    for invocation in test_invocations(text, ".", patterns, resolve_tasks=False):
        if invocation.cwd == "." and invocation.cwd_known:
            return RunnerMatch(invocation.kind, invocation.role)
    return None
