"""The resident ``sidebet``'s serving side (``sidebet daemon start`` runs it detached).

:mod:`~sidebet.cli.resident.server` loads the command line, listens and forks;
:mod:`~sidebet.cli.resident.warmup` is what a spare fork runs before it is given a
command; :mod:`~sidebet.cli.resident.child` makes a fork the client's process (its
standard streams, folder, environment and arguments) and runs the command as the console
script would.  The client's side is :mod:`sidebet.cli.daemon`.
"""
