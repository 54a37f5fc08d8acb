"""Real projects for the task readers' tests: package.json, makefiles, justfiles, Taskfiles.

The shell parser reads a project written into a temporary directory, as the
hook does: :func:`runs` says which test runs a command starts there.
"""

from __future__ import annotations

import json
import textwrap

from runctx.shell.commands import test_invocations


def runs(command, cwd):
    """``(kind, cwd)`` of each test run ``command`` surely starts in ``cwd``, files read."""
    return [(i.kind, i.cwd) for i in test_invocations(command, str(cwd)) if i.unread is None]


def maybe_runs(command, cwd):
    """``(words, why)`` of each task of ``command`` that runctx could not read all of."""
    found = test_invocations(command, str(cwd))
    return [(" ".join(i.argv), i.unread.detail) for i in found if i.unread is not None]


def package(directory, **scripts):
    """A package.json in ``directory`` with these scripts."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "package.json").write_text(json.dumps({"name": "p", "scripts": scripts}))


def write(path, text):
    """``text``, dedented, at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
