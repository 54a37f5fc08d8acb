"""What the pytest plugin writes, and how much: real sessions next to real live runs.

At the default verbosity a session gets one runctx line before its tests and
one after; ``-v`` gives every detail; ``-q`` keeps only what matters; a
typo in ``[tool.runctx]`` is a warning, never a session that cannot start.
"""

from __future__ import annotations

import re
import subprocess

import pytest
import test_pytest_plugin
from test_pytest_plugin import (
    RAN,
    header_of,
    session,
    summary_of,
)

from runctx.settings import settings_and_problems

pytest_plugins = ["pytester"]

checkout = test_pytest_plugin.checkout
"""The one pytester checkout fixture, shared with the plugin's other tests."""

BUSY_ALWAYS = (
    "[tool.runctx]\nbusy-box-cpu-pressure = 0\nbusy-box-load-per-cpu = 0\n"
    "busy-box-memory-available = false\n"
)
"""Thresholds any box crosses: every sample of the session finds the box busy."""


def runctx_lines(result: pytest.RunResult) -> list[str]:
    """The lines the plugin wrote."""
    return [line for line in result.outlines if line.startswith("runctx")]


def the_busy_scene(pytester, checkout, runs) -> int:
    """A live run of this checkout, and a box the checkout calls busy; its pid."""
    (checkout / "pyproject.toml").write_text(BUSY_ALWAYS)
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    return runs.run_tests_script(checkout).pid


def test_a_session_gets_one_line_before_its_tests_and_one_after(pytester, checkout, runs):
    """Our live run and a busy box, sampled at the start and the end: two runctx lines."""
    ours = the_busy_scene(pytester, checkout, runs)
    result = session(pytester, runs, "--verbosity=0", "--runctx-sample=0")  # sampled throughout
    assert result.ret == 0, result.outlines
    lines = runctx_lines(result)
    assert len(lines) == 2, lines
    header, summary = lines
    assert f"pid {ours} (run-tests-script" in header
    assert "box busy" in header
    assert "pytest -v says more" in header
    assert f"pid {ours}" in summary
    summed = re.search(r"box busy in \d+ of (\d+) samples", summary)  # summed, not listed
    assert summed, summary
    assert int(summed.group(1)) >= 2
    assert "start, " not in summary
    assert not any(re.fullmatch(r"-+ runctx -+", line) for line in result.outlines)


def test_v_gives_the_details_the_line_left_out(pytester, checkout, runs):
    """``-v``: each run and fact on a line of its own, and the samples by name."""
    ours = the_busy_scene(pytester, checkout, runs)
    result = session(pytester, runs, "-v", "--runctx-sample=0")
    assert result.ret == 0, result.outlines
    out = "\n".join(result.outlines)
    assert len(header_of(result)) + len(summary_of(result)) > 2, out
    assert re.search(r"\d+ samples: start, \d+ during, end", out), out
    assert f"other run of this checkout: pid {ours} (" in out


@pytest.mark.parametrize("quiet", ["-q", "-qq"])
def test_quiet_keeps_the_run_of_this_checkout_in_one_line(pytester, checkout, runs, quiet):
    """``-q``: one line on our run, none on the box; ``-qq``, tests passing: no summary."""
    ours = the_busy_scene(pytester, checkout, runs)
    result = session(pytester, runs, quiet)
    assert result.ret == 0, result.outlines
    lines = runctx_lines(result)
    assert f"pid {ours} (run-tests-script" in lines[0]
    assert "box busy" not in lines[0]
    assert len(lines) == (2 if quiet == "-q" else 1), lines


TYPOS = [
    ('on-same-checkout = "sometimes"', 'on-same-checkout must be one of "stop"'),
    ('runners = "pytest"', "runners must be an array of tables"),
    ('on-same-chekout = "wait"', "on-same-chekout: not a runctx setting"),
    ("busy-box-cpu-pressure = 400", "busy-box-cpu-pressure must be a number"),
]


@pytest.mark.parametrize("case", TYPOS)
@pytest.mark.parametrize("verbosity", ["-q", "-v", "--verbosity=0"])
def test_a_typo_in_the_table_lets_the_session_run_with_a_warning(
    pytester, checkout, runs, case, verbosity
):
    """The tests run; one line names the file, the line and what is wrong; defaults hold."""
    typo, said = case
    (checkout / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.runctx]\n{typo}\n')
    pytester.makepyfile(test_once=RAN)
    result = session(pytester, runs, verbosity)
    assert result.ret == 0, result.outlines + result.errlines
    assert (checkout / "ran").exists()
    warned = [line for line in runctx_lines(result) if said in line]
    assert len(warned) == 1, result.outlines
    assert str(checkout / "pyproject.toml") in warned[0]
    assert ":5: " in warned[0]


def test_a_typo_leaves_the_table_at_its_defaults(tmp_path):
    """A malformed table sets nothing; a misspelt key is ignored, the others kept."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.runctx]\non-same-checkout = "wait"\nbusy-run-cpu = "a lot"\n')
    settings, warnings = settings_and_problems(str(tmp_path), environ={})
    assert settings.on_same_checkout is None
    (warning,) = warnings
    assert warning.startswith(f"{pyproject}:3: [tool.runctx] busy-run-cpu must be")
    pyproject.write_text('[tool.runctx]\non-same-checkout = "wait"\nbusy-run-cpus = 1\n')
    settings, warnings = settings_and_problems(str(tmp_path), environ={})
    assert settings.on_same_checkout is not None
    assert settings.on_same_checkout.value == "wait"
    (warning,) = warnings
    assert warning.startswith(f"{pyproject}:3: [tool.runctx] busy-run-cpus: not a runctx")
    pyproject.write_text('[tool.runctx]\non-same-checkout = "wait"\n')
    assert settings_and_problems(str(tmp_path), environ={})[1] == ()
