"""The one escaping step, per face: terminal text, JSON text, hook replies.

Unit tests of each function, property tests over any text and any bytes, and
one hostile run (escape sequences and bytes that are not UTF-8 in its argv
and its path) seen by every face on a strict UTF-8, an ASCII and a C-locale
stdout: nothing reaches the terminal raw, nothing fails to encode, JSON is
strict, and the exact bytes can be had back.
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

import hooktools
import pytest
from hooktools import claude_pre_tool_use, hook_env
from hostile import HOSTILE_ARG, HOSTILE_PATH, strict_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nstools import in_own_pid_namespace
from proctools import OTHER_UID, PYTHON, make_checkout, name_every_foreign_run
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families as prometheus_families
from runfactory import RUN_TESTS_SCRIPT, RunFactory, clean_env
from schematools import validate

from runctx.present.escape import (
    hook_json,
    is_exact,
    json_bytes,
    json_text,
    metric_label,
    terminal_bytes,
    terminal_text,
    visible,
    visible_lines,
)


def test_visible_escapes_every_control_character():
    """C0, DEL, C1, escape sequences, newlines and tabs come out as visible escapes."""
    shown = visible(HOSTILE_ARG + "\x7f\x85\u009b\t\r\n")
    assert shown == "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m\\x7f\\u0085\\u009b\\t\\r\\n"
    assert shown.isprintable()


def test_visible_shows_bytes_that_are_not_utf8_as_hex():
    r"""A byte that is not UTF-8 (read with surrogate escapes) is shown as ``\xNN``."""
    assert visible(os.fsdecode(b"bad\xff\xfe")) == "bad\\xff\\xfe"


def test_visible_escapes_bidi_overrides_and_invisible_characters():
    """Characters that reorder or hide text (RLO, zero-width joiner, line separator) are escaped."""
    assert visible("a\u202eb\u200dc\u2028d") == "a\\u202eb\\u200dc\\u2028d"


def test_visible_keeps_printable_text_and_backslashes():
    """Letters of any script, symbols and backslashes are kept as they are."""
    text = "héllo wörld ✓ 日本 C:\\dir"
    assert visible(text) == text


def test_visible_is_idempotent():
    """Escaping twice gives what escaping once gave, so a backstop cannot double-escape."""
    once = visible(HOSTILE_PATH + HOSTILE_ARG)
    assert visible(once) == once


def test_visible_lines_keeps_the_message_own_newlines_only():
    """A message's own line breaks stay; a foreign newline inside a line cannot appear."""
    assert visible_lines("one\x1b[2J\ntwo") == "one\\x1b[2J\ntwo"


def test_json_text_is_exact_for_utf8_and_replaces_other_bytes():
    """Valid text is kept exactly; each byte that is not UTF-8 becomes U+FFFD."""
    assert json_text("ok ✓ \x1b") == "ok ✓ \x1b"
    assert json_text(os.fsdecode(b"bad\xff\xfe")) == "bad\ufffd\ufffd"


def test_json_bytes_gives_the_exact_bytes_back_only_when_needed():
    """The base64 companion is absent for exact text and decodes to the original bytes."""
    assert json_bytes("bad\\xff") is None
    raw = b"/tmp/bad\xff\xfe\n"
    encoded = json_bytes(os.fsdecode(raw))
    assert encoded is not None
    assert base64.b64decode(encoded) == raw


def test_a_real_name_with_backslash_x_is_not_taken_for_a_bad_byte():
    r"""``bad\xff`` typed as text and the byte 0xff differ in JSON: only one has bytes."""
    typed = "bad\\xff"
    read = os.fsdecode(b"bad\xff")
    assert json_text(typed) != json_text(read)
    assert json_bytes(typed) is None
    assert json_bytes(read) is not None


def test_a_lone_surrogate_from_a_payload_is_not_exact():
    r"""``\ud800`` (only a JSON payload can carry it) is neither exact nor written raw."""
    assert not is_exact("a\ud800")
    assert json_text("a\ud800").encode("utf-8")
    assert visible("a\ud800") == "a\\ud800"


def test_hook_json_is_ascii_and_accepted_by_a_strict_parser():
    """A hook reply holds no control character and no lone surrogate, in ASCII."""
    reply = hook_json({"reason": f"root {visible(HOSTILE_PATH)} != /b\nnext line", "n": 1})
    assert reply.isascii()
    parsed = strict_json(reply.encode())
    expected = "root /tmp/x\\x1b[2Jy\\nFAKE: line\\xff\\xfe != /b\nnext line"
    assert parsed == {"reason": expected, "n": 1}


def test_hook_json_escapes_what_slipped_past_the_words():
    """Raw foreign text in a reply still loses its escape sequences and bad bytes."""
    reply = hook_json({"reason": HOSTILE_PATH + HOSTILE_ARG})
    parsed = strict_json(reply.encode())
    assert isinstance(parsed, dict)
    assert "\x1b" not in parsed["reason"]
    assert "\\xff\\xfe" in parsed["reason"]


@pytest.mark.parametrize("encoding", ["utf-8", "ascii", "latin-1", "bogus-encoding"])
def test_terminal_bytes_never_fail_on_any_encoding(encoding):
    """Text for a terminal encodes on any stream encoding, unknown ones included."""
    data = terminal_bytes(f"… {HOSTILE_PATH} ✓ {HOSTILE_ARG}", encoding)
    assert b"\x1b" not in data
    assert b"\xff" not in data or encoding == "latin-1"


def test_terminal_text_holds_only_what_the_encoding_can():
    """For a writer that encodes on its own, what it cannot encode is escaped once, here."""
    assert terminal_text("… \x1b ok", "ascii") == "\\u2026 \\x1b ok"
    assert terminal_text("… \x1b ok", "utf-8") == "… \\x1b ok"
    assert terminal_text("…", "bogus-encoding") == "…"


# -- properties: any text, any bytes ---------------------------------------------------

PROPERTY = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
any_text = st.one_of(st.text(), st.binary().map(os.fsdecode))


@PROPERTY
@given(any_text)
def test_visible_text_is_printable_and_escaping_it_again_changes_nothing(text):
    """What the terminal face gives has no control or invisible character, and is a fixpoint."""
    shown = visible(text)
    assert shown.isprintable()
    assert visible(shown) == shown


@PROPERTY
@given(st.text().filter(str.isprintable))
def test_printable_text_is_shown_as_it_is(text):
    """Text with nothing to escape reaches the terminal unchanged."""
    assert visible(text) == text


@PROPERTY
@given(any_text, st.sampled_from(["utf-8", "ascii", "latin-1", "cp1252", "nonesuch"]))
def test_terminal_bytes_hold_no_control_byte_in_any_encoding(text, encoding):
    """Encoded for any stream, the output has no C0 control byte but the newlines of lines."""
    data = terminal_bytes(text, encoding)
    assert not any(byte < 0x20 and byte != 0x0A for byte in data)
    assert 0x7F not in data


@PROPERTY
@given(any_text)
def test_a_metric_label_of_any_text_parses_back_to_its_visible_text(text):
    """Any text as an OpenMetrics label value: both Prometheus parsers read back visible(text)."""
    document = f'm{{l="{metric_label(text)}"}} 1\n# EOF\n'
    (family,) = openmetrics_families(document)
    assert family.samples[0].labels["l"] == visible(text)
    (family,) = prometheus_families(document)
    assert family.samples[0].labels["l"] == visible(text)


@PROPERTY
@given(st.binary())
def test_json_text_is_utf8_and_json_bytes_give_the_bytes_back(raw):
    """Any bytes read with surrogate escapes: valid UTF-8 text, and exact bytes when needed."""
    text = os.fsdecode(raw)
    shown = json_text(text)
    shown.encode("utf-8")  # never a lone surrogate
    exact = json_bytes(text)
    if exact is None:
        assert shown.encode("utf-8") == raw
    else:
        assert base64.b64decode(exact) == raw


@PROPERTY
@given(st.recursive(any_text, lambda inner: st.lists(inner, max_size=3), max_leaves=10))
def test_hook_json_is_ascii_and_strict_for_any_strings(value):
    """A hook reply built of any strings is ASCII and holds no lone surrogate."""
    reply = hook_json({"text": value})
    assert reply.isascii()
    parsed = json.loads(reply)

    def walk(item):
        if isinstance(item, str):
            item.encode("utf-8")
            assert all(line.isprintable() for line in item.split("\n"))
        elif isinstance(item, list):
            for inner in item:
                walk(inner)

    walk(parsed["text"])


# -- one hostile run, every face ------------------------------------------------------

DIRECTORY = b"x\x1b[2Jy\nFAKE: line\xff\xfe"
TITLE_ARG = b"\x1b]0;pwned\x07\x1b[2J\x1b[31m"
BAD_ARG = b"\xff\xfe"
SESSION = b"\xff\xfe\x1b[2J\nFAKE: session"
"""The run's ``CLAUDE_CODE_SESSION_ID``: who started it is foreign text too."""
STARTER = b"claude-code session \\xff\\xfe\\x1b[2J\\nF"
"""How every terminal face shows that starter: its first characters, escaped."""
RAW = (b"\x1b", b"\x07", b"\xff\xfe", b"\nFAKE")
"""What must never reach a terminal: ESC, BEL, the bad bytes, a forged line."""

ENCODINGS = {
    "strict-utf8": {"PYTHONIOENCODING": "utf-8:strict"},
    "ascii": {"PYTHONIOENCODING": "ascii:strict"},
    "c-locale": {"LC_ALL": "C", "PYTHONIOENCODING": ""},
}


class Hostile:
    """The hostile run, a checkout to look at it from, and a directory inside its checkout."""

    def __init__(self, root: bytes, pid: int, viewer: Path) -> None:
        """Hold what the tests need."""
        self.root = root
        self.pid = pid
        self.viewer = viewer
        self.inside = Path(os.fsdecode(root)) / "sub"


@pytest.fixture(scope="module")
def hostile():
    """The hostile run, live for the module, seen from a plain checkout ``viewer``.

    Its directory, its argv and the session id it inherited are hostile. The
    viewer names every foreign run in its notes (``busy-run-cpu = 0``);
    ``inside`` is a directory of the hostile checkout, whose notes name the
    run as this checkout's, with who started it.
    """
    base = Path(tempfile.mkdtemp(prefix="runctx-hostile-")).resolve()
    base.chmod(0o755)
    root = os.fsencode(base) + b"/" + DIRECTORY
    os.mkdir(root)
    subprocess.run(["git", "init", "-q", root], check=True)
    with open(root + b"/run_tests.py", "w", encoding="utf-8") as script:
        script.write(RUN_TESTS_SCRIPT)
    os.mkdir(root + b"/sub")
    with open(root + b"/sub/run_tests.py", "w", encoding="utf-8") as script:
        script.write("pass\n")
    ready = base / "ready"
    argv = [PYTHON, "run_tests.py", str(ready), os.fsdecode(TITLE_ARG), os.fsdecode(BAD_ARG)]
    viewer = name_every_foreign_run(make_checkout(base, "viewer"))
    (viewer / "run_tests.py").write_text("pass\n")
    env = clean_env(CLAUDE_CODE_SESSION_ID=os.fsdecode(SESSION))
    factory = RunFactory()
    try:
        run = factory.orphan(argv, Path(os.fsdecode(root)), env=env, ready=ready)
        yield Hostile(root, run.pid, viewer)
    finally:
        factory.reap()
        shutil.rmtree(base, ignore_errors=True)


def runctx(
    hostile, *argv: str, env: dict[str, str], stdin: str = "", cwd: bytes | Path | None = None
) -> subprocess.CompletedProcess:
    """``runctx ARGV`` from the viewer checkout (or ``cwd``), output as bytes."""
    environment = {k: v for k, v in {**hook_env(), **env}.items() if v}
    where = hostile.viewer if cwd is None else cwd
    return hooktools.runctx(*argv, cwd=where, env=environment, text=False, input=stdin.encode())


def assert_nothing_raw(output: bytes) -> None:
    """No escape sequence, bell, bad byte or forged line in ``output``."""
    for raw in RAW:
        assert raw not in output, (raw, output[:2000])


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_status_shows_the_hostile_run_escaped(hostile, encoding):
    """The status table names the run with every control character and bad byte escaped."""
    done = runctx(hostile, "status", "-v", env=ENCODINGS[encoding])
    assert done.returncode == 0, done.stderr
    assert_nothing_raw(done.stdout)
    row = next(line for line in done.stdout.splitlines() if line.startswith(b"  %d " % hostile.pid))
    assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in row
    assert STARTER in row
    assert b"\\x1b]0;pwned\\x07" in row or row.endswith((b"\\u2026", "…".encode()))
    why = done.stdout.split(row, 1)[1].splitlines()[1]
    assert why.startswith(b"      why: ")
    assert b"line\\xff\\xfe != " in why


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_coloured_table_carries_only_runctxs_own_sequences(hostile, encoding):
    """With --color=always the only escape sequences are runctx's colours; the run is escaped."""
    done = runctx(hostile, "status", "--color=always", "--wide", env=ENCODINGS[encoding])
    assert done.returncode == 0, done.stderr
    assert re.search(rb"\x1b\[[0-9;]*m", done.stdout)
    assert_nothing_raw(re.sub(rb"\x1b\[[0-9;]*m", b"", done.stdout))
    assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in done.stdout


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_check_words_show_the_hostile_run_escaped(hostile, encoding):
    """The sentences of check (-v: every foreign run) name the run's root escaped, on one line."""
    done = runctx(hostile, "check", "-v", env=ENCODINGS[encoding])
    assert done.returncode in (3, 4), done.stderr
    assert_nothing_raw(done.stdout + done.stderr)
    assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in done.stdout


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_openmetrics_labels_hold_the_hostile_root_escaped_and_parse(hostile, encoding):
    """OpenMetrics names the hostile root printable and escaped; Prometheus's parsers read it."""
    done = runctx(
        hostile,
        "status",
        "--format",
        "openmetrics",
        "--root-label",
        "path",
        env=ENCODINGS[encoding],
    )
    assert done.returncode == 0, done.stderr
    assert_nothing_raw(done.stdout)
    text = done.stdout.decode("utf-8")
    families = {family.name: family for family in openmetrics_families(text)}
    assert set(families) == {family.name for family in prometheus_families(text)}
    roots = {sample.labels["root"] for sample in families["runctx_runs"].samples}
    assert visible(os.fsdecode(hostile.root)) in roots


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_json_is_strict_and_gives_the_exact_bytes_back(hostile, encoding):
    """The status JSON is strict UTF-8 JSON; root_bytes and argv_bytes decode to the real bytes."""
    done = runctx(hostile, "status", "--json", env=ENCODINGS[encoding])
    assert done.returncode == 0, done.stderr
    report = strict_json(done.stdout)
    validate(report)  # root_bytes, cwd_bytes and argv_bytes are in the schema
    run = next(r for r in report["runs"] if r["pid"] == hostile.pid)
    assert base64.b64decode(run["root_bytes"]) == hostile.root
    assert run["root"] == os.fsdecode(hostile.root).encode("utf-8", "surrogateescape").decode(
        "utf-8", "replace"
    )
    argv = [base64.b64decode(arg) for arg in run["argv_bytes"]]
    assert argv[-2:] == [TITLE_ARG, BAD_ARG]
    assert run["argv"][-2] == TITLE_ARG.decode()
    assert run["argv"][-1] == "\ufffd\ufffd"
    started = run["started_by"]
    assert started["kind"] == "claude-code"
    assert base64.b64decode(started["session_bytes"]) == SESSION
    assert started["session"] == SESSION.decode("utf-8", "replace")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_the_hook_reply_is_strict_ascii_json_with_the_run_escaped(hostile, encoding):
    """The hook's note and its deny are ASCII JSON a strict parser takes, foreign text escaped.

    The note (from the viewer) may name only the busiest foreign runs of the
    box; the deny (from inside the hostile checkout) names the run and who
    started it: another session, whose id is hostile.
    """
    payload = json.dumps(claude_pre_tool_use("python3 run_tests.py", hostile.viewer))
    done = runctx(hostile, "hook", "claude", env=ENCODINGS[encoding], stdin=payload)
    assert done.returncode == 0
    assert done.stdout.isascii()
    context = strict_json(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "foreign test run" in context
    assert "\x1b" not in context
    assert "\nFAKE" not in context
    payload = json.dumps(claude_pre_tool_use("python3 run_tests.py", os.fsdecode(hostile.inside)))
    done = runctx(hostile, "hook", "claude", env=ENCODINGS[encoding], stdin=payload)
    assert done.returncode == 0
    assert done.stdout.isascii()
    output = strict_json(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert f"pid {hostile.pid} (run-tests-script" in reason
    assert f"was started by another session ({STARTER.decode()}" in reason
    assert "\x1b" not in reason
    assert "\nFAKE" not in reason


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_run_says_its_note_escaped(hostile, encoding):
    """What runctx run writes before it starts the command holds the run's text escaped."""
    done = runctx(hostile, "run", "--", PYTHON, "run_tests.py", env=ENCODINGS[encoding])
    assert done.returncode == 0, done.stderr
    assert_nothing_raw(done.stderr)
    assert b"foreign test run" in done.stderr
    done = runctx(
        hostile,
        "run",
        "--mode",
        "warn",
        "--",
        PYTHON,
        "run_tests.py",
        env=ENCODINGS[encoding],
        cwd=hostile.inside,
    )
    assert done.returncode == 0, done.stderr
    assert_nothing_raw(done.stderr)
    assert b"pid %d (run-tests-script" % hostile.pid in done.stderr
    assert b"started by " + STARTER in done.stderr


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
    assert done.returncode == 75, done.stderr
    assert_nothing_raw(done.stderr)
    assert b"pid %d (run-tests-script" % hostile.pid in done.stderr


@pytest.mark.needs_root
@pytest.mark.parametrize("encoding", ["strict-utf8", "ascii"])
def test_the_pytest_plugin_header_and_summary_are_escaped(hostile, runs, encoding):
    """A pytest session names the run escaped: in the summary next to it, in the header inside it.

    From the viewer the run is a foreign one, named in the summary with its
    root; the summary names only the busiest foreign runs of a box, so the
    viewer's session runs in a pid namespace of its own next to a second
    hostile run started there, the only foreign run it can see. Inside the
    hostile checkout the run is this checkout's, named in the header with who
    started it.
    """
    environment = {**clean_env(), **ENCODINGS[encoding]}
    session = [PYTHON, "-m", "pytest", "-vp", "no:cacheprovider", "--runctx=warn", "test_one.py"]
    for where in (hostile.viewer, hostile.inside):
        (where / "test_one.py").write_text("def test_one():\n    pass\n")
    ready = Path(os.fsdecode(hostile.root)) / f"ready-{encoding}"
    argv = [PYTHON, "run_tests.py", str(ready), os.fsdecode(TITLE_ARG), os.fsdecode(BAD_ARG)]
    found = in_own_pid_namespace(
        runs,
        [(argv, Path(os.fsdecode(hostile.root)), ready)],
        session,
        "",
        cwd=hostile.viewer,
        env={**ENCODINGS[encoding], "CLAUDE_CODE_SESSION_ID": os.fsdecode(SESSION)},
    )
    (reply,) = found["replies"]
    (pid,) = found["pids"]
    viewed = reply["stdout"].encode("utf-8")
    assert reply["code"] == 0, reply
    assert_nothing_raw(viewed + reply["stderr"].encode("utf-8"))
    lines = [line for line in viewed.splitlines() if b"pid %d (" % pid in line]
    summary = [line for line in lines if line.startswith(b"  busy foreign run: ")]
    assert len(summary) == 1, viewed
    assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe" in summary[0]
    assert STARTER in summary[0]
    done = subprocess.run(
        session, cwd=hostile.inside, capture_output=True, env=environment, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert_nothing_raw(done.stdout + done.stderr)
    lines = [line for line in done.stdout.splitlines() if b"pid %d (" % hostile.pid in line]
    header = [line for line in lines if line.startswith(b"runctx: ")]
    assert header, done.stdout
    assert STARTER in header[0]


def test_a_removed_hostile_root_is_shown_escaped_and_given_exactly(hostile, runs):
    """A run whose hostile directory was removed: ``(deleted)`` escaped, exact bytes in JSON."""
    parent = hostile.viewer.parent / "removed"
    parent.mkdir()
    gone = os.fsencode(parent) + b"/" + DIRECTORY
    os.mkdir(gone)
    with open(gone + b"/run_tests.py", "w", encoding="utf-8") as script:
        script.write(RUN_TESTS_SCRIPT)
    ready = parent / "ready"
    argv = [PYTHON, "run_tests.py", str(ready)]
    run = runs.orphan(argv, Path(os.fsdecode(gone)), env=clean_env(), ready=ready)
    os.unlink(gone + b"/run_tests.py")
    os.rmdir(gone)
    for encoding in ENCODINGS.values():
        table = runctx(hostile, "status", env=encoding)
        assert table.returncode == 0, table.stderr
        assert_nothing_raw(table.stdout)
        lines = table.stdout.splitlines()
        row = next(line for line in lines if line.startswith(b"  %d " % run.pid))
        assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe (deleted)" in row
    done = runctx(hostile, "status", "--json", env=ENCODINGS["ascii"])
    validate(strict_json(done.stdout))  # detail_bytes too
    entry = next(r for r in strict_json(done.stdout)["runs"] if r["pid"] == run.pid)
    assert entry["deleted"] is True
    assert base64.b64decode(entry["root_bytes"]) == gone
    assert entry["cwd"] is None
    assert entry["unknown"]["cwd"]["unknown"] == "deleted"
    assert base64.b64decode(entry["unknown"]["cwd"]["detail_bytes"]) == gone


@pytest.mark.needs_root
def test_another_users_run_in_the_hostile_tree_is_shown_escaped(hostile, runs):
    """Another user's run in the hostile checkout: shared-tree lines escaped, JSON exact."""
    checkout = Path(os.fsdecode(hostile.root))
    checkout.chmod(0o777)  # that user may write it: it shares the tree
    theirs = runs.run_tests_script(checkout, uid=OTHER_UID)
    for encoding in ENCODINGS.values():
        table = runctx(hostile, "status", "-v", env=encoding, cwd=hostile.root)
        assert table.returncode == 0, table.stderr
        assert_nothing_raw(table.stdout)
        lines = table.stdout.splitlines()
        row = next(i for i, line in enumerate(lines) if line.startswith(b"  %d " % theirs.pid))
        assert lines[row + 1].startswith(b"      why: ")
        assert b"x\\x1b[2Jy\\nFAKE: line\\xff\\xfe ==" in lines[row + 1]
        assert lines[row + 2].startswith(b"      shares this tree: ")
    done = runctx(hostile, "status", "--json", env=ENCODINGS["ascii"], cwd=hostile.root)
    report = strict_json(done.stdout)
    assert base64.b64decode(report["here"]["root_bytes"]) == hostile.root
    entry = next(r for r in report["runs"] if r["pid"] == theirs.pid)
    assert entry["shares_tree"] is True
    assert base64.b64decode(entry["root_bytes"]) == hostile.root
    payload = json.dumps(claude_pre_tool_use("python3 run_tests.py", os.fsdecode(hostile.root)))
    hooked = runctx(hostile, "hook", "claude", env=ENCODINGS["ascii"], stdin=payload)
    assert hooked.returncode == 0
    assert hooked.stdout.isascii()
    assert "another user" in json.dumps(strict_json(hooked.stdout))


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


# -- a hostile environment: its prefix is foreign text too -----------------------------

ENVIRONMENT = b"env\x1b[2Jy\nFAKE line\xff\xfe"


@pytest.fixture(scope="module")
def hostile_environment():
    """Runs of two checkouts on one venv whose path holds controls and bad bytes: (prefix, pids).

    The venv is made by hand, as ``python -m venv`` makes one (a ``pyvenv.cfg``
    and a ``bin/python`` link to the base interpreter): ``venv`` itself refuses
    a path with ``:`` in it, a user with a shell does not.
    """
    base = Path(tempfile.mkdtemp(prefix="runctx-hostile-env-")).resolve()
    base.chmod(0o755)
    prefix = os.fsencode(base) + b"/" + ENVIRONMENT
    os.makedirs(prefix + b"/bin")
    home = os.path.dirname(os.path.realpath(sys._base_executable))
    with open(prefix + b"/pyvenv.cfg", "w", encoding="utf-8") as config:
        config.write(f"home = {home}\ninclude-system-site-packages = false\n")
    os.symlink(os.path.realpath(sys._base_executable), prefix + b"/bin/python")
    factory = RunFactory()
    try:
        pids = []
        for name in ("one", "two"):
            checkout = make_checkout(base, name)
            (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
            ready = base / f"ready-{name}"
            argv = [os.fsdecode(prefix + b"/bin/python"), "run_tests.py", str(ready)]
            pids.append(factory.orphan(argv, checkout, env=clean_env(), ready=ready).pid)
        yield prefix, pids, base
    finally:
        factory.reap()
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_hostile_environment_is_shown_escaped(hostile_environment, encoding):
    """The ENV cell and the sharing line show the venv's path escaped, never raw."""
    _prefix, (_one, two), base = hostile_environment
    done = subprocess.run(
        [sys.executable, "-m", "runctx", "status", "-v"],
        cwd=base / "one",
        capture_output=True,
        env={k: v for k, v in {**hook_env(), **ENCODINGS[encoding]}.items() if v},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert_nothing_raw(done.stdout)
    shown = b"env\\x1b[2Jy\\nFAKE line\\xff\\xfe"
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(b"  %d " % two))
    assert shown in lines[at]
    below = lines[at + 1 : at + 3]  # its why: line, then what it shares
    sharing = next(line for line in below if b"shares its environment" in line)
    assert sharing.startswith(b"      shares its environment /")
    assert shown in sharing


def test_a_hostile_environment_is_given_exactly_in_json(hostile_environment):
    """``environment.prefix`` is valid UTF-8; ``prefix_bytes`` gives the exact path back."""
    prefix, (one, two), base = hostile_environment
    done = subprocess.run(
        [sys.executable, "-m", "runctx", "status", "--json"],
        cwd=base / "one",
        capture_output=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    report = strict_json(done.stdout)
    runs = {run["pid"]: run for run in report["runs"]}
    environment = runs[one]["environment"]
    assert base64.b64decode(environment["prefix_bytes"]) == prefix
    assert environment["prefix"].endswith("FAKE line\ufffd\ufffd")
    assert runs[one]["shares_environment_with"] == [two]
