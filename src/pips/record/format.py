"""The record format's name and its one error: what every part of reading and writing
records shares."""

from __future__ import annotations

from pips.core.phrase import Phrase, joined, phrase

FORMAT = "pips.record/1"


class RecordError(ValueError):
    """A record that cannot be read or does not replay.

    ``hand`` and ``move`` count from 1; ``move`` is 0 for a problem outside the moves.
    """

    def __init__(
        self,
        message: str,
        *,
        hand: int | None = None,
        move: int | None = None,
        rule: str | None = None,
    ) -> None:
        # Phrases all through, so that an edge can say the error in its reader's language.
        where: list[str] = []
        if hand is not None:
            where.append(phrase("hand {number}", number=hand))
        if move:
            where.append(phrase("move {number}", number=move))
        text: str = message
        if rule and not message.startswith(f"{rule}:"):
            text = Phrase("{rule}: {words}", {"rule": rule, "words": message})
        if where:
            text = Phrase("{where}: {text}", {"where": joined(where), "text": text})
        super().__init__(text)
        self.hand = hand
        self.move = move
        self.rule = rule
