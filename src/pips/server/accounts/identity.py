"""Who a connection is, and the words a refused account hears: what the rest of the
server (tables, rounds, routes) needs of accounts, with no database behind it."""

from __future__ import annotations

from dataclasses import dataclass

from pips.core import names
from pips.i18n import _, reason


@dataclass(frozen=True)
class Identity:
    """Who a connection is: an account, or a guest by their token."""

    user_id: int | None = None
    guest: str | None = None
    name: str = "guest"

    def holds(self, user_id: int | None, guest: str | None) -> bool:
        """Whether a place recorded as the account ``user_id``'s or the guest
        ``guest``'s (a seat, live or stored) is this person's: the account, or for a
        guest the guest's token (a guest may have changed their name since)."""
        if self.user_id is not None:
            return user_id == self.user_id
        return self.guest is not None and guest == self.guest


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
