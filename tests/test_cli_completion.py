"""``runctx completion SHELL``: real bash, zsh and fish complete what the parser knows.

Each test loads the code ``runctx completion`` prints into the real shell and
asks it for completions the way the shell does at a TAB, so what is proved is
what a person gets. zsh and fish may be missing on a developer's machine (the
test is skipped there); in CI (``CI`` set) they are installed and a missing
shell fails the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from proctools import make_checkout
from require import require

from runctx.cli.main import SUBCOMMANDS

BIN = Path(sys.executable).parent


def shell(name: str) -> str:
    """The path of the shell ``name``; skip without it, but fail in CI (.ci/run installs it)."""
    return require(name)


def environment() -> dict[str, str]:
    """PATH with this environment's ``runctx`` first: the one the shell code will call."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNCTX_", "_ARC"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def in_shell(argv: list[str], cwd: Path | None = None) -> list[str]:
    """Run ``argv`` (a shell and its script) in ``cwd``; the completions it prints, one a line."""
    done = subprocess.run(
        argv, capture_output=True, text=True, env=environment(), cwd=cwd, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


BASH = r"""
source <(runctx completion bash)
line="$1"
COMP_LINE="$line"; COMP_POINT=${#line}
read -ra COMP_WORDS <<< "$line"
[[ "$line" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_python_argcomplete runctx "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"""

ZSH = r"""
autoload -U is-at-least
compdef() { :; }
eval "$(runctx completion zsh)"
_describe() { local name=$2; print -l -- "${(@P)name}"; }
BUFFER="$1"; CURSOR=${#BUFFER}; words=(${=BUFFER})
_python_argcomplete
"""

FISH = 'runctx completion fish | source; complete -C "$argv[1]"'


def complete(name: str, line: str, cwd: Path | None = None) -> list[str]:
    """What shell ``name`` offers for the command line ``line`` (typed in ``cwd``), words alone."""
    if name == "bash":
        found = in_shell([shell("bash"), "-c", BASH, "bash", line], cwd)
    elif name == "zsh":
        found = in_shell([shell("zsh"), "-f", "-c", ZSH, "zsh", line], cwd)
    else:
        found = in_shell([shell("fish"), "--no-config", "-c", FISH, line], cwd)
    # zsh says "word:description", fish "word<TAB>description"
    return [entry.split("\t")[0].split(":")[0].strip() for entry in found]


@pytest.mark.parametrize("name", ["bash", "zsh", "fish"])
def test_every_subcommand_is_completed(name):
    """``runctx <TAB>`` offers every subcommand the parser has, ``hook`` included."""
    offered = set(complete(name, "runctx "))
    assert {*SUBCOMMANDS, "hook"} <= offered


@pytest.mark.parametrize("name", ["bash", "zsh", "fish"])
def test_a_prefix_completes_to_the_subcommands_it_starts(name):
    """``runctx st<TAB>`` offers status and stop, and nothing else."""
    assert sorted(complete(name, "runctx st")) == ["status", "stop"]


@pytest.mark.parametrize("name", ["bash", "zsh", "fish"])
def test_options_and_choices_come_from_the_parser(name):
    """A subcommand's options and an option's choices are offered as the parser declares them."""
    assert {"--json", "--root", "--source", "--verbose"} <= set(complete(name, "runctx status --"))
    assert {"procfs", "psutil"} <= set(complete(name, "runctx status --source "))
    assert {"claude", "gemini", "git"} <= set(complete(name, "runctx install "))


@pytest.mark.parametrize("name", ["bash", "zsh", "fish"])
def test_hook_completes_every_face_of_every_agent(name):
    """``runctx hook <TAB>`` offers the faces the hook answers, and only those."""
    from runctx.hooks.agents import all_faces

    assert set(complete(name, "runctx hook ")) == set(all_faces())
    assert "claude-session-start" in complete(name, "runctx hook claude-")


@pytest.mark.parametrize("name", ["bash", "zsh", "fish"])
def test_stop_completes_this_users_runs_of_this_checkout(name, shared_tmp, runs):
    """``runctx stop <TAB>`` offers the pid of this checkout's run, not another checkout's."""
    mine = make_checkout(shared_tmp, "mine")
    ours = runs.run_tests_script(mine)
    theirs = runs.run_tests_script(make_checkout(shared_tmp, "theirs"))
    offered = complete(name, "runctx stop ", cwd=mine)
    assert str(ours.pid) in offered
    assert str(theirs.pid) not in offered


def test_the_completion_subcommand_names_its_shells():
    """``runctx completion`` prints code that names runctx, for each shell it supports."""
    for name in ("bash", "zsh", "fish"):
        done = subprocess.run(
            [sys.executable, "-m", "runctx", "completion", name],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0
        assert "runctx" in done.stdout
    refused = subprocess.run(
        [sys.executable, "-m", "runctx", "completion", "tcsh"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2
