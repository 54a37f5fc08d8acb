"""A run with escape sequences and bytes that are not UTF-8 in its argv and path, in every face.

One hostile run, started orphaned in a directory named
``x<ESC>[2Jy<LF>FAKE: line<FF><FE>`` with the arguments ``<ESC>]0;pwned<BEL>...``
and ``<FF><FE>``, is seen from another checkout by every face, on a strict
UTF-8 stdout, an ASCII one and the C locale: nothing reaches the terminal raw,
nothing fails to encode, JSON is strict, and its exact bytes can be had back.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hooktools import claude_pre_tool_use, hook_env
from proctools import PYTHON, make_checkout, spawn_orphan, wait_for
from runfixtures import clean_env
from test_present_escape import strict_json

DIRECTORY = b"x\x1b[2Jy\nFAKE: line\xff\xfe"
TITLE_ARG = b"\x1b]0;pwned\x07\x1b[2J\x1b[31m"
BAD_ARG = b"\xff\xfe"
RAW = (b"\x1b", b"\x07", b"\xff\xfe", b"\nFAKE")
"""What must never reach a terminal: ESC, BEL, the bad bytes, a forged line."""

ENCODINGS = {
    "strict-utf8": {"PYTHONIOENCODING": "utf-8:strict"},
    "ascii": {"PYTHONIOENCODING": "ascii:strict"},
    "c-locale": {"LC_ALL": "C", "PYTHONIOENCODING": ""},
}

HOLD = "import pathlib, sys, time\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"


class Hostile:
    """The hostile run and a checkout to look at it from."""

    def __init__(self, root: bytes, pid: int, viewer: Path) -> None:
        """Hold what the tests need."""
        self.root = root
        self.pid = pid
        self.viewer = viewer


@pytest.fixture(scope="module")
def hostile():
    """The hostile run, live for the module, seen from a plain checkout ``viewer``."""
    base = Path(tempfile.mkdtemp(prefix="runctx-hostile-")).resolve()
    base.chmod(0o755)
    root = os.fsencode(base) + b"/" + DIRECTORY
    os.mkdir(root)
    subprocess.run(["git", "init", "-q", root], check=True)
    with open(root + b"/run_tests.py", "w", encoding="utf-8") as script:
        script.write(HOLD)
    ready = base / "ready"
    argv = [PYTHON, "run_tests.py", str(ready), os.fsdecode(TITLE_ARG), os.fsdecode(BAD_ARG)]
    run = spawn_orphan(argv, Path(os.fsdecode(root)), env=clean_env())
    viewer = make_checkout(base, "viewer")
    (viewer / "run_tests.py").write_text("pass\n")
    try:
        wait_for(ready.exists, what="the hostile run to start")
        yield Hostile(root, run.pid, viewer)
    finally:
        run.kill()
        shutil.rmtree(base, ignore_errors=True)


def runctx(
    hostile, *argv: str, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess:
    """``runctx ARGV`` from the viewer checkout, output as bytes."""
    environment = {**hook_env(), **env}
    return subprocess.run(
        [sys.executable, "-m", "runctx", *argv],
        cwd=hostile.viewer,
        input=stdin.encode(),
        capture_output=True,
        env={k: v for k, v in environment.items() if v},
        timeout=60,
        check=False,
    )


def assert_nothing_raw(output: bytes) -> None:
    """No escape sequence, bell, bad byte or forged line in ``output``."""
    for raw in RAW:
        assert raw not in output, (raw, output[:2000])


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_status_shows_the_hostile_run_escaped(hostile, encoding):
    """The status table names the run with every control character and bad byte escaped."""
    done = runctx(hostile, "status", env=ENCODINGS[encoding])
    assert done.returncode == 0, done.stderr
    assert_nothing_raw(done.stdout)
    row = next(line for line in done.stdout.splitlines() if line.startswith(b"  %d " % hostile.pid))
    assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in row
    assert b"\\x1b]0;pwned\\x07" in row or row.endswith((b"\\u2026", "…".encode()))
    why = done.stdout.split(row, 1)[1].splitlines()[1]
    assert why.startswith(b"      why: ")
    assert b"line\\xff\\xfe != " in why


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_check_words_show_the_hostile_run_escaped(hostile, encoding):
    """The sentences of check name the run's root escaped, on one line."""
    done = runctx(hostile, "check", env=ENCODINGS[encoding])
    assert done.returncode in (3, 4), done.stderr
    assert_nothing_raw(done.stdout + done.stderr)
    assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in done.stdout


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_json_is_strict_and_gives_the_exact_bytes_back(hostile, encoding):
    """The status JSON is strict UTF-8 JSON; root_bytes and argv_bytes decode to the real bytes."""
    done = runctx(hostile, "status", "--json", env=ENCODINGS[encoding])
    assert done.returncode == 0, done.stderr
    report = strict_json(done.stdout)
    run = next(r for r in report["runs"] if r["pid"] == hostile.pid)
    assert base64.b64decode(run["root_bytes"]) == hostile.root
    assert run["root"] == os.fsdecode(hostile.root).encode("utf-8", "surrogateescape").decode(
        "utf-8", "replace"
    )
    argv = [base64.b64decode(arg) for arg in run["argv_bytes"]]
    assert argv[-2:] == [TITLE_ARG, BAD_ARG]
    assert run["argv"][-2] == TITLE_ARG.decode()
    assert run["argv"][-1] == "\ufffd\ufffd"


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_the_hook_reply_is_strict_ascii_json_with_the_run_escaped(hostile, encoding):
    """The hook's note is ASCII JSON a strict parser takes, its text escaped for display."""
    payload = json.dumps(claude_pre_tool_use("python3 run_tests.py", hostile.viewer))
    done = runctx(hostile, "hook", "claude", env=ENCODINGS[encoding], stdin=payload)
    assert done.returncode == 0
    assert done.stdout.isascii()
    reply = strict_json(done.stdout)
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert "x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in context
    assert "\x1b" not in context
    assert "\nFAKE" not in context


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_run_says_its_note_escaped(hostile, encoding):
    """The note runctx run writes before it starts the command names the run escaped."""
    done = runctx(hostile, "run", "--", PYTHON, "run_tests.py", env=ENCODINGS[encoding])
    assert done.returncode == 0, done.stderr
    assert_nothing_raw(done.stderr)
    assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in done.stderr


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_stop_refuses_with_the_reasons_escaped(hostile, encoding):
    """A refusal to stop the foreign run says why, escaped."""
    done = runctx(hostile, "stop", str(hostile.pid), env=ENCODINGS[encoding])
    assert done.returncode == 4
    assert_nothing_raw(done.stdout + done.stderr)
    assert b"line\\xff\\xfe != " in done.stderr


def test_wait_from_the_hostile_checkout_writes_nothing_raw(hostile):
    """Waiting for the run from its own checkout times out with plain, escaped progress."""
    environment = {**hook_env(), **ENCODINGS["strict-utf8"]}
    done = subprocess.run(
        [sys.executable, "-m", "runctx", "wait", "--timeout", "0.2"],
        cwd=hostile.root,
        capture_output=True,
        env=environment,
        timeout=60,
        check=False,
    )
    assert done.returncode == 124, done.stderr
    assert_nothing_raw(done.stderr)
    assert b"pid %d (run-tests-script" % hostile.pid in done.stderr


@pytest.mark.parametrize("encoding", ["strict-utf8", "ascii"])
def test_the_pytest_plugin_header_and_summary_are_escaped(hostile, encoding):
    """A pytest session next to the run names it in header and summary, escaped."""
    (hostile.viewer / "test_one.py").write_text("def test_one():\n    pass\n")
    environment = {**clean_env(), **ENCODINGS[encoding]}
    done = subprocess.run(
        [PYTHON, "-m", "pytest", "-v", "-p", "no:cacheprovider", "test_one.py"],
        cwd=hostile.viewer,
        capture_output=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert_nothing_raw(done.stdout + done.stderr)
    lines = [line for line in done.stdout.splitlines() if b"pid %d (" % hostile.pid in line]
    assert len(lines) == 2, done.stdout  # the header and the summary
    assert all(b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in line for line in lines)


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.DOTALL)


DOCS = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("document", ["README.md", "docs/api.md"])
def test_the_documented_api_examples_print_the_hostile_run_on_a_strict_stdout(hostile, document):
    """The API examples of the README and docs/api.md run on strict UTF-8, nothing raw."""
    environment = {**hook_env(), **ENCODINGS["strict-utf8"]}
    for block in _python_blocks(DOCS / document):
        done = subprocess.run(
            [sys.executable, "-c", block],
            cwd=hostile.viewer,
            capture_output=True,
            env=environment,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert_nothing_raw(done.stdout)
        assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in done.stdout
