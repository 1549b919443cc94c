"""The tables pips keeps: players, game tables with their seats, every move, chat;
results of games (real tables and the server's), groups, and the published world lists.

A game table's moves are stored one row each, in order, before anyone is told of them;
with the table's game, options and seed they rebuild the match exactly (the deals come
from the seed), so a restarted server resumes every unfinished game where it was.

One module per area (:mod:`~pips.store.models.play`, :mod:`~pips.store.models.results`,
:mod:`~pips.store.models.events`, :mod:`~pips.store.models.lists`), all on one
declarative :class:`~pips.store.models.base.Base`; importing this package registers
every table (alembic's migrations compare against all of them).
"""

from __future__ import annotations

from pips.store.models.base import Base, now
from pips.store.models.events import Event, EventPlayer, EventRound, EventScore, EventTable
from pips.store.models.lists import PublishedListError, WorldList, WorldListResult, WorldListRow
from pips.store.models.play import (
    ApiToken,
    Challenge,
    ChatLine,
    GameTable,
    GuestName,
    MoveRow,
    Seat,
    SignIn,
    SignInFailure,
    TableLease,
    User,
)
from pips.store.models.results import (
    Group,
    GroupMember,
    Player,
    PlayerClaim,
    Result,
    ResultHold,
    ResultPlayer,
    ResultReview,
)

__all__ = [
    "ApiToken",
    "Base",
    "Challenge",
    "ChatLine",
    "Event",
    "EventPlayer",
    "EventRound",
    "EventScore",
    "EventTable",
    "GameTable",
    "Group",
    "GroupMember",
    "GuestName",
    "MoveRow",
    "Player",
    "PlayerClaim",
    "PublishedListError",
    "Result",
    "ResultHold",
    "ResultPlayer",
    "ResultReview",
    "Seat",
    "SignIn",
    "SignInFailure",
    "TableLease",
    "User",
    "WorldList",
    "WorldListResult",
    "WorldListRow",
    "now",
]
