"""Compose services run by name: ``docker compose run --rm tests``, ``docker compose up tests``.

A compose service started with no command runs the ``command`` its compose
file gives it: ``docker compose run --rm tests`` where ``tests`` has
``command: pytest -x`` starts a test run, in the container, of the host
directory mounted at its working directory. ``docker compose up SERVICE...``
runs the services named (when none is, every service that has no
``profiles``: those start only when their profile is asked for), each its ``command``
(the CI idiom ``docker compose up --abort-on-container-exit --exit-code-from
tests``).

Each service's command is handed on as ``docker compose -f FILE run SERVICE
COMMAND``: the same reading as a command written out after the service, which
judges it and places it on this machine (:mod:`runctx.runners.containers`). A
service with no ``command`` (its image's own) says nothing, nor does a
service the file does not define. The compose file is the one ``-f`` names,
else the first of :data:`~runctx.runners.containers.COMPOSE_FILES` in the
directory; only a file inside the directory is read.
"""

from __future__ import annotations

import os
import shlex

from runctx.runners.containers import COMPOSE_FILES, inside, parse_services

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

MAX_SERVICES = 32
"""Services of one ``up`` read, at most."""


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands the services of ``call`` run, each as a compose run of that service."""
    path = call.file or next(
        (name for name in COMPOSE_FILES if os.path.isfile(os.path.join(directory, name))), None
    )
    if path is None or not inside(path):
        return None
    services = files.parsed(os.path.join(directory, path), parse_services)
    if not isinstance(services, dict):
        return None
    # ``up`` with no service starts those without ``profiles`` (a profile must be asked for)
    named = call.names or tuple(
        name for name, service in services.items() if not service.get("profiles")
    )
    lines = []
    for name in named[:MAX_SERVICES]:
        service = services.get(name)
        command = service.get("command") if isinstance(service, dict) else None
        if isinstance(command, str) and command:
            lines.append(f"docker compose -f {shlex.quote(path)} run {shlex.quote(name)} {command}")
    return lines or None
