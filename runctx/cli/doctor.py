"""``runctx doctor``: will the installed hooks run? Per agent and scope, what stops them.

For each agent (all of them, or those named) and each scope (user, project,
and Claude Code's local), it says where the agent reads hooks, whether
runctx's are there, and what keeps them from running though they are there:
the program not on the PATH the agent hands its hooks, a Codex hook not yet
trusted, a project folder Gemini CLI, Qwen Code or Copilot CLI does not trust,
hooks turned off in the agent's settings, a file the agent does not read
(``COPILOT_HOME`` set, a Codex linked worktree), and Copilot CLI running
Claude Code's hooks too (every command judged twice). See
:mod:`runctx.hooks.doctor`.

Exit statuses: 0 every installed hook will run (as far as can be seen), 1 one
will not (or a file could not be read), 2 usage error.
"""

from __future__ import annotations

import argparse
import os

from runctx.hooks.agents import AGENT_NAMES
from runctx.hooks.doctor import Finding, diagnose
from runctx.present.output import write_json, write_text

DESCRIPTION = (
    "Tell, per agent and scope, whether runctx's hooks are installed and whether "
    "the agent will run them: found on its PATH, trusted or enabled where the agent "
    "asks, read from where the agent looks, not doubled."
)
"""What ``runctx doctor --help`` says first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``doctor``."""
    parser.add_argument(
        "agents",
        nargs="*",
        choices=[[], *sorted(AGENT_NAMES)],
        metavar="AGENT",
        help="the agents to look at (default: all): " + ", ".join(sorted(AGENT_NAMES)),
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per finding, in a list"
    )


def as_json(finding: Finding) -> dict[str, object]:
    """One finding as JSON."""
    return {
        "agent": finding.agent,
        "scope": finding.scope,
        "path": finding.path,
        "installed": finding.installed,
        "hooks": list(finding.registered),
        "will_run": finding.will_run,
        "problems": list(finding.problems),
        "notes": list(finding.notes),
    }


def describe(finding: Finding) -> list[str]:
    """The lines that tell one finding."""
    head = f"{finding.agent} ({finding.scope}): {finding.path}"
    if not finding.installed:
        lines = [f"{head}: not installed"]
    elif finding.will_run:
        lines = [f"{head}: installed, will run ({', '.join(finding.registered)})"]
    else:
        lines = [f"{head}: installed, WILL NOT RUN as it is ({', '.join(finding.registered)})"]
    lines += [f"  problem: {problem}" for problem in finding.problems]
    lines += [f"  note: {note}" for note in finding.notes]
    return lines


def run(args: argparse.Namespace) -> int:
    """Look at every agent and scope asked; exit 1 when an installed hook will not run."""
    names = tuple(args.agents) or AGENT_NAMES
    findings = diagnose(names, cwd=os.getcwd())
    if args.json:
        write_json([as_json(finding) for finding in findings])
    else:
        write_text("".join(line + "\n" for finding in findings for line in describe(finding)))
    return 1 if any(finding.problems for finding in findings) else 0
