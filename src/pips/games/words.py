"""Phrases the games' explanations share (the words of a finished hand)."""

from __future__ import annotations

from collections.abc import Sequence

from pips.core.outcome import Ending, HandResult
from pips.core.phrase import N_, Phrase, personal, phrase

WENT_OUT = personal("{who} went out", "who", N_("{who} went out"), N_("You went out"))
WINNER_TAKES = personal(
    "{how}; {who} scores {points} = {terms}: every opponent's pips ({rule}).",
    "who",
    N_("{how}; {who} scores {points} = {terms}: every opponent's pips ({rule})."),
    N_("{how}; you score {points} = {terms}: every opponent's pips ({rule})."),
)


def how_it_ended(result: HandResult, names: Sequence[str]) -> str:
    """``Ann went out`` or ``the hand was blocked``."""
    if result.ended is Ending.OUT and result.out is not None:
        return Phrase(WENT_OUT, {"who": names[result.out]})
    return phrase("the hand was blocked")


def nobody_scores(how: str, rule: str) -> str:
    """A blocked hand whose fewest pips are shared (FA-09, DB-11, PT-12)."""
    return phrase(
        "{how}; the fewest pips are shared, so nobody scores ({rule}).", how=how, rule=rule
    )


def winner_takes(how: str, result: HandResult, names: Sequence[str], winner: int, rule: str) -> str:
    """The winner earns every opponent's pips (DB-10 to DB-12, DR-10)."""
    pips = result.pips
    terms = " + ".join(str(pips[s]) for s in range(len(pips)) if s != winner)
    gained = result.points[winner]
    return Phrase(
        WINNER_TAKES,
        {"how": how, "who": names[winner], "points": gained, "terms": terms, "rule": rule},
    )
