"""What a report looks like to a reader: words, a terminal table, JSON.

- :mod:`runctx.present.words`: the sentences every face shares (hooks,
  ``runctx run``/``check``/``wait``/``stop``, the pytest plugin);
- :mod:`runctx.present.text`: the ``runctx status`` table;
- :mod:`runctx.present.json`: the JSON contract of ``runctx status --json``;
- :mod:`runctx.present.escape`: text from ``/proc`` or the file system made
  printable.
"""
