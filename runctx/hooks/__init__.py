"""The agents' hooks: ``runctx hook FACE`` and what ``runctx install`` writes.

- :mod:`runctx.fastpath`: ``runctx hook FACE``, the entry point an agent runs
  before (or after) every shell command, failing open whatever happens;
- :mod:`runctx.hooks.commands`: what a command the pre-filter let through runs;
- :mod:`runctx.hooks.answer`: the answer to a test run or a change (the scan,
  the policy, the reply);
- :mod:`runctx.hooks.agents`: one module per agent (payloads, replies, install
  spec, settings files);
- :mod:`runctx.hooks.payload`: reading a payload, bounded and never trusted;
- :mod:`runctx.hooks.settings_file`: merging runctx's entries into an agent's
  JSON settings file, and taking them out again.

The decision itself is :mod:`runctx.policy`'s, shared with ``runctx run`` and
the pytest plugin. Nothing is imported here, so that the hook's path for a
command that is not a test run stays cheap.
"""
