"""The table server: live multi-player tables over HTTP and WebSocket (``sidebet serve``).

Layers: :mod:`.settings` (every setting, read from ``SIDEBET_*``), :mod:`.fair` (the
provably fair shoe), :mod:`.models` (SQLAlchemy 2 schema, migrated by Alembic),
:mod:`.security` (passwords, tokens, the caller), :mod:`.live` (a table's in-memory state,
rebuilt from its event log through the table engine), :mod:`.service` (every request as one
database transaction, one service per resource), :mod:`.api` (one FastAPI router per
resource, the response models, the WebSocket stream), :mod:`.app` (``create_app``),
:mod:`.log_audit` (offline verification of an exported log).  Importing this package
imports none of FastAPI or SQLAlchemy.
"""
