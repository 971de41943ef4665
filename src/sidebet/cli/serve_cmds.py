"""``sidebet serve`` (the table server) and ``sidebet audit`` (verify an exported log).

FastAPI, uvicorn and SQLAlchemy are imported inside the commands, so ``sidebet --help``
and every other command stay free of them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from sidebet.cli.common import handle_errors

__all__ = ["register"]

DEFAULT_URL = "sqlite:///sidebet.db"


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``audit`` to the ``sidebet`` command."""

    @app.command()
    @handle_errors
    def serve(
        database_url: Annotated[str, typer.Option(
            help="SQLAlchemy URL: sqlite:///FILE (created on first start) or "
                 "postgresql+psycopg://USER@HOST/DB")] = DEFAULT_URL,
        host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port")] = 8000,
        table: Annotated[list[Path] | None, typer.Option(
            help="Rules Submission TOML: create this table at start unless one of its name "
                 "exists (repeatable)")] = None,
        seats: Annotated[int, typer.Option(help="seats of tables made with --table")] = 7,
        time_limit: Annotated[int, typer.Option(
            help="seconds to act at tables made with --table (0: none)")] = 0,
        test_seed: Annotated[str | None, typer.Option(
            hidden=True, envvar="SIDEBET_TEST_SEED",
            help="TESTS ONLY: predictable server seeds")] = None,
        test_stack: Annotated[bool, typer.Option(
            hidden=True, envvar="SIDEBET_TEST_STACK",
            help="TESTS ONLY: operators may stack the next shoe")] = False,
    ) -> None:
        """Run the table server (FastAPI on uvicorn; OpenAPI at /docs).

        The operator account is ``operator``; its password is SIDEBET_OPERATOR_PASSWORD,
        or printed once when the account is first created.
        """
        import uvicorn

        from sidebet.serve.app import create_app
        from sidebet.serve.db import make_engine
        from sidebet.serve.service import Service

        service = Service(make_engine(database_url),
                          operator_password=os.environ.get("SIDEBET_OPERATOR_PASSWORD"),
                          test_seed=test_seed, test_stack=test_stack)
        if test_stack:
            print("warning: --test-stack lets operators stack shoes; tests only",
                  file=sys.stderr)
        if test_seed is not None:
            print("warning: --test-seed makes the shoes predictable; tests only",
                  file=sys.stderr)
        if service.operator_note:
            print(service.operator_note, file=sys.stderr)
        for path in table or []:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise typer.BadParameter(f"cannot read {path}: {exc.strerror}") from None
            made = service.ensure_table(text, seats=seats, time_limit=time_limit)
            print(f"table {made}: {path}", file=sys.stderr)
        uvicorn.run(create_app(service), host=host, port=port, log_level="warning")

    @app.command()
    @handle_errors
    def audit(
        file: Annotated[Path, typer.Argument(help="a table log exported from the server "
                                                  "(JSON lines)")],
    ) -> None:
        """Verify an exported table log offline: hash chain, shoe commitments and shuffles,
        every action and round replayed through the engine."""
        from sidebet.serve.log_audit import audit_file

        report = audit_file(file)
        for line in report.lines():
            print(line)
