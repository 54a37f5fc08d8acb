"""Agent and git hooks over one shared policy (:mod:`runctx.hooks.policy`).

``runctx hook AGENT`` (:mod:`runctx.hooks.cli`) is the entry point an agent
calls before every shell command. Each agent's protocol lives in its own small
module that only translates input and output; the decision is made once, in
:mod:`runctx.hooks.policy`. Nothing is imported here, so that the hook's path
for a command that is not a test run stays cheap.
"""
