"""Where a command run in a container works on this machine: the bind mount of its directory.

``docker compose exec web pytest`` runs pytest inside the ``web`` container,
in the service's working directory. That directory is this checkout when it
is a bind mount of it (``volumes: [".:/app"]`` with ``working_dir: /app``), and
then the run is a run of this checkout, as the live view sees once it runs.
This module says which host directory a container command's working
directory is, read from the command and the checkout's files:

- ``docker run`` (and ``podman``, ``nerdctl``, ``docker container run``): its
  ``-w``/``--workdir`` and the ``-v``/``--volume``/``--mount`` bind mounts;
- ``docker compose run|exec SERVICE`` (and ``docker-compose``,
  ``podman-compose``): the compose file (``-f``, else ``compose.yaml``,
  ``compose.yml``, ``docker-compose.yaml``, ``docker-compose.yml`` in the
  directory it runs in), the service's ``working_dir`` (else the last
  ``WORKDIR`` of the Dockerfile its ``build`` names) and ``volumes``, with the
  command's own ``-w`` and (``run``) ``-v``.

Only files inside the command's directory are read (no ``..``, no absolute
path): a compose file or Dockerfile elsewhere could be another user's.
A host source of a mount is a path (relative ones to the command's directory,
or to the compose file's project directory) or the command's own directory
(``$PWD``, ``${PWD}``, ``$(pwd)``, ```pwd```); a named volume, another
variable or a mount the working directory is not under places the command
nowhere known. ``docker exec CONTAINER`` runs in a container started
elsewhere: its mounts are not known here.

The compose file is read line by line by indentation (block mappings and
lists, the short and long volume syntax, one-line ``[...]`` lists), not as
full YAML; anything written otherwise leaves the place unknown. Files come
through the command's bounded reader (:mod:`runctx.runners.tasks.files`).
"""

from __future__ import annotations

import os
import posixpath
import shlex

import attrs

from runctx.record_base import Record
from runctx.runners.wrappers import WRAPPERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners.tasks.files import ProjectFiles

ENGINES = frozenset({"docker", "podman", "nerdctl"})
COMPOSE_PROGRAMS = frozenset({"docker-compose", "podman-compose"})
COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
_VALUES = WRAPPERS["docker"].value
_ENGINE_GLOBALS = frozenset({"-H", "--host", "--config", "--context", "-c", "--log-level"})
_COMPOSE_GLOBALS = frozenset(
    {"-f", "--file", "-p", "--project-name", "--project-directory", "--profile", "--env-file"}
)
_RUN_VALUES = _VALUES | {"--env-file", "--mount", "-w", "--workdir", "-v", "--volume"}
_HERE = ("$PWD", "${PWD}", "$(pwd)", "`pwd`", "$(pwd -P)", "${PWD:-.}")
MAX_DOCKERFILE_LINES = 2000
"""Lines of a Dockerfile read for its ``WORKDIR``."""


@attrs.frozen(repr=False, eq=False)
class Placement(Record):
    """Where a container command works: ``directory`` on this machine, or None and why not.

    ``directory`` is relative to the command's own directory when it is not
    absolute (``.`` for a bind mount of that directory).
    """

    directory: str | None
    reason: str


class _Call:
    """A container command as read: the kind, the mounts, the working directory, the service."""

    __slots__ = ("compose_files", "mounts", "project", "service", "workdir")

    def __init__(self) -> None:
        self.mounts: list[tuple[str, str]] = []  # (host source as written, container target)
        self.workdir: str | None = None
        self.service: str | None = None
        self.compose_files: list[str] = []
        self.project: str | None = None


def placement(words: Sequence[str], files: ProjectFiles, cwd: str) -> Placement:
    """Where the container command ``words`` (its program first) works on this machine."""
    if not words:
        return Placement(None, "no container command")
    program = words[0].rpartition("/")[2]
    if program in COMPOSE_PROGRAMS:
        return _compose(words, 1, files, cwd)
    i = _skip(words, 1, _ENGINE_GLOBALS)
    if i < len(words) and words[i] == "container":
        i += 1
    subcommand = words[i] if i < len(words) and program in ENGINES else ""
    if subcommand == "compose":
        return _compose(words, i + 1, files, cwd)
    if subcommand == "run":
        call = _Call()
        _options(words, i + 1, call, run=True)
        return _placed(call, "the image's working directory is not known")
    if subcommand == "exec":
        return Placement(None, "a container started elsewhere: its mounts are not known")
    return Placement(None, "not a container command")


def _skip(words: Sequence[str], i: int, valued: frozenset[str]) -> int:
    """The index of the first word from ``i`` that is no option (``valued`` take a value)."""
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        i += 2 if word in valued else 1
    return i


def _options(words: Sequence[str], i: int, call: _Call, *, run: bool) -> int:
    """Read ``run``/``exec`` options from ``i`` into ``call``; the index of the first operand."""
    n = len(words)
    while i < n and words[i].startswith("-") and words[i] != "--":
        word = words[i]
        name, equal, inline = word.partition("=")
        value = inline if equal else (words[i + 1] if i + 1 < n else "")
        takes = name in _RUN_VALUES
        if name in {"-w", "--workdir"}:
            call.workdir = value
        elif name.startswith("-w") and not name.startswith("--") and len(name) > 2:  # noqa: PLR2004
            call.workdir, takes = name[2:], False
        elif run and name in {"-v", "--volume"}:
            source, _, rest = value.partition(":")
            if rest:
                call.mounts.append((source, rest.split(":", 1)[0]))
        elif run and name == "--mount":
            call.mounts.extend(_mount_option(value))
        i += 1 if equal or not takes else 2
    return i


def _mount_option(value: str) -> list[tuple[str, str]]:
    """The bind mount of a ``--mount type=bind,source=S,target=T`` value, if it is one."""
    fields = dict(part.partition("=")[::2] for part in value.split(","))
    if fields.get("type", "volume") != "bind":
        return []
    source = fields.get("source") or fields.get("src")
    target = fields.get("target") or fields.get("destination") or fields.get("dst")
    return [(source, target)] if source and target else []


def _placed(call: _Call, no_workdir: str, base: str = ".") -> Placement:
    """The host directory of ``call``'s working directory through its bind mounts."""
    workdir = call.workdir
    if not workdir or not workdir.startswith("/"):
        return Placement(None, no_workdir if not workdir else "a working directory not absolute")
    workdir = posixpath.normpath(workdir)
    best: tuple[str, str] | None = None
    for source, written in call.mounts:
        target = posixpath.normpath(written) if written.startswith("/") else ""
        if not target or not (workdir == target or workdir.startswith(target.rstrip("/") + "/")):
            continue
        if best is None or len(target) > len(best[1]):
            best = (source, target)
    if best is None:
        return Placement(None, f"no bind mount of this machine holds {workdir}")
    host = _host(best[0], base)
    if host is None:
        return Placement(None, f"the source of the mount at {best[1]} is not a directory here")
    rest = workdir[len(best[1]) :].lstrip("/")
    return Placement(posixpath.normpath(posixpath.join(host, rest)), "a bind mount")


def _host(source: str, base: str) -> str | None:
    """A mount's host source as a path (relative to the command's directory), or None."""
    for here in _HERE:
        if source == here or source.startswith(here + "/"):
            return posixpath.join(base, source[len(here) :].lstrip("/")) or "."
    if source.startswith(("$", "~")) or "$" in source:
        return None
    if source.startswith("/"):
        return source
    if source == "." or source.startswith(("./", "../")) or source == "..":
        return posixpath.join(base, source)
    return None  # a named volume


# --- compose ------------------------------------------------------------------------


def _compose(words: Sequence[str], i: int, files: ProjectFiles, cwd: str) -> Placement:
    call = _Call()
    n = len(words)
    while i < n and words[i].startswith("-"):
        name, equal, inline = words[i].partition("=")
        value = inline if equal else (words[i + 1] if i + 1 < n else "")
        if name in {"-f", "--file"}:
            call.compose_files.append(value)
        elif name == "--project-directory":
            call.project = value
        i += 1 if equal or name not in _COMPOSE_GLOBALS else 2
    if i >= n or words[i] not in {"run", "exec"}:
        return Placement(None, "not a compose run or exec")
    run = words[i] == "run"
    i = _options(words, i + 1, call, run=run)
    if i >= n:
        return Placement(None, "no service named")
    call.service = words[i]
    return _compose_service(call, files, cwd)


def _compose_service(call: _Call, files: ProjectFiles, cwd: str) -> Placement:
    """The place of ``call``'s service, its file read from the checkout."""
    path = _compose_file(call.compose_files, cwd)
    if path is None:
        return Placement(None, "no compose file found")
    services = files.parsed(os.path.join(cwd, path), parse_services)
    if not isinstance(services, dict) or call.service not in services:
        return Placement(None, f"service {call.service} not found in {path}")
    service = services[call.service]
    base = call.project or posixpath.dirname(path) or "."
    volumes = service.get("volumes")
    if isinstance(volumes, list):
        call.mounts = [*volumes, *call.mounts]
    if call.workdir is None:
        written = service.get("working_dir")
        build = service.get("build")
        call.workdir = (
            written
            if isinstance(written, str)
            else _dockerfile_workdir(build if isinstance(build, tuple) else None, base, files, cwd)
        )
    return _placed(call, f"the working directory of service {call.service} is not known", base)


def _compose_file(given: Sequence[str], cwd: str) -> str | None:
    """The compose file a command reads, relative to ``cwd``: the first ``-f``, or the default."""
    if given:
        first = given[0]
        return first if inside(first) else None
    for name in COMPOSE_FILES:
        if os.path.isfile(os.path.join(cwd, name)):
            return name
    return None


def _dockerfile_workdir(
    build: tuple[str, str] | None, base: str, files: ProjectFiles, cwd: str
) -> str | None:
    """The last absolute ``WORKDIR`` of the Dockerfile a service's ``build`` names."""
    if build is None:
        return None
    context, dockerfile = build
    if not (inside(context) and inside(dockerfile or "Dockerfile") and inside(base)):
        return None
    path = os.path.join(cwd, base, context, dockerfile or "Dockerfile")
    found = files.parsed(path, _workdir)
    return found if isinstance(found, str) and found else None


def inside(path: str) -> bool:
    """Whether ``path`` stays in the command's directory: no variable, root, home or ``..``."""
    if not path or "$" in path or path == "-" or "://" in path or path.startswith(("/", "~")):
        return False
    return ".." not in path.split("/")


def _workdir(data: bytes) -> str:
    """The last absolute ``WORKDIR`` of a Dockerfile's text ("" when none)."""
    found = ""
    for line in data.decode("utf-8", "replace").splitlines()[:MAX_DOCKERFILE_LINES]:
        words = line.split()
        if len(words) == 2 and words[0].upper() == "WORKDIR":  # noqa: PLR2004
            value = words[1].strip("\"'")
            if value.startswith("/") and "$" not in value:
                found = value
            elif not value.startswith("/"):
                found = posixpath.join(found, value) if found else ""
    return found


def parse_services(data: bytes) -> dict[str, dict[str, object]]:
    """Each service of a compose file: ``working_dir``, bind ``volumes``, ``build``, ``command``.

    ``volumes`` is a list of (source, target) pairs, ``build`` a (context,
    dockerfile) pair, ``command`` shell words, ``profiles`` True when the
    service has some; what is not written, or not read, is absent.
    """
    lines = [_uncommented(raw) for raw in data.decode("utf-8", "replace").splitlines()]
    services: dict[str, dict[str, object]] = {}
    for i, line in enumerate(lines):
        if line.strip() != "services:" or _indent(line) != 0:
            continue
        block = _block(lines, i + 1, 0)
        for name, body in _children(block):
            services[name] = _service(body)
        break
    return services


def _uncommented(raw: str) -> str:
    at = raw.find(" #")
    line = raw[:at] if at >= 0 else raw
    return "" if line.lstrip().startswith("#") else line.rstrip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block(lines: Sequence[str], start: int, parent: int) -> list[str]:
    """The lines from ``start`` indented deeper than ``parent`` (blank lines kept)."""
    block: list[str] = []
    for line in lines[start:]:
        if line.strip() and _indent(line) <= parent:
            break
        block.append(line)
    return block


def _children(block: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The keys of a block mapping at its own indentation, each with the lines below it."""
    filled = [line for line in block if line.strip()]
    if not filled:
        return []
    depth = min(_indent(line) for line in filled)
    found: list[tuple[str, list[str]]] = []
    for i, line in enumerate(block):
        if not line.strip() or _indent(line) != depth or line.lstrip().startswith("-"):
            continue
        key, colon, value = line.strip().partition(":")
        if colon:
            body = [f"{' ' * (depth + 2)}{value.strip()}"] if value.strip() else []
            found.append((_unquoted(key), body + _block(block, i + 1, depth)))
    return found


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) > 1 and value[0] == value[-1] and value[0] in {'"', "'"}:
        return value[1:-1]
    return value


def _service(body: Sequence[str]) -> dict[str, object]:
    found: dict[str, object] = {}
    for key, lines in _children(body):
        text = [line.strip() for line in lines if line.strip()]
        if key == "working_dir" and len(text) == 1:
            found["working_dir"] = _unquoted(text[0])
        elif key == "volumes":
            found["volumes"] = _volumes(lines)
        elif key == "build" and text:
            found["build"] = _build(lines, text)
        elif key == "command" and text:
            found["command"] = _command(text)
        elif key == "profiles":
            found["profiles"] = True
    return found


_BLOCK_SCALARS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})


def _command(text: Sequence[str]) -> str:
    """A service's ``command`` as shell words: a string, a flow list, a block list or scalar."""
    if len(text) == 1 and text[0].startswith("[") and text[0].endswith("]"):
        items = [_unquoted(item) for item in text[0][1:-1].split(",") if item.strip()]
        return " ".join(shlex.quote(item) for item in items)
    if text[0].startswith("- "):
        items = [_unquoted(line[2:]) for line in text if line.startswith("- ")]
        return " ".join(shlex.quote(item) for item in items)
    if text[0] in _BLOCK_SCALARS:
        return " ".join(text[1:])
    return _unquoted(" ".join(text))


def _volumes(lines: Sequence[str]) -> list[tuple[str, str]]:
    """The bind mounts of a ``volumes:`` list: short (``./src:/app:ro``) or long syntax."""
    text = [line.strip() for line in lines if line.strip()]
    if len(text) == 1 and text[0].startswith("["):
        items = [_unquoted(item) for item in text[0].strip("[]").split(",") if item.strip()]
        return [pair for item in items for pair in _short(item)]
    mounts: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.startswith("- "):
            continue
        item = stripped[2:].strip()
        if ":" in item and not item.split(":", 1)[0].strip().isidentifier():
            mounts.extend(_short(_unquoted(item)))
            continue
        fields = [item, *(x.strip() for x in _block(lines, i + 1, _indent(line)) if x.strip())]
        pairs = dict(f.partition(":")[::2] for f in fields if ":" in f)
        values = {k.strip(): _unquoted(v) for k, v in pairs.items()}
        if values.get("type") == "bind" and values.get("source") and values.get("target"):
            mounts.append((values["source"], values["target"]))
    return mounts


def _short(item: str) -> list[tuple[str, str]]:
    """The mount of one short-syntax volume (``SOURCE:TARGET[:MODE]``), when it has a source."""
    source, colon, rest = item.partition(":")
    if not colon:
        return []
    return [(source, rest.split(":", 1)[0])]


def _build(lines: Sequence[str], text: Sequence[str]) -> tuple[str, str]:
    """A service's ``build``: a context alone, or a mapping with ``context`` and ``dockerfile``."""
    if len(text) == 1 and ":" not in text[0]:
        return _unquoted(text[0]), ""
    values = {key: "".join(x.strip() for x in body) for key, body in _children(lines)}
    return _unquoted(values.get("context", ".")), _unquoted(values.get("dockerfile", ""))


__all__ = ["COMPOSE_FILES", "Placement", "inside", "parse_services", "placement"]
