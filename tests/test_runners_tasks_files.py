"""Reading project files (``runners/tasks/files.py``): bounded, never blocking, regular files only.

Files another user could plant are read through :mod:`runctx.planted`; one
command reads a bounded number of them, and a task expands a bounded number
of tasks.
"""

from __future__ import annotations

import os
import threading

from tasktools import package, runs, write

from runctx.fastpath.scripts import MAX_PROJECT_FILE_BYTES, read_project_file
from runctx.runners.tasks.files import MAX_FILES


class TestBounds:
    """Files another user could plant are read without blocking and within bounds."""

    def test_a_fifo_in_place_of_the_file_does_not_block(self, tmp_path):
        """A FIFO named package.json (nobody writing to it) is never opened: the task is no run."""
        os.mkfifo(tmp_path / "package.json")
        done: list[object] = []
        worker = threading.Thread(target=lambda: done.append(runs("npm run unit", tmp_path)))
        worker.start()
        worker.join(timeout=60)  # a hang guard, never a measure: a blocked read never returns
        assert not worker.is_alive(), "reading a FIFO blocked"
        assert done == [[]]

    def test_a_file_past_the_bound_is_not_read(self, tmp_path):
        """A makefile larger than the bound is not read: its task stays decided by its name."""
        filler = "# " + "x" * 100 + "\n"
        body = filler * (MAX_PROJECT_FILE_BYTES // len(filler) + 1) + "ci:\n\tpytest\n"
        (tmp_path / "Makefile").write_text(body)
        assert runs("make ci", tmp_path) == []
        (tmp_path / "Makefile").write_text("ci:\n\tpytest\n")
        assert runs("make ci", tmp_path) == [("make-target", str(tmp_path))]

    def test_a_project_file_is_read_only_when_regular_and_within_the_bound(self, tmp_path):
        """Directories, FIFOs, missing and oversized files give None; a small file its bytes."""
        (tmp_path / "f").write_bytes(b"abc")
        assert read_project_file(str(tmp_path / "f")) == b"abc"
        (tmp_path / "big").write_bytes(b"x" * (MAX_PROJECT_FILE_BYTES + 1))
        assert read_project_file(str(tmp_path / "big")) is None
        (tmp_path / "edge").write_bytes(b"x" * MAX_PROJECT_FILE_BYTES)
        assert read_project_file(str(tmp_path / "edge")) == b"x" * MAX_PROJECT_FILE_BYTES
        os.mkfifo(tmp_path / "fifo")
        assert read_project_file(str(tmp_path / "fifo")) is None
        assert read_project_file(str(tmp_path)) is None
        assert read_project_file(str(tmp_path / "missing")) is None

    def test_one_command_reads_a_bounded_number_of_files(self, tmp_path):
        """Past the file budget of one command, further makefiles are not read."""
        count = MAX_FILES + 4
        package(tmp_path, ci="; ".join(f"make -C d{n} x" for n in range(count)))
        for n in range(count):
            write(tmp_path / f"d{n}" / "Makefile", "x:\n\techo nothing\n")
        write(tmp_path / f"d{count - 1}" / "Makefile", "x:\n\tpytest\n")
        assert runs("npm run ci", tmp_path) == []
        write(tmp_path / "d3" / "Makefile", "x:\n\tpytest\n")
        assert runs("npm run ci", tmp_path) == [("npm-script", str(tmp_path))]

    def test_tasks_inside_tasks_are_read_to_a_bounded_depth(self, tmp_path):
        """A chain of recursive makes through many directories is followed a few levels only."""
        depth = 8
        for n in range(depth):
            write(tmp_path / f"d{n}" / "Makefile", f"ci:\n\t$(MAKE) -C ../d{n + 1} ci\n")
        write(tmp_path / f"d{depth}" / "Makefile", "ci:\n\tpytest\n")
        assert runs("make -C d0 ci", tmp_path) == []
        assert runs(f"make -C d{depth - 2} ci", tmp_path) == [
            ("make-target", str(tmp_path / f"d{depth - 2}"))
        ]

    def test_a_task_calling_itself_ends(self, tmp_path):
        """Scripts that call each other in a loop are read a bounded number of times."""
        package(tmp_path, a="npm run b", b="npm run a")
        assert runs("npm run a", tmp_path) == []
