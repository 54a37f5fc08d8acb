"""What a report looks like to a reader: words, a terminal table, JSON.

- :mod:`runctx.present.words`: the sentences every face shares (hooks,
  ``runctx run``/``check``/``wait``/``stop``, the pytest plugin);
- :mod:`runctx.present.text`: the ``runctx status`` table;
- :mod:`runctx.present.json`: the JSON contract of ``runctx status --json``;
- :mod:`runctx.present.escape`: the one escaping step, per face (terminal,
  JSON, hook reply) for text from ``/proc``, the file system or a payload;
- :mod:`runctx.present.output`: writing a face's text so that it never fails
  on any locale, and a closed pipe or a full disk ends in one clear way.
"""
