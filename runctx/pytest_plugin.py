"""The pytest plugin: say which other test runs are live, and wait for or refuse ours.

Registered under the ``pytest11`` entry point, so it is active wherever runctx
is installed (``-p no:runctx`` turns it off). It is quiet when there is nothing
to say:

- the report header names the other live runs of this checkout (pid, age,
  members, who started them), foreign runs that are busy now (with their CPU
  use) and a busy box; idle foreign runs on a quiet box are only counted.
  Started by ``runctx run``, which said all that already, the header leaves
  it out and the summary speaks only when tests failed; under ``runctx run
  -q`` the plugin says nothing but a refusal (:mod:`runctx.handoff`);
- what happens next to an earlier live run of this checkout is the policy's
  decision (:mod:`runctx.policy`) for the mode the session runs in:
  ``--runctx`` (ini ``runctx``), else the checkout's ``on-same-checkout``
  setting (``[tool.runctx]`` or ``$RUNCTX_ON_SAME_CHECKOUT``), else ``warn``.
  ``warn`` only reports; ``wait`` blocks the session start until no earlier
  run of this checkout is live (``--runctx-timeout`` bounds it); ``refuse``
  (the policy's ``stop``; ``stop`` is accepted too) exits with status 75, and
  so does ``ask``, since a test session has no one to ask. A wait that times
  out exits with 75 too: either way, nothing ran;
- another user's live run in this very checkout (it shares the checkout's
  files) is the policy's decision for the checkout's ``on-shared-tree``
  setting (``[tool.runctx]`` or ``$RUNCTX_ON_SHARED_TREE``), else ``warn``:
  ``stop`` and ``ask`` exit with status 75 (``--runctx=wait`` does not wait
  for another user's run);
- the caller's own run is found through ``NSpid`` (its pid as the ``/proc``
  read numbers it), so a session never waits for itself; where ``/proc`` is
  another pid namespace's, a session that would have to wait exits with 75
  instead of following pids that are not its own;
- the terminal summary says whether contention was seen during the session
  (sampled at the start, at the first test report under xdist, every ``--runctx-sample``
  seconds, and at the end), so a flaky failure can be read against it. The
  session's own processes are never contention: the box's CPU pressure and
  load are taken at the start, before xdist's workers start; while the
  session runs, the box counts as busy only when processes outside the
  session keep half its CPUs busy (:mod:`runctx.session_cpu`);
- the checkout's ``on-busy-box = "wait"`` makes the session start wait
  while the box is over a pressure or memory threshold (``--runctx-timeout``
  bounds it), whoever's runs cause it; ``warn`` puts a line in the header;
- with ``-n auto`` (pytest-xdist) the worker count leaves room for the CPUs
  other runs keep busy now, and for memory: no more workers than the
  memory available above the checkout's ``busy-box-memory-available`` share
  holds, at the controller's own size each (``--runctx-worker-memory``);
- the code under test and its bytecode (``--runctx-code``,
  ``--runctx-bytecode``) are the second plugin's, :mod:`runctx.pytest_code`,
  registered under its own entry point, ``runctx.code``; its header lines
  are written with this plugin's.

On a quiet box (nothing set for runctx, no process outside the session that
may be a test run, the box under the default thresholds) the session's
plugin object is :class:`runctx.fastpath.quiet_session.QuietSession`, which imports
none of the scan until it has a doubt, and is the whole plugin from then on.

This module holds the options and two hooks: ``pytest_configure`` registers
the session's plugin object (:class:`runctx.pytest_session.ContentionSession`,
which holds the state and acts), and ``pytest_xdist_auto_num_workers`` sizes
``-n auto`` (:mod:`runctx.pytest_auto`). With pytest-xdist only the
controller acts: workers never scan, report or wait, and the run's own
processes (controller, workers) are this run, never contention. A failure
inside runctx never breaks a session: it becomes one line in the header,
and the session goes on (``refuse`` refuses only on a real finding).

Loading the plugin imports pytest and the standard library (with runctx's
escaping, :mod:`runctx.pytest_terminal`), nothing else: every other module
(runctx's own, and attrs, structlog, psutil, which could be the very project
under test) is imported in ``pytest_configure``, after a coverage tool such
as pytest-cov has started measuring (it starts in its ``tryfirst``
``pytest_load_initial_conftests``), and with coverage paused
(:func:`runctx.pytest_terminal.untraced`), so that the plugin changes no
coverage figure of a project it uses; and even a broken install cannot stop
pytest from loading this plugin. Every line it writes (header, summary,
progress, the message of a refusal) is escaped for the terminal, so a
foreign run's argv or directory name cannot write on it.

The ``pytest11`` entry point ``runctx`` names :mod:`runctx.pytest_entry`,
which registers this module unless it is registered already, so ``-p
runctx.pytest_plugin`` or ``pytest_plugins = ["runctx.pytest_plugin"]`` next
to the installed entry point load it once, not twice (pytest would refuse
the second). ``-p no:runctx`` turns off both plugins.
"""

from __future__ import annotations

import os

import pytest

from runctx.pytest_options import add_contention_options
from runctx.pytest_terminal import (
    AUTO_WORKERS_NOTE,
    PREFIX,
    SESSION_PLUGIN,
    error_text,
    is_worker,
    summary_section,
    untraced,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare the ``--runctx`` options and their ini settings."""
    add_contention_options(parser)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Register the session's plugin object on the controller; workers get none and never act."""
    if is_worker(config):
        return
    with untraced():
        try:
            from runctx.fastpath.quiet_session import configure  # noqa: PLC0415 - after coverage

            configure(config)  # what it cannot import (a broken install) is raised from here
        except pytest.UsageError:
            raise
        except Exception as error:  # noqa: BLE001 - even a broken install never breaks a session
            if not config.pluginmanager.has_plugin(SESSION_PLUGIN):
                config.pluginmanager.register(Unavailable(error_text(error)), SESSION_PLUGIN)


class Unavailable:
    """Where runctx's own modules cannot be imported (a broken install): one line each end."""

    def __init__(self, error: str) -> None:
        """Say ``error`` (escaped already) in the header and the summary."""
        self.error = error

    def pytest_report_header(self) -> list[str]:
        """One line: runctx could not check, and why."""
        return [f"{PREFIX}could not check for other runs ({self.error})"]

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, config: pytest.Config
    ) -> None:
        """The same, after the tests."""
        summary_section(terminalreporter, config)
        terminalreporter.write_line(f"runctx could not check for other runs: {self.error}")


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """With ``-n auto``, leave room for the CPUs other live runs keep busy, and for memory."""
    if is_worker(config) or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    with untraced():
        from runctx import pytest_auto, pytest_settings  # noqa: PLC0415 - after coverage starts

        try:
            if not pytest_settings.share_cpus(config):
                return None
            return pytest_auto.auto_workers(config)
        except Exception as error:  # noqa: BLE001 - runctx never breaks a session
            config.stash[AUTO_WORKERS_NOTE] = f"-n auto left to xdist ({error_text(error)})"
            return None
