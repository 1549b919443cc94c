"""Challenges between accounts, bots and people alike (docs/bots-api.md, "Challenges"):
made, listed, accepted (the table is made here), declined and canceled; both accounts
are told on their event streams."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response
from pydantic import Field

from pips.games.registry import find_game
from pips.i18n import _, say
from pips.server.botapi import BotApiError, Decision, challenge_seats
from pips.server.errors import Refusal, refusals
from pips.server.requests import MAX_SEATS, BotSeat, GameChoice, OpenSeat
from pips.server.routes.bot import (
    Username,
    account_of,
    accounts_services,
    counted,
    refused,
    spent,
)
from pips.server.routes.bot_answers import ChallengeOut, SeatTaken
from pips.server.routes.common import limits_of, tables_of
from pips.server.tables import TableError

api = APIRouter()


class NewChallenge(GameChoice):
    """A challenge: the game and its options (parsed into the game's own at once), the
    turn timer, and the seats beyond the two accounts (open, or a bot a server may
    seat; greedy bots when left out)."""

    turn_seconds: Annotated[int, Field(ge=5, le=600)] | None = None
    seats: list[Annotated[OpenSeat | BotSeat, Field(discriminator="kind")]] | None = Field(
        default=None, max_length=MAX_SEATS
    )


@api.post(
    "/api/challenge/{username}",
    tags=["challenges"],
    status_code=201,
    operation_id="createChallenge",
    responses=refusals(401, 404, 409, 429),
)
async def create_challenge(
    request: Request, response: Response, username: Username, body: NewChallenge
) -> ChallengeOut:
    """Challenge the account ``username`` (a bot or a person) to a game with these
    options and turn timer. Both are told on their event streams (``challenge``); the
    one challenged accepts or declines, the challenger may cancel. A challenge not
    answered within an hour is gone."""
    me = account_of(request)
    # Every request counts against the account's requests; only a challenge made
    # counts against its challenges (a refused one is given back, :func:`spent`).
    limits = limits_of(request)
    await counted(request, limits.bot, f"user:{me.user_id}")
    players = body.chosen.players
    rest = body.seats
    if rest is None:
        rest = [BotSeat(kind="bot") for _ in range(max(0, players - 2))]
    if len(rest) != players - 2:
        raise Refusal(
            422,
            _("{title} with these options has {players} seats: name {others} more").format(
                title=say(body.spec.title), players=players, others=players - 2
            ),
            field="body.seats",
        )
    _bots, events, challenges = accounts_services(request)
    async with spent(request, limits.challenges, f"user:{me.user_id}") as headers:
        response.headers.update(headers)
        try:
            asked = await asyncio.to_thread(
                challenges.create,
                me,
                username,
                body.spec.name,
                body.chosen.to_json(),
                [seat.model_dump() for seat in rest],
                body.turn_seconds,
            )
        except BotApiError as exc:
            raise refused(exc) from None
    shown = asked.to_json()
    users = [u for u in (asked.challenger.user_id, asked.challenged.user_id) if u is not None]
    await events.tell(users, {"type": "challenge", "challenge": shown})
    return ChallengeOut.model_validate(shown)


@api.get(
    "/api/challenge",
    tags=["challenges"],
    operation_id="listChallenges",
    responses=refusals(401),
)
async def list_challenges(request: Request) -> list[ChallengeOut]:
    """The challenges made to the account or by it that wait for an answer."""
    me = account_of(request, csrf=False)
    assert me.user_id is not None
    _bots, _events, challenges = accounts_services(request)
    waiting = await asyncio.to_thread(challenges.waiting, me.user_id)
    return [ChallengeOut.model_validate(asked.to_json()) for asked in waiting]


async def decided(request: Request, challenge_id: str, decision: Decision) -> Any:
    me = account_of(request)
    assert me.user_id is not None
    limits = limits_of(request)
    await counted(request, limits.bot, f"user:{me.user_id}")
    _bots, events, challenges = accounts_services(request)
    if decision == "accept":
        # The table an accepted challenge makes is the challenger's: counted against
        # their tables at once, so that challenges accepted by one's own accounts make
        # no more tables than one may create (the challenge waits meanwhile).
        try:
            waiting = await asyncio.to_thread(challenges.asked_of, challenge_id, me.user_id)
        except BotApiError as exc:
            raise refused(exc) from None
        made = await tables_of(request).repository.tables_of(waiting.challenger)
        if made >= limits.tables_at_once:
            raise Refusal(
                429,
                _(
                    "{name} has {count} tables waiting or playing: accept again once one of"
                    " them is over"
                ).format(name=waiting.challenger.name, count=made),
                headers={"Retry-After": "60"},
            )
    try:
        asked = await asyncio.to_thread(challenges.decide, challenge_id, me.user_id, decision)
    except BotApiError as exc:
        raise refused(exc) from None
    users = [u for u in (asked.challenger.user_id, asked.challenged.user_id) if u is not None]
    if decision != "accept":
        kind = "challengeDeclined" if decision == "decline" else "challengeCanceled"
        shown = asked.to_json()
        await events.tell(users, {"type": kind, "challenge": shown})
        return ChallengeOut.model_validate(shown)
    spec = find_game(asked.row["game"])
    try:
        table = await tables_of(request).create(
            spec,
            spec.options_from_json(asked.row["options"]),
            challenge_seats(asked),
            asked.challenger,
            turn_seconds=asked.row["turn_seconds"],
        )
    except TableError as exc:
        raise refused(exc) from None
    await asyncio.to_thread(challenges.made_table, asked.row["id"], table.id)
    await table.start_if_ready()
    return SeatTaken(
        id=table.id,
        url=f"/t/{table.id}",
        seat=table.seat_of(me),
        status=table.status,
        created=True,
    )


ChallengeId = Annotated[str, Path(min_length=1, max_length=16)]


@api.post(
    "/api/challenge/{challenge_id}/accept",
    tags=["challenges"],
    operation_id="acceptChallenge",
    responses=refusals(401, 404, 409, 429),
)
async def accept_challenge(request: Request, challenge_id: ChallengeId) -> SeatTaken:
    """Accept a challenge made to you: its table is made, with the challenger and you
    seated (and the other seats as the challenge named them); both are told
    ``gameStart`` once every seat is filled."""
    answer: SeatTaken = await decided(request, challenge_id, "accept")
    return answer


@api.post(
    "/api/challenge/{challenge_id}/decline",
    tags=["challenges"],
    operation_id="declineChallenge",
    responses=refusals(401, 404, 409, 429),
)
async def decline_challenge(request: Request, challenge_id: ChallengeId) -> ChallengeOut:
    """Decline a challenge made to you (the challenger is told ``challengeDeclined``)."""
    answer: ChallengeOut = await decided(request, challenge_id, "decline")
    return answer


@api.post(
    "/api/challenge/{challenge_id}/cancel",
    tags=["challenges"],
    operation_id="cancelChallenge",
    responses=refusals(401, 404, 409, 429),
)
async def cancel_challenge(request: Request, challenge_id: ChallengeId) -> ChallengeOut:
    """Withdraw a challenge you made (the one challenged is told ``challengeCanceled``)."""
    answer: ChallengeOut = await decided(request, challenge_id, "cancel")
    return answer
