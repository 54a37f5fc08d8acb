"""A task runner's task, read from the project's own files: what ``npm run unit`` runs.

When a command names a task runner and a task that is no test run by its name
(``npm run unit``, ``make ci``, ``just check``, ``task verify``, ``hatch run
cov``), the hook reads the task's text from the project's file and the shell
parser reads that text in turn: a task whose text runs a runner is a test run,
whatever its name. Names that are runs by themselves (``npm test``,
``make test``) stay runs without any file being read, and what cannot be read
(no file, too large, not plain, a name it does not define, more work than
the command's budget, :mod:`.budget`) stays decided by the name. Only the
hook reads these files: a scan sees what a live task runs.

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
  ``pom.xml``.

Two more readers are not task rows: :mod:`.scripts` reads the project's own
shell scripts a command runs (``scripts/test``, ``./ci.sh``), and
:mod:`.environments` the tox and nox environments a command names (``tox -e
lint`` is no run when ``lint`` runs ruff).
"""

from __future__ import annotations

import attrs

from runctx.record_base import Record
from runctx.runners.tasks import (
    cargo_alias,
    hatch,
    justfile,
    makefile,
    maven,
    melos,
    package_json,
    rakefile,
    taskfile,
)
from runctx.runners.tasks.budget import BudgetSpentError
from runctx.runners.tasks.files import MAX_TASKS, ProjectFiles

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from runctx.runners.walk import TaskCall

__all__ = ["ProjectFiles", "TaskTexts", "task_texts"]


@attrs.frozen(repr=False, eq=False)
class TaskTexts(Record):
    """The shell texts a command's tasks run, as far as they were read."""

    texts: tuple[str, ...]
    whole: bool
    """False when the work budget ran out part-way: ``texts`` are the lines made
    before it, each whole, and what the rest runs is not known."""


_READERS: dict[str, Callable[[TaskCall, str, ProjectFiles], list[str] | None]] = {
    "package-json": package_json.texts,
    "make": makefile.texts,
    "just": justfile.texts,
    "taskfile": taskfile.texts,
    "hatch": hatch.texts,
    "rake": rakefile.texts,
    "melos": melos.texts,
    "cargo-alias": cargo_alias.texts,
    "maven": maven.texts,
}


def task_texts(call: TaskCall, directory: str, files: ProjectFiles) -> TaskTexts | None:
    """The shell texts the tasks of ``call`` run, read from the project in ``directory``.

    None when they cannot be read (no file, too large, not parsable, a task it
    does not define) or the command's work budget (``files.work``, whose
    :meth:`~.budget.WorkBudget.unknown` then says why) was spent before a
    line of them was made whole and allowed: the task is then decided by its
    name alone. When the budget ran out part-way, the lines made and allowed
    before are kept, not ``whole``: a test run among them makes the task a run.
    """
    reader = _READERS.get(call.reader)
    if reader is None or files.work.spent is not None:
        return None
    try:
        texts = reader(call, directory, files)
    except BudgetSpentError:
        return None
    if texts is None:
        return None
    texts = texts[: MAX_TASKS * 8]
    read_all = files.work.spent is None  # else the budget ran out while reading
    made = files.work.parsed(texts)
    return TaskTexts(tuple(made), whole=read_all and files.work.spent is None) if made else None
