"""The Bot API against hostile clients (issue 52): what one stranger's account, or four
free accounts of one person, could do with it, each answered by a limit; every 429
says when to come back, and a refused request spends no creation rate.

The tests share one server per database (the limits of tokens and challenges are
tightened, so that a burst is a few requests), each as people of its own (names,
addresses), as the public shares one server. The limits of the challenges themselves
are tested on the service (:class:`pips.server.botapi.Challenges`)."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select, update

from pips.server.accounts.identity import Identity
from pips.server.botapi import (
    GAME_STREAMS_PER_ACCOUNT,
    MOST_CHALLENGES,
    MOST_RECEIVED,
    STREAMS_PER_ACCOUNT,
    WAITING_SEEKS,
    BotApiError,
    Challenges,
)
from pips.store.db import Database
from pips.store.models import User
from tests.databases import database_urls, new_database
from tests.in_thread import ThreadServer
from tests.server_helpers import Browser, Server, an_address, register, wait_for
from tests.test_bot_api import api, bot_account

TIGHT = {"challenges": (2.0, 1.0), "tokens": (2.0, 1.0)}
"""Two challenges and two tokens at once, then one a minute."""


@pytest.fixture(scope="module", params=database_urls())
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("botattacks")
    running = ThreadServer(home, new_database(request.param, home), grace=60, limits=TIGHT).start()
    try:
        yield running
    finally:
        running.stop()


def person(server: Server, name: str) -> Browser:
    browser = Browser(server)
    assert register(browser, name).status_code == 303
    return browser


def says_when(answer: httpx.Response) -> None:
    """A 429 in the error shape that says when to come back."""
    answer.read()  # a refused stream's body is the error
    assert answer.status_code == 429, answer.text
    assert int(answer.headers["Retry-After"]) >= 1
    assert answer.json()["code"] == "too_many_requests"


# -- tokens ------------------------------------------------------------------------------


def test_refused_tokens_spend_no_rate_and_the_429_says_when(server: Server) -> None:
    """Wrong passwords and scopes a token lacks are refused without spending the rate of
    new tokens (two at once here); the third token made is refused with Retry-After."""
    person(server, "Tokenmaker").http.close()
    with api(server) as http:
        for _ in range(3):
            wrong = http.post(
                "/api/tokens",
                json={"label": "x", "scopes": ["play"], "name": "Tokenmaker", "password": "nope"},
            )
            assert wrong.status_code == 401, wrong.text
        asked = {"label": "x", "scopes": ["play"], "name": "Tokenmaker", "password": "password-1"}
        first = http.post("/api/tokens", json=asked)
        assert first.status_code == 201, first.text
        token = first.json()["token"]
        for _ in range(3):
            mightier = http.post(
                "/api/tokens",
                json={"label": "y", "scopes": ["results"]},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert mightier.status_code == 403, mightier.text
        assert http.post("/api/tokens", json=asked).status_code == 201
        third = http.post("/api/tokens", json=asked)
        says_when(third)
        # Nothing left, full again in two minutes less the seconds the test took (the
        # bucket refills all along: an exact t=120 held only on a machine fast enough).
        left, _, until_full = (
            third.headers["RateLimit"].removeprefix('"tokens";r=').partition(";t=")
        )
        assert left == "0" and 60 < int(until_full) <= 120


def test_a_token_makes_no_mightier_token_nor_one_of_another_account(server: Server) -> None:
    """A token with the scope ``play`` cannot make one with ``results`` too, nor one of
    another account by naming it: the token it may make is of its own account and
    scopes."""
    person(server, "Victima").http.close()
    token = bot_account(server, "Escalator")
    with api(server, token) as http:
        mightier = http.post("/api/tokens", json={"label": "y", "scopes": ["play", "results"]})
        assert mightier.status_code == 403 and mightier.json()["code"] == "scope_missing"
        theirs = http.post(
            "/api/tokens", json={"label": "y", "scopes": ["play"], "name": "Victima"}
        )
        assert theirs.status_code == 403, theirs.text
        assert theirs.json()["field"] == "body.name"
        same = http.post("/api/tokens", json={"label": "y", "scopes": ["play"]})
        assert same.status_code == 201, same.text
        assert same.json()["scopes"] == ["play"]
    with api(server, same.json()["token"]) as http:
        assert http.get("/api/bot/account").json() == {"name": "Escalator", "bot": True}
        # ... and it cannot do what ``results`` allows.
        entered = http.post("/api/results", json={"results": []})
        assert entered.status_code == 403 and entered.json()["code"] == "scope_missing"


# -- bot accounts ------------------------------------------------------------------------


def test_an_account_that_sat_at_a_table_cannot_become_a_bot(server: Server) -> None:
    """Bot accounts are declared once, before playing: a person's account that has sat
    at a table stays a person's (its games and rating are not handed to a program)."""
    browser = person(server, "Settled")
    browser.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    refused = browser.post("/api/bot/account/upgrade")
    assert refused.status_code == 409, refused.text
    assert "before its first game" in refused.json()["message"]
    assert browser.http.get("/api/bot/account").json() == {"name": "Settled", "bot": False}
    # A bot stays one, and declaring it again changes nothing.
    token = bot_account(server, "Declared")
    with api(server, token) as http:
        assert http.post("/api/bot/account/upgrade").json() == {"name": "Declared", "bot": True}


# -- challenges --------------------------------------------------------------------------


def test_refused_challenges_spend_no_rate_and_the_429_says_when(server: Server) -> None:
    """Challenges to nobody and a second challenge to the same account are refused
    without spending the challenges' rate (two at once here); the third challenge made
    is refused with Retry-After."""
    one, other, third = (person(server, n) for n in ("Ziel-Eins", "Ziel-Zwei", "Ziel-Drei"))
    challenger = person(server, "Herausforderer")
    draw = {"game": "draw", "options": {"players": 2}}
    for i in range(4):
        nobody = challenger.post(f"/api/challenge/Niemand{i}", draw)
        assert nobody.status_code == 404, nobody.text
    assert challenger.post("/api/challenge/Ziel-Eins", draw).status_code == 201
    again = challenger.post("/api/challenge/Ziel-Eins", draw)
    assert again.status_code == 409, again.text
    assert challenger.post("/api/challenge/Ziel-Zwei", draw).status_code == 201
    too_many = challenger.post("/api/challenge/Ziel-Drei", draw)
    says_when(too_many)
    assert [c["challenger"]["name"] for c in one.http.get("/api/challenge").json()] == [
        "Herausforderer"
    ]
    assert third.http.get("/api/challenge").json() == []
    for browser in (one, other, third, challenger):
        browser.http.close()


def test_a_stranger_cannot_answer_anothers_challenge(server: Server) -> None:
    """Challenge ids are not guessed into: another account's challenge cannot be
    accepted, declined or canceled by a stranger (404, as for none), and it still
    waits."""
    asker, asked, stranger = (person(server, n) for n in ("Fragerin", "Gefragte", "Fremder"))
    made = asker.post("/api/challenge/Gefragte", {"game": "draw", "options": {"players": 2}})
    assert made.status_code == 201
    challenge = made.json()["id"]
    assert len(challenge) >= 12  # 72 bits
    for what in ("accept", "decline", "cancel"):
        tried = stranger.post(f"/api/challenge/{challenge}/{what}")
        assert tried.status_code == 404, tried.text
    # Nor does each side do the other's part.
    assert asker.post(f"/api/challenge/{challenge}/accept").status_code == 404
    assert asked.post(f"/api/challenge/{challenge}/cancel").status_code == 404
    assert [c["id"] for c in asked.http.get("/api/challenge").json()] == [challenge]
    for browser in (asker, asked, stranger):
        browser.http.close()


def test_accepted_challenges_make_no_more_tables_than_the_challenger_may(server: Server) -> None:
    """A person with three tables waiting or playing (the cap of tables at once) gets no
    fourth by challenges their other accounts accept: the accept is refused (429, the
    challenge still waits)."""
    farmer = person(server, "Tischsammler")
    token = bot_account(server, "Sammlerbot")
    for _ in range(3):
        farmer.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    # The cap of tables at once says when to try again too.
    says_when(
        farmer.post(
            "/api/tables",
            {
                "game": "draw",
                "options": {"players": 2},
                "seats": [{"kind": "me"}, {"kind": "open"}],
            },
        )
    )
    asked = farmer.post("/api/challenge/Sammlerbot", {"game": "draw", "options": {"players": 2}})
    assert asked.status_code == 201
    with api(server, token) as http:
        accepted = http.post(f"/api/challenge/{asked.json()['id']}/accept")
        says_when(accepted)
        assert [c["id"] for c in http.get("/api/challenge").json()] == [asked.json()["id"]]
    farmer.http.close()


@pytest.mark.parametrize("kind", database_urls())
def test_challenge_spam_is_bounded_per_pair_challenger_and_account(
    kind: str, tmp_path: Path
) -> None:
    """One challenge waits per pair of accounts; an account has at most
    ``MOST_CHALLENGES`` waiting, and at most ``MOST_RECEIVED`` wait for one account's
    answer, from everyone together (free accounts by the dozen included)."""
    db = Database(new_database(kind, tmp_path))
    db.upgrade()
    try:
        with db.session() as session, session.begin():
            names = [f"Spam{i}" for i in range(MOST_RECEIVED + MOST_CHALLENGES + 2)]
            for name in names:
                session.add(User(name=name, name_key=name.lower(), password_hash="x"))
        with db.session() as session:
            ids = {name: i for name, i in session.execute(select(User.name, User.id))}
        challenges = Challenges(db)

        def ask(one: str, other: str) -> None:
            challenges.create(Identity(user_id=ids[one], name=one), other, "draw", {}, [], None)

        ask("Spam1", "Spam0")
        with pytest.raises(BotApiError) as twice:
            ask("Spam1", "Spam0")
        assert twice.value.status == 409
        for name in names[2 : MOST_RECEIVED + 1]:
            ask(name, "Spam0")
        with pytest.raises(BotApiError) as buried:
            ask(names[MOST_RECEIVED + 1], "Spam0")
        assert buried.value.status == 429
        assert len(challenges.waiting(ids["Spam0"])) == MOST_RECEIVED
        # One account's challenges to everyone: at most MOST_CHALLENGES wait.
        flood = names[MOST_RECEIVED + 2 :]
        for name in flood[: MOST_CHALLENGES - 1]:
            ask("Spam1", name)
        with pytest.raises(BotApiError) as spammer:
            ask("Spam1", flood[MOST_CHALLENGES - 1])
        assert spammer.value.status == 429
    finally:
        db.dispose()


# -- seeking, streams, guessing ------------------------------------------------------------


def test_a_seek_flood_takes_no_more_than_a_few_seats(server: Server) -> None:
    """A bot seeking again and again sits at no more than ``WAITING_SEEKS`` tables that
    wait for players: people's open tables are not all taken by one program."""
    host = person(server, "Gastgeberin")
    three = {"game": "draw", "options": {"players": 3}}
    for _ in range(WAITING_SEEKS):
        host.create("draw", {"players": 3}, [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
    token = bot_account(server, "Sitzsammler")
    with api(server, token) as http:
        for _ in range(WAITING_SEEKS):
            seated = http.post("/api/bot/seek", json=three)
            assert seated.status_code == 200 and seated.json()["created"] is False, seated.text
        says_when(http.post("/api/bot/seek", json=three))
    host.http.close()


def test_streams_left_open_are_bounded_per_account_and_per_address(server: Server) -> None:
    """An account holds at most ``STREAMS_PER_ACCOUNT`` event streams and
    ``GAME_STREAMS_PER_ACCOUNT`` game streams open (its accounts together, below, at
    most what the address may hold); each closed stream is given back."""
    address = an_address()
    tokens = [bot_account(server, f"Stromer{i}") for i in range(2)]
    clients = [
        httpx.Client(
            base_url=server.url,
            headers={"X-Forwarded-For": address, "Authorization": f"Bearer {token}"},
            timeout=30,
            limits=httpx.Limits(max_connections=100),
        )
        for token in tokens
    ]
    first = clients[0]
    seated = first.post("/api/bot/seek", json={"game": "draw", "options": {"players": 3}})
    table_id = seated.json()["id"]
    with contextlib.ExitStack() as held:

        def stream(client: httpx.Client, path: str) -> httpx.Response:
            return held.enter_context(client.stream("GET", path))

        events = [stream(first, "/api/stream/event") for _ in range(STREAMS_PER_ACCOUNT)]
        assert {answer.status_code for answer in events} == {200}
        says_when(stream(first, "/api/stream/event"))
        games = [
            stream(first, f"/api/bot/game/stream/{table_id}")
            for _ in range(GAME_STREAMS_PER_ACCOUNT)
        ]
        assert {answer.status_code for answer in games} == {200}
        says_when(stream(first, f"/api/bot/game/stream/{table_id}"))
        # Another account of the same person holds streams of its own.
        assert stream(clients[1], "/api/stream/event").status_code == 200
    # Every stream closed is given back: the account opens as many again.
    assert wait_for(lambda: _opens(first, STREAMS_PER_ACCOUNT), 30)
    for client in clients:
        client.close()


def _opens(client: httpx.Client, count: int) -> bool:
    """Whether ``client`` opens ``count`` event streams at once."""
    with contextlib.ExitStack() as held:
        answers = [
            held.enter_context(client.stream("GET", "/api/stream/event")) for _ in range(count)
        ]
        return all(answer.status_code == 200 for answer in answers)


def test_the_address_cap_holds_streams_of_many_accounts(server: Server) -> None:
    """Streams of many free accounts behind one address together stop at the address's
    cap of connections (50), with Retry-After."""
    address = an_address()
    opened = 0
    refused: httpx.Response | None = None
    clients: list[httpx.Client] = []
    with contextlib.ExitStack() as held:
        for i in range(14):  # 14 accounts x 4 streams = 56 > 50
            token = bot_account(server, f"Flut{i}")
            client = httpx.Client(
                base_url=server.url,
                headers={"X-Forwarded-For": address, "Authorization": f"Bearer {token}"},
                timeout=30,
            )
            clients.append(client)
            for _ in range(STREAMS_PER_ACCOUNT):
                answer = held.enter_context(client.stream("GET", "/api/stream/event"))
                if answer.status_code != 200:
                    refused = answer
                    break
                opened += 1
            if refused is not None:
                break
        assert refused is not None and opened == 50
        says_when(refused)
    for client in clients:
        client.close()


def test_guessing_game_ids_finds_nothing_and_is_bounded(server: Server) -> None:
    """A bot guessing table ids learns nothing (a private table of others is as absent
    as none; a move at a table without its seat is refused), and its guesses are counted
    against its requests (429 with Retry-After once they are spent)."""
    owner = person(server, "Privatier")
    hidden = owner.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}], private=True)
    assert len(hidden) >= 12  # 72 bits: not found by guessing
    token = bot_account(server, "Rater")
    with api(server, token) as http:
        for table_id in (hidden, secrets.token_urlsafe(9)):
            with http.stream("GET", f"/api/bot/game/stream/{table_id}") as answer:
                assert answer.status_code == 404
        moved = http.post(f"/api/bot/game/{hidden}/move/0", params={"moves_made": 0})
        made_up = http.post(
            f"/api/bot/game/{secrets.token_urlsafe(9)}/move/0", params={"moves_made": 0}
        )
        # The same answer as for an id made up: a 409 ("no seat") would say it is real.
        assert moved.status_code == 404, moved.text
        assert moved.json() == made_up.json()
        # A refusal says what is left of the allowance too (docs/bots-api.md).
        assert made_up.headers["RateLimit"].startswith('"bot";r=')
        assert made_up.headers["RateLimit-Policy"].startswith('"bot";q=')
        answers = [
            http.post(f"/api/bot/game/{secrets.token_urlsafe(9)}/move/0", params={"moves_made": 0})
            for _ in range(70)
        ]
    statuses = [a.status_code for a in answers]
    assert set(statuses) == {404, 429}, statuses
    says_when(answers[-1])
    assert "RateLimit-Policy" in answers[-1].headers
    owner.http.close()


# -- the world list ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", database_urls())
def test_a_bot_accounts_result_never_counts_for_the_world_list(kind: str, tmp_path: Path) -> None:
    """A result a bot account is in is left out of the world list's games whatever let
    it through (bots are rated in a pool of their own); the same result of people
    counts."""
    from pips.results.list_inputs import rated_games
    from pips.store.models import Player, Result, ResultPlayer

    db = Database(new_database(kind, tmp_path))
    db.upgrade()
    try:
        with db.session() as session, session.begin():
            users = [
                User(name=n, name_key=n.lower(), password_hash="x") for n in ("Mensch", "Maschine")
            ]
            session.add_all(users)
            session.flush()
            players = [Player(name=u.name, name_key=u.name_key, user_id=u.id) for u in users]
            session.add_all(players)
            session.flush()
            for played in (1, 2):
                result = Result(
                    game="draw",
                    played_on=date(2026, 1, played),
                    set=6,
                    status="confirmed",
                    source="server",
                    confirmed_by="server",
                    rated=True,
                )
                session.add(result)
                session.flush()
                for seat, (user, player) in enumerate(zip(users, players, strict=True)):
                    session.add(
                        ResultPlayer(
                            result_id=result.id,
                            seat=seat,
                            team=seat,
                            rank=seat + 1,
                            name=user.name,
                            player_id=player.id,
                            user_id=user.id,
                            points=0,
                            pips=0,
                            final=0,
                        )
                    )

        def counted() -> int:
            with db.session() as session:
                return len(rated_games(session, "draw", date(2026, 2, 1), datetime(2027, 1, 1)))

        assert counted() == 2
        with db.session() as session, session.begin():
            session.execute(update(User).where(User.name == "Maschine").values(bot=True))
        assert counted() == 0
    finally:
        db.dispose()


def test_a_revoked_token_ends_its_streams(server: Server) -> None:
    """A stream is not a way to keep a revoked token's hold: revoking it ends its event
    stream at once (as it closes its websockets)."""
    from tests.test_bot_api import Events

    owner = person(server, "Widerruferin")
    with api(server) as http:
        made = http.post(
            "/api/tokens",
            json={
                "label": "x",
                "scopes": ["play"],
                "name": "Widerruferin",
                "password": "password-1",
            },
        )
    assert made.status_code == 201, made.text
    events = Events(api(server, made.json()["token"]))
    events.start()
    assert events.opened.wait(30)
    revoked = owner.form(f"/account/tokens/{made.json()['id']}/revoke")
    assert revoked.status_code == 303, revoked.text
    events.join(30)
    assert not events.is_alive()
    events.client.close()
    owner.http.close()


@pytest.mark.parametrize("shared", [False, True], ids=["in-memory", "redis"])
def test_a_refused_request_gives_its_count_back(shared: bool) -> None:
    """:meth:`RateLimit.give_back` returns the one a refused request took, in memory and
    in Redis (several processes), never above the burst."""
    import asyncio

    from pips.server.limits import Limited, RateLimit

    broker = os.environ.get("PIPS_TEST_REDIS_URL")
    if shared and not broker:
        pytest.skip("needs PIPS_TEST_REDIS_URL")

    async def scene() -> None:
        limit = RateLimit(2, 0.001, name=f"test-{secrets.token_hex(4)}")
        if shared:
            import redis.asyncio as aioredis

            limit.shared = aioredis.from_url(str(broker))
        key = "someone"
        await limit.give_back(key)  # nothing taken yet: still two
        await limit.take(key)
        await limit.take(key)
        with pytest.raises(Limited):
            await limit.take(key)
        await limit.give_back(key)
        await limit.take(key)  # the one given back
        with pytest.raises(Limited):
            await limit.take(key)
        if shared:
            await limit.shared.aclose()

    asyncio.run(scene())
