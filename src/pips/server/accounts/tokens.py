"""Personal API tokens: how a club's script or a bot acts as its account.

A token is made by its account (on the account page) or by an administrator on the
server's machine (``pips admin tokens``), shown once, and sent as
``Authorization: Bearer pips_...``. The database keeps only its SHA-256, so a copy of the
database holds no usable token; a token is 32 random bytes from the operating system, so
none is guessed. A request with a token is its account's, with the account's permissions
and limits, narrowed to the token's scopes (:data:`SCOPES`); it needs no CSRF token (a
browser never sends this header by itself to another site).
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from pips.core.phrase import N_
from pips.i18n import _
from pips.server.accounts.identity import AccountError, Identity
from pips.store.db import Database
from pips.store.models import ApiToken, User, now

PREFIX = "pips_"

SCOPES: dict[str, str] = {
    "read": N_("read what the account may see (results waiting for it, private groups)"),
    "results": N_("enter and review results; groups, events and players"),
    "play": N_("play at tables: create, join, move over the websocket"),
}
"""What a token may be allowed, each in words for the account page."""

MOST_TOKENS = 20
"""Tokens an account may hold at once (revoked ones do not count)."""


@dataclass(frozen=True)
class Grant:
    """What a request's token allows: its account, and its scopes."""

    identity: Identity
    scopes: frozenset[str]
    token_id: int


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_scopes(scopes: list[str] | tuple[str, ...]) -> list[str]:
    """The scopes asked for, in :data:`SCOPES`'s order; :class:`AccountError` for an
    unknown one or none."""
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise AccountError(
            _("unknown scope {scope!r}; choose from {choices}").format(
                scope=unknown[0], choices=", ".join(SCOPES)
            )
        )
    if not scopes:
        raise AccountError(
            _("a token needs at least one scope ({choices})").format(choices=", ".join(SCOPES))
        )
    return [s for s in SCOPES if s in scopes]


def check_label(label: str) -> str:
    label = " ".join(label.split())
    if not 1 <= len(label) <= 60 or any(unicodedata.category(c).startswith("C") for c in label):
        raise AccountError(_("a token's name is 1 to 60 characters, none of them invisible"))
    return label


class Tokens:
    """The tokens over one database. Every method reads or writes the database: call
    them off the event loop."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(
        self, user_id: int, label: str, scopes: list[str] | tuple[str, ...]
    ) -> tuple[str, dict[str, Any]]:
        """A new token of the account ``user_id``: the token itself (shown this once,
        never again) and what is kept of it."""
        label, chosen = check_label(label), check_scopes(scopes)
        token = PREFIX + secrets.token_urlsafe(32)
        with self.db.session() as session, session.begin():
            if session.get(User, user_id) is None:
                raise AccountError(_("no such account"), 404)
            held = session.scalar(
                select(func.count())
                .select_from(ApiToken)
                .where(ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None))
            )
            if (held or 0) >= MOST_TOKENS:
                raise AccountError(
                    _("an account holds at most {count} tokens: revoke one first").format(
                        count=MOST_TOKENS
                    ),
                    409,
                )
            row = ApiToken(
                user_id=user_id,
                label=label,
                token_hash=digest(token),
                shown=token[: len(PREFIX) + 4],
                scopes=" ".join(chosen),
            )
            session.add(row)
            session.flush()
            return token, _described(row)

    def listing(self, user_id: int) -> list[dict[str, Any]]:
        """The account's tokens, newest first, revoked ones included (marked)."""
        with self.db.session() as session:
            rows = session.scalars(
                select(ApiToken).where(ApiToken.user_id == user_id).order_by(ApiToken.id.desc())
            )
            return [_described(row) for row in rows]

    def revoke(self, token_id: int, user_id: int | None = None) -> dict[str, Any]:
        """Revoke a token (at once, for every server process); ``user_id``: only if it
        is this account's (an administrator on the command line passes none)."""
        with self.db.session() as session, session.begin():
            row = session.get(ApiToken, token_id)
            if row is None or (user_id is not None and row.user_id != user_id):
                raise AccountError(_("no such token"), 404)
            if row.revoked_at is None:
                row.revoked_at = now()
            return _described(row)

    def live(self, token_id: int) -> bool:
        """Whether the token numbered ``token_id`` is there and not revoked."""
        with self.db.session() as session:
            found = session.execute(
                select(ApiToken.revoked_at).where(ApiToken.id == token_id)
            ).first()
            return found is not None and found[0] is None

    def grant(self, token: str) -> Grant | None:
        """What ``token`` allows, if it is a live token (``None``: unknown or revoked).
        Its last use is kept to the minute."""
        if not token.startswith(PREFIX) or len(token) > 100:
            return None
        with self.db.session() as session, session.begin():
            found = session.execute(
                select(ApiToken, User.name)
                .join(User, User.id == ApiToken.user_id)
                .where(ApiToken.token_hash == digest(token))
            ).first()
            if found is None or found[0].revoked_at is not None:
                return None
            row, name = found
            moment = now()
            if row.used_at is None or moment - row.used_at > timedelta(minutes=1):
                row.used_at = moment
            return Grant(
                Identity(user_id=row.user_id, name=name), frozenset(row.scopes.split()), row.id
            )


def _described(row: ApiToken) -> dict[str, Any]:
    return {
        "id": row.id,
        "label": row.label,
        "shown": row.shown + "…",
        "scopes": row.scopes.split(),
        "created_at": row.created_at,
        "used_at": row.used_at,
        "revoked_at": row.revoked_at,
    }
