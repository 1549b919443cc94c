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

    def same_person(self, other: Identity | None) -> bool:
        """The same account or guest (a guest may have changed their name)."""
        return (
            other is not None
            and (self.user_id is not None or self.guest is not None)
            and (self.user_id, self.guest) == (other.user_id, other.guest)
        )


class AccountError(ValueError):
    """A refused registration or sign-in, in words for the person; ``status`` is its
    HTTP status and ``retry_after`` the seconds to wait, when waiting helps."""

    def __init__(self, message: str, status: int = 422, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def check_name(name: str) -> str:
    try:
        return names.check_name(name)
    except ValueError as exc:
        raise AccountError(reason(exc)) from None


def check_password(password: str) -> None:
    if not 8 <= len(password) <= 200:
        raise AccountError(_("a password is 8 to 200 characters"))
