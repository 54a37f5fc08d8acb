"""Commands that change an environment a test run imports from: data only, a runner table's rows.

``pip install -e .`` in one worktree repoints the editable install of every
other worktree that shares the environment, in the middle of its run. These
rows name the commands that install into (or remove from) an environment, so
that a hook can see one coming the way it sees a test run: the same walk
(:func:`runctx.runners.walk.resolve_command`) through the same wrappers
(``uv run pip install``, ``python -m pip``, ``sudo``, ``env``), over this
table instead of the runner table. None of these rows is ever a test run:
the scan never reads this table.

A row's kind says which tool it is (the part before ``:``) and what it does;
:mod:`runctx.environment` finds the environment each tool changes.
Information requests and dry runs change nothing and are no rows' match;
``pip install --target/--prefix/--root/--user`` installs somewhere else than
the environment, so it is not one either.

Imported only when a command holds one of the tools' names (the hook's
cheap pre-filter, :func:`runctx.fastpath.prefilter.may_change_environment`,
whose words every row's names contain: a test checks it), or names a task
runner. A task runner's task (``make install``, ``npm run setup``, ``just
bootstrap``, ``task deps``, ``hatch run setup``) changes an environment when
its text runs one of these rows: :func:`through_task_runners` adds the runner
table's task rows to this table, and the shell parser reads each task's text
from the project's files (:func:`runctx.shell.commands.commands_run`).
"""

from __future__ import annotations

from runctx.runners.pattern import DEFAULT_NOT_WITH, TASK_ROLE, RunnerPattern, rows
from runctx.runners.programs import HATCH_VALUE_OPTIONS, NPM_PROGRAMS, PNPM_PROGRAMS, YARN_PROGRAMS
from runctx.runners.table import BUILTIN_PATTERNS

_H = (*DEFAULT_NOT_WITH, "-h")
PIP_PROGRAMS = ("pip", "pip3", *(f"pip3.{minor}" for minor in range(6, 20)))
_PIP_GLOBAL_VALUES = (
    "--python",
    "--log",
    "--proxy",
    "--retries",
    "--timeout",
    "--exists-action",
    "--trusted-host",
    "--cert",
    "--client-cert",
    "--cache-dir",
)
_PIP_ELSEWHERE = ("--target", "-t", "--prefix", "--root", "--user", "--dry-run")
_UV_VALUES = (
    "--directory",
    "--project",
    "--python",
    "-p",
    "--cache-dir",
    "--config-file",
    "--color",
    "--index-url",
    "--extra-index-url",
)
_NODE_VALUES = ("--prefix", "-C", "--dir", "--cwd", "--registry", "--cache")

INSTALLER_PATTERNS: tuple[RunnerPattern, ...] = (
    *rows(
        "pip:install",
        [("install",), ("uninstall",)],
        programs=PIP_PROGRAMS,
        modules=("pip",),
        not_with=(*_H, *_PIP_ELSEWHERE),
        value_options=_PIP_GLOBAL_VALUES,
    ),
    *rows(
        "uv:pip",
        [("pip", "install"), ("pip", "uninstall"), ("pip", "sync")],
        programs=("uv",),
        not_with=(*_H, "--dry-run", "--target", "--prefix"),
        value_options=_UV_VALUES,
    ),
    *rows(
        "uv:sync",
        [("sync",), ("add",), ("remove",)],
        programs=("uv",),
        not_with=(*_H, "--dry-run", "--frozen-no-install"),
        value_options=_UV_VALUES,
    ),
    *rows(
        "poetry:install",
        [("install",), ("add",), ("remove",), ("update",), ("sync",)],
        programs=("poetry",),
        not_with=(*_H, "--dry-run"),
        value_options=("-C", "--directory", "-P", "--project"),
    ),
    *rows(
        "pdm:install",
        [("install",), ("sync",), ("add",), ("remove",), ("update",)],
        programs=("pdm",),
        not_with=(*_H, "--dry-run"),
        value_options=("-p", "--project"),
    ),
    RunnerPattern(
        "hatch:env-create",
        programs=("hatch",),
        subcommand=("env", "create"),
        value_options=HATCH_VALUE_OPTIONS,
        not_with=_H,
    ),
    *rows(
        "npm:install",
        [("install",), ("i",), ("ci",), ("add",), ("uninstall",), ("update",)],
        programs=NPM_PROGRAMS,
        not_with=(*_H, "--dry-run", "-g", "--global"),
        value_options=_NODE_VALUES,
    ),
    *rows(
        "pnpm:install",
        [("install",), ("i",), ("add",), ("remove",), ("update",)],
        programs=PNPM_PROGRAMS,
        not_with=(*_H, "-g", "--global"),
        value_options=_NODE_VALUES,
    ),
    *rows(
        "yarn:install",
        [("install",), ("add",), ("remove",)],
        programs=YARN_PROGRAMS,
        not_with=(*_H, "-g", "--global"),
        value_options=_NODE_VALUES,
    ),
)
"""Every command that changes an environment, by tool (``pip:``, ``uv:``, ``npm:``...)."""


_THROUGH_TASKS: list[tuple[RunnerPattern, ...]] = []


def through_task_runners() -> tuple[RunnerPattern, ...]:
    """:data:`INSTALLER_PATTERNS`, then the task rows of the runner table (one tuple, kept).

    With it, :func:`runctx.shell.commands.commands_run` reads ``make install``
    through its recipe, with the same task readers a test run's task is read
    with (:mod:`runctx.runners.tasks`).
    """
    if not _THROUGH_TASKS:
        tasks = tuple(row for row in BUILTIN_PATTERNS if row.role == TASK_ROLE)
        _THROUGH_TASKS.append((*INSTALLER_PATTERNS, *tasks))
    return _THROUGH_TASKS[0]
