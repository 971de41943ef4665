"""The server's operations, one service per resource, over a small core.

:mod:`.core` (the live tables, the transaction runner, idempotency, the event append),
:mod:`.accounts`, :mod:`.wallet`, :mod:`.tables` (tables, seats, client seeds, stacked
shoes), :mod:`.rounds` (a player's decision through the engine), :mod:`.timing` (the time
limit's default actions), :mod:`.games` (events, export, game records), :mod:`.operator`
(reconciliation), composed by :class:`.services.Services`.
"""
