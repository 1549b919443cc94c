"""Moves as text, relative to the position (like SAN in chess).

A play is written as its tile, touching half first (``9-12``: the 9 goes against an
open 9), with only as much more as the position needs to tell it from the other legal
moves: ``side`` or ``end`` for the kind of place, ``across`` or ``in line`` for a double
that may lie either way (F-23). Places of equal value and kind lead to the same position
for every rule (F-04), so they need no name: the oldest is taken. A draw is ``draw`` (``draw 5-1``
where the tile is known, as at a real table), a pass ``pass`` (``knock`` is read too),
and a misdeal ``misdeal 2 return 6-6 draw 5-1 4-0`` (F-24).

Reading takes the same words, a tile in either order (``12-9`` fits a 9 or a 12), or
the number of a listed move (from 1). Every client (the terminal, the line-by-line
client, ``pips enter``, replays) reads and writes moves here.

    >>> from pips.core.legal import LegalMoves
    >>> nine = Tile.of(12, 9)
    >>> legal = LegalMoves([Play(nine, 9, At.END, 3), Play(nine, 9, At.SIDE, 5)])
    >>> [move_text(m, legal) for m in legal]
    ['9-12 end', '9-12 side']
    >>> read_move("12-9 side", legal)
    Play(tile=Tile(12-9), touching=9, at=<At.SIDE: 'side'>, end=5, inline=False)
"""

from __future__ import annotations

from collections.abc import Sequence

from pips.core.moves import At, Draw, Misdeal, Move, Pass, Play
from pips.core.phrase import phrase
from pips.core.tiles import Tile

PASS_WORDS = frozenset({"pass", "knock", "passes", "knocks"})
"""Words for passing the turn (C-08); the partnership game calls it knocking (PT-07)."""


class NotationError(ValueError):
    """Text that names no legal move, or more than one; the message says which, as a
    :class:`~pips.core.phrase.Phrase` an edge says in the reader's language
    (:func:`pips.i18n.explain`)."""


def move_text(move: Move, legal: Sequence[Move] = ()) -> str:
    """``move`` as text, as short as the other moves in ``legal`` allow."""
    if isinstance(move, Play):
        tile = f"{move.touching}-{move.free}"
        rivals = {
            (m.touching, m.at, m.inline)
            for m in legal
            if isinstance(m, Play) and m.tile == move.tile
        }
        if len(rivals) <= 1:
            return tile
        same_way = {(at, inline) for touching, at, inline in rivals if touching == move.touching}
        words = []
        if len({at for at, _ in same_way}) > 1:
            words.append(move.at.value)
        if len({inline for _, inline in same_way}) > 1:
            words.append("in line" if move.inline else "across")  # F-23
        return " ".join([tile, *words])
    if isinstance(move, Draw):
        return "draw" if move.tile is None else f"draw {move.tile}"
    if isinstance(move, Pass):
        return "pass"
    parts = [f"misdeal {move.seat}"]
    if move.returned:
        parts.append("return " + " ".join(map(str, move.returned)))
    if move.drawn:
        parts.append("draw " + " ".join(map(str, move.drawn)))
    return " ".join(parts)


def read_move(text: str, legal: Sequence[Move], names: Sequence[str] = ()) -> Move:
    """The move ``text`` names in a position whose legal moves are ``legal``.

    A listed move is returned as listed. ``draw 5-1`` and a pass or knock are returned
    as written even when not listed (the rules decide: a draw naming its tile at a real
    table, F-24; a false knock penalized under PT-08). ``names`` lets a misdeal name its
    seat by player. :class:`NotationError` when the text names no move or several.
    """
    words = text.strip().lower().split()
    if not words:
        raise NotationError(phrase("type a move"))
    head = words[0]
    # ASCII digits only: isdigit is true for "²", which int refuses.
    if head.isascii() and head.isdigit() and len(words) == 1:
        number = int(head)
        if not 1 <= number <= len(legal):
            raise NotationError(
                phrase(
                    "there is no move {number}: choose 1 to {last}", number=number, last=len(legal)
                )
            )
        return legal[number - 1]
    if head in PASS_WORDS and len(words) == 1:
        return next((m for m in legal if isinstance(m, Pass)), Pass())
    if head in ("draw", "draws"):
        if len(words) == 1:
            return next((m for m in legal if isinstance(m, Draw)), Draw())
        if len(words) != 2:
            raise NotationError(phrase("write the tile drawn: draw 5-1"))
        return Draw(_tile(words[1]))
    if head == "misdeal":
        return _misdeal(words[1:], names)
    return _play(head, words[1:], legal)


def read_tile(word: str) -> Tile:
    """A tile as written (``12-9``, ``9-12``, ``12/9``); :class:`NotationError` if not."""
    return _tile(word)


def _tile(word: str) -> Tile:
    try:
        return Tile.parse(word)
    except ValueError as exc:
        raise NotationError(*exc.args) from None  # a phrase (Tile.parse)


def _play(written: str, words: list[str], legal: Sequence[Move]) -> Play:
    tile = _tile(written)
    fits = [m for m in legal if isinstance(m, Play) and m.tile == tile]
    if not fits:
        raise NotationError(phrase("{tile} cannot be played now", tile=tile))
    rest = " ".join(words)
    kinds = {at for at in (At.END, At.SIDE) if at.value in rest}
    inline, across = "line" in rest, "across" in rest
    chosen = [
        m
        for m in fits
        if (not kinds or m.at in kinds)
        and (not inline or m.inline)
        and (not across or not m.inline)
    ]
    if not chosen:
        raise NotationError(phrase("{tile} cannot be played {where}", tile=tile, where=rest))
    if len({m.touching for m in chosen}) > 1:
        # Written touching half first: 9-12 lays the 9 against a 9.
        first = int(written.replace("/", "-").replace("|", "-").replace(":", "-").split("-")[0])
        chosen = [m for m in chosen if m.touching == first] or chosen
    if len({(m.touching, m.at, m.inline) for m in chosen}) > 1:
        written_out = " or ".join(sorted({move_text(m, legal) for m in chosen}))
        numbers = ", ".join(str(list(legal).index(m) + 1) for m in chosen)
        raise NotationError(
            phrase(
                "{tile} fits several places: type one of {numbers} ({moves})",
                tile=tile,
                numbers=numbers,
                moves=written_out,
            )
        )
    return chosen[0]


def _misdeal(words: list[str], names: Sequence[str]) -> Misdeal:
    if not words:
        raise NotationError(phrase("misdeal needs a seat: misdeal 2 draw 5-1"))
    who = words[0]
    lowered = [n.lower() for n in names]
    if who.isascii() and who.isdigit() and (not names or int(who) < len(names)):
        seat = int(who)
    elif who.lower() in lowered:
        seat = lowered.index(who.lower())
    else:
        if not names:
            raise NotationError(phrase("misdeal: there is no player {who!r}", who=who))
        raise NotationError(
            phrase(
                "misdeal: there is no player {who!r} ({names}, or a seat 0 to {last})",
                who=who,
                names=", ".join(names),
                last=len(names) - 1,
            )
        )
    returned: list[Tile] = []
    drawn: list[Tile] = []
    target: list[Tile] | None = None
    for word in words[1:]:
        if word in ("return", "returns"):
            target = returned
        elif word in ("draw", "draws"):
            target = drawn
        elif target is None:
            raise NotationError(phrase("say return or draw before the tiles"))
        else:
            target.append(_tile(word))
    return Misdeal(seat, tuple(returned), tuple(drawn))
