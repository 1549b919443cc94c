"""The JSON API of the live game: who you are, tables, records, histories, the protocol."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.requests import HTTPConnection
from fastapi.responses import JSONResponse, Response
from pydantic import Field

from pips import __version__, record
from pips.core.errors import RuleError
from pips.core.view import event_to_json
from pips.display import describe_event, replay_positions
from pips.games.registry import find_game
from pips.i18n import _, say
from pips.server import accounts, messages
from pips.server.accounts.identity import Identity
from pips.server.analyses import Analyses
from pips.server.errors import Refusal, SvgResponse, json_path, refusal, refusals, spec_rule

if TYPE_CHECKING:
    from pips.bots.analysis import Analysis
from pips.server.links import Look
from pips.server.requests import (
    MAX_SEATS,
    GameChoice,
    OptionsJson,
    OptionsRefused,
    Seat,
    Strict,
    game_options,
)
from pips.server.responses import (
    OptionsChecked,
    RecordPublished,
    RematchMade,
    Seated,
    SessionInfo,
    TableMade,
)
from pips.server.responses.records import (
    AsyncApiDocument,
    GameAnalysis,
    GamePlayed,
    GameRecord,
    PositionShown,
)
from pips.server.routes.common import (
    address,
    cluster_of,
    limits_of,
    refund,
    room_for_a_table,
    spend,
    tables_of,
)
from pips.server.tables import TableError
from pips.server.web import changes_nothing, check_csrf, language_of, who
from pips.server.work import Crowded

api = APIRouter()


class NewTable(GameChoice):
    """A table to create: the game, its options (parsed into the game's own at once),
    and each seat (me, open or a bot a server may seat)."""

    seats: list[Seat] = Field(max_length=MAX_SEATS)
    private: bool = False
    turn_seconds: int | None = None
    seed: int | None = None
    """A practice table: its deals come from this seed, shown to every seat, and its
    games are not rated. Left out, the deals come from the OS's CSPRNG."""


async def look(request: HTTPConnection, table_id: str, invite: str) -> Look:
    """The table, if the asker may see it (a private one is 404 to anyone else),
    wherever it lives."""
    found = await cluster_of(request).calls.look(
        table_id, who(request), invite, language_of(request)
    )
    if found is None:
        raise HTTPException(404, _("no such table"))
    return found


@api.get("/api/session", tags=["accounts"])
async def session_info(request: Request) -> SessionInfo:
    """Who this session is, and the CSRF token its POSTs must carry."""
    me = who(request)
    return SessionInfo(
        name=None if me is None else me.name,
        account=me is not None and me.user_id is not None,
        csrf=accounts.csrf_token(request.session),
    )


@api.get("/api/tables", tags=["tables"])
async def list_tables(request: Request) -> list[messages.TableSummary]:
    """Public tables that are waiting or being played."""
    playing, _finished = await cluster_of(request).public()
    return playing  # type: ignore[return-value]  # summaries, as the lobby keeps them


@api.get("/api/tables/{table_id}", tags=["tables"], responses=refusals(404))
async def get_table(request: Request, table_id: str, invite: str = "") -> messages.StateMessage:
    """One table as a spectator sees it (a private one: with ``?invite=``): the state
    message its websocket sends a spectator (seat -1)."""
    return (await look(request, table_id, invite)).state  # type: ignore[return-value]


class Choice(Strict):
    """Options a form is about to create a table with."""

    options: OptionsJson = Field(default_factory=dict)


@api.post("/api/games/{game}/check", tags=["tables"], responses=refusals(404))
@changes_nothing
async def check_options(game: str, body: Choice) -> OptionsChecked:
    """Whether ``options`` make a game of ``game``: its summary in one line and how
    many seats it has; else refused as creating the table would be (422 with the
    rule it comes from and the option to change, ``body.options.NAME``: the one
    whose default would make the rest valid), an unknown game 404. Changes nothing."""
    try:
        spec = find_game(game)
    except RuleError as exc:
        raise Refusal(404, say(exc.detail), field="path.game") from None
    try:
        options = game_options(spec, body.options)
    except OptionsRefused as exc:
        raise Refusal(
            422,
            say(exc.detail),
            code="rule_broken" if spec_rule(exc.rule) else None,
            rule=spec_rule(exc.rule),
            field=json_path(["body", "options", *([exc.field] if exc.field else [])]),
        ) from None
    if spec.dealt_by_hand(options):
        raise Refusal(
            422,
            _(
                "a server table deals itself: manual deals are for entering games "
                "played at a real table"
            ),
            code="rule_broken",
            rule="F-24",
            field="body.options.deal_mode",
        )
    return OptionsChecked(brief=say(spec.in_brief(options)), players=options.players)


@api.post("/api/tables", tags=["tables"], status_code=201, responses=refusals(429))
async def create_table(request: Request, body: NewTable) -> TableMade:
    """Create a table; the caller (signed in or a guest) takes the seat marked ``me``.
    Needs the ``X-CSRF-Token`` header of the session. A refusal spends none of the
    address's rate of new tables."""
    me = signed_in(request)
    tables = tables_of(request)
    await room_for_a_table(request, me)
    try:
        table = await tables.create(
            body.spec,
            body.chosen,
            [seat.choice() for seat in body.seats],
            me,
            private=body.private,
            turn_seconds=body.turn_seconds,
            seed=body.seed,
            address=address(request),
        )
    except TableError as exc:
        await refund(request, limits_of(request).tables, address(request))
        if exc.field is not None:
            exc.field = f"body.{exc.field}"  # named as the request's own fields are
        raise refusal(exc, 429 if isinstance(exc, Crowded) else 422) from None
    await table.start_if_ready()
    return TableMade(id=table.id, invite=table.invite, url=f"/t/{table.id}")


@api.post("/api/tables/{table_id}/join", tags=["tables"], responses=refusals(404, 409))
async def join_table(request: Request, table_id: str, invite: str = "") -> Seated:
    """Take an open seat."""
    me = signed_in(request)
    try:
        joined = await cluster_of(request).calls.join(table_id, me, invite, language_of(request))
        return Seated.model_validate(joined)
    except LookupError:
        raise HTTPException(404, _("no such table")) from None
    except TableError as exc:
        raise refusal(exc, 409) from None


def signed_in(request: Request) -> Identity:
    """Who asks to change something at a table: refused (401 ``sign_in_required``)
    unless signed in, a guest or a token's account, and then (a browser) without the
    session's CSRF token. Asked in this order: with no one to act as there is nothing a
    forged request could do, and the answer says what is missing first."""
    me = who(request)
    if me is None:
        raise HTTPException(401, _("sign in or choose a guest name first"))
    check_csrf(request, request.headers.get("x-csrf-token"))
    return me


def asker(request: Request, table_id: str) -> Identity:
    """Who asks something of table ``table_id`` (:func:`signed_in`); a table id no
    table can have is no such table."""
    me = signed_in(request)
    if not 1 <= len(table_id) <= 24:
        raise HTTPException(404, _("no such table"))
    return me


@api.post(
    "/api/tables/{table_id}/leave",
    tags=["tables"],
    responses=refusals(404, 409),
    name="leave_table",
)
@api.post(
    "/api/tables/{table_id}/resign",
    tags=["tables"],
    responses=refusals(404, 409),
    name="resign_table",
)
@api.post(
    "/api/tables/{table_id}/abort",
    tags=["tables"],
    responses=refusals(404, 409),
    name="abort_table",
)
async def stand_up(request: Request, table_id: str) -> Seated:
    """Stand up from a table you have a seat at. ``abort``: before its first move, the
    table closes unplayed. ``resign``: give the game up; where no other person plays
    the table closes without a result, else a bot plays your seat to the end.
    ``leave``: a bot plays your seat to the end (before the game the seat is open
    again); with nobody else there the table closes. The seat is no longer yours,
    and the table no longer counts among your tables. Answers your seat (-1) and the
    table's status."""
    me = asker(request, table_id)
    what = request.url.path.rsplit("/", 1)[-1]
    try:
        stood = await cluster_of(request).calls.stand(table_id, me, what, language_of(request))
        return Seated.model_validate(stood)
    except LookupError:
        raise HTTPException(404, _("you have no seat at this table")) from None
    except TableError as exc:
        raise refusal(exc, 409) from None


@api.post("/api/tables/{table_id}/rematch", tags=["tables"], responses=refusals(404, 409, 429))
async def rematch(request: Request, table_id: str) -> RematchMade:
    """A rematch of a finished table, for anyone who played at it: the first to ask
    makes it (the same game, options, bots and privacy; their own seat taken, every
    other person's kept for them); the others are seated at it by asking too."""
    me = asker(request, table_id)
    tables = tables_of(request)
    await room_for_a_table(request, me)
    try:
        fresh, made = await tables.rematch(table_id, me, address(request))
    except (LookupError, TableError) as exc:
        await refund(request, limits_of(request).tables, address(request))
        if isinstance(exc, LookupError):
            raise HTTPException(404, _("no such table")) from None
        raise refusal(exc, 409) from None
    seated = made
    if not made:  # seated at a rematch another made: no new table of theirs
        await refund(request, limits_of(request).tables, address(request))
    if made:
        await tables.live[fresh].start_if_ready()
    else:
        # Seated at the place kept for them; asked twice, or too late (the others
        # began without them), they are shown the table all the same.
        with contextlib.suppress(LookupError, TableError):
            seated = (await cluster_of(request).calls.join(fresh, me, "", language_of(request)))[
                "seat"
            ] >= 0
    return RematchMade(id=fresh, url=f"/t/{fresh}", seated=seated)


async def finished_record(request: Request, table_id: str) -> dict[str, Any]:
    data = await tables_of(request).repository.record(table_id, who(request))
    if data is None:
        raise HTTPException(404, _("no finished game with that id"))
    return data


@api.get(
    "/api/records/{table_id}",
    tags=["records"],
    responses=refusals(404),
    response_model=GameRecord,
)
async def get_record(request: Request, table_id: str) -> JSONResponse:
    """The finished game as ``pips.record/1`` (a download)."""
    data = await finished_record(request, table_id)
    headers = {"Content-Disposition": f'attachment; filename="pips-{table_id}.json"'}
    return JSONResponse(data, headers=headers)


@api.get("/api/records/{table_id}/positions", tags=["records"], responses=refusals(404))
async def positions(request: Request, table_id: str) -> list[PositionShown]:
    """Every position of a finished game, for stepping through it: the public view,
    every hand face up, the move that led there and the move in words."""
    replayed = record.replay(await finished_record(request, table_id))
    names, game = replayed.seats, replayed.spec.name
    return [
        PositionShown(
            hand=p.hand,
            move=p.move,
            view=p.view.to_json(),
            hands=[[t.to_json() for t in h] for h in p.hands],
            event=None if p.event is None else event_to_json(p.event),
            said=_("dealt") if p.event is None else say(describe_event(p.event, names, game)),
            names=names,
        )
        for p in replay_positions(replayed)
    ]


@api.get("/api/records/{table_id}/analysis", tags=["records"], responses=refusals(404, 429))
async def analysis(request: Request, table_id: str) -> GameAnalysis:
    """Every decision of a finished game valued by the search from the deciding seat's
    view only (docs/bots.md, ``pips analyse``); made once per game, then kept."""
    return GameAnalysis.model_validate((await analysed(request, table_id)).to_json())


@api.get(
    "/api/records/{table_id}/analysis.svg",
    tags=["records"],
    responses=refusals(404, 429),
    response_class=SvgResponse,
)
async def analysis_plot(request: Request, table_id: str) -> Response:
    """Each seat's expected result at its decisions, hand by hand, as a picture."""
    found = await analysed(request, table_id)
    analyses: Analyses = request.app.state.analyses
    return Response(await analyses.picture(table_id, found), media_type="image/svg+xml")


async def analysed(request: Request, table_id: str) -> Analysis:
    analyses: Analyses = request.app.state.analyses
    # Asked before the kept analyses: a private game's is its people's too.
    await finished_record(request, table_id)

    async def starting() -> None:
        await spend(request, limits_of(request).analyses, address(request))

    return await analyses.of(table_id, lambda: finished_record(request, table_id), starting)


@api.post("/api/records/{table_id}/publish", tags=["records"], responses=refusals(404))
async def publish_record(request: Request, table_id: str) -> RecordPublished:
    """A person who played at a finished private table asks to publish it: its record,
    replay and result become public once every person who played there asked."""
    me = signed_in(request)
    try:
        public = await tables_of(request).repository.ask_to_make_public(table_id, me)
    except TableError as exc:
        raise refusal(exc, 404) from None
    return RecordPublished(id=table_id, public=public)


@api.get("/api/players/{name}/history", tags=["players"], responses=refusals(404))
async def history(request: Request, name: str) -> list[GamePlayed]:
    """The finished games of an account, newest first."""
    finished = await tables_of(request).repository.finished_games(name, who(request))
    if finished is None:
        raise HTTPException(404, _("no such player"))
    return [GamePlayed.model_validate(g) for g in finished]


@api.get("/api/asyncapi.json", tags=["protocol"])
async def protocol() -> AsyncApiDocument:
    """The websocket protocol of ``/ws/{table_id}`` as an AsyncAPI document: every
    message a client sends and receives, with its JSON schema."""
    return AsyncApiDocument.model_validate(messages.asyncapi(__version__))
