"""Events (issue 22): their pages, forms and JSON API.

Reading an event is open to anyone (its page is public, with the standings as they
grow); every change needs an account and the session's CSRF token, and what each
account may do is decided in :mod:`pips.results.events`. An online round's tables are
made here, on this server's live tables, with the seats the event's draw filled.
"""

from __future__ import annotations

from fastapi import APIRouter

from pips.server.routes.events import api as json_api
from pips.server.routes.events import pages, printed, public

api = APIRouter()
"""Every route of events, the JSON API's first (its paths are matched in this order)."""
for part in (json_api, printed, public, pages):
    api.include_router(part.api)
