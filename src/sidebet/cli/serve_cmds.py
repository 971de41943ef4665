"""``sidebet serve`` (the table server), ``sidebet audit`` (verify an exported log),
``sidebet rotate-key`` (the house's signing key handed on), ``sidebet account`` and
``sidebet import-exclusions`` (the operator's account controls).

FastAPI, uvicorn and SQLAlchemy are imported inside the commands, so ``sidebet --help``
and every other command stay free of them.
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sidebet.cli.common import handle_errors

if TYPE_CHECKING:
    from sidebet.serve.service.services import Services
from sidebet.core.errors import SidebetError

__all__ = ["SETTING", "register"]

SETTING = {"table": "tables", "seats": "table_seats", "time_limit": "table_time_limit"}
"""The setting (:class:`sidebet.serve.settings.Settings`) of each ``serve`` option whose
name differs; an option given on the command line overrides its setting."""

def _on_command_line(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` was given on the command line (not its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``audit``, ``rotate-key``, ``account`` and ``import-exclusions`` to
    the ``sidebet`` command."""

    @app.command()
    @handle_errors
    def serve(
        ctx: typer.Context,
        database_url: Annotated[str, typer.Option(
            help="SQLAlchemy URL: sqlite:///FILE (created on first start) or "
                 "postgresql+psycopg://USER@HOST/DB")] = "sqlite:///sidebet.db",
        host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port")] = 8000,
        table: Annotated[list[Path] | None, typer.Option(
            help="Rules Submission TOML: create this table at start unless one of its name "
                 "exists (repeatable)")] = None,
        seats: Annotated[int, typer.Option(help="seats of tables made with --table")] = 7,
        time_limit: Annotated[int, typer.Option(
            help="seconds to act at tables made with --table (then the default action)")
        ] = 30,
        workers: Annotated[int, typer.Option(
            help="server processes on this port (PostgreSQL only; tables shared out, "
                 "writes forwarded to their owner)")] = 1,
        test_seed: Annotated[str | None, typer.Option(
            hidden=True, help="TESTS ONLY: predictable server seeds")] = None,
        test_stack: Annotated[bool, typer.Option(
            hidden=True, help="TESTS ONLY: operators may stack the next shoe")] = False,
    ) -> None:
        """Run the table server (FastAPI on uvicorn; OpenAPI at /docs).

        The operator account is ``operator``; its password is SIDEBET_OPERATOR_PASSWORD,
        or printed once when the account is first created.  Every setting is also read
        from its SIDEBET_* variable (docs/server.md lists them); an option given wins.
        """
        from sidebet.serve.db import is_sqlite, make_engine
        from sidebet.serve.runner import check_tls, listen, run, supervise
        from sidebet.serve.service.services import Services
        from sidebet.serve.settings import load_settings

        given = {name: value for name, value in ctx.params.items()
                 if _on_command_line(ctx, name)}
        settings = load_settings(**{SETTING.get(name, name): value
                                    for name, value in given.items()})
        check_tls(settings)
        engine = make_engine(settings.database_url)
        if settings.workers > 1 and is_sqlite(engine):
            raise SidebetError(f"--workers {settings.workers} needs PostgreSQL "
                               "(--database-url postgresql+psycopg://...): SQLite has one "
                               "writer, so it is served by one process")
        services = Services.open(engine, settings)
        if settings.test_stack:
            print("warning: --test-stack lets operators stack shoes; tests only",
                  file=sys.stderr)
        if settings.test_seed is not None:
            print("warning: --test-seed makes the shoes predictable; tests only",
                  file=sys.stderr)
        if services.operator_note:
            print(services.operator_note, file=sys.stderr)
        if settings.money_mode == "play":
            print("play money: players credit their own wallets (SIDEBET_MONEY_MODE=real for "
                  "real money)", file=sys.stderr)
        for path in settings.tables:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise typer.BadParameter(f"cannot read {path}: {exc.strerror}") from None
            made = services.ensure_table(text, seats=settings.table_seats,
                                         time_limit=settings.table_time_limit)
            print(f"table {made}: {path}", file=sys.stderr)
        public = listen(settings.host, settings.port)
        if settings.workers > 1:
            engine.dispose()  # each worker opens its own
            supervise(settings, public)
        else:
            run(settings, services, public)

    @app.command()
    @handle_errors
    def audit(
        file: Annotated[Path, typer.Argument(help="a table log exported from the server "
                                                  "(JSON lines)")],
        public_key: Annotated[str | None, typer.Option(
            help="the operator's Ed25519 public key (64 hex characters, or a file): the "
                 "signed heads must be signed with it")] = None,
        head: Annotated[list[Path] | None, typer.Option(
            help="a signed head published earlier (JSON, as GET /api/tables/{id}/head "
                 "answers): the log must contain it (repeatable)")] = None,
        unsigned: Annotated[bool, typer.Option(
            help="audit a log exported before heads were signed: everything else is "
                 "checked, and its head is reported as NOT verified")] = False,
    ) -> None:
        """Verify an exported table log offline: hash chain, shoe commitments and shuffles,
        every action and round replayed through the engine."""
        from sidebet.serve.anchor import read_public_key
        from sidebet.serve.log_audit import audit_file, read_head

        key = None if public_key is None else read_public_key(public_key)
        report = audit_file(file, public_key=key, heads=[read_head(p) for p in head or []],
                            unsigned=unsigned)
        for line in report.lines():
            print(line)

    @app.command("rotate-key")
    @handle_errors
    def rotate_key(
        new_key: Annotated[Path, typer.Option(
            help="the new Ed25519 private key (PEM, PKCS#8); created (readable by its "
                 "owner only) if missing")],
        database_url: Annotated[str, typer.Option(
            help="the house's database (SQLAlchemy URL)")] = "sqlite:///sidebet.db",
    ) -> None:
        """Hand the house's signing key on to a new one: a key event in every table's log,
        signed by the old key.

        The old key is the house's key as every process has it (SIDEBET_SIGNING_KEY or
        SIDEBET_SIGNING_KEY_PEM).  Stop the servers first, then start every process with
        the new key: a process with the old key refuses to start.
        """
        from sidebet.serve.anchor import load_key, public_hex
        from sidebet.serve.db import is_sqlite
        from sidebet.serve.service.keys import operator_key, rotate
        from sidebet.serve.settings import load_settings

        old = operator_key(load_settings(database_url=database_url), create=False)
        new = load_key(new_key)
        services = _offline(database_url)
        if is_sqlite(services.core.engine):
            count = rotate(services.core, old, new)
        else:  # every table owned for the while (a running process holding one: refused)
            from sidebet.serve.cluster.node import Node

            node = Node(services.core, "http://rotate-key.invalid")
            held = [t for t in sorted(services.core.tables) if node.ownership.claim(t)]
            try:
                busy = sorted(set(services.core.tables) - set(held))
                if busy:
                    raise SidebetError(f"table(s) {busy} are served by a running process: "
                                       "stop every process of the house first")
                count = rotate(services.core, old, new)
            finally:
                node.stop()
        print(f"the house signs with {public_hex(new)} from now on ({count} table(s) handed "
              f"over); start every process with SIDEBET_SIGNING_KEY={new_key}")

    @app.command("account")
    @handle_errors
    def account(
        action: Annotated[str, typer.Argument(help="exclude, suspend, reinstate or close")],
        name: Annotated[str, typer.Argument(help="the player's name")],
        reason: Annotated[str, typer.Option(help="why (kept with the account and in the "
                                                 "operators' log)")],
        database_url: Annotated[str, typer.Option(
            help="the house's database (SQLAlchemy URL)")] = "sqlite:///sidebet.db",
    ) -> None:
        """Exclude, suspend, reinstate or close a player's account (logged as the
        operator's action).

        The player is signed out everywhere at once; the serving process's clock then
        withdraws her from her round (wagers returned while bets are open, else her hands
        stand) and frees her seat, as POST /api/operator/accounts/{name}/controls does.
        """
        from sidebet.serve.errors import ApiError

        services = _offline(database_url)
        try:
            out = services.controls.set(services.accounts.operator(), name, action, reason,
                                        unseat=False)
        except ApiError as exc:
            raise SidebetError(exc.message) from None
        print(f"{out['name']}: {out['status']} ({out['reason']})")

    @app.command("import-exclusions")
    @handle_errors
    def import_exclusions(
        file: Annotated[Path, typer.Argument(help="the regulator's list: CSV with the header "
                                                  "name,from,until (dates YYYY-MM-DD)")],
        database_url: Annotated[str, typer.Option(
            help="the house's database (SQLAlchemy URL)")] = "sqlite:///sidebet.db",
    ) -> None:
        """Import a regulator's self-exclusion list: enforced at sign-up and sign-in; a
        listed player is excluded and signed out (logged as the operator's action)."""
        from sidebet.serve.errors import ApiError

        try:
            text = file.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise SidebetError(f"cannot read {file}: {exc}") from None
        services = _offline(database_url)
        try:
            out = services.controls.import_list(services.accounts.operator(), text,
                                                unseat=False)
        except ApiError as exc:
            raise SidebetError(exc.message) from None
        print(f"{out['entries']} name(s) listed; {out['accounts']} account(s) excluded")


def _offline(database_url: str) -> "Services":
    """The house's services on its database, for a command run beside the servers."""
    from sidebet.serve.db import make_engine
    from sidebet.serve.service.services import Services
    from sidebet.serve.settings import load_settings

    settings = load_settings(database_url=database_url)
    return Services.open(make_engine(settings.database_url), settings)
