"""A task runner's task, read from the project's own files: what ``npm run unit`` runs.

When a command names a task runner and a task that is no test run by its name
(``npm run unit``, ``make ci``, ``just check``, ``task verify``, ``hatch run
cov``), the hook reads the task's text from the project's file and the shell
parser reads that text in turn: a task whose text runs a runner is a test run,
whatever its name. Names that are runs by themselves (``npm test``,
``make test``) stay runs without any file being read. A task the project
gives nothing to run (no file, not plain, a name it does not define) stays
decided by its name; one a bound kept runctx from reading all of (a file too
large, more work than the command's budget, :mod:`.budget`) is, when its name
is no run, one that *may* start a run (an explicit unknown, with the bound).
Only the hook reads these files: a scan sees what a live task runs.

Files another user could plant are read with care (:mod:`.files`, through
:mod:`runctx.planted`, the one reader of such files): looked at before they
are opened, regular files only, opened without blocking, at most
:data:`~runctx.fastpath.scripts.MAX_PROJECT_FILE_BYTES`, at most :data:`~.files.MAX_FILES`
files per command, and a file found by walking up from the directory (a
justfile in a parent) only when it belongs to the caller or to root. Nothing
here raises on what it reads.

One module per reader (:data:`~runctx.runners.pattern.TASK_READERS`):

- :mod:`.package_json`: ``package.json`` ``scripts``, with ``pre``/``post``
  scripts (npm, yarn, pnpm, bun);
- :mod:`.makefile`: the target's recipe and its prerequisites', plain
  variables expanded; no target means the first one;
- :mod:`.justfile`: the recipe's body and its dependencies; no recipe means
  ``default`` or the first one;
- :mod:`.taskfile`: ``Taskfile.yml``: the task's commands, ``deps`` and
  ``task:`` calls, read line by line; no task means ``default``;
- :mod:`.hatch`: ``hatch run [ENV:]SCRIPT`` through the environment's scripts
  (``pyproject.toml`` or ``hatch.toml``), following each ``template``;
- :mod:`.rakefile`: ``rake [TASK]``: the task's ``sh`` calls, its
  dependencies, and the test libraries' tasks (RSpec, Rake::TestTask,
  Minitest); no task means ``default``;
- :mod:`.melos`: ``melos run SCRIPT`` (and ``melos SCRIPT``): the script's
  ``run``/``exec`` text in ``melos.yaml`` or ``pubspec.yaml``'s ``melos``;
- :mod:`.cargo_alias`: ``cargo NAME`` where ``.cargo/config.toml``'s
  ``[alias]`` defines NAME; ``node --run NAME`` reads ``package.json``;
- :mod:`.maven`: ``mvn`` with no goal runs the ``<defaultGoal>`` of
  ``pom.xml``;
- :mod:`.toml_tasks`: ``pdm run NAME``, ``poe NAME``, ``rye run NAME``,
  ``pixi run NAME`` and ``mise run NAME`` through the tasks their TOML files
  keep, with the tasks each runs first;
- :mod:`.json_tasks`: ``deno task NAME`` (``deno.json``'s ``tasks``) and
  ``composer NAME`` (``composer.json``'s ``scripts``, ``@NAME`` followed);
- :mod:`.mix_aliases`: ``mix NAME`` where ``mix.exs``'s aliases make NAME
  an alias: ``mix TASK`` for each of its tasks; ex_check's ``mix check``;
- :mod:`.invoke_tasks`: ``invoke NAME``: the ``run`` calls of the ``@task``
  function of ``tasks.py``, with its ``pre`` tasks;
- :mod:`.sbt_aliases`: ``sbt NAME`` where ``build.sbt``'s
  ``addCommandAlias`` makes NAME an alias;
- :mod:`.nx_targets`: ``nx run PROJECT:TARGET``, ``nx TARGET PROJECT``,
  ``nx run-many -t TARGET``: the target's commands or test executor;
- :mod:`.git_hooks`: ``git commit`` and ``git push`` through the hooks they
  run (a script, the pre-commit framework's local hooks, lefthook, husky);
- :mod:`.compose_services`: ``docker compose run SERVICE`` and ``docker
  compose up [SERVICE...]`` through each service's ``command``;
- :mod:`.fastfile`: ``fastlane [PLATFORM] LANE``: the lane's ``sh`` calls,
  the lanes it calls and the actions that run tests.

Two more readers are not task rows: :mod:`.scripts` reads the project's own
shell scripts a command runs (``scripts/test``, ``./ci.sh``), and
:mod:`.environments` the tox and nox environments a command names (``tox -e
lint`` is no run when ``lint`` runs ruff).
"""

from __future__ import annotations

import importlib

import attrs

from runctx.record_base import Record
from runctx.runners.tasks.budget import BudgetSpentError
from runctx.runners.tasks.files import MAX_TASKS, ProjectFiles
from runctx.unknown import Reason, Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from runctx.runners.walk import TaskCall

__all__ = ["ProjectFiles", "TaskTexts", "task_texts"]

MAX_TEXTS = MAX_TASKS * 8
"""Task lines handed on to the shell parser for one task call, at most."""


@attrs.frozen(repr=False, eq=False)
class TaskTexts(Record):
    """The shell texts a command's tasks run, as far as they were read."""

    texts: tuple[str, ...]
    cut: Unknown | None
    """Why not all was read, when a bound stopped the reading part-way: ``texts``
    are the lines made before it, each whole, and what the rest runs is not
    known. None: ``texts`` are all the task runs."""


_READERS = {
    "package-json": "package_json",
    "make": "makefile",
    "just": "justfile",
    "taskfile": "taskfile",
    "hatch": "hatch",
    "rake": "rakefile",
    "melos": "melos",
    "cargo-alias": "cargo_alias",
    "maven": "maven",
    "toml-tasks": "toml_tasks",
    "json-tasks": "json_tasks",
    "mix-aliases": "mix_aliases",
    "invoke": "invoke_tasks",
    "sbt-aliases": "sbt_aliases",
    "nx": "nx_targets",
    "git-hooks": "git_hooks",
    "compose": "compose_services",
    "fastlane": "fastfile",
}
"""The module of this package that reads each reader's files (its ``texts``).

Imported when a command names its task runner, not before: a command that
names none (``pytest``, and every command a hook lets through) loads none of
the eighteen, nor what they parse with (TOML, JSON)."""


def _reader(name: str) -> Callable[[TaskCall, str, ProjectFiles], list[str] | None] | None:
    """The ``texts`` function of the reader ``name``, its module imported now; None if none."""
    module = _READERS.get(name)
    if module is None:
        return None
    texts: Callable[[TaskCall, str, ProjectFiles], list[str] | None]
    texts = importlib.import_module(f"{__name__}.{module}").texts
    return texts


def task_texts(call: TaskCall, directory: str, files: ProjectFiles) -> TaskTexts | Unknown | None:
    """The shell texts the tasks of ``call`` run, read from the project in ``directory``.

    None when the project gives the task nothing to run (no file, not
    parsable, a task it does not define, no line): the task is then decided
    by its name alone. An explicit unknown when a bound kept runctx from
    reading what it runs (a file too large or past the files of a command,
    :class:`~.files.ProjectFiles`; the command's work budget, ``files.work``,
    spent before a line was made whole): it may run anything. When a bound
    stopped the reading part-way, the lines made and allowed before are kept,
    with why the rest was not read (:attr:`TaskTexts.cut`): a test run among
    them makes the task a run.
    """
    reader = _reader(call.reader)
    if reader is None:
        return None
    spent = files.work.unknown()
    if spent is not None:
        return spent
    unread_before = len(files.unread)
    try:
        texts = reader(call, directory, files)
    except BudgetSpentError:
        return files.work.unknown()
    cut = files.unread[-1] if len(files.unread) > unread_before else None
    if texts is None:
        return cut
    if len(texts) > MAX_TEXTS:
        texts = texts[:MAX_TEXTS]
        cut = Unknown(Reason.NOT_READ, f"more than {MAX_TEXTS} task lines")
    made = files.work.parsed(texts)
    cut = files.work.unknown() or cut
    if not made:
        return cut
    return TaskTexts(tuple(made), cut=cut)
