"""Rakefiles: what ``rake`` (its default task) or ``rake NAME`` runs, when plain enough to read.

Read, line by line (never run):

- ``task NAME: DEPS``, ``task :NAME => DEPS``, ``task NAME: %w[a b]``, with
  ``:sym``, ``"str"`` or ``'str'`` names, and the ``sh``/``system``/``ruby``
  calls of the ``do ... end`` body that follows, whose first argument is a
  literal string;
- the test tasks the test libraries define: ``RSpec::Core::RakeTask.new``
  (``spec``, or the name given) runs ``rspec``; ``Rake::TestTask.new`` and
  ``Minitest::TestTask.create`` (``test``, or the name given) run the tests
  with ruby; ``Cucumber::Rake::Task.new`` (``features``) runs ``cucumber``;
- ``namespace :NAME do`` blocks, by indentation: ``spec:unit``;
- ``Rake::Task[NAME].invoke`` (or ``.execute``) in a task's body runs that
  task; ``Rake::Task[NAME].clear`` forgets what was read of it so far, and
  ``.clear_prerequisites``/``.clear_actions`` the one part;
- ``Rails.application.load_tasks``: the tasks Rails defines there, ``test``
  (``rails test``) and ``default`` on it (rspec-rails moves it to ``spec``:
  tests either way). As in Rake, a later ``task default: ...`` adds to it.

``rake`` alone runs the ``default`` task. A task whose name is made at run
time (``:"spec_#{driver}"``) is not found: the command is then decided by the
task's name.
"""

from __future__ import annotations

import os

from runctx.runners.tasks.files import MAX_TASKS, Task, expand_tasks, first_existing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

RAKEFILES = ("rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb")
_TEST_TASKS = (
    ("RSpec::Core::RakeTask.new", "spec", "rspec"),
    ("Rake::TestTask.new", "test", "ruby -Itest"),
    ("Minitest::TestTask.create", "test", "ruby -Itest"),
    ("Cucumber::Rake::Task.new", "features", "cucumber"),
)
_CALLS = ("sh ", "sh(", "system ", "system(", "ruby ", "ruby(")
_TASK_REF = "Rake::Task["
_RUNS_IT = (".invoke", ".execute")
_CLEARS = {
    ".clear": (True, True),
    ".clear_prerequisites": (True, False),
    ".clear_actions": (False, True),
}
"""What each ``Rake::Task[NAME]`` method forgets of the task: its prerequisites, its actions."""
_RAILS_TASKS = ("Rails.application.load_tasks", "::Application.load_tasks")


def _name(text: str) -> str | None:
    """A task name (``:sym``, ``"str"``, ``'str'``, ``:"str"``); None if made at run time."""
    text = text.strip().removeprefix(":")
    if text[:1] in {'"', "'"}:
        end = text.find(text[0], 1)
        name = text[1:end] if end > 0 else ""
        return None if "#{" in name or not name else name
    word = ""
    for char in text:
        if not (char.isalnum() or char in "_:?!-"):
            break
        word += char
    return word.rstrip(":") or None


def _names(text: str) -> list[str] | None:
    """The task names of a dependency list: one name, ``[a, b]`` or ``%w[a b]``."""
    text = text.strip().rstrip(",").strip()
    if text.startswith(("%w[", "%w(", "%i[", "%i(")):
        return [w.removeprefix(":") for w in text[3:].rstrip("])").split()]
    if text.startswith("["):
        found = [_name(part) for part in text[1:].rstrip("]").split(",") if part.strip()]
        return None if None in found else [n for n in found if n]
    name = _name(text)
    return None if name is None else [name]


def _task_line(rest: str) -> tuple[str, list[str]] | None:
    """``(name, dependencies)`` of the words after ``task`` (``default: :spec``, ``:x => [:a]``)."""
    rest = rest.strip().removeprefix("(").strip()
    body_at = rest.find(" do")
    if body_at >= 0:
        rest = rest[:body_at]
    if "=>" in rest:
        head, _, deps = rest.partition("=>")
        name = _name(head.split(",")[0])
        names = _names(deps)
    elif rest.startswith(":") or rest[:1] in {'"', "'"}:
        name, names = _name(rest.split(",")[0]), []
    else:
        head, colon, deps = rest.partition(":")
        name, names = (head.strip() or None), (_names(deps) if colon else [])
    if name is None or names is None:
        return None
    return name, names[:MAX_TASKS]


def _literal(text: str) -> str | None:
    """The literal string that ``text`` starts with (after ``(``), or None."""
    text = text.strip().removeprefix("(").strip()
    if text[:1] not in {'"', "'"}:
        return None
    end = text.find(text[0], 1)
    return text[1:end] if end > 0 else None


class _Reader:
    """The tasks of a Rakefile, read one line at a time."""

    __slots__ = ("current", "spaces", "tasks")

    def __init__(self) -> None:
        """Start with no task, no namespace open."""
        self.tasks: dict[str, Task] = {}
        self.spaces: list[tuple[int, str]] = []  # (indentation, name) of the open namespaces
        self.current: Task | None = None  # the task whose body is being read

    def line(self, raw: str) -> None:
        """Read one line of the Rakefile."""
        line = raw.split(" #", 1)[0].rstrip()
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if not stripped or stripped.startswith("#"):
            return
        spaces = self.spaces
        while spaces and indent <= spaces[-1][0] and stripped != "end":
            spaces.pop()
        if stripped == "end" and spaces and indent == spaces[-1][0]:
            spaces.pop()
            return
        self.statement(stripped, indent)

    def statement(self, stripped: str, indent: int) -> None:
        """Read one statement (a line without its indentation) inside the open namespaces."""
        spaces = self.spaces
        prefix = "".join(f"{space}:" for _, space in spaces)
        if stripped.startswith("namespace "):
            name = _name(stripped[len("namespace ") :])
            if name is not None:
                spaces.append((indent, name))
            self.current = None
        elif stripped.startswith(("task ", "task(")):
            self.current = None
            found = _task_line(stripped[4:])
            if found is not None:
                task = self.tasks.setdefault(prefix + found[0], ([], []))
                task[0].extend(d for d in found[1] if d not in task[0])
                self.current = task
        elif (made := _test_task(stripped)) is not None:
            self.tasks.setdefault(prefix + made[0], ([], []))[1].append(made[1])
            self.current = None
        elif stripped.startswith(_TASK_REF):
            self.task_method(stripped[len(_TASK_REF) :])
        elif stripped.endswith(_RAILS_TASKS):
            test = self.tasks.setdefault("test", ([], []))[1]
            default = self.tasks.setdefault("default", ([], []))[0]
            test.extend(line for line in ["rails test"] if line not in test)
            default.extend(name for name in ["test"] if name not in default)
        elif self.current is not None and stripped.startswith(_CALLS):
            text = _literal(stripped.split(None, 1)[1] if " " in stripped else stripped[3:])
            if text is not None:
                lines = self.current[1]
                lines.append(f"ruby {text}" if stripped.startswith("ruby") else text)

    def task_method(self, rest: str) -> None:
        """``Rake::Task[NAME].METHOD``: a task run from the body being read, or forgotten."""
        inside, bracket, method = rest.partition("]")
        literal = bracket and inside.strip()[:1] in {":", '"', "'"}
        name = _name(inside) if literal else None
        if name is None:
            return  # a variable's or a name made at run time: nothing known of it
        method = method.split("(", 1)[0].split()[0] if method.strip() else ""
        if method in _RUNS_IT and self.current is not None and name not in self.current[0]:
            self.current[0].append(name)
        elif method in _CLEARS and name in self.tasks:
            prerequisites, actions = _CLEARS[method]
            if prerequisites:
                self.tasks[name][0].clear()
            if actions:
                self.tasks[name][1].clear()


def parse(data: bytes) -> dict[str, Task]:
    """The tasks of a Rakefile's text: each one's dependencies and command lines."""
    reader = _Reader()
    for raw in data.decode("utf-8", errors="replace").splitlines():
        reader.line(raw)
    return reader.tasks


def _test_task(line: str) -> tuple[str, str] | None:
    """``(name, command)`` of a test library's task definition on ``line``, or None."""
    for call, default, command in _TEST_TASKS:
        if line.startswith(call):
            rest = line[len(call) :].strip()
            if not rest.startswith("("):
                return default, command
            name = _name(rest[1:].split(",")[0].rstrip(")"))
            return (name, command) if name is not None else None
    return None


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The command lines of the tasks ``call`` names (or ``default``), dependencies first."""
    path = os.path.join(directory, call.file) if call.file else first_existing(directory, RAKEFILES)
    if path is None:
        return None
    tasks = files.parsed(path, parse)
    if not isinstance(tasks, dict):
        return None
    names = [name for name in call.names if "=" not in name] or ["default"]
    if any(name not in tasks for name in names):
        return None

    def lookup(name: str) -> Task | None:
        # a dependency defined elsewhere (``import "tasks/*.rake"``) is judged by its name
        return tasks.get(name) or ([], [f"rake {name}"])

    return expand_tasks(names, lookup, str.strip, files.unread)
