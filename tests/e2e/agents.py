"""The real agents, installed from the npm registry and pointed at the scripted model server.

Each :class:`Agent` says which npm package (at a pinned version) holds the
agent, how its headless command is spelled, which environment and files point
it at a model server on 127.0.0.1, and how the model sees a refusal. The
packages are installed once into :func:`cache_dir` (``npm install --prefix``),
not committed, reused while the pinned version stays the same.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from runctx.hooks.doctor import linked_worktree_main

REPO = Path(__file__).resolve().parents[2]

CACHE_ENV = "RUNCTX_E2E_AGENTS"
"""Where the agents are installed (default: ``.venv/e2e-agents`` of the checkout)."""

NPM_TIMEOUT = 900


def cache_dir() -> Path:
    """The directory the agents are installed under."""
    chosen = os.environ.get(CACHE_ENV)
    return Path(chosen) if chosen else REPO / ".venv" / "e2e-agents"


def unavailable(reason: str) -> None:
    """A check that needs an agent it cannot have: fails in CI, skips elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run every end-to-end check)", pytrace=False)
    pytest.skip(reason)


@dataclass(frozen=True)
class Home:
    """Where one agent run lives: its HOME, its session directory, the server's address."""

    home: Path
    cwd: Path
    base_url: str


@dataclass(frozen=True)
class Agent:
    """One agent's npm package, headless command and model endpoint."""

    name: str
    package: str
    version: str
    binary: str
    argv: Callable[[str], list[str]]
    environment: Callable[[Home], dict[str, str]]
    prepare: Callable[[Home], None] = lambda _home: None
    denial: str = ""
    """A phrase of the agent's own that the model sees with a hook's refusal."""
    extra_path: tuple[str, ...] = field(default=())

    @property
    def prefix(self) -> Path:
        """The npm prefix this agent is installed into."""
        return cache_dir() / f"{self.name}-{self.version}"

    @property
    def executable(self) -> Path:
        """Where the agent's executable is once installed."""
        return self.prefix / "node_modules" / ".bin" / self.binary

    def installed(self) -> bool:
        """Whether the pinned version is installed in the cache."""
        package = self.prefix / "node_modules" / self.package / "package.json"
        if not (package.is_file() and self.executable.exists()):
            return False
        return bool(json.loads(package.read_text()).get("version") == self.version)

    def install_command(self) -> list[str] | None:
        """The ``npm install`` that puts the pinned version in the cache; None without npm."""
        npm = shutil.which("npm")
        if npm is None:
            return None
        return [
            npm,
            "install",
            "--prefix",
            str(self.prefix),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"{self.package}@{self.version}",
        ]

    def program(self) -> Path:
        """The agent's executable, installed from the registry first when missing."""
        if self.installed():
            return self.executable
        command = self.install_command()
        if command is None:
            unavailable(f"npm is not installed: cannot install {self.package}")
            raise AssertionError  # unreachable: unavailable() fails or skips
        self.prefix.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=NPM_TIMEOUT
        )
        if done.returncode != 0 or not self.installed():
            unavailable(
                f"npm install {self.package}@{self.version} failed "
                f"({done.returncode}): {done.stderr.strip()[-2000:]}"
            )
        return self.executable


def install_missing(agents: list[Agent]) -> None:
    """Install every agent not yet in the cache, all at once (each npm in its own group).

    A failure is not raised here: the check that needs the agent installs it
    again through :meth:`Agent.program`, and fails or skips with npm's words.
    """
    started = []
    for agent in agents:
        command = agent.install_command()
        if agent.installed() or command is None:
            continue
        agent.prefix.mkdir(parents=True, exist_ok=True)
        started.append(
            subprocess.Popen(
                command,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
    for process in started:
        try:
            process.wait(timeout=NPM_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _claude_environment(home: Home) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": home.base_url,
        "ANTHROPIC_API_KEY": "sk-e2e-offline",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_MAX_RETRIES": "1",
    }


CLAUDE = Agent(
    name="claude",
    package="@anthropic-ai/claude-code",
    version="2.1.332",
    binary="claude",
    argv=lambda prompt: [
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        "--allowedTools",
        "Bash",
        "--include-hook-events",
    ],
    environment=_claude_environment,
)


def _codex_environment(home: Home) -> dict[str, str]:
    return {"E2E_API_KEY": "sk-e2e-offline", "CODEX_HOME": str(home.home / ".codex")}


def _codex_prepare(home: Home) -> None:
    """A model provider on the server (Responses API), and the session's folder trusted."""
    config = home.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'model = "e2e-model"\n'
        'model_provider = "e2e"\n'
        "[model_providers.e2e]\n"
        'name = "e2e"\n'
        f'base_url = "{home.base_url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "E2E_API_KEY"\n'
        f"[projects.{json.dumps(str(home.cwd))}]\n"
        'trust_level = "trusted"\n'
    )
    main = linked_worktree_main(str(home.cwd))
    if main is not None:  # a linked worktree: Codex reads the main worktree's .codex/
        with config.open("a") as more:
            more.write(f'[projects.{json.dumps(main)}]\ntrust_level = "trusted"\n')


CODEX = Agent(
    name="codex",
    package="@openai/codex",
    version="0.171.0",
    binary="codex",
    argv=lambda prompt: [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        # Codex runs a hook only once its hash is trusted (/hooks in its TUI); this run
        # is not interactive, so the freshly installed hook is trusted for it alone.
        "--dangerously-bypass-hook-trust",
        prompt,
    ],
    environment=_codex_environment,
    prepare=_codex_prepare,
)


def _gemini_environment(home: Home) -> dict[str, str]:
    return {"GEMINI_API_KEY": "e2e-offline", "GOOGLE_GEMINI_BASE_URL": home.base_url}


def _gemini_prepare(home: Home) -> None:
    """The API-key login, folder trust on, and the session's folder trusted."""
    directory = home.home / ".gemini"
    directory.mkdir(parents=True, exist_ok=True)
    settings_path = directory / "settings.json"
    settings = json.loads(settings_path.read_text()) if settings_path.exists() else {}
    security = settings.setdefault("security", {})
    security["auth"] = {"selectedType": "gemini-api-key"}
    security["folderTrust"] = {"enabled": True}
    settings_path.write_text(json.dumps(settings, indent=2))
    (directory / "trustedFolders.json").write_text(json.dumps({str(home.cwd): "TRUST_FOLDER"}))


GEMINI = Agent(
    name="gemini",
    package="@google/gemini-cli",
    version="0.61.0",
    binary="gemini",
    argv=lambda prompt: ["-p", prompt, "--output-format", "stream-json", "--approval-mode", "yolo"],
    environment=_gemini_environment,
    prepare=_gemini_prepare,
)


def _copilot_environment(home: Home) -> dict[str, str]:
    return {
        "COPILOT_PROVIDER_BASE_URL": f"{home.base_url}/v1",
        "COPILOT_PROVIDER_API_KEY": "sk-e2e-offline",
        "COPILOT_MODEL": "e2e-model",
        "COPILOT_OFFLINE": "true",
        # Not ~/.copilot: the user scope must follow the agent's own override.
        "COPILOT_HOME": str(home.home / "copilot-home"),
    }


def _copilot_prepare(home: Home) -> None:
    """The session's folder trusted (project hooks are skipped in an untrusted one)."""
    directory = home.home / "copilot-home"
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "config.json"
    settings = json.loads(config.read_text()) if config.exists() else {}
    settings["trustedFolders"] = [str(home.cwd)]
    config.write_text(json.dumps(settings, indent=2))


COPILOT = Agent(
    name="copilot",
    package="@github/copilot",
    version="1.0.102",
    binary="copilot",
    argv=lambda prompt: [
        "-p",
        prompt,
        "--output-format",
        "json",
        "--allow-all-tools",
        "--allow-all-paths",
    ],
    environment=_copilot_environment,
    prepare=_copilot_prepare,
)


def _qwen_environment(home: Home) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": f"{home.base_url}/v1",
        "OPENAI_API_KEY": "sk-e2e-offline",
        "OPENAI_MODEL": "e2e-model",
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
    }


def _qwen_prepare(home: Home) -> None:
    """The OpenAI-compatible login, and the session's folder trusted."""
    directory = home.home / ".qwen"
    directory.mkdir(parents=True, exist_ok=True)
    settings_path = directory / "settings.json"
    settings = json.loads(settings_path.read_text()) if settings_path.exists() else {}
    settings.setdefault("security", {})["auth"] = {"selectedType": "openai"}
    settings_path.write_text(json.dumps(settings, indent=2))
    (directory / "trustedFolders.json").write_text(json.dumps({str(home.cwd): "TRUST_FOLDER"}))


QWEN = Agent(
    name="qwen",
    package="@qwen-code/qwen-code",
    version="0.24.4",
    binary="qwen",
    argv=lambda prompt: ["-p", prompt, "--output-format", "stream-json", "--approval-mode", "yolo"],
    environment=_qwen_environment,
    prepare=_qwen_prepare,
)

AGENTS = {agent.name: agent for agent in (CLAUDE, CODEX, GEMINI, COPILOT, QWEN)}
