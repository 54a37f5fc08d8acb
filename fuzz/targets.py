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
    from runctx.busy import box_pressure
    from runctx.environment import _table_value, command_environment
    from runctx.exceptions import ConfigError
    from runctx.hooks import json_layout, settings_file
    from runctx.hooks.agents import AGENT_NAMES, agent
    from runctx.hooks.payload import PayloadError, json_object
    from runctx.planted import usable_path
    from runctx.present.escape import hook_json, json_bytes, json_text, visible
    from runctx.present.output import json_dumps
    from runctx.records import ARGV_WORDS_MAX, argv_truncated
    from runctx.runners import (
        BUILTIN_PATTERNS,
        RunnerMatch,
        detect_runner,
        resolve_command,
        spawned,
    )
    from runctx.runners.tasks import (
        dispatch,
        hatch,
        invoke_tasks,
        json_tasks,
        justfile,
        makefile,
        mix_aliases,
        nx_targets,
        package_json,
        sbt_aliases,
        taskfile,
        toml_tasks,
    )
    from runctx.runners.tasks.files import MAX_TASKS, expand_tasks
    from runctx.settings import BusyRules, TableSearch, mentions_runctx_table, settings_of_table
    from runctx.shell.commands import test_invocations
    from runctx.sources import proctext
    from runctx.sources.load import Load, MemInfo, Pressure
    from runctx.unknown import Reason, Unknown


def _finite(*values: float) -> None:
    assert all(math.isfinite(value) for value in values), values


def stat(data: bytes) -> None:
    """``/proc/PID/stat`` with any command name; its terminal too."""
    parsed = proctext.parse_stat(data)
    assert isinstance(parsed, (proctext.StatFields, Unknown))
    assert isinstance(proctext.parse_stat_tty(data), (int, Unknown))
    if isinstance(parsed, proctext.StatFields):  # the state alone agrees with the whole parse
        assert proctext.stat_is_running(data) == (parsed.state == "R")


def cmdline(data: bytes) -> None:
    """``/proc/PID/cmdline``: every byte kept, up to the words bound (then a prefix, marked)."""
    argv = proctext.parse_cmdline(data)
    rebuilt = b"\0".join(os.fsencode(arg) for arg in argv)
    whole = data[:-1] if data.endswith(b"\0") else data
    if argv_truncated(argv):
        assert len(argv) == ARGV_WORDS_MAX
        assert whole.startswith(rebuilt + b"\0")
    else:
        assert rebuilt == whole


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
    """``/proc/PID/mountinfo``: the procfs mount in effect, or none; mounts with absolute paths."""
    found = proctext.parse_proc_mount(data)
    assert found is None or isinstance(found, proctext.ProcMount)
    for entry in proctext.parse_mountinfo(data):
        assert entry.root.startswith("/")
        assert entry.mount_point.startswith("/")
    mount_id = proctext.parse_fdinfo_mount_id(data)
    assert mount_id is None or mount_id >= 0


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


def settings_jsonc(data: bytes) -> None:
    """A settings file with comments and trailing commas: blanked in place, edited keeping them."""
    text = data.decode("utf-8", "replace")
    try:
        strict = json_layout.to_strict(text, comments=True, trailing_commas=True)
    except ValueError:
        return
    assert len(strict) == len(text)
    spec = agent("gemini").INSTALL

    def change(document: dict[str, object]) -> object:
        try:
            return settings_file.install(spec, document, "runctx", "/p/settings.json")
        except settings_file.SettingsFileError:
            return None

    try:
        document, after, _ = json_layout.edit(
            text, change, "  ", json.dumps, comments=True, trailing_commas=True
        )
    except (ValueError, RecursionError):
        return
    kept = json_layout.to_strict(after, comments=True, trailing_commas=True)
    assert json.loads(kept) == document


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


_TASK_REFUSALS = (ValueError, UnicodeDecodeError, RecursionError)
"""What a task file's parser may raise: the file is then not read (``ProjectFiles.parsed``)."""


def _tasks_expand(lookup: Callable[[str], object], names: list[str]) -> None:
    """Expanding ``names`` through ``lookup`` ends, with text lines only."""
    texts = expand_tasks(names, lookup, str.strip, [])  # type: ignore[arg-type]
    assert texts is None or all(isinstance(text, str) for text in texts)


def package_scripts(data: bytes) -> None:
    """``package.json``: its scripts are strings by strings, or the file is not read."""
    try:
        scripts = package_json.scripts_of(data)
    except _TASK_REFUSALS:
        return
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in scripts.items())


def makefile_rules(data: bytes) -> None:
    """A makefile: its rules, variables and expanded recipes, each target's at most bounded."""
    made = makefile.parse(data)
    assert made.default is None or made.default in made.rules
    for first, _lines in made.rules.values():
        assert len(first) <= MAX_TASKS
    names = [made.default] if made.default is not None else []
    texts = expand_tasks(
        names,
        made.rules.get,
        lambda line: makefile.expand(makefile.recipe_line(line), made.variables),
        [],
    )
    assert texts is None or all(len(text) <= makefile.MAX_EXPANDED_CHARS for text in texts)


def justfile_recipes(data: bytes) -> None:
    """A justfile: its recipes and aliases, expanded from the first."""
    just = justfile.parse(data)
    assert just.first is None or just.first in just.recipes
    _tasks_expand(just.recipe, [just.first] if just.first else [])


def taskfile_tasks(data: bytes) -> None:
    """A Taskfile read line by line: its tasks, expanded from each."""
    tasks = taskfile.parse(data)
    _tasks_expand(tasks.get, list(tasks)[:4])


def hatch_scripts(data: bytes) -> None:
    """``hatch.toml``: the scripts of its environments, or the file is not read."""
    try:
        document = hatch.toml_document(data)
    except _TASK_REFUSALS:
        return
    envs = document.get("envs")
    if isinstance(envs, dict):
        for env in list(envs)[:4]:
            found = hatch.scripts(envs, env)
            assert all(isinstance(v, list) for v in found.values())


def toml_tasks_read(data: bytes) -> None:
    """pdm, poe, rye, pixi and mise task tables of any shape: command lines, names, no raise."""
    try:
        document = hatch.toml_document(data)
    except _TASK_REFUSALS:
        return
    tables = [document, *(v for v in document.values() if isinstance(v, dict))]
    for table in tables[:4]:
        known = set(table)
        for value in list(table.values())[:8]:
            first, lines = toml_tasks._task(value, known)  # noqa: SLF001 - the reader's core
            assert all(isinstance(x, str) for x in (*first, *lines))


def json_tasks_read(data: bytes) -> None:
    """Deno tasks and composer scripts of any shape: command lines, names, no raise."""
    for parse, read in (
        (json_tasks.deno_tasks, json_tasks._deno),  # noqa: SLF001 - the reader's core
        (json_tasks.composer_scripts, json_tasks._composer),  # noqa: SLF001
    ):
        try:
            known = parse(data)
        except _TASK_REFUSALS:
            continue
        for value in list(known.values())[:8]:
            first, lines = read(value, known)
            assert all(isinstance(x, str) for x in (*first, *lines))


def nx_project(data: bytes) -> None:
    """A project.json of any shape: its targets' commands are strings, never a raise."""
    try:
        _name, targets = nx_targets.project_of(data)
    except _TASK_REFUSALS:
        return
    for value in list(targets.values())[:8]:
        first, lines = nx_targets._target_lines(value)  # noqa: SLF001 - the reader's core
        assert all(isinstance(x, str) for x in (*first, *lines))


def text_tasks(data: bytes) -> None:
    """mix.exs, tasks.py and build.sbt read as text: names to command lines, never a raise."""
    for found in (
        mix_aliases.aliases_of(data),
        sbt_aliases.aliases_of(data),
        {name: lines for name, (_first, lines) in invoke_tasks.tasks_of(data).items()},
    ):
        assert all(isinstance(line, str) for lines in found.values() for line in lines)


def script_dispatch(data: bytes) -> None:
    """A script's text and arguments: the selected text is a part of the script, or None."""
    text = data.decode("utf-8", errors="replace")
    selected = dispatch.selected_text(text, ["test", "-v", "--fast=1"])
    assert selected is None or len(selected) <= len(text)


def spawned_commands(data: bytes) -> None:
    """A script's code in each language: command lines and a dispatch flag, never a raise."""
    text = data.decode("utf-8", errors="replace")
    for lang in ("python", "javascript", "ruby"):
        found = spawned.spawned(lang, text)
        assert len(found.commands) <= spawned.MAX_CALLS
        assert all(isinstance(line, str) for line in found.commands)
    spawned.language("scripts/x", text)


_LAYOUT = frozenset("\n ")


def json_face(data: bytes) -> None:
    """The JSON face: no raw control (C0, C1, DEL, bidi), and every string decodes exactly."""
    text = os.fsdecode(data)
    exact = json_text(text)
    value = {"argv": [exact, exact[:3]], exact[:8]: exact}
    written = json_dumps(value)
    assert all(char.isprintable() or char in _LAYOUT for char in written), written
    assert json.loads(written) == value


def hatch_environment(data: bytes) -> None:
    """``[tool.hatch.envs.default] path`` of any type and depth: a value or None, never a raise."""
    import tomllib

    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
        return
    _table_value(document, "tool", "hatch", "envs", "default", "path")
    _table_value(document.get("tool"), "hatch", "envs")


def command_paths(data: bytes) -> None:
    """Paths a command builds (``make -f``, ``npm --prefix``, the cwd): checked, never a raise."""
    text = os.fsdecode(data)
    cwd, _, word = text.partition("\n")
    assert isinstance(usable_path(cwd), bool)
    for command in (f"make -f {word!r} ci", f"npm --prefix {word!r} run unit", text):
        assert isinstance(test_invocations(command, cwd or "/"), tuple)
    found = command_environment("pip:install", ["npm", "--prefix", word, "ci"], cwd, {})
    assert found is None or found.kind


def busy_unknown(data: bytes) -> None:
    """Busy-box figures, each read or not: "not busy" is said only when every one was read."""
    flags = data[0] if data else 0
    number = float(int.from_bytes(data[1:3] or b"\0", "big") % 200)
    missing = Unknown(Reason.DENIED, "subset=pid")
    load = Load(
        usable_cpus=missing if flags & 1 else 2,
        load_average=missing if flags & 2 else (number, number, number),
        cpu_pressure=missing if flags & 4 else Pressure(avg10=number, avg60=0.0, avg300=0.0),
        memory=missing if flags & 8 else MemInfo(total_bytes=1000, available_bytes=int(number)),
    )
    pressure = box_pressure(load, BusyRules(cpu_pressure=40, load_per_cpu=1.5, memory_available=10))
    if flags & 0b1111:
        assert not pressure.known_calm, pressure
    assert not (pressure.busy and pressure.known_calm)


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
    "settings_jsonc": settings_jsonc,
    "escape": escape,
    "package_json": package_scripts,
    "makefile": makefile_rules,
    "justfile": justfile_recipes,
    "taskfile": taskfile_tasks,
    "hatch": hatch_scripts,
    "toml_tasks": toml_tasks_read,
    "json_tasks": json_tasks_read,
    "nx": nx_project,
    "text_tasks": text_tasks,
    "dispatch": script_dispatch,
    "spawned": spawned_commands,
    "json_face": json_face,
    "hatch_environment": hatch_environment,
    "command_paths": command_paths,
    "busy_unknown": busy_unknown,
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
