"""Directory options judged from the directory they name, like ``cd DIR &&``.

``make -C DIR``, ``--directory=DIR``, ``pnpm -C``, ``go -C``, ``yarn --cwd``,
``npm --prefix`` and wrappers' own (``env -C``, ``git -C``): the run works in
DIR, so the hook judges it from DIR's checkout. Parsed from text first, then
answered by the real hook beside a real run.
"""

from __future__ import annotations

import pytest
from hooktools import claude_pre_tool_use, reply, run_hook, world  # noqa: F401 - a fixture

from runctx.shell.commands import test_invocations

CWD = "/w/a/proj"


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ("make -C ../../b/proj test", "/w/b/proj"),
        ("make --directory=../../b/proj test", "/w/b/proj"),
        ("make --directory ../../b/proj check", "/w/b/proj"),
        ("make -C /w/b/proj test", "/w/b/proj"),
        ("pnpm -C ../web test", "/w/a/web"),
        ("pnpm --dir=../web run test:unit", "/w/a/web"),
        ("go -C ../svc test ./...", "/w/a/svc"),
        ("yarn --cwd ../web test", "/w/a/web"),
        ("npm --prefix ../web test", "/w/a/web"),
        ("npm --prefix=../web run test", "/w/a/web"),
        ("cd sub && make -C deeper test", "/w/a/proj/sub/deeper"),
        ("git -C ../other bisect run pytest -x", "/w/a/other"),
        ("env -C ../other pytest", "/w/a/other"),
        ("./gradlew -p android test", "/w/a/proj/android"),
        ("mvn -f ../api/pom.xml verify", "/w/a/api"),
        ("cargo test --manifest-path ../core/Cargo.toml", "/w/a/core"),
    ],
)
def test_a_directory_option_moves_the_run(command, cwd):
    """The invocation's cwd is the directory the option names, relative to where it starts."""
    found = test_invocations(command, CWD)
    assert [i.cwd for i in found] == [cwd]
    assert all(i.cwd_known for i in found)


def test_a_directory_that_is_not_plain_text_is_a_guess():
    """``make -C "$DIR" test``: the directory is not known, and the invocation says so."""
    found = test_invocations('make -C "$DIR" test', CWD)
    assert [(i.kind, i.cwd_known) for i in found] == [("make-test", False)]


def test_make_in_another_checkout_is_judged_from_there(world):  # noqa: F811 - the fixture
    """From the idle checkout, ``make -C BUSY test`` faces BUSY's live run: it is refused."""
    command = f"make -C {world.busy} test"
    answer = reply(run_hook("claude", claude_pre_tool_use(command, world.idle)))
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


@pytest.mark.parametrize("spelling", ["make -C {} test", "make --directory={} test"])
def test_make_into_an_idle_checkout_goes_ahead(world, spelling):  # noqa: F811 - the fixture
    """From the busy checkout, a run made in the idle one only gets a note on the busy run."""
    command = spelling.format(world.idle)
    answer = reply(run_hook("claude", claude_pre_tool_use(command, world.busy)))
    output = answer["hookSpecificOutput"]
    assert "permissionDecision" not in output
    assert f"pid {world.run.pid}" in output["additionalContext"]
