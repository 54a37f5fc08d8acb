"""The user's own configuration file: runners recognised from every checkout, by every face."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from proctools import make_checkout, orphan, wait_for
from runfixtures import clean_env

from runctx.exceptions import ConfigError
from runctx.runners import RunnerMatch, detect_runner
from runctx.settings import CONFIG_ENV, MODE_ENV, Mode, settings_for, user_config_path

USER_RUNNER = '[[runners]]\nkind = "e2e"\nprogram = "run-e2e"\n'


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({CONFIG_ENV: "/etc/x.toml", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/etc/x.toml"),
        ({"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/runctx/config.toml"),
        ({"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/runctx/config.toml"),
        ({"HOME": "/h"}, "/h/.config/runctx/config.toml"),
        ({}, None),
    ],
)
def test_the_user_file_is_found_where_xdg_says(environ, expected):
    """$RUNCTX_CONFIG, else an absolute $XDG_CONFIG_HOME, else ~/.config; no home, no file."""
    assert user_config_path(environ) == expected


def _user_file(tmp_path, text):
    config = tmp_path / "xdg" / "runctx" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def test_user_runners_come_after_the_checkouts(tmp_path):
    """The checkout's rows, then the user's, then the builtin table; both files are named."""
    environ = _user_file(tmp_path, USER_RUNNER)
    checkout = tmp_path / "proj"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text(
        '[tool.runctx]\nrunners = [{ kind = "own", program = "run-e2e" }]\n'
    )
    settings = settings_for(str(checkout), environ)
    assert [row.kind for row in settings.runners] == ["own", "e2e"]
    assert settings.user_path == str(tmp_path / "xdg" / "runctx" / "config.toml")
    assert detect_runner(["run-e2e"], settings.patterns) == RunnerMatch("own")
    assert "run-e2e" in settings.names
    elsewhere = settings_for(str(tmp_path), environ)
    assert detect_runner(["run-e2e"], elsewhere.patterns) == RunnerMatch("e2e")
    assert detect_runner(["run-e2e"], settings_for(str(tmp_path), {}).patterns) is None


def test_the_checkout_mode_wins_over_the_users_and_the_environment_over_both(tmp_path):
    """on-same-checkout: environment, then checkout, then user, then the default."""
    environ = _user_file(tmp_path, 'on-same-checkout = "warn"\n')
    assert settings_for(str(tmp_path), environ).mode is Mode.WARN
    (tmp_path / "pyproject.toml").write_text('[tool.runctx]\non-same-checkout = "ask"\n')
    assert settings_for(str(tmp_path), environ).mode is Mode.ASK
    assert settings_for(str(tmp_path), {**environ, MODE_ENV: "wait"}).mode is Mode.WAIT


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("runners = [", "invalid TOML"),
        ("runners = 3", "runners must be an array"),
        ('runners = [{ kind = "x" }]', "runners[0]"),
        ('on-same-checkout = "never"', "on-same-checkout must be one of"),
    ],
)
def test_a_malformed_user_file_names_itself(tmp_path, text, what):
    """A bad user file is a clear error naming the file and the key."""
    environ = _user_file(tmp_path, text)
    with pytest.raises(ConfigError, match=r"config\.toml") as raised:
        settings_for(str(tmp_path), environ)
    assert what in str(raised.value)


def test_the_hook_recognises_a_user_runner_in_any_checkout(tmp_path, shared_tmp):
    """The hook reads the user's file: ``run-e2e`` is a test run in a checkout that sets nothing."""
    environ = _user_file(tmp_path, USER_RUNNER)
    checkout = make_checkout(shared_tmp)
    script = checkout / "run-e2e"
    script.write_text(
        f"#!{sys.executable}\nimport sys, time, pathlib\n"
        "pathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    script.chmod(0o755)
    ready = checkout / "ready"
    with orphan([str(script), str(ready)], checkout, env=clean_env()) as run:
        wait_for(ready.exists, what="run-e2e to start")
        env = hook_env(**environ)
        answer = reply(
            run_hook("claude", claude_pre_tool_use("./run-e2e --all", checkout), env=env)
        )
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert f"pid {run.pid} (e2e" in answer["hookSpecificOutput"]["permissionDecisionReason"]
        done = run_hook("claude", claude_pre_tool_use("./run-e2e --all", checkout))
        assert (done.returncode, done.stdout) == (0, "")  # without the user's file: no run


def test_status_sees_a_user_runner_of_another_checkout_as_foreign(tmp_path, shared_tmp):
    """``runctx status`` from another checkout lists the custom runner's load as foreign."""
    environ = _user_file(tmp_path, USER_RUNNER)
    theirs = make_checkout(shared_tmp / "b")
    mine = make_checkout(shared_tmp / "a")
    script = theirs / "run-e2e"
    script.write_text(
        f"#!{sys.executable}\nimport sys, time, pathlib\n"
        "pathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    script.chmod(0o755)
    ready = theirs / "ready"
    with orphan([str(script), str(ready)], theirs, env=clean_env()) as run:
        wait_for(ready.exists, what="run-e2e to start")
        command = [sys.executable, "-m", "runctx", "status", "--json"]
        seen = {}
        for name, env in (("with", hook_env(**environ)), ("without", hook_env())):
            done = subprocess.run(command, capture_output=True, cwd=mine, env=env, check=True)
            report = json.loads(done.stdout)
            seen[name] = [r for r in report["runs"] if r["pid"] == run.pid]
        assert [(r["kind"], r["verdict"]) for r in seen["with"]] == [("e2e", "foreign")]
        assert seen["without"] == []
