"""A broken configuration degrades: the read-only faces and the hooks warn and use the defaults.

Real files, real processes: the hook and the CLI run as processes in a checkout
whose ``[tool.runctx]`` has a typo.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from proctools import make_checkout

from runctx.settings import DEFAULTS, settings_and_problem, settings_for

TYPO = '[project]\nname = "proj"\nversion = "0"\n\n[tool.runctx]\non-same-checkout = "stpo"\n'
BAD_TOML = '[project]\nname = "proj"\n\n[tool.runctx]\non-busy-box = warn\n'


def test_a_bad_value_is_named_with_its_file_and_line_and_left_out(tmp_path):
    """The layer with the typo is left out (the defaults hold); the problem says where and what."""
    (tmp_path / "pyproject.toml").write_text(TYPO)
    settings, problem = settings_and_problem(str(tmp_path), environ={})
    assert settings.mode == DEFAULTS.mode
    assert problem is not None
    assert problem.startswith(f"{tmp_path / 'pyproject.toml'}:6: [tool.runctx] on-same-checkout")
    assert "'stpo'" in problem


def test_invalid_toml_is_named_with_its_line_and_the_user_file_still_counts(tmp_path):
    """A TOML error gives its line; the user's own valid file is still read."""
    (tmp_path / "pyproject.toml").write_text(BAD_TOML)
    user = tmp_path / "user.toml"
    user.write_text('on-same-checkout = "warn"\n')
    settings, problem = settings_and_problem(str(tmp_path), environ={"RUNCTX_CONFIG": str(user)})
    assert problem is not None
    assert problem.startswith(f"{tmp_path / 'pyproject.toml'}:5: invalid TOML")
    assert settings.mode.value == "warn"


def test_without_degrade_a_broken_file_still_raises(tmp_path):
    """``runctx run`` and the API keep the strict reading."""
    from runctx.exceptions import ConfigError

    (tmp_path / "pyproject.toml").write_text(TYPO)
    with pytest.raises(ConfigError, match="stpo"):
        settings_for(str(tmp_path), environ={})


def test_the_hook_tells_the_agent_and_decides_with_the_defaults(shared_tmp, runs):
    """A typo: the agent is told which file is broken, and the defaults decide.

    Alone, the command goes ahead with the words; next to a live run of this
    checkout it is refused (the default, ``stop``), with the same words.
    """
    checkout = make_checkout(shared_tmp)
    (checkout / "pyproject.toml").write_text(TYPO)
    alone = reply(run_hook("claude", claude_pre_tool_use("pytest -x", checkout)))
    context = alone["hookSpecificOutput"]["additionalContext"]
    assert "runctx configuration is broken" in context
    assert f"{checkout / 'pyproject.toml'}:6:" in context
    run = runs.run_tests_script(checkout)
    held = reply(run_hook("claude", claude_pre_tool_use("pytest -x", checkout)))
    output = held["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"pid {run.pid}" in output["permissionDecisionReason"]
    assert "runctx configuration is broken" in output["permissionDecisionReason"]


def test_status_check_and_wait_warn_and_go_on(shared_tmp):
    """The read-only faces exit as usual, with one warning naming the file and line."""
    checkout = make_checkout(shared_tmp)
    (checkout / "pyproject.toml").write_text(TYPO)
    for face in (["status"], ["check"], ["wait", "--timeout", "5"]):
        done = subprocess.run(
            [sys.executable, "-m", "runctx", *face],
            cwd=checkout,
            capture_output=True,
            text=True,
            env=hook_env(),
            check=False,
            timeout=120,
        )
        assert done.returncode in {0, 4}, (face, done.stderr)
        assert f"{checkout / 'pyproject.toml'}:6: [tool.runctx] on-same-checkout" in done.stderr
        assert done.stderr.count("configuration is broken") == 1
