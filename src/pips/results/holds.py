"""Holds: results kept out of the world list while an administrator looks at them.

A player with more **confirmed** games, or wins, on one day than anyone plays has that
day's confirmed results of the same kind held, each with its cause (the player, the
day, the counts). Only confirmed results count towards the bounds: results entered by
someone else and never confirmed cannot hold anyone's genuine games. A hold is lifted
as soon as its cause is gone (the results that made it withdrawn, rejected or
disputed), and an administrator may clear a result (it counts, whatever holds it).
Every hold keeps when it was made and when and why it was lifted; administrators list
the open ones with their causes.

Real tables and the server's are counted apart:

- a FIDO game at a real table takes a quarter of an hour at the least: more than
  :data:`TABLE_GAMES` games (ten hours without a break) or :data:`TABLE_WINS` wins on
  one day are held;
- a game at the server's tables can be quick (a hand of double-6 for three, a few
  minutes): more than :data:`SERVER_GAMES` games or :data:`SERVER_WINS` wins are held.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import date
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session, selectinload

from pips.core.phrase import phrase
from pips.i18n import say
from pips.results.common import Context
from pips.store.models import Player, Result, ResultHold, ResultPlayer

TABLE_GAMES = 40
TABLE_WINS = 25
SERVER_GAMES = 80
SERVER_WINS = 50

KINDS = {"table": (TABLE_GAMES, TABLE_WINS), "server": (SERVER_GAMES, SERVER_WINS)}


def causes(rows: Iterable[Result]) -> set[tuple[int, date]]:
    """The (player, day) pairs a change of these results may hold or release."""
    return {
        (p.player_id, row.played_on) for row in rows for p in row.players if p.player_id is not None
    }


class Holds:
    """Making and lifting holds, and listing them."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def recheck(self, session: Session, pairs: set[tuple[int, date]]) -> None:
        """Hold or release the results of these players on these days by their
        confirmed games (in the caller's transaction, after its changes are flushed)."""
        if not pairs:
            return
        session.flush()
        players = {pid for pid, _ in pairs}
        days = {day for _, day in pairs}
        kind = case((Result.source == "server", "server"), else_="table")
        counts: dict[tuple[int, date, str], tuple[int, int]] = {}
        for player_id, day, what, games, wins in session.execute(
            select(
                ResultPlayer.player_id,
                Result.played_on,
                kind,
                func.count(),
                func.sum(case((ResultPlayer.rank == 1, 1), else_=0)),
            )
            .join(Result, Result.id == ResultPlayer.result_id)
            .where(
                ResultPlayer.player_id.in_(players),
                Result.played_on.in_(days),
                Result.status == "confirmed",
            )
            .group_by(ResultPlayer.player_id, Result.played_on, kind)
        ):
            counts[(player_id, day, what)] = (games, wins or 0)
        now = self.context.clock()
        touched: set[int] = set()
        names = dict(
            session.execute(select(Player.id, Player.name).where(Player.id.in_(players))).all()
        )
        # Every open hold of these players and days, in one query (a batch of 500
        # results names a few thousand of them).
        holding: dict[tuple[int, date, str], list[ResultHold]] = defaultdict(list)
        for hold in session.scalars(
            select(ResultHold).where(
                ResultHold.player_id.in_(players),
                ResultHold.day.in_(days),
                ResultHold.lifted_at.is_(None),
            )
        ):
            if hold.player_id is not None:
                holding[(hold.player_id, hold.day, hold.kind)].append(hold)
        for player_id, day in pairs:
            for what, (most_games, most_wins) in KINDS.items():
                games, wins = counts.get((player_id, day, what), (0, 0))
                over = games > most_games or wins > most_wins
                open_holds = holding.get((player_id, day, what), [])
                if not over:
                    for hold in open_holds:
                        hold.lifted_at = now
                        hold.lifted_because = phrase(
                            "{name} has {games} confirmed games, {wins} won, on {day}: "
                            "within the bounds again",
                            name=names.get(player_id, "?"),
                            games=games,
                            wins=wins,
                            day=day,
                        )
                        touched.add(hold.result_id)
                    continue
                reason = phrase(
                    "{name}: {games} games, {wins} won, on {day}; nobody plays more than "
                    "{most_games} or wins more than {most_wins} in a day",
                    name=names.get(player_id, "?"),
                    games=games,
                    wins=wins,
                    day=day,
                    most_games=most_games,
                    most_wins=most_wins,
                )
                held_ids = {h.result_id for h in open_holds}
                for hold in open_holds:
                    hold.reason = reason  # the counts as they are now
                theirs = select(ResultPlayer.result_id).where(ResultPlayer.player_id == player_id)
                for result_id, source in session.execute(
                    select(Result.id, Result.source).where(
                        Result.id.in_(theirs),
                        Result.played_on == day,
                        Result.status == "confirmed",
                        Result.flag_cleared_by.is_(None),
                    )
                ):
                    if ("server" if source == "server" else "table") != what:
                        continue
                    if result_id not in held_ids:
                        session.add(
                            ResultHold(
                                result_id=result_id,
                                player_id=player_id,
                                day=day,
                                kind=what,
                                reason=reason,
                                held_at=now,
                            )
                        )
                    touched.add(result_id)
        session.flush()
        self._sync_flags(session, touched)

    def release(self, session: Session, result: Result, because: str) -> None:
        """Lift every open hold of one result (withdrawn, or cleared)."""
        now = self.context.clock()
        for hold in session.scalars(
            select(ResultHold).where(
                ResultHold.result_id == result.id, ResultHold.lifted_at.is_(None)
            )
        ):
            hold.lifted_at, hold.lifted_because = now, because
        session.flush()
        self._sync_flags(session, {result.id})

    @staticmethod
    def _sync_flags(session: Session, results: set[int]) -> None:
        """A result's ``flag`` is the reason of an open hold of it, or nothing."""
        if not results:
            return
        reasons: dict[int, str] = {}
        for hold in session.scalars(
            select(ResultHold)
            .where(ResultHold.result_id.in_(results), ResultHold.lifted_at.is_(None))
            .order_by(ResultHold.id)
        ):
            # The phrase, not only its English: the flag is said to each reader.
            reasons.setdefault(hold.result_id, hold.reason_words)
        for row in session.scalars(select(Result).where(Result.id.in_(results))):
            row.flag = reasons.get(row.id)

    def open_holds(self, session: Session, limit: int = 200) -> list[dict[str, Any]]:
        """The open holds, oldest first, each with its cause: what administrators see."""
        rows = session.scalars(
            select(ResultHold)
            .where(ResultHold.lifted_at.is_(None))
            .order_by(ResultHold.held_at, ResultHold.id)
            .limit(limit)
        ).all()
        results = {
            r.id: r
            for r in session.scalars(
                select(Result)
                .where(Result.id.in_({h.result_id for h in rows}))
                .options(selectinload(Result.players))
            )
        }
        names = dict(
            session.execute(
                select(Player.id, Player.name).where(
                    Player.id.in_({h.player_id for h in rows if h.player_id is not None})
                )
            ).all()
        )
        grouped: dict[int, list[ResultHold]] = defaultdict(list)
        for hold in rows:
            grouped[hold.result_id].append(hold)
        shown = []
        for result_id, holds in grouped.items():
            row = results.get(result_id)
            if row is None or row.flag_cleared_by is not None:
                continue
            shown.append(
                {
                    "id": result_id,
                    "game": row.game,
                    "date": row.played_on.isoformat(),
                    "flag": say(holds[0].reason_words),
                    "held_at": holds[0].held_at.isoformat(timespec="seconds"),
                    "causes": [
                        {
                            "player": h.player_id,
                            "name": names.get(h.player_id) if h.player_id else None,
                            "day": h.day.isoformat(),
                            "kind": h.kind,
                            "reason": say(h.reason_words),
                        }
                        for h in holds
                    ],
                }
            )
        return shown

    def history(self, session: Session, result_id: int) -> list[dict[str, Any]]:
        """Every hold of a result, open or lifted, for its page."""
        return [
            {
                "reason": say(h.reason_words),
                "held_at": h.held_at.isoformat(timespec="seconds"),
                "lifted_at": None if h.lifted_at is None else h.lifted_at.isoformat("T", "seconds"),
                "lifted_because": None if h.lifted_words is None else say(h.lifted_words),
            }
            for h in session.scalars(
                select(ResultHold).where(ResultHold.result_id == result_id).order_by(ResultHold.id)
            )
        ]
