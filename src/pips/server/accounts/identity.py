"""Who a connection is (:class:`~pips.server.identity.Identity`, kept in a leaf), and the
words a refused account hears: what the rest of the server (tables, routes) needs of
accounts, with no database behind it."""

from __future__ import annotations

from pips.core import names
from pips.i18n import _, reason

# Who a connection is lives in a leaf (the round reads it without the accounts); the
# accounts' callers keep reading it here.
from pips.server.identity import Identity

__all__ = ["AccountError", "Identity", "check_name", "check_password"]


class AccountError(ValueError):
    """A refused registration or sign-in, in words for the person; ``status`` is its
    HTTP status and ``retry_after`` the seconds to wait, when waiting helps; ``held``:
    a flood's refusal (too many attempts from the address, the hashes busy), answered
    after a pause (``pips.server.routes.pages.REFUSAL_PAUSE``)."""

    def __init__(
        self,
        message: str,
        status: int = 422,
        retry_after: int | None = None,
        *,
        held: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.held = held


def check_name(name: str) -> str:
    try:
        return names.check_name(name)
    except ValueError as exc:
        raise AccountError(reason(exc)) from None


def check_password(password: str) -> None:
    if not 8 <= len(password) <= 200:
        raise AccountError(_("a password is 8 to 200 characters"))
