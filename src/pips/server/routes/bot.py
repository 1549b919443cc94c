"""The Bot API (docs/bots-api.md): anyone's program plays people and other programs as a
bot account, over plain HTTP, the way lichess's Bot API lets chess engines play.

- ``POST /api/bot/account/upgrade``: declare the account a bot (before its first game);
- ``POST /api/tokens``: make an API token without the account page (by password, or by
  a token of at least the scopes asked for);
- ``GET /api/stream/event``: the account's events as NDJSON (challenges, games);
- ``POST /api/challenge/{username}`` and ``.../{id}/accept|decline|cancel``;
- ``POST /api/bot/seek``: the next open table of a game, or a new one;
- ``GET /api/bot/game/stream/{id}``: the seat's state messages as NDJSON (its own view
  only, as the websocket sends them, with the hand's moves so far);
- ``POST /api/bot/game/{id}/move/{index}``: a move, as the websocket's ``move``;
- abort, resign and leave are ``POST /api/tables/{id}/abort|resign|leave``;
- ``GET /api/bots/leaderboard/{game}`` and the page ``/bots``: the bots' rating pool.

Every answer of the Bot API carries the IETF ``RateLimit`` and ``RateLimit-Policy``
headers of the account's allowance; every 429 says ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import HTMLResponse, StreamingResponse
from pydantic import Field, StringConstraints

from pips.core.names import name_key
from pips.games.registry import all_games, find_game
from pips.i18n import _
from pips.server.accounts.ending import Watch
from pips.server.accounts.identity import AccountError, Identity
from pips.server.accounts.tokens import SCOPES, Tokens
from pips.server.botapi import (
    WAITING_SEEKS,
    AccountEvents,
    BotAccounts,
    BotApiError,
    Challenges,
    bot_pool,
    ongoing,
    open_tables,
    waiting_at,
)
from pips.server.errors import Refusal, refusal, refusals
from pips.server.limits import Limited, RateLimit
from pips.server.requests import GameChoice, Strict
from pips.server.round import ForAnyone, ForCreator, SeatChoice
from pips.server.routes.bot_answers import (
    EVENT_SCHEMA,
    BotAccount,
    BotRating,
    Leaderboard,
    Moved,
    SeatTaken,
    TokenMade,
)
from pips.server.routes.common import (
    address,
    cluster_of,
    database_of,
    limits_of,
    room_for_a_table,
    tables_of,
)
from pips.server.routes.socket import WebClient, let_in_by
from pips.server.tables import TableError
from pips.server.web import accounts_of, check_csrf, language_of, page, token_grant, who

api = APIRouter()

KEEP_ALIVE = 7.0
"""Seconds after which a stream with nothing to say sends an empty line, so proxies
and clients see it is alive (lichess: 6 s)."""
NDJSON = "application/x-ndjson"

TableId = Annotated[str, Path(min_length=1, max_length=24)]
Username = Annotated[str, Path(min_length=1, max_length=40)]


# -- what the routes share ---------------------------------------------------------------


def accounts_services(request: Request) -> tuple[BotAccounts, AccountEvents, Challenges]:
    state = request.app.state
    return state.bot_accounts, state.account_events, state.challenges


async def counted(request: Request, limit: RateLimit, key: str) -> dict[str, str]:
    """Count one request against ``limit`` for ``key``: the headers that say what is
    left, or a 429 with ``Retry-After`` and the same headers."""
    try:
        quota = await limit.take(key)
    except Limited as exc:
        # The refusal carries the quota's headers too (r=0, pips.server.errors).
        raise refusal(exc, 429) from None
    headers = quota.headers()
    # A refusal later in the same request carries them too (pips.server.app's
    # friendly_error): every answer of the Bot API says what is left.
    request.state.rate_headers = headers
    return headers


@contextlib.asynccontextmanager
async def spent(request: Request, limit: RateLimit, key: str) -> AsyncIterator[dict[str, str]]:
    """Count one against ``limit`` for ``key`` (:func:`counted`, its headers), and give
    it back if what it was counted for is refused: a refused request spends no
    creation rate (what it bounds is what was made)."""
    headers = await counted(request, limit, key)
    try:
        yield headers
    except BaseException:
        await limit.give_back(key)
        raise


def account_of(request: Request, *, csrf: bool = True) -> Identity:
    """The signed-in account asking (by its token, or its session with the CSRF token
    for what changes things); 401 for a guest or nobody."""
    if csrf and request.method == "POST":
        check_csrf(request, request.headers.get("x-csrf-token"))
    me = who(request)
    if me is None or me.user_id is None:
        raise Refusal(401, _("sign in with an account first"))
    return me


async def bot_of(request: Request, response: Response | None = None) -> Identity:
    """The bot account asking, its request counted (the headers set on ``response``);
    403 for an account that is not a bot."""
    me = account_of(request)
    headers = await counted(request, limits_of(request).bot, f"user:{me.user_id}")
    if response is not None:
        response.headers.update(headers)
    bots, _events, _challenges = accounts_services(request)
    if not await asyncio.to_thread(bots.is_bot, me.user_id):
        raise Refusal(
            403,
            _(
                "this is for bot accounts: declare the account a bot first "
                "(POST /api/bot/account/upgrade, before its first game)"
            ),
            headers=headers,
        )
    return me


async def stream_from_address(request: Request) -> None:
    """Count a stream as a connection of the address against the cap every websocket
    counts against (:attr:`~pips.server.limits.Limits.sockets_per_address`, every
    process together): one person's free accounts together hold no more streams open
    than one address may. A 429 with ``Retry-After`` past it."""
    try:
        await limits_of(request).sockets.open(address(request), False)
    except Limited as exc:
        raise refusal(exc, 429) from None


def ends_with_its_grant(request: Request, queue: asyncio.Queue[Any]) -> Watch:
    """End the stream (its last item, ``None``) when its token is revoked or its session
    signed out, here or at another process, as a websocket is closed then."""

    async def end(key: str) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            queue.put_nowait(None)

    return cluster_of(request).endings.watch(let_in_by(request), end)


async def stream_ended(request: Request) -> None:
    await limits_of(request).sockets.close(address(request), False)


def refused(exc: TableError) -> Refusal:
    status = exc.status if isinstance(exc, BotApiError) else 409
    answer = refusal(exc, status)
    if status == 429 and not answer.headers:
        answer.headers = {"Retry-After": "60"}
    return answer


# -- accounts and tokens ------------------------------------------------------------------


@api.post(
    "/api/bot/account/upgrade",
    tags=["bot"],
    operation_id="upgradeToBotAccount",
    responses=refusals(401, 409, 429),
)
async def upgrade(request: Request, response: Response) -> BotAccount:
    """Declare the account a bot account, once, before its first game: from then on
    it is shown as a bot, plays through the Bot API, is never on the world list and is
    rated among bots. An account that has sat at a table is refused (409)."""
    me = account_of(request)
    response.headers.update(await counted(request, limits_of(request).bot, f"user:{me.user_id}"))
    bots, _events, _challenges = accounts_services(request)
    assert me.user_id is not None
    try:
        await asyncio.to_thread(bots.upgrade, me.user_id)
    except BotApiError as exc:
        raise refused(exc) from None
    return BotAccount(name=me.name, bot=True)


@api.get("/api/bot/account", tags=["bot"], operation_id="getBotAccount", responses=refusals(401))
async def bot_account(request: Request, response: Response) -> BotAccount:
    """The account asking (by its token with the scope play): its name and whether it
    is a bot account."""
    me = account_of(request, csrf=False)
    response.headers.update(await counted(request, limits_of(request).bot, f"user:{me.user_id}"))
    bots, _events, _challenges = accounts_services(request)
    return BotAccount(name=me.name, bot=await asyncio.to_thread(bots.is_bot, me.user_id))


class NewToken(Strict):
    """A token to make: its name and scopes; by a password (``name`` and
    ``password``), or with a token (``Authorization: Bearer``) that has every scope
    asked for."""

    label: Annotated[str, StringConstraints(min_length=1, max_length=60)]
    scopes: list[Annotated[str, StringConstraints(max_length=20)]] = Field(
        min_length=1, max_length=len(SCOPES)
    )
    name: Annotated[str, StringConstraints(max_length=40)] | None = None
    password: Annotated[str, StringConstraints(max_length=200)] | None = None


@api.post(
    "/api/tokens",
    tags=["tokens"],
    status_code=201,
    operation_id="createToken",
    responses=refusals(401, 404, 409, 429, 503),
)
async def create_token(request: Request, response: Response, body: NewToken) -> TokenMade:
    """Make an API token without the account page: by the account's name and password
    (counted and throttled as a sign-in), or with a token that already has every scope
    asked for (a token never makes a mightier one). Shown once."""
    grant = token_grant(request)
    async with spent(request, limits_of(request).tokens, address(request)) as headers:
        response.headers.update(headers)
        if grant is not None:
            missing = [s for s in body.scopes if s not in grant.scopes]
            if missing:
                raise Refusal(
                    403,
                    _("this API token may not do that: it needs the scope {scope!r}").format(
                        scope=missing[0]
                    ),
                    code="scope_missing",
                )
            if body.name is not None and name_key(body.name) != name_key(grant.identity.name):
                # A token makes tokens of its own account only, whatever name it is sent.
                raise Refusal(
                    403,
                    _("an API token makes tokens of its own account only"),
                    code="scope_missing",
                    field="body.name",
                )
            me = grant.identity
        elif body.name is not None and body.password is not None:
            try:
                me = await accounts_of(request).verify(body.name, body.password, address(request))
            except AccountError as exc:
                wait = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
                raise Refusal(exc.status, str(exc), headers=wait) from None
        else:
            me = account_of(request)
        assert me.user_id is not None
        tokens: Tokens = request.app.state.tokens
        try:
            token, kept = await asyncio.to_thread(
                tokens.create, me.user_id, body.label, body.scopes
            )
        except AccountError as exc:
            raise Refusal(exc.status, str(exc), field="body.scopes") from None
    return TokenMade(token=token, id=kept["id"], label=kept["label"], scopes=kept["scopes"])


# -- the event stream -------------------------------------------------------------------


async def ndjson(
    first: list[dict[str, Any]], queue: asyncio.Queue[Any], done: Any
) -> AsyncIterator[str]:
    """Lines of JSON: ``first``, then what comes in ``queue`` (an empty line when
    nothing came for a while); ``done(item)`` says an item is the stream's last."""
    for item in first:
        yield json.dumps(item, ensure_ascii=False) + "\n"
    while True:
        try:
            item = await asyncio.wait_for(queue.get(), KEEP_ALIVE)
        except TimeoutError:
            yield "\n"
            continue
        if item is None:
            return
        yield (item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)) + "\n"
        if done(item):
            return


@api.get(
    "/api/stream/event",
    tags=["bot"],
    operation_id="streamEvents",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "One event per line (NDJSON); an empty line now and then "
            "keeps the stream alive.",
            "content": {NDJSON: {"schema": EVENT_SCHEMA}},
        },
        **refusals(401, 429),
    },
)
async def stream_events(request: Request) -> StreamingResponse:
    """The account's events as they happen, one JSON object per line: ``challenge``
    (made to it or by it), ``challengeCanceled``, ``challengeDeclined``, ``gameStart``,
    ``gameFinish``. It begins with what stands now: every challenge waiting and a
    ``gameStart`` for every game of the account that waits or is played, so a stream
    opened again misses nothing."""
    me = account_of(request, csrf=False)
    assert me.user_id is not None
    headers = await counted(request, limits_of(request).bot, f"user:{me.user_id}")
    _bots, events, challenges = accounts_services(request)
    try:
        queue = events.open(me.user_id)
    except BotApiError as exc:
        answer = refused(exc)
        answer.headers = {**(answer.headers or {}), **headers}
        raise answer from None
    try:
        await stream_from_address(request)
    except BaseException:
        events.close(me.user_id, queue)
        raise
    try:
        first: list[dict[str, Any]] = [
            {"type": "challenge", "challenge": asked.to_json()}
            for asked in await asyncio.to_thread(challenges.waiting, me.user_id)
        ]
        first += [
            {"type": "gameStart", "game": game}
            for game in await asyncio.to_thread(ongoing, database_of(request), me.user_id)
        ]
    except BaseException:
        events.close(me.user_id, queue)
        await stream_ended(request)
        raise
    user_id = me.user_id
    watch = ends_with_its_grant(request, queue)

    async def lines() -> AsyncIterator[str]:
        try:
            async for line in ndjson(first, queue, lambda item: False):
                yield line
        finally:
            cluster_of(request).endings.forget(watch)
            events.close(user_id, queue)
            await stream_ended(request)

    return StreamingResponse(lines(), media_type=NDJSON, headers=headers)


# -- seeking, games, moves ---------------------------------------------------------------


class Seek(GameChoice):
    """The game a bot looks for a seat at, with its options."""


@api.post(
    "/api/bot/seek",
    tags=["bot"],
    operation_id="seekTable",
    responses=refusals(401, 403, 429),
)
async def seek(request: Request, response: Response, body: Seek) -> SeatTaken:
    """Take a seat at the oldest public table of this game and options that waits for
    players, or, with none waiting, make one (the other seats open to anyone)."""
    me = await bot_of(request, response)
    assert me.user_id is not None
    if await asyncio.to_thread(waiting_at, database_of(request), me.user_id) >= WAITING_SEEKS:
        raise Refusal(
            429,
            _("you wait at {count} tables already: play or leave one of them first").format(
                count=WAITING_SEEKS
            ),
            headers={"Retry-After": "60"},
        )
    options = body.chosen.to_json()
    calls = cluster_of(request).calls
    for table_id in await asyncio.to_thread(
        open_tables, database_of(request), body.spec.name, options, me
    ):
        with contextlib.suppress(LookupError, TableError):  # taken meanwhile: the next
            seated = await calls.join(table_id, me, "", language_of(request))
            return SeatTaken(
                id=table_id,
                url=f"/t/{table_id}",
                seat=seated["seat"],
                status=seated["status"],
                created=False,
            )
    await room_for_a_table(request, me)
    seats: list[SeatChoice] = [ForCreator(), *(ForAnyone() for _ in range(body.chosen.players - 1))]
    try:
        table = await tables_of(request).create(body.spec, body.chosen, seats, me)
    except TableError as exc:
        raise refused(exc) from None
    await table.start_if_ready()
    return SeatTaken(
        id=table.id, url=f"/t/{table.id}", seat=table.seat_of(me), status=table.status, created=True
    )


class StreamClient(WebClient):
    """A game stream as a table's client: what the table sends it (its seat's state
    messages, in its language) waits in a queue for the HTTP answer's lines."""

    history = True
    """Its views keep the hand's moves (the external-bot protocol gives them)."""

    def __init__(self, language: str) -> None:  # no websocket: the queue is its socket
        self.language = language
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=10_000)

    async def send_text(self, text: str) -> None:
        self.queue.put_nowait(text)

    async def close(self, code: int) -> None:
        # The table moved to another process or stopped: the bot opens the stream again.
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)


def finished(text: Any) -> bool:
    """A state message of a game that is over: the stream's last line."""
    if not isinstance(text, str) or '"type":"state"' not in text:
        return False
    status = json.loads(text).get("table", {}).get("status")
    return status in ("finished", "abandoned")


@api.get(
    "/api/bot/game/stream/{table_id}",
    tags=["bot"],
    operation_id="streamGame",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "One websocket server message per line (NDJSON, see "
            "/api/asyncapi.json): the seat's state messages (its view keeps the hand's "
            "moves), chat and errors; the stream ends after the game's last state.",
            "content": {NDJSON: {"schema": {"type": "object"}}},
        },
        **refusals(401, 403, 404, 429),
    },
)
async def stream_game(request: Request, table_id: TableId) -> StreamingResponse:
    """A game as its seat sees it, one message per line as the websocket sends them:
    a ``state`` message now and after every move (its own view only, never another
    seat's tile; ``legal`` when it is the seat's turn), then chat and errors. Ends once
    the game is over; open it again after a break (a stand-in that played meanwhile
    gives the seat back at its turn)."""
    me = await bot_of(request)
    user_id = me.user_id
    assert user_id is not None
    _bots, events, _challenges = accounts_services(request)
    try:
        events.open_game(user_id)
    except BotApiError as exc:
        raise refused(exc) from None
    try:
        await stream_from_address(request)
    except BaseException:
        events.close_game(user_id)
        raise
    try:
        client = StreamClient(language_of(request))
        link = await cluster_of(request).connect(table_id, client, me, "")
        if link is None:
            raise Refusal(404, _("no such table"))
    except BaseException:
        events.close_game(user_id)
        await stream_ended(request)
        raise
    watch = ends_with_its_grant(request, client.queue)

    async def lines() -> AsyncIterator[str]:
        try:
            async for line in ndjson([], client.queue, finished):
                yield line
        finally:
            cluster_of(request).endings.forget(watch)
            events.close_game(user_id)
            try:
                await link.leave()
            finally:
                await stream_ended(request)

    headers = limits_of(request).bot.quota(0).headers()
    del headers["RateLimit"]  # counted in bot_of; the policy is what a client needs
    return StreamingResponse(lines(), media_type=NDJSON, headers=headers)


@api.post(
    "/api/bot/game/{table_id}/move/{index}",
    tags=["bot"],
    operation_id="makeMove",
    responses=refusals(401, 403, 404, 409, 429),
)
async def make_move(
    request: Request,
    response: Response,
    table_id: TableId,
    index: Annotated[int, Path(ge=0, le=10_000)],
    moves_made: Annotated[int, Query(ge=0, le=10_000_000)],
) -> Moved:
    """Play the legal move numbered ``index`` (from 0) of the ``legal`` list of the
    last state message, which was sent when ``moves_made`` moves had been made (a
    stale list is refused, 409): the websocket's ``move``, over HTTP."""
    me = await bot_of(request, response)
    try:
        done = await cluster_of(request).calls.move(
            table_id, me, index, moves_made, language_of(request)
        )
    except LookupError:
        raise Refusal(404, _("no such table")) from None
    except TableError as exc:
        raise refused(exc) from None
    return Moved(moves_made=done["moves_made"], status=done["status"])


# -- the bots' pool ---------------------------------------------------------------------


async def leaderboard_of(request: Request, game: str) -> Leaderboard:
    try:
        spec = find_game(game)
    except Exception:
        raise Refusal(404, _("no such game")) from None
    rated = await asyncio.to_thread(bot_pool, database_of(request), spec.name)
    return Leaderboard(
        game=spec.name,
        bots=[
            BotRating(
                place=place,
                name=r.key,
                rating=round(r.rating, 2),
                mu=round(r.mu, 3),
                sigma=round(r.sigma, 3),
                games=r.games,
            )
            for place, r in enumerate(rated, 1)
        ],
    )


@api.get(
    "/api/bots/leaderboard/{game}",
    tags=["bots"],
    operation_id="botLeaderboard",
    responses=refusals(404),
)
async def leaderboard(request: Request, game: Annotated[str, Path(max_length=40)]) -> Leaderboard:
    """The bots' rating pool of ``game``, best first."""
    return await leaderboard_of(request, game)


@api.get("/bots", response_class=HTMLResponse, include_in_schema=False)
async def bots_page(request: Request) -> HTMLResponse:
    """Every game's bots, best first: a public leaderboard of the bots' pool."""
    boards = [await leaderboard_of(request, spec.name) for spec in all_games()]
    return page(request, "bots.html", boards=boards, titles={g.name: g.title for g in all_games()})
