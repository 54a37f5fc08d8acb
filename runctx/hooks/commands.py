"""What a command the pre-filter let through runs: its test runs, and the environments it changes.

The shell parser (:mod:`runctx.shell.commands`) reads the command with the
runner table (the checkout's rows first, when its settings add any) and, for a
task runner, the project's files. Nothing is scanned here: a command that
turns out to start no test run and change nothing (``npm run build``) is
answered with nothing by :mod:`runctx.fastpath`, and only the rest goes on to
:mod:`runctx.hooks.answer`.
"""

from __future__ import annotations

from runctx.fastpath.prefilter import may_change_environment, names_task_runner
from runctx.runners.installers import INSTALLER_PATTERNS, through_task_runners
from runctx.shell.commands import TestInvocation, commands_run, test_invocations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.settings import Settings


def test_runs(
    command: str,
    cwd: str,
    settings: Settings | None = None,  # noqa: PT028 - not a test
) -> tuple[TestInvocation, ...]:
    """The test runs ``command`` starts in ``cwd``, as every hook face reads them.

    By the runner table of ``settings`` (the builtin one when None: no
    settings file adds a runner). The parser reads the command only when a
    runner's name or a project script occurs in it, and a task runner's
    files only when a task is named.
    """
    return test_invocations(command, cwd, None if settings is None else settings.patterns)


test_runs.__test__ = False  # type: ignore[attr-defined]  # not a pytest test function


def environment_changes(command: str, cwd: str) -> tuple[TestInvocation, ...]:
    """The commands in ``command`` that change an environment (``pip install -e .``, ``uv sync``).

    Plain substring tests first (:func:`may_change_environment`): a command
    that names no such tool and no task runner reads nothing more. A command
    that names a task runner (``make install``, ``npm run setup``) is read
    through its tasks' texts in the project's files, the way a test run's
    task is: a task whose text runs an installer is a change in the directory
    the task runs in.
    """
    if not may_change_environment(command):
        return ()
    if names_task_runner(command):
        return commands_run(command, cwd, through_task_runners())
    return commands_run(command, cwd, INSTALLER_PATTERNS)
