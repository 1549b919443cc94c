"""Bot accounts against the world list (issue 52's hostile review), on SQLite and
PostgreSQL: a player may not take a real game from everyone's rating by turning their
own account into a bot, a bot account does not reach the list through a claim or a
result entered by hand, and a result's page says what the list does with it (one
function decides: :func:`pips.results.common.bot_seated`)."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from pips.results.common import BOT_PLAYED
from pips.results.service import NotAllowed
from pips.server.botapi import BotAccounts, BotApiError
from pips.store.models import Player, Result, User
from tests.test_results_trust import Club, club, kiel_month

__all__ = ["club"]  # the fixture, shared with the trust model's tests


def make_bot(club: Club, name: str) -> None:
    """What an old server let through: an account made a bot whatever it is at."""
    with club.db.session() as session, session.begin():
        session.execute(update(User).where(User.name == name).values(bot=True))


def player_id(club: Club, name: str) -> int:
    with club.db.session() as session:
        found = session.scalar(select(Player.id).where(Player.name == name))
        assert found is not None
        return found


def october_results(club: Club) -> list[int]:
    with club.db.session() as session:
        return list(session.scalars(select(Result.id).order_by(Result.id)))


def test_a_player_of_confirmed_results_cannot_turn_bot_and_erase_them(club: Club) -> None:
    """Ben played three confirmed games entered by hand (never at a server table):
    becoming a bot is refused, and the games stay on everyone's list."""
    kiel_month(club)
    bots = BotAccounts(club.db)
    with pytest.raises(BotApiError) as refused:
        bots.upgrade(club.ids["Ben"])
    assert refused.value.status == 409
    assert "before its first game" in str(refused.value)
    assert not bots.is_bot(club.ids["Ben"])
    assert club.publish("2026-10") == {"fido": ["Anna", "Ben", "Cleo"]}


def test_a_player_or_a_waiting_claim_keeps_an_account_from_turning_bot(club: Club) -> None:
    kiel_month(club)
    bots = BotAccounts(club.db)
    # Mallory is at no result but claims Cleo: her claim would make her Cleo.
    club.results.claims.claim(club.ids["Mallory"], player_id(club, "Cleo"))
    with pytest.raises(BotApiError) as claiming:
        bots.upgrade(club.ids["Mallory"])
    assert claiming.value.status == 409
    # A fresh account becomes a bot (and stays one).
    robo = club.account("Robo")
    assert bots.upgrade(robo) is False and bots.upgrade(robo) is True


def test_a_bot_account_claims_no_player(club: Club) -> None:
    """A bot claiming a player an administrator then approves would be on the world
    list as that player: the claim is refused (authority's ``claim``), and so is the
    approval of a claim waiting from before its account became a bot."""
    kiel_month(club)
    robo = club.account("Robo")
    BotAccounts(club.db).upgrade(robo)
    with pytest.raises(NotAllowed) as refused:
        club.results.claims.claim(robo, player_id(club, "Cleo"))
    assert "a bot account plays only at the server's tables" in str(refused.value)
    # An old claim, its account made a bot since (by an old server).
    club.results.claims.claim(club.ids["Mallory"], player_id(club, "Cleo"))
    make_bot(club, "Mallory")
    with pytest.raises(NotAllowed):
        club.results.claims.decide(club.ids["Root"], player_id(club, "Cleo"), True)
    # Refusing it is still anyone's who decides.
    club.results.claims.decide(club.ids["Root"], player_id(club, "Cleo"), False)
    assert club.publish("2026-10") == {"fido": ["Anna", "Ben", "Cleo"]}


def test_a_bot_account_enters_no_result_by_hand(club: Club) -> None:
    robo = club.account("Robo")
    BotAccounts(club.db).upgrade(robo)
    club.ids["Robo"] = robo
    with pytest.raises(NotAllowed) as refused:
        club.enter("Robo", club.game(4, ("Robo", 30, 0), ("Ben", 10, 2), ("Cleo", 5, 4)))
    assert "enters no result" in str(refused.value)


@pytest.mark.parametrize("through", ["line", "player"])
def test_the_page_and_the_list_agree_on_a_bot_at_a_result(club: Club, through: str) -> None:
    """Data an old server let in: a bot account at confirmed results, by a line's
    account (Ben turned bot) or only by its player's (Cleo claimed by a bot, her lines
    naming no account). The list leaves them out and each result's page says so: it
    never says "counts" of a result the list drops."""
    kiel_month(club)
    if through == "line":
        make_bot(club, "Ben")
    else:
        robo = club.account("Robo")
        make_bot(club, "Robo")
        with club.db.session() as session, session.begin():
            session.execute(update(Player).where(Player.name == "Cleo").values(user_id=robo))
    for rid in october_results(club):
        shown = club.results.register.result(rid)
        assert shown["counts"] is False and shown["counts_in"] is None
        assert shown["why_not"] == BOT_PLAYED
    assert club.publish("2026-10") == {"fido": []}
