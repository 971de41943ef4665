"""``sidebet serve`` (the table server) and ``sidebet audit`` (verify an exported log).

FastAPI, uvicorn and SQLAlchemy are imported inside the commands, so ``sidebet --help``
and every other command stay free of them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sidebet.cli.common import handle_errors

__all__ = ["register"]

def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``audit`` to the ``sidebet`` command."""

    @app.command()
    @handle_errors
    def serve(
        database_url: Annotated[str | None, typer.Option(
            help="SQLAlchemy URL: sqlite:///FILE (created on first start) or "
                 "postgresql+psycopg://USER@HOST/DB [default: SIDEBET_DATABASE_URL, else "
                 "sqlite:///sidebet.db]", show_default=False)] = None,
        host: Annotated[str | None, typer.Option(
            help="address to listen on [default: SIDEBET_HOST, else 127.0.0.1]",
            show_default=False)] = None,
        port: Annotated[int | None, typer.Option(
            help="TCP port [default: SIDEBET_PORT, else 8000]", show_default=False)] = None,
        table: Annotated[list[Path] | None, typer.Option(
            help="Rules Submission TOML: create this table at start unless one of its name "
                 "exists (repeatable) [default: SIDEBET_TABLES, a JSON list]",
            show_default=False)] = None,
        seats: Annotated[int | None, typer.Option(
            help="seats of tables made with --table [default: SIDEBET_TABLE_SEATS, else 7]",
            show_default=False)] = None,
        time_limit: Annotated[int | None, typer.Option(
            help="seconds to act at tables made with --table (0: none) [default: "
                 "SIDEBET_TABLE_TIME_LIMIT, else 0]", show_default=False)] = None,
        test_seed: Annotated[str | None, typer.Option(
            hidden=True, help="TESTS ONLY: predictable server seeds (SIDEBET_TEST_SEED)")
        ] = None,
        test_stack: Annotated[bool, typer.Option(
            hidden=True, help="TESTS ONLY: operators may stack the next shoe "
                              "(SIDEBET_TEST_STACK)")] = False,
    ) -> None:
        """Run the table server (FastAPI on uvicorn; OpenAPI at /docs).

        Every setting is also read from SIDEBET_<NAME> (docs/server.md lists them); an
        option given here wins.  The operator account is ``operator``; its password is
        SIDEBET_OPERATOR_PASSWORD, or printed once when the account is first created.
        """
        import uvicorn

        from sidebet.serve.app import create_app
        from sidebet.serve.db import make_engine
        from sidebet.serve.service.services import Services
        from sidebet.serve.settings import load_settings

        settings = load_settings(database_url=database_url, host=host, port=port,
                                 tables=None if not table else tuple(table),
                                 table_seats=seats, table_time_limit=time_limit,
                                 test_seed=test_seed, test_stack=test_stack or None)
        services = Services.open(make_engine(settings.database_url), settings)
        if settings.test_stack:
            print("warning: --test-stack lets operators stack shoes; tests only",
                  file=sys.stderr)
        if settings.test_seed is not None:
            print("warning: --test-seed makes the shoes predictable; tests only",
                  file=sys.stderr)
        if services.operator_note:
            print(services.operator_note, file=sys.stderr)
        for path in settings.tables:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise typer.BadParameter(f"cannot read {path}: {exc.strerror}") from None
            made = services.ensure_table(text, seats=settings.table_seats,
                                         time_limit=settings.table_time_limit)
            print(f"table {made}: {path}", file=sys.stderr)
        uvicorn.run(create_app(settings, services), host=settings.host, port=settings.port,
                    log_level="warning")

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
