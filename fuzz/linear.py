"""Each parser's time grows linearly with its input: measured, as ``make bench`` measures.

For each parser, an adversarial input (what would make a careless parser
quadratic: nested parentheses, many lines, many separators) is parsed at
two sizes, eight times apart, best of several runs. Linear work takes about
8 times as long; quadratic work 64 times. A ratio above :data:`LIMIT` fails.
Run by ``make fuzz`` after the fuzz targets (``python -m fuzz.linear``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import time
from collections.abc import Callable

from runctx.fastpath.prefilter import names_a_script
from runctx.hooks import json_layout, settings_file
from runctx.hooks.payload import PayloadError, json_object
from runctx.present.escape import hook_json, json_text, visible
from runctx.runners import BUILTIN_PATTERNS, detect_runner, spawned
from runctx.runners.tasks import (
    dispatch,
    fastfile,
    hatch,
    invoke_tasks,
    justfile,
    makefile,
    mix_aliases,
    package_json,
    rakefile,
    scripts,
    taskfile,
)
from runctx.runners.tasks.files import expand_tasks
from runctx.settings import TableSearch, mentions_runctx_table
from runctx.shell.commands import test_invocations
from runctx.sources import proctext

SMALL = 20_000
GROWTH = 8
LIMIT = 32.0
"""Linear is 8, quadratic 64: 32 leaves room for a busy machine and cache effects."""
TRIALS = 3
"""A case fails only when all its trials grow faster than :data:`LIMIT`."""


def _payload(data: bytes) -> None:
    with contextlib.suppress(PayloadError):
        json_object(data, "input")


def _settings(text: str) -> None:
    try:
        settings_file.parse(text, "/p/s.json")
    except settings_file.SettingsFileError:
        return
    json_layout.edit(text, _no_change, "  ", json.dumps)


def _search_in_chunks(data: bytes) -> bool:
    search = TableSearch()
    return any(search.feed(data[at : at + 4096]) for at in range(0, len(data), 4096)) or (
        search.end()
    )


def _no_change(document: dict[str, object]) -> None:
    del document


def _make_default(data: bytes) -> object:
    """A makefile parsed, and its first target expanded as ``make`` alone would run it."""
    made = makefile.parse(data)
    names = [made.default] if made.default is not None else []
    return expand_tasks(
        names,
        made.rules.get,
        lambda line: makefile.expand(makefile.recipe_line(line), made.variables),
        [],
    )


def _just_default(data: bytes) -> object:
    just = justfile.parse(data)
    first = [just.first] if just.first else []
    return expand_tasks(first, just.recipe, lambda line: just.line(line.strip()), [])


def _task_default(data: bytes) -> object:
    tasks = taskfile.parse(data)
    return expand_tasks(list(tasks)[:1], tasks.get, str.strip, [])


def _hatch_default(data: bytes) -> object:
    envs = hatch.toml_document(data).get("envs")
    return hatch.scripts(envs, "default") if isinstance(envs, dict) else {}


CASES: dict[str, tuple[Callable[[int], object], Callable[[object], object]]] = {
    "stat: parentheses in the name": (
        lambda n: b"1 (" + b"(" * n + b") R" + b" 1" * 50,
        proctext.parse_stat,  # type: ignore[dict-item]
    ),
    "prefilter: many script words on one line": (
        lambda n: "a.py --x " * (n // 9),
        names_a_script,  # type: ignore[dict-item]
    ),
    "cmdline: empty arguments": (lambda n: b"\0" * n, proctext.parse_cmdline),  # type: ignore[dict-item]
    "status: lines without Uid": (lambda n: b"X:\t1\n" * (n // 5), proctext.parse_status_uid),  # type: ignore[dict-item]
    "nspid: one long line": (
        lambda n: b"NSpid:" + b"\t1" * (n // 2),
        proctext.parse_status_nspid,  # type: ignore[dict-item]
    ),
    "argv: a runner and many options": (
        lambda n: ["pytest", *(["-x"] * n)],
        detect_runner,  # type: ignore[dict-item]
    ),
    "loadavg: one long field": (lambda n: b"1" * n, proctext.parse_loadavg),  # type: ignore[dict-item]
    "pressure: many some lines": (
        lambda n: b"some avg10=x\n" * (n // 13),
        proctext.parse_pressure,  # type: ignore[dict-item]
    ),
    "cgroup: many hierarchies": (
        lambda n: b"1:a,b,c:/x/y\n" * (n // 13),
        lambda data: proctext.systemd_path(proctext.parse_cgroup(data)),  # type: ignore[arg-type]
    ),
    "meminfo: many lines": (
        lambda n: b"Other:  1 kB\n" * (n // 13) + b"MemTotal: 1 kB\nMemAvailable: 1 kB\n",
        proctext.parse_meminfo,  # type: ignore[dict-item]
    ),
    "environ: many variables": (
        lambda n: b"CI=1\0" * (n // 5),
        lambda data: proctext.parse_environ(data, frozenset({"CI", "TMUX"})),  # type: ignore[arg-type]
    ),
    "stat tty: parentheses in the name": (
        lambda n: b"1 (" + b")" * n + b" R 1 2 3 4",
        proctext.parse_stat_tty,  # type: ignore[dict-item]
    ),
    "stat state: parentheses in the name": (
        lambda n: b"1 (" + b")" * n + b" R 1 2 3 4",
        proctext.stat_is_running,  # type: ignore[dict-item]
    ),
    "mountinfo: many /proc lines": (
        lambda n: b"1 2 0:3 / /proc rw - - - proc proc rw,hidepid=2\n" * (n // 47),
        proctext.parse_proc_mount,  # type: ignore[dict-item]
    ),
    "mountinfo: many escaped mounts": (
        lambda n: b"1 2 0:3 /a\\040b /c\\012d rw - ext4 x rw\n" * (n // 40),
        proctext.parse_mountinfo,  # type: ignore[dict-item]
    ),
    "mountinfo: one long line of escapes": (
        lambda n: b"1 2 0:3 /" + b"\\040" * (n // 4) + b" / rw - x x rw\n",
        proctext.parse_mountinfo,  # type: ignore[dict-item]
    ),
    "shell: nested substitutions": (
        lambda n: "$(" * (n // 2) + "pytest",
        lambda text: test_invocations(text, "/", BUILTIN_PATTERNS),  # type: ignore[arg-type]
    ),
    "shell: many assignments and uses": (
        lambda n: "A=pytest; B=$A; C='ruff check'; $A -x; ${C} .; " * (n // 48),
        lambda text: test_invocations(text, "/", BUILTIN_PATTERNS),  # type: ignore[arg-type]
    ),
    "shell: a variable's values in many subshells": (
        lambda n: "X=pytest; X=tox; X=nox; X=jest; " + "( $X -q ); " * (n // 11),
        lambda text: test_invocations(text, "/", BUILTIN_PATTERNS),  # type: ignore[arg-type]
    ),
    "shell: a long value put in many times": (
        lambda n: "A='" + "x " * 250 + "'; pytest" + " $A" * (n // 3),
        lambda text: test_invocations(text, "/", BUILTIN_PATTERNS),  # type: ignore[arg-type]
    ),
    "shell: many cd": (
        lambda n: "cd a && " * (n // 8) + "pytest",
        lambda text: test_invocations(text, "/", BUILTIN_PATTERNS),  # type: ignore[arg-type]
    ),
    "payload: deep nesting": (lambda n: b"[" * n, _payload),  # type: ignore[dict-item]
    "runctx table: many headers": (
        lambda n: b"[tool]\nrunctxx=1\n" * (n // 18),
        mentions_runctx_table,
    ),  # type: ignore[dict-item]
    "runctx table: searched in chunks": (
        lambda n: b"[tool]\nrunctxx=1\n" * (n // 18),
        _search_in_chunks,  # type: ignore[dict-item]
    ),
    "settings file: long array": (
        lambda n: '{"a": [' + ", ".join(["1.50"] * (n // 6)) + "]}",
        _settings,  # type: ignore[dict-item]
    ),
    "settings file: comments and trailing commas": (
        lambda n: '{"a": [' + ", // c\n".join(["1"] * (n // 9)) + ",]}",
        lambda text: json_layout.to_strict(text, comments=True, trailing_commas=True),  # type: ignore[arg-type]
    ),
    "settings file: commas before long space": (
        lambda n: "[1," + " " * n + "2]",
        lambda text: json_layout.to_strict(text, comments=True, trailing_commas=True),  # type: ignore[arg-type]
    ),
    "escape: control characters": (
        lambda n: os.fsdecode(b"\x1b\xff" * (n // 2)),
        lambda text: (visible(text), json_text(text), hook_json(text)),  # type: ignore[arg-type]
    ),
    "package.json: many scripts": (
        lambda n: b'{"scripts": {' + b", ".join(b'"s%d": "x"' % i for i in range(n // 12)) + b"}}",
        package_json.scripts_of,  # type: ignore[dict-item]
    ),
    "makefile: targets times prerequisites": (
        lambda n: b"all " + b"t " * (n // 4) + b": " + b"p " * (n // 4) + b"\n\tpytest\n",
        _make_default,  # type: ignore[dict-item]
    ),
    "makefile: one prerequisite many times": (
        lambda n: b"all: " + b"a " * (n // 2) + b"\na:\n\tpytest\n",
        _make_default,  # type: ignore[dict-item]
    ),
    "makefile: many references in a recipe": (
        lambda n: b"V := " + b"x" * 1000 + b"\nall:\n\tpytest " + b"$(V)" * (n // 4) + b"\n",
        _make_default,  # type: ignore[dict-item]
    ),
    "makefile: variables that double": (
        lambda n: (
            b"".join(b"V%d := $(V%d)$(V%d)\n" % (i + 1, i, i) for i in range(8))
            + b"V0 := "
            + b"x" * n
            + b"\nall:\n\tpytest $(V8)\n"
        ),
        _make_default,  # type: ignore[dict-item]
    ),
    "makefile: many rule lines": (
        lambda n: b"".join(b"t%d: a b\n\techo\n" % i for i in range(n // 16)),
        _make_default,  # type: ignore[dict-item]
    ),
    "justfile: a long dependency list": (
        lambda n: b"default: " + b"(a 'x') " * (n // 8) + b"\n  echo\na:\n  pytest\n",
        _just_default,  # type: ignore[dict-item]
    ),
    "justfile: variables that double": (
        lambda n: (
            b"V0 := '"
            + b"x" * n
            + b"'\n"
            + b"".join(b"V%d := V%d + V%d\n" % (i + 1, i, i) for i in range(30))
            + b"default:\n  pytest {{V30}}\n"
        ),
        _just_default,  # type: ignore[dict-item]
    ),
    "justfile: many interpolations of a long value": (
        lambda n: (
            b"V := '" + b"x" * 60000 + b"'\ndefault:\n  pytest " + b"{{V}}" * (n // 5) + b"\n"
        ),
        _just_default,  # type: ignore[dict-item]
    ),
    "justfile: a long expression": (
        lambda n: b"V := " + b"'a' + " * (n // 7) + b"'b'\ndefault:\n  pytest {{V}}\n",
        _just_default,  # type: ignore[dict-item]
    ),
    "makefile: a called block of many arguments": (
        lambda n: (
            b"define F\n"
            + b"$(1) " * (n // 10)
            + b"\nendef\nall:\n\t$(call F,"
            + b"x," * (n // 4)
            + b")\n"
        ),
        _make_default,  # type: ignore[dict-item]
    ),
    "justfile: many recipes": (
        lambda n: b"".join(b"r%d: a\n  echo\n" % i for i in range(n // 14)),
        _just_default,  # type: ignore[dict-item]
    ),
    "taskfile: many tasks": (
        lambda n: (
            b"tasks:\n" + b"".join(b"  t%d:\n    cmds:\n      - x\n" % i for i in range(n // 30))
        ),
        _task_default,  # type: ignore[dict-item]
    ),
    "taskfile: a long flow list of deps": (
        lambda n: b"tasks:\n  default:\n    deps: [" + b"a, " * (n // 3) + b"]\n  a: pytest\n",
        _task_default,  # type: ignore[dict-item]
    ),
    "dispatch: many case blocks": (
        lambda n: 'case "$1" in a) x ;; b) pytest ;; esac\n' * (n // 40),
        lambda text: dispatch.selected_text(text, ["a"]),  # type: ignore[arg-type]
    ),
    "dispatch: many branches on flags never set": (
        lambda n: (
            'case "$1" in -a) f=true ;; esac\nf=false\n'
            + 'if [[ "$f" == true ]]; then\n  if x; then y; fi\n' * (n // 48)
        ),
        lambda text: dispatch.selected_text(text, ["-b"]),  # type: ignore[arg-type]
    ),
    "scripts: many names of the script's own directory": (
        lambda n: 'D=$(dirname "$0")\n' + '"$D/x" $(dirname "$0") ${0%/*}\n' * (n // 36),
        lambda text: scripts.in_own_directory(text, "ci/run.sh"),  # type: ignore[arg-type]
    ),
    "scripts: many assignments of the script's own directory": (
        lambda n: "".join(f'D{i}=$(dirname "$0")\n$D{i}/x\n' for i in range(n // 30)),
        lambda text: scripts.in_own_directory(text, "ci/run.sh"),  # type: ignore[arg-type]
    ),
    "dispatch: one block of many arms": (
        lambda n: 'case "$1" in\n' + "a) f ;;\n" * (n // 8) + "esac\n",
        lambda text: dispatch.selected_text(text, ["b"]),  # type: ignore[arg-type]
    ),
    "dispatch: functions calling each other": (
        lambda n: (
            "".join(f"f{i}() {{ f{i + 1}; }}\n" for i in range(min(n // 16, 250)))
            + 'case "$1" in a) f0 ;; b) pytest ;; esac\n'
            + "# " * (n // 2)
        ),
        lambda text: dispatch.selected_text(text, ["b"]),  # type: ignore[arg-type]
    ),
    "dispatch: nested blocks never closed": (
        lambda n: 'case "$1" in a) ' + "case x in y) " * (n // 13),
        lambda text: dispatch.selected_text(text, ["a"]),  # type: ignore[arg-type]
    ),
    "invoke: many tasks": (
        lambda n: (
            b"from invoke import task\n"
            + b"".join(b'@task\ndef t%d(c):\n    c.run("x")\n' % i for i in range(n // 40))
        ),
        invoke_tasks.tasks_of,  # type: ignore[dict-item]
    ),
    "invoke: one task's long arguments": (
        lambda n: b"@task(pre=[" + b"a, " * (n // 3) + b"])\ndef t(c):\n    c.run('pytest')\n",
        invoke_tasks.tasks_of,  # type: ignore[dict-item]
    ),
    "invoke: many decorators never closed": (
        lambda n: b"@task(x\n" * (n // 8),
        invoke_tasks.tasks_of,  # type: ignore[dict-item]
    ),
    "mix: many aliases": (
        lambda n: b"defp aliases do\n  [" + b'a: ["x", "y"], ' * (n // 16) + b"]\nend\n",
        mix_aliases.aliases_of,  # type: ignore[dict-item]
    ),
    "mix: a list never closed": (
        lambda n: b"defp aliases do\n  [" + b'["x", ' * (n // 6),
        mix_aliases.aliases_of,  # type: ignore[dict-item]
    ),
    "spawned: many process calls": (
        lambda n: 'subprocess.run(["pytest", "-x"])\n' * (n // 32),
        lambda text: spawned.spawned("python", text),  # type: ignore[arg-type]
    ),
    "spawned: strings never closed": (
        lambda n: 'os.system("pytest ' * (n // 18),
        lambda text: spawned.spawned("python", text),  # type: ignore[arg-type]
    ),
    "spawned: ruby backticks never closed": (
        lambda n: "`" + "x" * n,
        lambda text: spawned.spawned("ruby", text),  # type: ignore[arg-type]
    ),
    "spawned: nested brackets in a list": (
        lambda n: "execa('x', [" + "[" * n,
        lambda text: spawned.spawned("javascript", text),  # type: ignore[arg-type]
    ),
    "fastfile: many lanes calling each other": (
        lambda n: b"".join(
            b'lane :l%d do\n  l%d\n  sh("x", "y")\nend\n' % (i, i + 1) for i in range(n // 40)
        ),
        fastfile.parse,  # type: ignore[dict-item]
    ),
    "fastfile: a call's arguments never closed": (
        lambda n: b"lane :a do\n  sh(" + b'"x", ' * (n // 5) + b"\n",
        fastfile.parse,  # type: ignore[dict-item]
    ),
    "rakefile: many invoked tasks": (
        lambda n: b"task :a do\n" + b"  Rake::Task[:b].invoke\n" * (n // 24) + b"end\n",
        rakefile.parse,  # type: ignore[dict-item]
    ),
    "taskfile: a key of many colons": (
        lambda n: b"tasks:\n  " + b"a:" * (n // 2) + b"x\n    cmds:\n      - pytest\n",
        taskfile.parse,  # type: ignore[dict-item]
    ),
    "justfile: a header of quoted defaults": (
        lambda n: b"t " + b'a="x y:z" ' * (n // 10) + b":\n  pytest\n",
        justfile.parse,  # type: ignore[dict-item]
    ),
    "hatch: many scripts": (
        lambda n: (
            b"[envs.default.scripts]\n" + b"".join(b"s%d = 'x'\n" % i for i in range(n // 10))
        ),
        _hatch_default,  # type: ignore[dict-item]
    ),
}


def _best(parse: Callable[[object], object], data: object, rounds: int = 5) -> float:
    """The best of ``rounds`` timings, with the collector off (as :mod:`timeit` does)."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            began = time.perf_counter()
            parse(data)
            best = min(best, time.perf_counter() - began)
    finally:
        gc.enable()
    return max(best, 1e-7)


def main() -> int:
    """Measure every case; exit 1 if any grows faster than linearly."""
    failed = []
    print(f"{'parser and input':40} {'n':>8} {'8n':>8}  ratio (linear ~8, quadratic ~64)")
    for name, (make, parse) in CASES.items():
        small_input, large_input = make(SMALL), make(SMALL * GROWTH)
        for _trial in range(TRIALS):  # a busy machine can slow one measurement, never all
            small = _best(parse, small_input)
            large = _best(parse, large_input)
            ratio = large / small
            if ratio <= LIMIT:
                break
        verdict = "ok" if ratio <= LIMIT else "SUPERLINEAR"
        print(f"{name:40} {small * 1e3:7.2f}ms {large * 1e3:7.2f}ms  {ratio:5.1f} {verdict}")
        if ratio > LIMIT:
            failed.append(name)
    if failed:
        print(f"superlinear: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
