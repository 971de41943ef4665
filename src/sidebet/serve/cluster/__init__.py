"""Several ``sidebet serve`` processes on one PostgreSQL.

Each table is owned by one process at a time (:mod:`.ownership`: a PostgreSQL advisory
lock, and a fencing number in ``table_owners`` written into every event, which a trigger
checks); every other process follows the table's log (:mod:`.listen`: ``LISTEN
sidebet_events``) and answers its reads from that view, and forwards its writes to the
owner (:mod:`.forward`).  ``sidebet serve --workers N`` runs N such processes on one
listening socket (:mod:`sidebet.serve.runner`).
"""
