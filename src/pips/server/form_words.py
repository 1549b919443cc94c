"""The words a form shows for a game's options and their values (issue 51): the options'
own names are codes ("mother theresa", "draw_until_playable"), fine for a command line,
not for a person choosing a table."""

from __future__ import annotations

from pips.core.phrase import N_

FORM_WORDS: dict[str, str] = {
    "players": N_("Players"),
    "set": N_("Set"),
    "direction": N_("Direction of play"),
    "mother theresa": N_("Mother Theresa rule"),
    "doubles inline": N_("Doubles in line"),
    "deal mode": N_("Deal"),
    "target": N_("Play to"),
    "doubles branch": N_("Doubles branch"),
    "match scoring": N_("Score as a match"),
    "hand size": N_("Tiles each"),
    "set rule": N_("First tile"),
    "spinner": N_("Spinner"),
    "draw rule": N_("Drawing"),
    "teams": N_("Partners"),
    "block points": N_("A blocked hand scores"),
    "false knock": N_("A false knock"),
    "allow hand sorting": N_("Hands may be sorted"),
    "clockwise": N_("clockwise"),
    "counter-clockwise": N_("counter-clockwise"),
    "never": N_("never"),
    "optional": N_("by choice"),
    "always": N_("always"),
    "automatic": N_("automatic"),
    "highest_double": N_("the highest double"),
    "double_six": N_("the 6-6"),
    "set_double": N_("the set double"),
    "none": N_("none"),
    "draw_until_playable": N_("draw until a tile fits"),
    "no_draw": N_("no drawing"),
    "lot": N_("by lot"),
    "fixed": N_("as seated"),
    "all_hands": N_("all four hands"),
    "losers_only": N_("the losers' hands"),
    "prevent": N_("is refused"),
    "penalize": N_("is penalised"),
}


def form_word(code: object) -> str:
    """What a form says for an option's name or value (:data:`FORM_WORDS`), in English;
    a value it does not know (a number) as it is."""
    return FORM_WORDS.get(code, str(code)) if isinstance(code, str) else str(code)
