"""The ``runctx`` dispatcher as people type it: ``--version``, ``--help``, options, errors."""

from __future__ import annotations

import importlib
import json
import logging
import os
import pkgutil
import re
import subprocess
import sys
from importlib.metadata import version

import jsonschema
import pytest
from hooktools import hook_env, runctx
from schematools import load_schema

from runctx import exits
from runctx._log import LOGGER_NAME
from runctx.cli import check, run, stop, wait
from runctx.cli.main import SUBCOMMANDS, main
from runctx.present.schema import SCHEMA_VERSION


def test_version_is_the_installed_distributions():
    """``runctx --version`` prints the version the package metadata holds, and exits 0."""
    done = runctx("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"runctx {version('runctx')}"


def test_help_lists_every_subcommand_the_hook_and_every_exit_status():
    """``runctx --help`` names each subcommand, ``hook`` and each status a subcommand exits with."""
    done = runctx("--help")
    assert done.returncode == 0
    listed = set(re.findall(r"^    (\w+) ", done.stdout, re.MULTILINE))
    assert {*SUBCOMMANDS, "hook"} <= listed
    statuses = {
        exits.EXIT_ERROR,
        exits.EXIT_USAGE,
        exits.EXIT_REFUSED,
        exits.EXIT_INTERRUPTED,
        exits.EXIT_BROKEN_PIPE,
        check.EXIT_CLEAR,
        check.EXIT_OURS,
        check.EXIT_FOREIGN,
        wait.EXIT_TIMED_OUT,
        run.EXIT_NOT_EXECUTABLE,
        run.EXIT_NOT_FOUND,
        *stop.STATUS_EXITS.values(),
    }
    epilog = done.stdout.split("exit statuses:", 1)[1]
    shown = {
        int(code)
        for code in re.findall(r"^  (\d+(?:/\d+)?)", epilog, re.MULTILINE)
        for code in code.split("/")
    }
    assert statuses <= shown


def test_each_exit_status_name_means_one_status_everywhere():
    """An ``EXIT_*`` name defined in two modules holds the same status in both (one home each)."""
    seen: dict[str, dict[int, str]] = {}
    package = importlib.import_module("runctx")
    for info in pkgutil.walk_packages(package.__path__, "runctx."):
        if info.name == "runctx.__main__":  # importing it runs the command
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("EXIT_") and isinstance(value, int):
                seen.setdefault(name, {}).setdefault(value, info.name)
    clashes = {name: where for name, where in seen.items() if len(where) > 1}
    assert not clashes, clashes


@pytest.mark.parametrize("where", ["after", "both"])
def test_global_options_are_accepted_after_the_subcommand(where):
    """``status -v`` works like ``-v status``, and ``-v status -v`` counts as ``-vv``."""
    logger = logging.getLogger(LOGGER_NAME)
    saved = logger.level, list(logger.handlers), logger.propagate
    args = ["status", "-v", "--json"] if where == "after" else ["-v", "status", "-v", "--json"]
    try:
        assert main(args) == 0
        assert logger.level == (logging.INFO if where == "after" else logging.DEBUG)
    finally:
        logger.setLevel(saved[0])
        logger.handlers[:] = saved[1]
        logger.propagate = saved[2]


def test_verbose_after_the_subcommand_logs_the_verdicts():
    """``runctx status -v`` (the order the issue's users typed) logs to stderr, not exit 2."""
    done = runctx("status", "-v", "--log-json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line)["event"] for line in done.stderr.splitlines()]
    assert "runctx.scan_finished" in events


@pytest.mark.parametrize(
    ("args", "env", "status", "kind"),
    [
        (["status", "--json", "--bogus"], {}, 2, "usage"),
        (["check", "--json", "--root", "/no/such/dir"], {}, 2, "usage"),
        (["status", "--json"], {"RUNCTX_SOURCE": "bogus"}, 1, "error"),
        (["check", "--json"], {"RUNCTX_SOURCE": "bogus"}, 1, "error"),
    ],
)
def test_errors_are_json_under_json(args, env, status, kind):
    """With ``--json`` an error is one JSON document on stdout, valid by the shipped schema."""
    done = runctx(*args, env=hook_env(**env))
    assert done.returncode == status
    document = json.loads(done.stdout)
    jsonschema.validate(document, load_schema("error"))
    assert document["schema_version"] == SCHEMA_VERSION
    assert document["error"]["kind"] == kind
    assert document["error"]["exit_status"] == status
    assert done.stderr == ""


def test_errors_stay_one_line_on_stderr_without_json():
    """Without ``--json`` the same error is one line on stderr and nothing on stdout."""
    done = runctx("status", env=hook_env(RUNCTX_SOURCE="bogus"))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("runctx: error: unknown process source 'bogus'")
    assert len(done.stderr.splitlines()) == 1


def test_a_global_option_before_hook_runs_the_hook(tmp_path):
    """``runctx -v hook claude`` answers as ``runctx hook claude``.

    After a global option, a face that is none is a usage error, never a traceback.
    """
    payload = json.dumps(
        {"tool_name": "Bash", "tool_input": {"command": "git status"}, "cwd": str(tmp_path)}
    )
    env = hook_env()
    done = subprocess.run(
        [sys.executable, "-m", "runctx", "-v", "hook", "claude"],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (0, "")
    assert "Traceback" not in done.stderr
    for before, face in (("-v", "status"), ("--log-json", "wait")):
        wrong = subprocess.run(
            [sys.executable, "-m", "runctx", before, "hook", face],
            input="",
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=60,
        )
        assert wrong.returncode == exits.EXIT_USAGE, wrong.stderr
        assert "invalid choice" in wrong.stderr
        assert "Traceback" not in wrong.stderr


_COLLECTIONS = """
import gc, sys
if sys.argv[1] == "untuned":
    gc.set_threshold = lambda *threshold: None
collections = []
gc.callbacks.append(lambda phase, info: collections.append(phase) if phase == "start" else None)
sys.argv = ["runctx", *sys.argv[2:]]
from runctx.fastpath.hook import dispatch
collections.clear()  # what importing the console's own module ran is the same either way
try:
    status = dispatch()
finally:
    print(len(collections), gc.get_threshold()[0], gc.isenabled(), file=sys.stderr)
"""


def _python(
    script: str, *argv: str, stdout: int = subprocess.PIPE, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -c SCRIPT ARGV`` in ``/``, fed a hook's payload of a command that is no test run."""
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        input=_NO_TEST_PAYLOAD,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd="/",
        env=hook_env() if env is None else env,
        check=False,
        timeout=60,
    )


def _collections(tuning: str, *argv: str) -> tuple[int, int, bool]:
    """How often ``runctx ARGV`` ran the cycle collector, its threshold then, whether it was on."""
    done = _python(_COLLECTIONS, tuning, *(argv or ("status", "--json")))
    assert done.returncode == 0, done.stderr
    collections, threshold, enabled = done.stderr.split()[-3:]
    return int(collections), int(threshold), enabled == "True"


_NO_TEST_PAYLOAD = json.dumps(
    {
        "hook_event_name": "PreToolUse",
        "cwd": "/",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
)


_ENDS_AT_ONCE = """
import atexit, sys
atexit.register(lambda: print("the teardown ran", file=sys.stderr))
print("left in the buffer", end=" ")
sys.argv = ["runctx", *sys.argv[1:]]
from runctx.cli import console
console()
"""


@pytest.mark.parametrize("argv", [["--version"], ["hook", "claude"]])
def test_the_console_ends_its_process_at_once_with_its_output_flushed(argv: list[str]):
    """No interpreter teardown (nothing registered to run at exit runs), nothing lost."""
    done = _python(_ENDS_AT_ONCE, *argv)
    assert done.returncode == 0, done.stderr
    assert "the teardown ran" not in done.stderr
    assert done.stdout.startswith("left in the buffer")
    if argv == ["--version"]:
        assert done.stdout.split()[-1] == version("runctx")


@pytest.mark.parametrize(
    ("argv", "status"), [(["check", "-q"], exits.EXIT_BROKEN_PIPE), (["hook", "claude"], 0)]
)
def test_the_console_ends_quietly_when_the_reader_of_its_output_went_away(
    argv: list[str], status: int
):
    """What stdout still buffers at the end cannot be written: 141, as for a write that fails.

    A hook exits 0 all the same: whatever happens to its streams, it never
    stops the agent's command.
    """
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = hook_env()
    env.pop("PYTHONUNBUFFERED", None)  # the script's text stays in the buffer to the end
    try:
        done = _python(_ENDS_AT_ONCE, *argv, stdout=write_end, env=env)
    finally:
        os.close(write_end)
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr


def test_version_ends_quietly_when_the_reader_of_its_output_went_away():
    """``--version`` to a closed pipe: 141 and nothing on stderr, no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = runctx("--version", stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    assert done.returncode == exits.EXIT_BROKEN_PIPE, done.stderr
    assert not done.stderr


_LIBRARY_LEAVES_THE_COLLECTOR = (
    "import gc; before = gc.get_threshold(); import runctx.api, runctx.pytest_plugin,"
    " runctx.scanning; runctx.scanning.scan(); print(gc.get_threshold() == before)"
)


def test_the_console_runs_the_cycle_collector_rarely_and_only_in_its_own_process():
    """A ``status`` runs the collector a few times, not after every 700 new objects.

    Importing runctx (the library, the pytest plugin) and scanning leave a
    process's collector as it was: only the console, whose process is
    runctx's, tunes it.
    """
    tuned, threshold, enabled = _collections("tuned")
    untuned, default, _ = _collections("untuned")
    assert enabled
    assert threshold >= 50 * default
    assert tuned * 5 <= untuned, (tuned, untuned)
    assert _collections("tuned", "hook", "claude") == (0, default, False)  # a hook: none at all
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            _LIBRARY_LEAVES_THE_COLLECTOR,
        ],
        capture_output=True,
        text=True,
        env=hook_env(),
        check=True,
        timeout=60,
    )
    assert imported.stdout.split() == ["True"]
