"""``runctx completion SHELL``: the shell code that completes runctx's command line.

The completions come from runctx's own argument parser, through argcomplete
(:func:`argcomplete.shellcode` writes the shell's part; at each TAB the shell
runs ``runctx`` with argcomplete's variables set, and :func:`runctx.cli.main.main`
answers from the parser before doing anything else). So every subcommand,
option and choice is completed as ``runctx --help`` lists it, in bash, zsh and
fish alike, with nothing written by hand to fall out of step.

Set it up once::

    runctx completion bash >> ~/.bashrc          # or: eval "$(runctx completion bash)"
    runctx completion zsh > "${fpath[1]}/_runctx" # or: eval "$(runctx completion zsh)"
    runctx completion fish > ~/.config/fish/completions/runctx.fish
"""

from __future__ import annotations

import argparse

from argcomplete.shell_integration import shellcode

from runctx.present.output import write_text

SHELLS = ("bash", "zsh", "fish")
PROGRAM = "runctx"


DESCRIPTION = (
    "Print the shell code that completes runctx's subcommands, options and "
    'choices. bash: add `eval "$(runctx completion bash)"` to ~/.bashrc; '
    "zsh: the same in ~/.zshrc; fish: runctx completion fish > "
    "~/.config/fish/completions/runctx.fish"
)
"""What ``runctx completion --help`` says first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``completion``."""
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def run(args: argparse.Namespace) -> int:
    """Print the shell code; exit 0."""
    write_text(shellcode([PROGRAM], shell=args.shell))
    return 0
