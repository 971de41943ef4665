"""The client's side of the resident ``sidebet`` (``sidebet daemon start``), which keeps
the command line's modules loaded and runs each command in a fork of itself.

:mod:`~sidebet.cli.daemon.wire` is what both sides share (where the socket is, the
messages, the interpreter's fingerprint) and :mod:`~sidebet.cli.daemon.client` hands a
command over from the console script, before anything else is imported.  The serving
side is :mod:`sidebet.cli.resident`, which imports the whole command line.
"""
