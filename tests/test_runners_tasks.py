"""Task runners resolved through the project's own files (``runners/tasks/__init__.py``).

One reader per kind of file, chosen by the task row; what cannot be read
stays decided by the name. Each reader's tests are next to it
(``test_runners_tasks_*.py``).
"""

from __future__ import annotations

from tasktools import package

from runctx.shell.commands import test_invocations


def test_without_reading_files_a_task_is_a_task(tmp_path):
    """With ``resolve_tasks=False`` (a live process) no file is read and a task stays a task."""
    package(tmp_path, unit="jest")
    found = test_invocations("npm run unit", str(tmp_path), resolve_tasks=False)
    assert [(i.kind, i.role) for i in found] == [("npm-script", "task")]
