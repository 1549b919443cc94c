"""What the API answers about entered results and players as people: the register's
results, what waits on an account, bulk decisions, players and their claims."""

from __future__ import annotations

from pydantic import Field

from pips.server.responses import Told


class GroupOfResult(Told):
    name: str
    slug: str
    approved: bool


class SeatOfResult(Told):
    """A player's line of a stored result."""

    seat: int = Field(description="1-based.")
    name: str
    player: int | None = Field(description="The player's id.")
    account: bool = Field(description="The player is an account's.")
    confirmed: bool
    team: int
    points: int
    pips: int
    out: bool
    final: int
    rank: int


class ReviewOfResult(Told):
    by: str
    action: str
    comment: str
    at: str


class HoldOfResult(Told):
    """A hold of a result, open or lifted."""

    reason: str
    held_at: str
    lifted_at: str | None
    lifted_because: str | None


class StoredResult(Told):
    """A result as the register shows it: whether it counts, and why not."""

    id: int
    game: str
    title: str
    date: str = Field(description="YYYY-MM-DD")
    place: str
    set: int
    divisor: int | None
    target: int | None
    group: GroupOfResult | None
    source: str
    table: str | None
    event: int | None
    entered_by: str | None
    entered_at: str
    status: str
    confirmed_by: str | None
    rated: bool
    unrated: str | None
    held: str | None = Field(description="Why it is held; null: not held.")
    counts: bool
    why_not: str | None = Field(description="Why it does not count; null: it counts.")
    can_confirm: list[str]
    waiting_for: list[str]
    late: bool
    counts_in: str | None = Field(description="The month whose list it counts in.")
    players: list[SeatOfResult]
    reviews: list[ReviewOfResult]


class ResultShown(StoredResult):
    """One result, with the history of its holds."""

    holds: list[HoldOfResult]


class ResultsPage(Told):
    """One page of results, and how many match in all."""

    total: int
    results: list[StoredResult]


class ResultWaiting(Told):
    """A result that waits on the asker to count, and why."""

    id: int
    game: str
    date: str
    entered_at: str
    days: int
    players: list[str]
    status: str
    why: str


class ResultToConfirm(Told):
    id: int
    date: str
    players: list[str]
    counts: bool


class ResultsConfirmed(Told):
    """Results confirmed in one step (or, without ``save``, what would be)."""

    results: list[ResultToConfirm]
    confirmed: int
    counting: int
    players: list[str] = Field(description="Players agreed to be the group's first.")
    saved: bool


class ResultToDecide(Told):
    id: int
    date: str
    players: list[str]
    status: str
    counts: bool


class ResultsDecided(Told):
    """Results decided in one step (or, without ``save``, what would become of them)."""

    action: str
    results: list[ResultToDecide]
    decided: int
    saved: bool


class GroupOfPlayer(Told):
    name: str
    slug: str
    agreed: bool = Field(description="The group's representative agreed.")


class PlayerShown(Told):
    """A player: its group, account and waiting claims."""

    id: int
    name: str
    group: GroupOfPlayer | None
    account: str | None
    claimed_by: str | None
    claims: list[str]
    results: int | None = Field(description="How many results; null in lists.")


class ClaimDecided(Told):
    player: int
    name: str
    claimant: str | None
    approved: bool
    merged: list[str] = Field(description="The claimant's other players merged into it.")


class ClaimsDecided(Told):
    """Claims decided in one step (or, without ``save``, what would be)."""

    approved: bool
    claims: list[ClaimDecided]
    decided: int
    saved: bool


class DisputeWaiting(Told):
    id: int
    game: str
    date: str
    reason: str


class HoldCause(Told):
    player: int | None
    name: str | None
    day: str
    kind: str
    reason: str


class HeldResult(Told):
    id: int
    game: str
    date: str
    flag: str
    held_at: str
    causes: list[HoldCause]


class GroupAsking(Told):
    name: str
    slug: str
    representative: str
    asked: str | None = Field(description="When approval was asked; null: not yet.")


class ClaimWaiting(PlayerShown):
    """A claimed player, and the claims of it the asker decides."""

    waiting_days: int
    decides: list[str]


class AdminWaiting(Told):
    """What waits for an administrator."""

    disputed: list[DisputeWaiting]
    held: list[HeldResult]
    groups: list[GroupAsking]
    claims: list[ClaimWaiting]
