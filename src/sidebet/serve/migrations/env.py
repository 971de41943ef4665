"""Alembic environment: runs on the connection :func:`sidebet.serve.db.migrate` passes."""

from __future__ import annotations

from alembic import context

from sidebet.serve.models import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the server always passes one
    raise RuntimeError("run migrations through sidebet.serve.db.migrate")
context.configure(connection=connection, target_metadata=Base.metadata)
with context.begin_transaction():
    context.run_migrations()
