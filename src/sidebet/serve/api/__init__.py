"""The HTTP and WebSocket API: one router per resource over the services.

:mod:`.accounts`, :mod:`.wallet`, :mod:`.tables` (tables, state, events, shoes, export),
:mod:`.seats` (seats and the round's actions), :mod:`.games`, :mod:`.operator`, :mod:`.web`
(the pages and their routes), :mod:`.stream` (the WebSocket); :mod:`.deps` (the services
and the caller as FastAPI dependencies), :mod:`.schemas` (every answer's model),
:mod:`.bodies` and :mod:`.params` (requests), :mod:`.routing`.
"""
