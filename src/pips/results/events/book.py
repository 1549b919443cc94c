"""Events (issue 22): a club evening, a cup, a championship.

An event has a game with its options, a date, a place, an organiser and its players.
Its rounds are drawn one at a time (:mod:`pips.results.events.rounds`), its tables'
results are entered and corrected (:mod:`pips.results.events.scores`), and when its
organiser closes it its games become results (:mod:`pips.results.events.closing`).
This part creates events, adds and withdraws players, and shows an event with its
standings (:mod:`pips.results.standings`).

Who may do what:

- an event is created by the representative of a group (for the group) or by a site
  administrator; its organiser (or an administrator) runs it: players, draws, starting
  rounds, corrections after a round closed, closing;
- a table's result is entered by one of its players (with an account) or the
  organiser; once a table has a result, entering it again is a correction and needs a
  reason; after the round closed only the organiser corrects;
- when the event closes, its results are confirmed if the organiser's word vouches
  for them (an approved group's representative, for the group's members; an
  administrator), else they wait like any other result (:mod:`pips.results.trust`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from pips.core.errors import RuleError
from pips.core.names import PERSON_LENGTH, check_name, name_key
from pips.core.phrase import phrase
from pips.games.registry import find_game
from pips.results.authority import Action
from pips.results.common import (
    Conflict,
    Context,
    NotFound,
    ResultsError,
    group_named,
    is_admin,
    slugify,
)
from pips.results.draws import CLUBS_APART, TableOptions
from pips.results.entry import EARLIEST
from pips.results.events.common import (
    FAR_AHEAD,
    MOST_PLAYERS,
    MOST_ROUNDS,
    find_event,
    need_manager,
    open_event,
    scoring_of,
    sync_online,
)
from pips.results.events.shown import event_and_standings, event_json
from pips.results.facts import actor_facts, need
from pips.results.players import Players, loose_key
from pips.results.standings import (
    DEFAULT_TIEBREAKS,
    Standing,
    check_tiebreaks,
)
from pips.results.vouching import group_facts
from pips.store.models import (
    Event,
    EventPlayer,
    Group,
    Player,
    WorldList,
    WorldListRow,
)

PAIRINGS = ("lot", "swiss")
"""How the rounds after the first are drawn (docs/events.md, "The draw")."""


def spread_rounds(days: Sequence[date], rounds: int) -> list[str]:
    """The day of each of ``rounds`` rounds over ``days``, as evenly as can be, the
    first days taking one more (7 rounds over two days: 4 and 3).

    >>> spread_rounds([date(2026, 10, 10), date(2026, 10, 11)], 5)
    ['2026-10-10', '2026-10-10', '2026-10-10', '2026-10-11', '2026-10-11']
    """
    count = len(days)
    base, extra = divmod(rounds, count)
    schedule: list[str] = []
    for index, day in enumerate(days):
        schedule += [day.isoformat()] * (base + (index < extra))
    return schedule


def _player_of(event: Event, player: int) -> EventPlayer:
    """The event's player numbered ``player``, or :class:`NotFound`."""
    found = next((p for p in event.players if p.id == player), None)
    if found is None:
        raise NotFound(phrase("no player {number} in this event", number=player))
    return found


def _no_look_alikes(
    event: Event, wanted: Sequence[str], clubs: Mapping[str, str], confirmed: set[str]
) -> None:
    """Refuse a name typed like another player of the same club in this event or in
    the same list ("Jorg Muller" beside "Jörg Müller": one person typed twice,
    umlauts and accents aside) unless it was confirmed as a new player."""
    club_of = {name_key(n): slugify(c) for n, c in clubs.items()}
    # A name given without a club plays for the event's group (see _club_of).
    usual = "" if event.group is None else slugify(event.group.name)
    seen = {
        (loose_key(p.name), slugify(p.club or "")): p.name
        for p in event.players
        if p.withdrawn_from is None
    }
    for name in wanted:
        folded = name_key(name)
        place = (loose_key(name), club_of.get(folded, usual))
        other = seen.get(place)
        if other is not None and name_key(other) != folded and folded not in confirmed:
            raise LookAlike(name, other)
        seen.setdefault(place, name)


class LookAlike(Conflict):
    """A name that looks like another player's of the same club (typed twice?): added
    only once confirmed as a new player (``new_players``; a form offers the choice)."""

    def __init__(self, name: str, other: str) -> None:
        super().__init__(
            phrase(
                "“{name}” looks like “{other}” of the same club: typed twice? If they are "
                "two people, confirm {name} as a new player",
                name=name,
                other=other,
            )
        )
        self.name = name


def _label(text: str | None) -> str:
    """A club's or team's name as kept (spaces tidied, at most 80 characters)."""
    label = " ".join(str(text or "").split())
    if len(label) > 80:
        raise ResultsError(phrase("a club's or team's name is at most 80 characters"))
    return label


def _club_of(session: Any, player: Player, given: str) -> str:
    """Whom a player plays for: the club given, else the player's group."""
    group = session.get(Group, player.group_id) if player.group_id else None
    if group is not None and (not given or slugify(given) == group.slug):
        return str(group.name)
    return given


def _groups_named(session: Any, labels: set[str]) -> dict[str, Group]:
    """The groups that clubs given by name are (by their address: "SC Kiel" and
    "sc kiel" are one club); a name no group has stays a label."""
    slugs = {slugify(label): label for label in labels if label}
    if not slugs:
        return {}
    found = session.scalars(select(Group).where(Group.slug.in_(list(slugs))))
    return {slugs[g.slug]: g for g in found}


def _checked_name(name: str) -> str:
    try:
        return check_name(name, PERSON_LENGTH)
    except ValueError as exc:
        raise ResultsError(
            phrase("{name!r}: {problem}", name=str(name)[:60], problem=exc.args[0])
        ) from None


class Events:
    """Creating events, their players, and reading them."""

    def __init__(self, context: Context, players: Players) -> None:
        self.context = context
        self.players = players

    def create(
        self,
        actor: int,
        *,
        name: str,
        game: str,
        played_on: date,
        rounds: int,
        options: Mapping[str, Any] | None = None,
        place: str = "",
        group: str | None = None,
        online: bool = False,
        bots: bool = False,
        fixed_pairs: bool = False,
        days: Sequence[date] = (),
        pairing: str = "lot",
        tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
        check_in: bool = False,
        counted: int = 3,
        clubs_apart: str = "normal",
    ) -> dict[str, Any]:
        """A new event, organised by ``actor`` (the representative of ``group``, or an
        administrator without one); bad options are refused and nothing is stored.

        A championship over several ``days`` plays its rounds spread over them (the
        first days take one more when they do not divide evenly); ``pairing`` draws
        the rounds after the first by lot or by the standings (``swiss``);
        ``tiebreaks`` decide equal points (:data:`~pips.results.standings.TIEBREAKS`);
        with ``check_in`` only players checked in are drawn; a club's or team's
        standing is its best ``counted`` players' points; ``clubs_apart``: how
        strongly the draws keep club-mates apart (:data:`~pips.results.draws.CLUBS_APART`)."""
        name = " ".join(str(name).split())
        if not 2 <= len(name) <= 80:
            raise ResultsError(phrase("an event's name is 2 to 80 characters"))
        if len(place) > 80:
            raise ResultsError(phrase("a place is at most 80 characters"))
        if not 1 <= rounds <= MOST_ROUNDS:
            raise ResultsError(phrase("an event has 1 to {most} rounds", most=MOST_ROUNDS))
        try:
            spec = find_game(game)
        except RuleError as exc:
            raise ResultsError(exc.args[0]) from None
        chosen = {k: v for k, v in dict(options or {}).items() if k != "players"}
        try:
            # The one parse of the event's options: typed from here on.
            tables = TableOptions.parse(spec, chosen)
        except RuleError as exc:
            raise ResultsError(exc.args[0]) from None
        if online and any(spec.dealt_by_hand(typed) for typed in tables.sizes.values()):
            raise ResultsError(phrase("an online event's tables deal themselves: no manual deals"))
        if fixed_pairs and not spec.pairs:
            raise ResultsError(phrase("fixed partners are for a game of pairs"))
        if bots and not online:
            raise ResultsError(phrase("bots play only at an online event's tables"))
        schedule = spread_rounds(sorted(set(days)), rounds) if days else None
        if schedule is not None:
            played_on = date.fromisoformat(schedule[0])
            if len(set(days)) > rounds:
                raise ResultsError(phrase("more days than rounds"))
        for day in (played_on, *days):
            if day > self.context.today() + FAR_AHEAD or day < EARLIEST:
                raise ResultsError(
                    phrase("{value} is not a date for an event", value=day.isoformat())
                )
        if pairing not in PAIRINGS:
            raise ResultsError(phrase("pairing is one of {choices}", choices=", ".join(PAIRINGS)))
        if clubs_apart not in CLUBS_APART:
            raise ResultsError(
                phrase(
                    "keeping clubs apart is one of {choices}",
                    choices=", ".join(CLUBS_APART),
                )
            )
        if pairing == "swiss" and fixed_pairs:
            raise ResultsError(phrase("fixed partners are drawn by lot, not by standings"))
        try:
            chosen_breaks = check_tiebreaks(tiebreaks)
        except ValueError as exc:
            raise ResultsError(exc.args[0]) from None
        if not 1 <= counted <= 20:
            raise ResultsError(phrase("a club counts its best 1 to 20 players"))
        with self.context.db.session() as session, session.begin():
            group_row = group_named(session, group) if group else None
            need(session, actor, Action.ORGANISE, group_facts(group_row))
            row = Event(
                key=event_key(),
                name=name,
                game=spec.name,
                options=chosen,
                played_on=played_on,
                place=place.strip(),
                group_id=None if group_row is None else group_row.id,
                organiser_id=actor,
                rounds=rounds,
                scoring=str(scoring_of(spec)),
                online=online,
                bots=bots,
                fixed_pairs=fixed_pairs,
                schedule=schedule,
                pairing=pairing,
                tiebreaks=list(chosen_breaks),
                check_in=check_in,
                counted=counted,
                clubs_apart=clubs_apart,
            )
            session.add(row)
            session.flush()
            key = row.key
        return self.event(key, actor)

    def listing(self, viewer: int | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """Events, the latest first: what the events page lists. An event's key is its
        address, which nobody finds by counting (docs/events.md): it is listed only to
        those who act on the event (its organiser, an administrator, its players with
        an account); to anyone else ``None``."""
        with self.context.db.session() as session:
            rows = session.scalars(
                select(Event)
                .order_by(Event.played_on.desc(), Event.id.desc())
                .limit(limit)
                .options(selectinload(Event.players), selectinload(Event.drawn))
            )
            admin = is_admin(session, viewer)

            def acts(event: Event) -> bool:
                return viewer is not None and (
                    admin
                    or event.organiser_id == viewer
                    or any(p.user_id == viewer for p in event.players)
                )

            return [
                {
                    "key": e.key if acts(e) else None,
                    "name": e.name,
                    "game": e.game,
                    "date": e.played_on.isoformat(),
                    "place": e.place,
                    "players": len(e.players),
                    "rounds": e.rounds,
                    "drawn": len(e.drawn),
                    "online": e.online,
                    "status": e.status,
                }
                for e in rows
            ]

    # -- players -----------------------------------------------------------------------

    def add_players(
        self,
        actor: int,
        key: str,
        names: Sequence[str] = (),
        *,
        pairs: Sequence[Sequence[str]] = (),
        new_players: Iterable[str] = (),
        known_players: Mapping[str, int] | None = None,
        clubs: Mapping[str, str] | None = None,
        teams: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Add players (or, with fixed partners, pairs). Before the first round is drawn
        they play from round 1; later they are late arrivals, drawn from the next round.
        A name that resembles a known player of the group must be confirmed as new
        (:class:`~pips.results.players.UnknownPlayers`), as when entering a result.
        ``clubs`` and ``teams`` (by name) say whom a player plays for; a player's club
        is else the group they are a player of."""
        if fixed_pairs_given := bool(pairs):
            if names:
                raise ResultsError(phrase("give players or pairs, not both"))
            if any(len(pair) != 2 for pair in pairs):
                raise ResultsError(phrase("a pair is two players"))
        wanted = [_checked_name(n) for pair in pairs for n in pair] or [
            _checked_name(n) for n in names
        ]
        if not wanted:
            raise ResultsError(phrase("no players given"))
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            if event.fixed_pairs != fixed_pairs_given:
                raise ResultsError(
                    phrase("this event is played with fixed partners: add pairs")
                    if event.fixed_pairs
                    else phrase("this event's partners are drawn: add players one by one")
                )
            known = {p.name_key for p in event.players}
            keys = [name_key(n) for n in wanted]
            _no_look_alikes(event, wanted, clubs or {}, {name_key(n) for n in new_players})
            for name, folded in zip(wanted, keys, strict=True):
                if folded in known or keys.count(folded) > 1:
                    raise Conflict(phrase("{name} is already a player of this event", name=name))
            if len(known) + len(wanted) > MOST_PLAYERS:
                raise ResultsError(phrase("an event has at most {most} players", most=MOST_PLAYERS))
            given_clubs = {name_key(n): _label(c) for n, c in (clubs or {}).items()}
            groups = _groups_named(session, set(given_clubs.values()))
            manager = actor_facts(session, actor)
            seating = self.players.seat_names(
                session,
                event.organiser,
                event.group,
                wanted,
                list(new_players),
                known=known_players,
                clubs={k: groups[c] for k, c in given_clubs.items() if c in groups},
                # An online event's accounts each accept their seat themselves.
                accounts_consent=event.online,
                speaks_for=manager.represents
                if not manager.admin
                else {g.id for g in groups.values()},
            )
            first = len(event.drawn) + 1
            pair_number = max((p.pair or 0 for p in event.players), default=0)
            given_teams = {name_key(n): t for n, t in (teams or {}).items()}
            for index, (name, folded) in enumerate(zip(wanted, keys, strict=True)):
                player = seating.players[folded]
                if event.online and player.user_id is None:
                    raise ResultsError(
                        phrase(
                            "{name} has no account: an online event's players sit at the "
                            "server's tables with their accounts",
                            name=name,
                        )
                    )
                event.players.append(
                    EventPlayer(
                        name=name,
                        name_key=folded,
                        player_id=player.id,
                        user_id=player.user_id,
                        # An account accepts for itself: the one adding it here.
                        accepted=player.user_id is not None and player.user_id == actor,
                        first_round=first,
                        pair=pair_number + 1 + index // 2 if event.fixed_pairs else None,
                        club=_club_of(session, player, given_clubs.get(folded, "")),
                        team=_label(given_teams.get(folded)),
                    )
                )
        return self.event(key, actor)

    def withdraw_player(self, actor: int, key: str, player: int) -> dict[str, Any]:
        """A player leaves: not drawn from the next round on; their games so far stay.
        With fixed partners the pair leaves together."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            leaving = _player_of(event, player)
            if leaving.withdrawn_from is not None:
                raise Conflict(phrase("{name} has already withdrawn", name=leaving.name))
            for p in event.players:
                if p is leaving or (leaving.pair is not None and p.pair == leaving.pair):
                    p.withdrawn_from = len(event.drawn) + 1
        return self.event(key, actor)

    def remove_player(self, actor: int, key: str, player: int) -> dict[str, Any]:
        """Take back a player added by mistake (a name typed twice, the wrong person):
        only while no round has drawn them, seated or sitting out; a player who has
        been drawn withdraws instead, and their games stay. With fixed partners the
        pair goes together."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            going = _player_of(event, player)
            leaving = [
                p
                for p in event.players
                if p is going or (going.pair is not None and p.pair == going.pair)
            ]
            drawn = {
                name_key(name)
                for one in event.drawn
                for name in [*(n for t in one.tables for n in t.seats), *one.byes]
            }
            for p in leaving:
                if p.name_key in drawn:
                    raise Conflict(
                        phrase(
                            "{name} has been drawn: withdraw them instead (their games stay)",
                            name=p.name,
                        )
                    )
            for p in leaving:
                event.players.remove(p)
        return self.event(key, actor)

    def seed(self, actor: int, key: str, order: Sequence[str] | None = None) -> dict[str, Any]:
        """Seed the players (1 the strongest): in ``order`` as given (names; the rest
        unseeded), or without it by the newest world list of the event's game (players
        on no list unseeded). The top seeds sit at different tables in the first
        round; before it is drawn, seeds may change."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            if event.drawn:
                raise Conflict(phrase("the first round is drawn: seeds no longer change"))
            by_key = {p.name_key: p for p in event.players}
            if order is None:
                ranked = by_world_list(session, event)
            else:
                ranked = []
                for name in order:
                    found = by_key.get(name_key(name))
                    if found is None:
                        raise NotFound(phrase("{name} is not a player of this event", name=name))
                    ranked.append(found)
            for p in event.players:
                p.seed = None
            for number, p in enumerate(dict.fromkeys(ranked), 1):
                p.seed = number
        return self.event(key, actor)

    def check_in(self, actor: int, key: str, player: int, present: bool = True) -> dict[str, Any]:
        """Mark a player here (or not): an event with a check-in draws only players
        checked in."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            need_manager(session, event, actor)
            found = _player_of(event, player)
            found.checked_in = present
            seated = any(
                found.name_key == name_key(n)
                for one in event.drawn
                for t in one.tables
                for n in t.seats
            ) or any(found.name_key == name_key(n) for one in event.drawn for n in one.byes)
            if present and event.check_in and not seated and found.first_round <= len(event.drawn):
                # Checked in after rounds were drawn without them: a late arrival,
                # played (and marked) from the next round, as one added late is; a
                # round drawn but not begun can be drawn again to seat them.
                found.first_round = len(event.drawn) + 1
        return self.event(key, actor)

    def accept(self, actor: int, key: str, player: int) -> dict[str, Any]:
        """The account ``actor`` accepts to play the event as its player ``player``: an
        online event seats only accounts that accepted (nobody accepts for another
        account, the organiser neither)."""
        with self.context.db.session() as session, session.begin():
            event = open_event(session, key)
            found = next((p for p in event.players if p.id == player), None)
            if found is None or found.user_id != actor:
                # Another account's player is not the actor's to accept: not found, as
                # for a player the event does not have.
                raise NotFound(phrase("no player {number} in this event", number=player))
            found.accepted = True
        return self.event(key, actor)

    # -- reading -----------------------------------------------------------------------

    def event(self, key: str, viewer: int | None = None) -> dict[str, Any]:
        """The event as its page and the API show it: players, rounds, tables with
        their results, and the standings so far."""
        self._sync_online(key)
        with self.context.db.session() as session:
            return event_json(session, find_event(session, key), viewer)

    def _sync_online(self, key: str) -> None:
        """Close an online event's round whose games are over, before it is shown. Only
        an online event's rounds close by themselves: an event is read once more for
        it, not twice for every event."""
        with self.context.db.session() as session, session.begin():
            if session.scalar(select(Event.online).where(Event.key == str(key)[:24])):
                sync_online(session, find_event(session, key), self.context.clock())

    def event_standings(self, key: str) -> tuple[dict[str, Any], list[Standing]]:
        """The event (without the viewer's rights) and its standings, for exports."""
        self._sync_online(key)
        with self.context.db.session() as session:
            return event_and_standings(session, find_event(session, key))


def event_key() -> str:
    """A new event's key: 72 random bits, URL-safe, never starting with ``-`` or ``_``,
    which a command line would take for an option (``pips event players -jX3…``)."""
    while True:
        key = secrets.token_urlsafe(9)
        if key[0].isalnum():
            return key


def by_world_list(session: Any, event: Event) -> list[EventPlayer]:
    """The event's players on the newest world list of its game, the best first;
    :class:`Conflict` (nothing seeded) when there is no list, or none of them is on it."""
    newest = session.scalars(
        select(WorldList)
        .where(WorldList.game == event.game)
        .order_by(WorldList.month.desc())
        .limit(1)
    ).first()
    if newest is None:
        # Seeding "by the list" with no list would seed nobody: said, not done.
        raise Conflict(
            phrase("there is no world list of this game yet: give the seeds' order instead")
        )
    places = dict(
        session.execute(
            select(WorldListRow.player_id, WorldListRow.place).where(
                WorldListRow.list_id == newest.id, WorldListRow.player_id.is_not(None)
            )
        ).all()
    )
    listed = [p for p in event.players if p.player_id in places]
    if not listed:
        raise Conflict(
            phrase(
                "no player of this event is on the world list of {month}: give the "
                "seeds' order instead",
                month=newest.month,
            )
        )
    return sorted(listed, key=lambda p: places[p.player_id])
