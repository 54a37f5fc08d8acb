"""Test runs in containers (``runners/containers.py``): placed where their directory is mounted.

``docker compose exec web pytest`` is a run of this checkout when ``web``'s
working directory is a bind mount of it; with the directory elsewhere (a
named volume, another host path, a container started elsewhere) it is not.
The parser is fed compose files and commands; the verdict is proved with the
real hook next to a live run of the checkout.
"""

from __future__ import annotations

import os

import pytest
from hooktools import claude_pre_tool_use, reply, run_hook
from tasktools import write

from runctx.runners.containers import parse_services
from runctx.shell.commands import test_invocations

COMPOSE = """\
    # the application and its database
    services:
      web:
        build: .
        working_dir: /app
        volumes:
          - .:/app
          - cache:/var/cache/app
        command: ["python", "manage.py", "runserver"]
      worker:
        build:
          context: ./backend
          dockerfile: Dockerfile.dev
        volumes:
          - type: bind
            source: ./backend
            target: /srv/backend
          - type: volume
            source: data
            target: /data
      db:
        image: postgres:16
        volumes: ["pgdata:/var/lib/postgresql/data"]
      elsewhere:
        image: python:3.13
        working_dir: /app
        volumes:
          - appdata:/app
    volumes:
      cache:
"""


@pytest.fixture
def project(tmp_path):
    """A checkout with a compose file, a service built from a Dockerfile and another file."""
    write(tmp_path / "compose.yaml", COMPOSE)
    write(
        tmp_path / "backend" / "Dockerfile.dev", "FROM python:3.13\nWORKDIR /srv\nWORKDIR backend\n"
    )
    write(
        tmp_path / "ci.yaml", "services:\n  web:\n    working_dir: /w\n    volumes: ['/opt/o:/w']\n"
    )
    return tmp_path


def places(command, cwd):
    """Each test run of ``command`` in ``cwd``: its directory (relative to ``cwd``) and if known."""
    return [
        (os.path.relpath(found.cwd, cwd), found.cwd_known)
        for found in test_invocations(command, str(cwd))
    ]


@pytest.mark.parametrize(
    ("command", "where"),
    [
        ("docker compose exec web pytest", "."),
        ("docker compose exec -T -e CI=1 web python -m pytest -q", "."),
        ("docker-compose run --rm --no-deps web pytest", "."),
        ("podman-compose exec web pytest", "."),
        ("docker compose exec -w /app/sub web pytest", "sub"),
        ("sudo docker compose exec web pytest", "."),
        ("docker compose run worker pytest", "backend"),  # WORKDIR /srv/backend, mounted
        ("docker compose -f ci.yaml exec web pytest", "/opt/o"),
        ("docker run --rm -v $PWD:/src -w /src python:3.13 pytest", "."),
        ("docker run -v $(pwd)/backend:/src -w /src/tests img pytest", "backend/tests"),
        ("podman run --mount type=bind,source=.,target=/w -w /w img go test ./...", "."),
        ("nerdctl run -v ${PWD}:/src --workdir=/src img cargo test", "."),
        ("docker container run -v /opt/o:/src -w /src img pytest", "/opt/o"),
    ],
)
def test_a_bind_mounted_working_directory_places_the_run(project, command, where):
    """The run works in the host directory mounted at the container's working directory."""
    expected = where if where.startswith("/") else os.path.normpath(where)
    [(directory, known)] = places(command, project)
    assert known
    assert os.path.normpath(os.path.join(project, directory)) == os.path.normpath(
        os.path.join(project, expected)
    )


@pytest.mark.parametrize(
    "command",
    [
        "docker compose exec db pytest",  # no working directory, no bind mount
        "docker compose exec elsewhere pytest",  # a named volume at the working directory
        "docker compose exec missing pytest",
        "docker compose -f absent.yaml exec web pytest",
        "docker compose -f ../compose.yaml exec web pytest",  # outside: not read
        "docker run -v $PWD:/src img pytest",  # the image's working directory is not known
        "docker run -v data:/src -w /src img pytest",
        "docker run -v $SRC:/src -w /src img pytest",
        "docker exec ctr pytest",  # a container started elsewhere
        "docker exec -w /app ctr pytest",
    ],
)
def test_a_working_directory_not_mounted_from_here_leaves_the_run_unplaced(project, command):
    """Still a test run, but not known to work in this checkout (nor anywhere else)."""
    assert places(command, project) == [(".", False)]


def test_commands_that_start_no_run_in_a_container_are_none(project):
    """A container that runs a server or a migration runs no test."""
    for command in (
        "docker compose exec web python manage.py migrate",
        "docker compose up -d",
        "docker run -d --name app -p 80:80 app",
    ):
        assert test_invocations(command, str(project)) == (), command


def test_compose_services_are_read_by_indentation():
    """Short, long and one-line volume lists, a build context, a quoted working directory."""
    services = parse_services(
        b"version: '3'\nservices:\n  api:\n    working_dir: \"/code\"\n"
        b"    volumes: ['./src:/code:ro', named:/x]\n    build: ./api\n"
        b'  ui:\n    volumes:\n      - "./ui:/ui"\n      - type: bind\n'
        b"        source: /tmp/x\n        target: /y\n"
    )
    assert services["api"] == {
        "working_dir": "/code",
        "volumes": [("./src", "/code"), ("named", "/x")],
        "build": ("./api", ""),
    }
    assert services["ui"] == {"volumes": [("./ui", "/ui"), ("/tmp/x", "/y")]}
    assert parse_services(b"not: [yaml\n  at all") == {}


def decision_of(answer):
    """The PreToolUse answer of Claude Code's hook."""
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    return output


def test_the_hook_refuses_a_compose_run_of_the_checkout_next_to_its_live_run(world):
    """``docker compose exec web pytest`` with ``.`` mounted at ``web``'s working directory.

    The checkout has a live run: the hook denies, naming it, as it denies
    ``pytest`` itself there; so it does for ``docker run -v $PWD:/src -w /src``.
    """
    write(world.busy / "compose.yaml", COMPOSE)
    for command in (
        "docker compose exec web pytest",
        "docker run --rm -v $PWD:/src -w /src python:3.13 pytest -x",
    ):
        output = decision_of(reply(run_hook("claude", claude_pre_tool_use(command, world.busy))))
        assert output.get("permissionDecision") == "deny", command
        assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


def test_the_hook_lets_a_compose_run_mounted_elsewhere_through(world):
    """A service whose working directory is a named volume, or a container of unknown mounts.

    Next to the same live run, the command is not refused: runctx cannot
    place it in this checkout, and says so.
    """
    write(world.busy / "compose.yaml", COMPOSE)
    for command in ("docker compose exec elsewhere pytest", "docker exec ctr pytest"):
        output = decision_of(reply(run_hook("claude", claude_pre_tool_use(command, world.busy))))
        assert output.get("permissionDecision") != "deny", command
        assert "container it runs in" in str(output), command


def test_the_hook_places_a_compose_run_in_the_mounted_checkout(world):
    """From the other checkout, a compose file mounting the busy checkout places the run there."""
    write(
        world.idle / "compose.yaml",
        f"services:\n  web:\n    working_dir: /app\n    volumes:\n      - {world.busy}:/app\n",
    )
    output = decision_of(
        reply(run_hook("claude", claude_pre_tool_use("docker compose exec web pytest", world.idle)))
    )
    assert output.get("permissionDecision") == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]
