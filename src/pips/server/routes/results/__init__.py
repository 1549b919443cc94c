"""Results of games played at real tables: entered by form, CSV or JSON, listed, shown,
confirmed, disputed, resolved, withdrawn.

Every change needs an account and, from a browser, the session's CSRF token (a form
field, or the ``X-CSRF-Token`` header of a JSON request). What each account may do is
decided in :mod:`pips.results`; this module only turns requests into calls and errors
into answers (a page with the message, or JSON ``{"detail": ...}``).
"""

from __future__ import annotations

from fastapi import APIRouter

from pips.server.routes.results import api as json_api
from pips.server.routes.results import pages

api = APIRouter()
"""Every route here, the JSON API's first (paths are matched in this order)."""
for part in (
    json_api,
    pages,
):
    api.include_router(part.api)
