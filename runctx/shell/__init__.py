"""Reading a shell command string the way a shell would, to find the test runs it starts.

- :mod:`runctx.shell.lexer`: words and operators;
- :mod:`runctx.shell.commands`: simple commands, ``cd``, subshells and nested
  shell strings, each simple command resolved through the runner table
  (:func:`~runctx.shell.commands.test_invocations`).

The cheap first question (does the text name a runner at all?) is the fast
path's (:mod:`runctx.fastpath.prefilter`); the lexer and the parser are read
only when it says yes.
"""
