"""Compose services run by name (``runners/tasks/compose_services.py``).

A compose file written into a checkout; ``docker compose run SERVICE`` and
``docker compose up`` run each service's ``command``, judged and placed as a
command written after the service is.
"""

from __future__ import annotations

import pytest
from tasktools import runs, write

from runctx.runners.containers import parse_services

COMPOSE = """\
services:
  db:
    image: postgres:16
  web:
    build: .
    command: python manage.py runserver 0.0.0.0:8000
    volumes:
      - .:/app
    working_dir: /app
  tests:
    build: .
    command: ["pytest", "-x", "tests"]
    volumes:
      - .:/app
    working_dir: /app
  unit:
    build: .
    profiles: [test]
    command:
      - npm
      - test
    volumes:
      - .:/src
    working_dir: /src
  lint:
    build: .
    command: >
      ruff check .
    volumes:
      - .:/app
"""


@pytest.fixture
def project(tmp_path):
    """A checkout with the compose file above."""
    write(tmp_path / "compose.yaml", COMPOSE)
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "docker compose run --rm tests",
        "docker-compose run tests",
        "podman compose run -e CI=1 unit",
        "docker compose -f compose.yaml run --rm tests",
        "docker compose up --abort-on-container-exit --exit-code-from tests tests",
        "docker compose up",  # every service without a profile: tests among them
        "docker compose up -d unit",  # detached, the tests run all the same
    ],
)
def test_a_service_whose_command_runs_tests_is_a_run(project, command):
    """The service's own command decides, placed in the checkout it mounts."""
    assert runs(command, project) != []


@pytest.mark.parametrize(
    "command",
    [
        "docker compose run --rm web",
        "docker compose run --rm lint",
        "docker compose run --rm db",  # no command: its image's own
        "docker compose run --rm missing",
        "docker compose up -d web db",
        "docker compose up --dry-run tests",
        "docker compose build",
        "docker ps",
    ],
)
def test_a_service_that_runs_no_tests_is_no_run(project, command):
    """A server, a linter, an image's own command, an unknown service: none."""
    assert runs(command, project) == []


def test_up_leaves_out_the_services_of_profiles(project):
    """``up`` alone starts no service with ``profiles``: without ``tests``, no run."""
    write(project / "compose.yaml", COMPOSE.replace("  tests:\n", "  tests:\n    profiles: [ci]\n"))
    assert runs("docker compose up", project) == []
    assert runs("docker compose up tests", project) != []


def test_the_command_forms_of_a_compose_file():
    """A string, a flow list, a block list and a folded scalar each give shell words."""
    services = parse_services(COMPOSE.encode())
    assert services["web"]["command"] == "python manage.py runserver 0.0.0.0:8000"
    assert services["tests"]["command"] == "pytest -x tests"
    assert services["unit"]["command"] == "npm test"
    assert services["lint"]["command"] == "ruff check ."
    assert "command" not in services["db"]
    assert services["unit"]["profiles"] is True


def test_a_command_after_the_service_is_read_as_written_there(project):
    """``docker compose run web make ci`` runs ``make ci`` in the mounted checkout, read there.

    So does a service whose ``command`` is a project task: ``up`` reads what
    the task runs (an ``npm run dev`` whose script runs the tests first).
    """
    write(project / "Makefile", "ci:\n\tpytest -q tests\n\nlint:\n\truff check .\n")
    write(
        project / "package.json",
        '{"scripts": {"dev": "npm run pretest-all && vite", "pretest-all": "jest --ci",'
        ' "serve": "vite"}}',
    )
    assert runs("docker compose run --rm web make ci", project) != []
    assert runs("docker compose run --rm web make lint", project) == []
    write(project / "compose.yaml", COMPOSE.replace("python manage.py runserver", "npm run dev"))
    assert runs("docker compose up web", project) != []
    assert runs("docker compose run web", project) != []
    write(project / "compose.yaml", COMPOSE.replace("python manage.py runserver", "npm run serve"))
    assert runs("docker compose up web", project) == []
