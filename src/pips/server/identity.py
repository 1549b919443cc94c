"""Who a connection is: an account, or a guest by their token.

A leaf: the round, the table and every route read it, and it imports nothing, so the
table's game can be imported without the accounts' database, hashing and collation
(``tests/test_architecture.py`` holds :mod:`pips.server.round` to that)."""

from __future__ import annotations

from dataclasses import dataclass


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
