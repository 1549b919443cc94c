"""Who may speak for whom: one model of authority over results, players, groups, claims
and events (issue 49; docs/results.md, "Who may do what").

Every route and command that changes a result, a player's group, a claim or an event
asks :func:`decide` (through :mod:`pips.results.facts`, which reads the facts from the
database); none decides alone. This module is pure: typed facts in, a
:class:`Allowed` or a :class:`Refused` with the rule in words out.

The principle is the trust model's (:mod:`pips.results.trust`): accounts are free, so
nothing counts because accounts vouch for each other. A word covers:

- an administrator's: everything;
- an account's: its own line (the seat of its player), and what it entered itself;
- an **approved** group's representative's: the seats of the group's players (made
  there by the group's own side, or agreed by its representative) and of its members;
- an unapproved group's representative's: nothing beyond its members' own accounts,
  except the results entered for the group (which its members entered, each a game
  they played: only an approved group's representative enters others' games).

Nobody changes, withdraws or takes over a result their word does not already cover;
an event takes over only results its organiser's word covers, never another event's;
nobody decides their own claim.

    >>> kiel = Actor(1, approved=frozenset({7}), represents=frozenset({7}))
    >>> guest = SeatTrust(account=9)
    >>> member = SeatTrust(account=None, groups=frozenset({7}))
    >>> bool(decide(kiel, Action.CONFIRM, ResultFacts((member, guest))))
    True
    >>> bool(decide(kiel, Action.WITHDRAW, ResultFacts((member, guest), entered_by=9)))
    False
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pips.core.phrase import N_


class Action(StrEnum):
    """What an account may ask to do."""

    ENTER = "enter"
    """Enter a result (target: :class:`EntryFacts`)."""
    CONFIRM = "confirm"
    """Give one's word on a result (:class:`ResultFacts`)."""
    DISPUTE = "dispute"
    RESOLVE = "resolve"
    """Take back one's own dispute."""
    REJECT = "reject"
    """Reject a dispute: the result stands, and the decider's word confirms it."""
    UPHOLD = "uphold"
    """Uphold a dispute: the result is withdrawn."""
    WITHDRAW = "withdraw"
    CLEAR = "clear"
    """Let a result held by an anomaly count."""
    CORRECT = "correct"
    """Enter or correct an event table's result (:class:`TableFacts`)."""
    TAKE_OVER = "take-over"
    """An event's close withdraws a result of the same game (:class:`TakeOver`)."""
    ADD_TO_GROUP = "add-to-group"
    """Agree that a player or an account is a group's (:class:`GroupFacts`)."""
    CLAIM = "claim"
    """Ask to be a player (no target)."""
    DECIDE_CLAIM = "decide-claim"
    """Approve or refuse an account's claim of a player (:class:`ClaimFacts`)."""
    VOUCH = "vouch"
    """Whose word makes a seat count for the world list (:class:`SeatTrust`)."""
    ORGANISE = "organise"
    """Create an event (:class:`GroupFacts` of its group, or ``None``)."""
    RUN_EVENT = "run-event"
    """Players, draws, rounds and the close of an event (:class:`EventFacts`)."""
    SANCTION = "sanction"
    """Sanction an event: its tables then count whoever plays (:class:`EventFacts`)."""
    MERGE = "merge"
    """Merge two players who are one person (no target)."""
    FOUND = "found"
    """Found a group, becoming its representative (no target)."""
    HAND_OVER = "hand-over"
    """Hand a group's representative's role to another account (:class:`HandOver`)."""
    APPROVE = "approve"
    """Approve a group, or take its approval back (:class:`GroupFacts`)."""


RULES: dict[Action, str] = {
    Action.ENTER: N_(
        "an account that played in the game; for a group, a member who played or, for "
        "an approved group, its representative; never a bot account"
    ),
    Action.CONFIRM: N_(
        "the account of one of the game's players (for their own line), the "
        "representative of an approved group one of its players belongs to (for the "
        "group's players), or an administrator"
    ),
    Action.DISPUTE: N_("the account of one of the game's players, not for a server game"),
    Action.RESOLVE: N_("whoever disputed"),
    Action.REJECT: N_(
        "an administrator, or the representative of an approved group one of its players "
        "belongs to who neither entered nor played the game"
    ),
    Action.UPHOLD: N_(
        "an administrator, or a representative whose word covers the whole result (as "
        "for a withdrawal) who neither entered nor played the game"
    ),
    Action.WITHDRAW: N_(
        "whoever entered it, the representative of the group it was entered for, the "
        "representative of an approved group every player belongs to, or an "
        "administrator; a server game only an administrator"
    ),
    Action.CLEAR: N_("an administrator"),
    Action.CORRECT: N_(
        "the organiser or an administrator; a player of the table while its round is "
        "open; nobody once the event is closed"
    ),
    Action.TAKE_OVER: N_(
        "the close of an event whose organiser's word covers the result (entered by the "
        "organiser, every player of the organiser's approved group, an administrator's "
        "or a sanctioned event); never another event's result or a server game"
    ),
    Action.ADD_TO_GROUP: N_("the group's representative, or an administrator"),
    Action.CLAIM: N_("any account that is not a bot account"),
    Action.DECIDE_CLAIM: N_(
        "the representative of the player's group when the group is approved and "
        "answered for the player before the claim; else an administrator; never the "
        "claimant"
    ),
    Action.VOUCH: N_(
        "an administrator, or the representative of an approved group the seat's player belongs to"
    ),
    Action.ORGANISE: N_(
        "the group's representative (for the group); without a group, an administrator"
    ),
    Action.RUN_EVENT: N_("the event's organiser, or an administrator"),
    Action.SANCTION: N_("an administrator"),
    Action.MERGE: N_("an administrator"),
    Action.FOUND: N_(
        "any account that represents fewer than 3 groups not yet approved (a group speaks "
        "for nobody until an administrator approves it)"
    ),
    Action.HAND_OVER: N_(
        "the group's representative, or an administrator, to a member of the group (who accepted)"
    ),
    Action.APPROVE: N_("an administrator"),
}
"""Who may do what, in words: what docs/results.md's table says (a test holds the two
together) and what a refusal answers."""


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: an account, whether it is an administrator, the groups it
    represents (``approved``: those an administrator approved) and is a member of."""

    id: int
    admin: bool = False
    approved: frozenset[int] = frozenset()
    represents: frozenset[int] = frozenset()
    """Every group it represents, approved or not (``approved`` is a part of it)."""
    member_of: frozenset[int] = frozenset()
    bot: bool = False
    """A bot account (docs/bots-api.md): it plays only at the server's tables, never
    enters a result by hand nor claims a player, so that it reaches no result the
    world list would count (a bot is rated among bots)."""


@dataclass(frozen=True, slots=True)
class SeatTrust:
    """One seat of a result: its player's account, and the groups whose players or
    members the player is by both sides' word (a group that only proposed the player,
    its representative not yet agreeing, is not among them)."""

    account: int | None = None
    groups: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class GroupFacts:
    id: int
    representative: int
    approved: bool = False


@dataclass(frozen=True, slots=True)
class EventFacts:
    """An event as authority sees it: its organiser, the group it is for (if its
    organiser still represents it, approved or not), and whether an administrator
    organised or sanctioned it."""

    id: int
    organiser: int
    group: GroupFacts | None = None
    organiser_admin: bool = False
    sanctioned: bool = False
    closed: bool = False

    @property
    def vouches_for_all(self) -> bool:
        """An administrator's word stands behind every seat of its tables."""
        return self.organiser_admin or self.sanctioned

    @property
    def vouching_groups(self) -> frozenset[int]:
        """The groups whose players' seats the event's word covers."""
        group = self.group
        if group is None or not group.approved or group.representative != self.organiser:
            return frozenset()
        return frozenset({group.id})


@dataclass(frozen=True, slots=True)
class ResultFacts:
    """A stored result: its seats, who entered it and for which group, the event it
    was played at, whether the server played it, and its open disputes."""

    seats: tuple[SeatTrust, ...]
    entered_by: int | None = None
    group: GroupFacts | None = None
    event: int | None = None
    server: bool = False
    disputers: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class EntryFacts:
    """A result about to be entered: whether the actor is one of its names, and the
    group it is entered for with the actor's membership."""

    played: bool
    group: GroupFacts | None = None
    member: bool = False


@dataclass(frozen=True, slots=True)
class TableFacts:
    event: EventFacts
    accounts: frozenset[int]
    """The accounts of the table's players."""
    round_closed: bool = False


@dataclass(frozen=True, slots=True)
class TakeOver:
    event: EventFacts
    result: ResultFacts


@dataclass(frozen=True, slots=True)
class HandOver:
    """A group's representative's role handed to the account ``to``, a member of the
    group (both sides agreed) or not."""

    group: GroupFacts
    to: int
    member: bool


@dataclass(frozen=True, slots=True)
class ClaimFacts:
    """A waiting claim: who claims, the player's group, and when the group's side
    answered for the player (``None``: it never agreed, only another proposed it)."""

    claimant: int
    claimed_at: datetime
    group: GroupFacts | None = None
    agreed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Allowed:
    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class Refused:
    """Not allowed; ``reason`` says who may (a rule of :data:`RULES`) or, ``whole``,
    why not in a sentence of its own (English, marked for translation)."""

    reason: str
    whole: bool = False

    def __bool__(self) -> bool:
        return False


Decision = Allowed | Refused
Target = (
    ResultFacts
    | EntryFacts
    | TableFacts
    | TakeOver
    | GroupFacts
    | ClaimFacts
    | HandOver
    | EventFacts
    | SeatTrust
    | None
)

ALLOWED = Allowed()
OWN_CLAIM = N_("nobody decides their own claim")
BOT = N_(
    "a bot account plays only at the server's tables: it enters no result and claims no "
    "player (bots are rated among bots)"
)
SERVER_GAME = N_("a game played on the server is not disputed: the server saw every move")
CLOSED = N_("the event is closed: its games are results now (withdraw or dispute them there)")
ANOTHER_EVENT = N_("the result is another event's")
MOST_UNAPPROVED = 3
"""Groups not yet approved that one account may represent at once: founding is free,
but an administrator's list of groups to approve is not a place to flood."""


def vouches(actor: Actor, seat: SeatTrust) -> bool:
    """Whether ``actor``'s word makes ``seat`` count: an administrator's, or an
    approved group's representative's for the group's players and members."""
    return actor.admin or bool(seat.groups & actor.approved)


def speaks_for(actor: Actor, seat: SeatTrust) -> bool:
    """Whether ``actor``'s word says anything of ``seat``: it vouches for it, or the
    seat is the actor's own."""
    return vouches(actor, seat) or (seat.account is not None and seat.account == actor.id)


def covers(actor: Actor, result: ResultFacts) -> bool:
    """Whether ``actor``'s word already covers the whole result: an administrator's,
    its enterer's, the representative's of the group it was entered for, or one that
    speaks for every seat (never a server game, which only an administrator's word
    covers)."""
    if actor.admin:
        return True
    if result.server:
        return False
    if result.entered_by == actor.id:
        return True
    if result.group is not None and result.group.representative == actor.id:
        return True
    return bool(result.seats) and all(speaks_for(actor, s) for s in result.seats)


def event_covers(event: EventFacts, result: ResultFacts) -> bool:
    """Whether an event's word covers ``result`` (its organiser's, as the close
    speaks it): an administrator's or a sanctioned event's, a result its organiser
    entered, or every seat a player of the event's approved group or the organiser's
    own. Another event's result and a server game never."""
    if result.event is not None or result.server:
        return False
    if result.entered_by == event.organiser:
        return True
    return event_vouches(event, result.seats)


def event_vouches(event: EventFacts, seats: tuple[SeatTrust, ...]) -> bool:
    """Whether an event's word stands behind every one of ``seats``: an
    administrator's or a sanctioned event's, or each seat a player of the event's
    approved group or the organiser's own."""
    if event.vouches_for_all:
        return True
    groups = event.vouching_groups
    return bool(seats) and all(s.groups & groups or s.account == event.organiser for s in seats)


def stands(result: ResultFacts, counts: bool, its_event: EventFacts | None) -> bool:
    """Whether ``result``, a copy of an event table's game that the closing event's
    word does not cover (so the close may not withdraw it), stays the copy that
    counts; else it gives way to the event's own result (kept, never counting). It
    stays when it counts already (a word strong enough stood behind it: an
    administrator's or approved groups') or when it is another event's whose own word
    vouches for it; a copy anyone may enter or withdraw (a player's, an unapproved
    group's, an event nobody vouches for) never keeps the event's result from counting."""
    if counts:
        return True
    return its_event is not None and event_vouches(its_event, result.seats)


def decide(actor: Actor, action: Action, target: Target = None) -> Decision:
    """Whether ``actor`` may do ``action`` to ``target`` (see :data:`RULES`)."""
    rule = RULES[action]
    match action, target:
        case Action.ENTER | Action.CLAIM, _ if actor.bot:
            return Refused(BOT, whole=True)
        case Action.ENTER, EntryFacts() as entry:
            if entry.group is None:
                ok = entry.played
            else:
                # Entering others' games is a word for them: an approved group's
                # (a free, unapproved group would plant games on strangers' histories).
                speaks = entry.group.approved and entry.group.representative == actor.id
                ok = entry.member and (entry.played or speaks)
        case Action.CONFIRM, ResultFacts() as result:
            ok = actor.admin or any(speaks_for(actor, s) for s in result.seats)
        case Action.DISPUTE, ResultFacts() as result:
            if result.server:
                return Refused(SERVER_GAME, whole=True)
            ok = any(s.account == actor.id for s in result.seats)
        case Action.RESOLVE, ResultFacts() as result:
            ok = actor.id in result.disputers
        case Action.REJECT | Action.UPHOLD, ResultFacts() as result:
            played = any(s.account == actor.id for s in result.seats)
            if action == Action.UPHOLD:
                represents = covers(actor, result)
            else:
                represents = any(s.groups & actor.approved for s in result.seats) or (
                    result.group is not None
                    and result.group.approved
                    and result.group.representative == actor.id
                )
            ok = actor.admin or (represents and not played and result.entered_by != actor.id)
        case Action.WITHDRAW, ResultFacts() as result:
            ok = covers(actor, result)
        case Action.CORRECT, TableFacts() as table:
            if table.event.closed:
                return Refused(CLOSED, whole=True)
            manager = actor.admin or table.event.organiser == actor.id
            ok = manager or (actor.id in table.accounts and not table.round_closed)
        case Action.TAKE_OVER, TakeOver() as taking:
            if taking.result.event is not None:
                return Refused(ANOTHER_EVENT, whole=True)
            closer = actor.admin or actor.id == taking.event.organiser
            ok = closer and event_covers(taking.event, taking.result)
        case Action.ADD_TO_GROUP, GroupFacts() as group:
            ok = actor.admin or group.representative == actor.id
        case Action.ORGANISE, GroupFacts() as group:
            ok = group.representative == actor.id
        case Action.CLAIM, None:
            ok = True
        case Action.ORGANISE, None:
            ok = actor.admin
        case Action.DECIDE_CLAIM, ClaimFacts() as claim:
            if claim.claimant == actor.id:
                return Refused(OWN_CLAIM, whole=True)
            ok = actor.admin or (actor.id == claim_decider(claim))
        case Action.VOUCH, SeatTrust() as seat:
            ok = vouches(actor, seat)
        case Action.RUN_EVENT, EventFacts() as event:
            ok = actor.admin or event.organiser == actor.id
        case Action.FOUND, None:
            ok = actor.admin or len(actor.represents - actor.approved) < MOST_UNAPPROVED
        case Action.HAND_OVER, HandOver() as handing:
            # The role is the group's word: handed only by the one who holds it (or an
            # administrator, for a club whose representative is gone) and only to an
            # account that agreed to be the group's member; nobody is made a club's
            # voice unasked, nor takes the role.
            holder = actor.admin or handing.group.representative == actor.id
            ok = holder and handing.member
        case Action.APPROVE, GroupFacts():
            ok = actor.admin
        case Action.CLEAR | Action.SANCTION | Action.MERGE, _:
            ok = actor.admin
        case _:
            raise TypeError(f"{action} does not apply to {type(target).__name__}")
    return ALLOWED if ok else Refused(rule)


def claim_decider(claim: ClaimFacts) -> int | None:
    """The representative who decides ``claim`` (``None``: an administrator): the
    player's group's, when the group is approved and its side answered for the player
    before the claim was made. A player of no group, of an unapproved group, or
    newly assigned (proposed by another and not yet agreed, or agreed only after the
    claim) is an administrator's to decide."""
    group = claim.group
    if group is None or not group.approved or claim.agreed_at is None:
        return None
    if claim.agreed_at > claim.claimed_at:
        return None
    return group.representative
