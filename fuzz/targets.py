"""One atheris fuzz target per parser: any bytes give a value or the parser's own refusal.

Run one: ``python -m fuzz.targets NAME [libFuzzer flags]`` (``make fuzz`` runs
them all for a bounded time). A target fails (and libFuzzer saves the input)
when its parser raises anything but the refusal it documents, or breaks a
promise about its value (a non-finite number, text that is not printable, a
lost byte).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from collections.abc import Callable

import atheris

with atheris.instrument_imports():
    from runctx.exceptions import ConfigError
    from runctx.hooks import json_layout, settings_file
    from runctx.hooks.agents import AGENT_NAMES, agent
    from runctx.hooks.payload import PayloadError, json_object
    from runctx.present.escape import hook_json, json_bytes, json_text, visible
    from runctx.runners import BUILTIN_PATTERNS, RunnerMatch, detect_runner, resolve_command
    from runctx.settings import TableSearch, mentions_runctx_table, settings_of_table
    from runctx.shell.commands import test_invocations
    from runctx.sources import proctext
    from runctx.unknown import Unknown


def _finite(*values: float) -> None:
    assert all(math.isfinite(value) for value in values), values


def stat(data: bytes) -> None:
    """``/proc/PID/stat`` with any command name; its terminal too."""
    parsed = proctext.parse_stat(data)
    assert isinstance(parsed, (proctext.StatFields, Unknown))
    assert isinstance(proctext.parse_stat_tty(data), (int, Unknown))


def cmdline(data: bytes) -> None:
    """``/proc/PID/cmdline``: every byte kept."""
    argv = proctext.parse_cmdline(data)
    rebuilt = b"\0".join(os.fsencode(arg) for arg in argv)
    assert rebuilt == (data[:-1] if data.endswith(b"\0") else data)


def status(data: bytes) -> None:
    """``/proc/PID/status``: the real uid, and the pid in each pid namespace."""
    assert isinstance(proctext.parse_status_uid(data), (int, Unknown))
    pids = proctext.parse_status_nspid(data)
    assert isinstance(pids, Unknown) or (pids and all(isinstance(pid, int) for pid in pids))


def argv(data: bytes) -> None:
    """A ``/proc/PID/cmdline`` read as a command line: a runner, a shell string, or nothing."""
    words = proctext.parse_cmdline(data)
    found = detect_runner(words)
    assert found is None or isinstance(found, RunnerMatch)
    resolved = resolve_command(words)
    assert resolved.shell_string is None or isinstance(resolved.shell_string, str)


def loadavg(data: bytes) -> None:
    """``/proc/loadavg`` and ``/proc/uptime``: finite numbers or unknown."""
    average = proctext.parse_loadavg(data)
    if not isinstance(average, Unknown):
        _finite(*average)
    uptime = proctext.parse_uptime(data)
    if not isinstance(uptime, Unknown):
        _finite(uptime)


def pressure(data: bytes) -> None:
    """``/proc/pressure/cpu``: finite averages or unknown."""
    found = proctext.parse_pressure(data)
    if not isinstance(found, Unknown):
        _finite(found.avg10, found.avg60, found.avg300)


def cgroup(data: bytes) -> None:
    """``/proc/PID/cgroup``, ``cpu.max``, ``cpu.cfs_*``: paths that stay put, a positive share."""
    path = proctext.parse_cgroup_v2_path(data)
    assert path is None or (path.startswith("/") and ".." not in path.split("/"))
    granted = proctext.parse_cpu_max(data)
    assert granted is None or (granted > 0 and math.isfinite(granted))
    lines = proctext.parse_cgroup(data)
    assert all(path.startswith("/") for _names, path in lines)
    for _names, path in lines:
        if proctext.stays_under(path):
            assert ".." not in path.split("/")
    middle = len(data) // 2
    quota = proctext.parse_cfs_quota(data[:middle], data[middle:])
    assert quota is None or (quota > 0 and math.isfinite(quota))


def meminfo(data: bytes) -> None:
    """``/proc/meminfo``: byte counts that are not negative, or unknown."""
    found = proctext.parse_meminfo(data)
    assert isinstance(found, Unknown) or (found.total_bytes >= 0 and found.available_bytes >= 0)


_WANTED = frozenset({"CLAUDE_CODE_SESSION_ID", "CI", "TERM_PROGRAM"})


def environ(data: bytes) -> None:
    """``/proc/PID/environ``: wanted names only, each value bounded and its bytes kept."""
    found = proctext.parse_environ(data, _WANTED)
    assert set(found) <= _WANTED
    for name, value in found.items():
        raw = os.fsencode(value)
        assert len(raw) <= proctext.ENVIRON_VALUE_MAX
        assert name.encode() + b"=" + raw in data


def mountinfo(data: bytes) -> None:
    """``/proc/self/mountinfo``: the procfs mount in effect, or none."""
    found = proctext.parse_proc_mount(data)
    assert found is None or isinstance(found, proctext.ProcMount)


def shell(data: bytes) -> None:
    """A shell command string from an agent."""
    command = data.decode("utf-8", "surrogateescape")
    for invocation in test_invocations(command, "/tmp", BUILTIN_PATTERNS):
        assert os.path.isabs(invocation.cwd)


_READERS: list[Callable[[dict[str, object]], object]] = []
for _name in AGENT_NAMES:
    _agent = agent(_name)
    _READERS.append(_agent.PRE_TOOL_FACE.read)
    if _agent.AFTER_TOOL_FACE is not None:
        _READERS.append(_agent.AFTER_TOOL_FACE.read)
    if _agent.SESSION_FACE is not None:
        _READERS.append(_agent.SESSION_FACE.read)


def payload(data: bytes) -> None:
    """A hook payload on stdin, read by every agent's reader."""
    try:
        document = json_object(data, "input")
    except PayloadError:
        return
    for read in _READERS:
        with contextlib.suppress(PayloadError):
            read(document)


def runctx_table(data: bytes) -> None:
    """A pyproject.toml: the cheap test, the TOML, the [tool.runctx] table."""
    import tomllib

    whole = mentions_runctx_table(data)
    search = TableSearch()
    size = 1 + (data[0] % 7 if data else 0)
    chunked = any(search.feed(data[at : at + size]) for at in range(0, len(data), size))
    assert (chunked or search.end()) == whole  # the search in chunks agrees with the rule
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return
    tools = document.get("tool", {})
    table = tools.get("runctx", {}) if isinstance(tools, dict) else {}
    if isinstance(table, dict):
        with contextlib.suppress(ConfigError):
            settings_of_table(table, "/p/pyproject.toml")


def settings_json(data: bytes) -> None:
    """An agent's settings file: parsed strictly, edited keeping what was not touched."""
    text = data.decode("utf-8", "replace")
    try:
        settings_file.parse(text, "/p/settings.json")
    except settings_file.SettingsFileError:
        return
    spec = agent("claude").INSTALL

    def change(document: dict[str, object]) -> object:
        try:
            return settings_file.install(spec, document, "runctx", "/p/settings.json")
        except settings_file.SettingsFileError:
            return None

    try:
        document, after, _ = json_layout.edit(text, change, "  ", json.dumps)
    except (ValueError, RecursionError):
        return
    assert json.loads(after) == document


def escape(data: bytes) -> None:
    """The faces' escapes: printable, UTF-8, ASCII replies, bytes given back."""
    text = os.fsdecode(data)
    assert visible(text).isprintable()
    json_text(text).encode("utf-8")
    exact = json_bytes(text)
    if exact is not None:
        import base64

        assert base64.b64decode(exact) == data
    assert hook_json({"t": text}).isascii()


TARGETS: dict[str, Callable[[bytes], None]] = {
    "stat": stat,
    "cmdline": cmdline,
    "status": status,
    "argv": argv,
    "loadavg": loadavg,
    "pressure": pressure,
    "cgroup": cgroup,
    "meminfo": meminfo,
    "environ": environ,
    "mountinfo": mountinfo,
    "shell": shell,
    "payload": payload,
    "runctx_table": runctx_table,
    "settings_json": settings_json,
    "escape": escape,
}


def main() -> None:
    """``python -m fuzz.targets NAME [libFuzzer flags]``."""
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    if name not in TARGETS:
        sys.exit(f"usage: python -m fuzz.targets {{{','.join(TARGETS)}}} [libFuzzer flags]")
    atheris.instrument_all()
    atheris.Setup([sys.argv[0], *sys.argv[2:]], TARGETS[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
