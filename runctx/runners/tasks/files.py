"""Reading project files another user could plant: bounded, non-blocking, regular files only.

Each file is read through :mod:`runctx.planted`, the one reader of planted
files (a FIFO in a file's place cannot block it; regular files only; at most
:data:`runctx.fastpath.scripts.MAX_PROJECT_FILE_BYTES`, a larger file is not
read at all: :func:`~runctx.fastpath.scripts.read_project_file`, which the hook's
fast path shares). Also here: the per-command budget of files
(:class:`ProjectFiles`), the walk up to a file in a parent directory, and the
bounded expansion of a task into its prerequisites, which every reader shares.
"""

from __future__ import annotations

import os
from collections import deque

from runctx.checkout import nearest_holding
from runctx.fastpath.scripts import MAX_PROJECT_FILE_BYTES, read_project_file_or_size
from runctx.planted import usable_path
from runctx.runners.tasks.budget import BudgetSpentError, WorkBudget
from runctx.unknown import Reason, Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

MAX_FILES = 16
"""Project files read for one command string, at most."""
MAX_TASKS = 64
"""Tasks (targets, recipes, scripts) expanded for one task call, at most."""
MAX_PARENTS = 32
"""Directories walked up to find a justfile or a Taskfile."""

Task = tuple[list[str], list[str]]
"""A task as a reader finds it: the tasks it runs first, and its command lines."""


class ProjectFiles:
    """The project files one command string reads: bounded in number, each parsed once.

    ``unread`` holds why a file a reader asked for was there but not read:
    larger than :data:`~runctx.fastpath.scripts.MAX_PROJECT_FILE_BYTES`, or
    past the :data:`MAX_FILES` of the command (one entry each time it was
    asked for). What such a file holds is not known, where a missing file
    holds nothing.
    """

    __slots__ = ("cache", "left", "unread", "work")

    def __init__(self, budget: int = MAX_FILES) -> None:
        """Allow ``budget`` distinct files, and one :class:`~.budget.WorkBudget` for all of them."""
        self.left = budget
        self.cache: dict[tuple[str, str], object] = {}
        self.work = WorkBudget()
        self.unread: list[Unknown] = []

    def parsed(self, path: str, parse: Callable[[bytes], object]) -> object:
        """``parse`` of the file at ``path`` (cached), or None when it cannot be read or parsed."""
        key = (parse.__module__ + "." + parse.__name__, path)
        if key in self.cache:
            cached = self.cache[key]
            if isinstance(cached, Unknown):
                self.unread.append(cached)
                return None
            return cached
        if self.left <= 0:
            if usable_path(path) and os.path.lexists(path):
                self.unread.append(Unknown(Reason.NOT_READ, f"more than {MAX_FILES} project files"))
            return None
        self.left -= 1
        data, too_large = read_project_file_or_size(path)
        result: object = None
        if too_large:
            name = os.path.basename(path)
            result = Unknown(
                Reason.NOT_READ, f"{name} is larger than {MAX_PROJECT_FILE_BYTES} bytes"
            )
            self.unread.append(result)
        elif data is not None:
            try:
                result = parse(data)
            except (ValueError, UnicodeDecodeError, RecursionError):
                result = None
        self.cache[key] = result
        return None if isinstance(result, Unknown) else result


def first_existing(directory: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` that is a file in ``directory`` (None for a path that cannot be)."""
    for name in names:
        path = os.path.join(directory, name)
        if usable_path(path) and os.path.isfile(path):
            return path
    return None


def found_above(directory: str, names: Iterable[str]) -> str | None:
    """The nearest of ``names`` in ``directory`` or above it (above: trusted owners only).

    The one walk up the tree (:func:`runctx.checkout.nearest_holding`), with
    its owner rule above the directory itself.
    """
    return nearest_holding(directory, names, trust_start=True, levels=MAX_PARENTS)


def expand_tasks(
    names: Iterable[str],
    lookup: Callable[[str], Task | None],
    line_text: Callable[[str], str],
    unread: list[Unknown],
) -> list[str] | None:
    """The command texts of ``names`` and of the tasks they run first, each task once, bounded.

    None when one of ``names`` is not defined: what it runs is not known. At
    most :data:`MAX_TASKS` tasks are expanded; each name waiting its turn is
    looked at once, so the work is linear in the prerequisites read. When a
    line's text would pass the command's work budget (``line_text`` raises
    :class:`~.budget.BudgetSpentError`), the texts made before it are
    returned, each whole: the budget, spent, says they are not all. When
    more than :data:`MAX_TASKS` tasks wait, why is added to ``unread``
    (:attr:`ProjectFiles.unread`).
    """
    queue = deque(names)
    if not queue or any(lookup(name) is None for name in queue):
        return None
    texts: list[str] = []
    seen: set[str] = set()
    while queue and len(seen) < MAX_TASKS:
        name = queue.popleft()
        if name in seen:
            continue
        seen.add(name)
        found = lookup(name)
        if found is None:
            continue
        first, lines = found
        queue.extendleft(reversed(first))
        for line in lines:
            try:
                text = line_text(line)
            except BudgetSpentError:
                return texts
            if text:
                texts.append(text)
    if any(name not in seen for name in queue):
        unread.append(Unknown(Reason.NOT_READ, f"more than {MAX_TASKS} tasks"))
    return texts
