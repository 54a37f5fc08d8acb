"""Shells that read their commands from stdin: ``echo pytest | sh``, ``bash <<EOF``.

The text a shell reads from a pipe (what ``echo`` or ``printf`` writes) or
from a here-document or here-string is read as commands; the same text fed to
any other program is data.
"""

from __future__ import annotations

import pytest

from runctx.shell.commands import test_invocations

CWD = "/w/proj"


def kinds(command):
    """The kinds of the test runs ``command`` starts."""
    return [i.kind for i in test_invocations(command, CWD)]


@pytest.mark.parametrize(
    "command",
    [
        "echo pytest | sh",
        "echo 'pytest -x' | bash -s",
        "printf 'cd sub\\npytest\\n' | sh -e",
        "bash <<EOF\npytest -x\nEOF",
        "sh -s <<'SCRIPT'\n  cd tests && python -m pytest\nSCRIPT\necho done",
        "bash <<< 'pytest -q'",
    ],
)
def test_a_shell_reading_commands_from_stdin_runs_them(command):
    """What a shell reads on stdin is read as commands."""
    assert kinds(command) == ["pytest"]


@pytest.mark.parametrize(
    "command",
    [
        "echo pytest | cat",
        "echo pytest | sh script.sh",
        "echo pytest | bash -c 'read x'",
        "cat <<EOF > run.sh\npytest\nEOF",
        "grep -c pytest <<< 'pytest'",
        "echo pytest",
    ],
)
def test_the_same_text_as_data_is_no_run(command):
    """Text piped or redirected into anything but a shell reading stdin is data."""
    assert kinds(command) == []


def test_a_stdin_script_changes_directory_inside_its_shell_only():
    """``cd`` in the piped text moves that text's commands, not the next command."""
    found = test_invocations("printf 'cd sub\\npytest\\n' | sh; pytest", CWD)
    assert [i.cwd for i in found] == [f"{CWD}/sub", CWD]


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("echo 'requireNamespace(\"devtools\"); devtools::test()' | R --vanilla", "r-check"),
        ("echo 'using Pkg; Pkg.test()' | julia --project", "julia-test"),
        ("R --vanilla <<EOF\ndevtools::check()\nEOF", "r-check"),
    ],
)
def test_an_interpreter_reading_code_from_stdin_runs_it(command, kind):
    """R and julia read their code from stdin when given none: that code decides."""
    assert kinds(command) == [kind]


def test_the_same_code_into_another_program_is_data():
    """The same R code piped into ``cat`` runs nothing."""
    assert kinds("echo 'devtools::test()' | cat") == []
