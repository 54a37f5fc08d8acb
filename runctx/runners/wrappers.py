"""How to see through the commands in front of the program: wrappers and interpreters.

Data only. A :class:`Wrapper` row says how one wrapper command (``env``,
``timeout``, ``uv run``, ``npx``...) is read: which of its options take a
value, which mean that nothing runs, which move to another directory, which
hand over a python module or a shell string, and which subcommand words must
follow. The interpreter tables say the same for ``python``, shells, ``node``,
``ruby`` and ``java``. :mod:`runctx.runners.walk` reads them.
"""

from __future__ import annotations

from runctx._record import LightRecord
from runctx.runners.table import HATCH_VALUE_OPTIONS, NPM_PROGRAMS, PNPM_PROGRAMS, YARN_PROGRAMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


class Wrapper(LightRecord):
    """How to see through one wrapper command to the command it runs.

    ``value``: options taking the next word; ``stop``: options meaning "no
    command runs"; ``chdir``: options whose value is the command's new cwd;
    ``code``: options whose value is a shell string; ``module``: options whose
    value is a python module to run; ``split``: options whose value is split
    into more words (``env -S``); ``subcommands``: word sequences that must
    follow (``uv run``); ``positionals``: words to skip before the command
    (``timeout DURATION``); ``own_commands``: the tool's own subcommands, for
    tools that also run any other word as a program (``yarn jest``);
    ``assignments``: ``VAR=x`` words allowed.
    """

    __slots__ = (
        "assignments",
        "chdir",
        "code",
        "module",
        "own_commands",
        "positionals",
        "split",
        "stop",
        "subcommands",
        "value",
    )

    assignments: bool
    chdir: frozenset[str]
    code: frozenset[str]
    module: frozenset[str]
    own_commands: frozenset[str] | None
    positionals: int
    split: frozenset[str]
    stop: frozenset[str]
    subcommands: tuple[tuple[str, ...], ...]
    value: frozenset[str]

    def __init__(  # noqa: PLR0913 - a table row is built by keyword, one argument per column
        self,
        *,
        value: Iterable[str] = (),
        stop: Iterable[str] = (),
        chdir: Iterable[str] = (),
        code: Iterable[str] = (),
        module: Iterable[str] = (),
        split: Iterable[str] = (),
        subcommands: Iterable[tuple[str, ...]] = (),
        positionals: int = 0,
        own_commands: Iterable[str] | None = None,
        assignments: bool = False,
    ) -> None:
        """Hold one row; every option that takes a value is in ``value``."""
        self._hold(
            chdir=frozenset(chdir),
            code=frozenset(code),
            module=frozenset(module),
            split=frozenset(split),
            stop=frozenset(stop),
            subcommands=tuple(subcommands),
            positionals=positionals,
            own_commands=None if own_commands is None else frozenset(own_commands),
            assignments=assignments,
        )
        self._hold(value=frozenset(value) | self.chdir | self.code | self.module | self.split)


_UV_VALUES = (
    "--with",
    "-w",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--package",
    "--project",
    "--env-file",
    "--index",
    "--default-index",
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--config-file",
    "--cache-dir",
    "--from",
    "--color",
    "--exclude-newer",
    "--index-strategy",
    "--keyring-provider",
    "--link-mode",
    "--resolution",
    "--prerelease",
    "--python-preference",
    "--python-platform",
    "--config-setting",
    "-C",
    "--refresh-package",
    "--reinstall-package",
    "--upgrade-package",
    "-P",
    "--allow-insecure-host",
)

_YARN_OWN = (
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "constraints",
    "create",
    "dedupe",
    "dlx",
    "exec",
    "explain",
    "generate-lock-entry",
    "global",
    "help",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "node",
    "npm",
    "outdated",
    "owner",
    "pack",
    "patch",
    "patch-commit",
    "plugin",
    "policies",
    "publish",
    "rebuild",
    "remove",
    "run",
    "search",
    "set",
    "stage",
    "tag",
    "team",
    "test",
    "unlink",
    "unplug",
    "up",
    "upgrade",
    "upgrade-interactive",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
)

_PNPM_OWN = (
    "add",
    "i",
    "install",
    "update",
    "up",
    "upgrade",
    "remove",
    "rm",
    "uninstall",
    "un",
    "link",
    "ln",
    "unlink",
    "import",
    "rebuild",
    "rb",
    "prune",
    "fetch",
    "patch",
    "patch-commit",
    "audit",
    "list",
    "ls",
    "ll",
    "outdated",
    "why",
    "licenses",
    "run",
    "test",
    "t",
    "tst",
    "exec",
    "dlx",
    "create",
    "start",
    "publish",
    "pack",
    "recursive",
    "server",
    "store",
    "root",
    "bin",
    "setup",
    "init",
    "doctor",
    "config",
    "c",
    "env",
    "deploy",
    "help",
    "install-test",
    "it",
    "cache",
    "self-update",
    "approve-builds",
)

_SUDO_VALUES = (
    "-u",
    "--user",
    "-g",
    "--group",
    "-C",
    "--close-from",
    "-h",
    "--host",
    "-p",
    "--prompt",
    "-r",
    "--role",
    "-t",
    "--type",
    "-T",
    "-U",
)


WRAPPERS: dict[str, Wrapper] = {
    "env": Wrapper(
        value=("-u", "--unset", "-P"),
        chdir=("-C", "--chdir"),
        split=("-S", "--split-string"),
        assignments=True,
    ),
    "timeout": Wrapper(value=("-k", "--kill-after", "-s", "--signal"), positionals=1),
    "nice": Wrapper(value=("-n", "--adjustment")),
    "ionice": Wrapper(
        value=("-c", "--class", "-n", "--classdata"),
        stop=("-p", "--pid", "-P", "--pgid", "-u", "--uid"),
    ),
    "time": Wrapper(value=("-f", "--format", "-o", "--output")),
    "nohup": Wrapper(),
    "setsid": Wrapper(),
    "unbuffer": Wrapper(),
    "catchsegv": Wrapper(),
    "busybox": Wrapper(),
    "stdbuf": Wrapper(value=("-i", "-o", "-e", "--input", "--output", "--error")),
    "taskset": Wrapper(positionals=1, stop=("-p", "--pid")),
    "chrt": Wrapper(positionals=1, stop=("-p", "--pid", "-m", "--max")),
    "xvfb-run": Wrapper(
        value=("-n", "--server-num", "-s", "--server-args", "-f", "--auth-file", "-e", "-p", "-w"),
    ),
    "sudo": Wrapper(
        value=_SUDO_VALUES,
        chdir=("-D", "--chdir"),
        stop=("-l", "--list", "-v", "--validate", "-K", "-V", "--version", "-e", "--edit"),
    ),
    "doas": Wrapper(value=("-u", "-C")),
    "xargs": Wrapper(
        value=("-n", "-P", "-I", "-L", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter"),
    ),
    "exec": Wrapper(value=("-a",)),
    "command": Wrapper(stop=("-v", "-V")),
    "source": Wrapper(),
    ".": Wrapper(),
    "uv": Wrapper(
        value=_UV_VALUES,
        chdir=("--directory",),
        module=("-m", "--module"),
        subcommands=[("run",), ("tool", "run")],
    ),
    "uvx": Wrapper(value=_UV_VALUES, chdir=("--directory",)),
    "pipx": Wrapper(
        value=("--spec", "--python", "--index-url", "--pip-args"), subcommands=[("run",)]
    ),
    "poetry": Wrapper(
        value=("-P", "--project"), chdir=("-C", "--directory"), subcommands=[("run",)]
    ),
    "pipenv": Wrapper(value=("--python",), subcommands=[("run",)]),
    "hatch": Wrapper(value=HATCH_VALUE_OPTIONS, subcommands=[("run",), ("env", "run")]),
    "pdm": Wrapper(value=("-p", "--project"), subcommands=[("run",)]),
    # ``runctx run -- CMD``: while it checks or waits it is about to become CMD,
    # so it already counts as CMD's run (two waiters then see each other).
    "runctx": Wrapper(value=("--mode", "--timeout"), subcommands=[("run",)]),
    "rye": Wrapper(value=("--pyproject",), subcommands=[("run",)]),
    "pixi": Wrapper(
        value=("-e", "--environment", "--manifest-path"), subcommands=[("run",), ("exec",)]
    ),
    "coverage": Wrapper(
        value=("--source", "--include", "--omit", "--rcfile", "--context", "--data-file"),
        module=("-m", "--module"),
        subcommands=[("run",)],
    ),
    "direnv": Wrapper(subcommands=[("exec",)], positionals=1),
    "npx": Wrapper(value=("-p", "--package", "--cache"), code=("-c", "--call")),
    "pnpx": Wrapper(value=("-p", "--package"), code=("-c", "--call")),
    "bunx": Wrapper(value=("-p", "--package")),
    "bundle": Wrapper(value=("--gemfile",), subcommands=[("exec",)]),
}
for _name in ("conda", "mamba", "micromamba"):
    WRAPPERS[_name] = Wrapper(
        value=("-n", "--name", "-p", "--prefix"), chdir=("--cwd",), subcommands=[("run",)]
    )
for _name in NPM_PROGRAMS:
    WRAPPERS[_name] = Wrapper(
        value=("-p", "--package", "--prefix", "-w", "--workspace"),
        code=("-c", "--call"),
        subcommands=[("exec",), ("x",)],
    )
for _name in PNPM_PROGRAMS:
    WRAPPERS[_name] = Wrapper(
        value=("-C", "--dir", "--filter", "-F"),
        code=("-c", "--shell-mode"),
        subcommands=[("exec",), ("dlx",)],
        own_commands=_PNPM_OWN,
    )
for _name in YARN_PROGRAMS:
    WRAPPERS[_name] = Wrapper(
        value=("--cwd",), subcommands=[("exec",), ("dlx",)], own_commands=_YARN_OWN
    )
WRAPPERS["bun"] = Wrapper(subcommands=[("x",)])

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash"})
NODES = frozenset({"node", "nodejs"})
RUBIES = frozenset({"ruby"})
JAVAS = frozenset({"java"})
PYTHON_PREFIXES = ("python", "pypy")
PYTHON_SUFFIXES = frozenset({"", "t", "d", "m", "u", "w", "-dbg"})

HELP_OR_VERSION = frozenset({"--version", "--help"})
"""Long options after which python or a shell prints and exits."""
PYTHON_LONG_VALUES = frozenset({"--check-hash-based-pycs"})
SHELL_VALUES = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
NODE_VALUES = frozenset(
    {"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions"}
    | {"--inspect-port", "--debug-port", "--title", "--input-type", "--env-file"}
    | {"--disable-warning", "--openssl-config"}
)
NODE_STOPS = frozenset({"-e", "--eval", "-p", "--print", "-v", "--version", "-h", "--help", "-"})
RUBY_VALUES = frozenset({"-I", "-r", "-C", "-E", "-F", "--encoding"})
RUBY_STOPS = frozenset({"-e", "--version", "-h", "--help", "-"})
JAVA_VALUES = frozenset(
    {"-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path"}
    | {"--add-modules", "--add-opens", "--add-exports", "--add-reads", "--patch-module"}
    | {"--limit-modules", "--source"}
)
JAVA_STOPS = frozenset({"-version", "--version", "-h", "-help", "--help", "-?", "-X"})
