"""The ``sidebet`` command line (typer + rich)."""
