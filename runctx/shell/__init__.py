"""Reading a shell command string the way a shell would, to find the test runs it starts.

- :mod:`runctx.fastpath.prefilter`: the cheap first question (does the text name
  a runner at all?), the only one most commands an agent issues ever get;
- :mod:`runctx.shell.lexer`: words and operators;
- :mod:`runctx.shell.commands`: simple commands, ``cd``, subshells and nested
  shell strings, each simple command resolved through the runner table
  (:func:`~runctx.shell.commands.test_invocations`).

Nothing is imported here: the hook imports the pre-filter alone first, and the
lexer and parser only when a runner is named.
"""
