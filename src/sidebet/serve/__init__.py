"""The table server: live multi-player tables over HTTP and WebSocket (``sidebet serve``).

Layers: :mod:`.fair` (the provably fair shoe), :mod:`.models` (SQLAlchemy 2 schema, migrated
by Alembic), :mod:`.live` (a table's in-memory state, rebuilt from its event log through
the table engine), :mod:`.service` (every request as one database transaction),
:mod:`.app` (FastAPI routes and the WebSocket stream), :mod:`.audit` (offline verification
of an exported log).  Importing this package imports none of FastAPI or SQLAlchemy.
"""
