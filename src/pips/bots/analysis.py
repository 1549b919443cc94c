"""Analysis of finished games: where each seat gained or lost, decision by decision.

For every decision of every seat (a position where the seat had more than one choice
that makes a difference), the search bot values each choice *from that seat's view* at
that moment: its own hand, the layout, what others showed by drawing, passing and
knocking; never the hidden hands, which the record holds but the analysis does not pass
on. The value of a choice is the seat's expected result of the hand (its points less
the mean of the others', or its pair's less the other pair's) when it makes that choice
and play goes on. The loss of a decision is the best value less the value of the move
played; a loss is flagged by its size in the game's points
(:attr:`~pips.games.face.GameSpec.mistake_points`).

Each decision's search draws from a random stream named by the seed, the hand and the
move, so an analysis replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from pips.bots.search import SearchBot
from pips.core.legal import representatives
from pips.core.moves import Move, Play
from pips.core.notation import move_text
from pips.games.registry import find_game
from pips.record import Replay

SIZES = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class Decision:
    """One decision of one seat, valued from what that seat could see."""

    hand: int
    move: int
    """The number of the move in its hand (1 is the first)."""
    seat: int
    choices: tuple[tuple[str, float], ...]
    """Every choice that makes a difference, with its expected result."""
    played: str
    best: str
    loss: float
    size: str
    """``""``, or how large the loss is: inaccuracy, mistake, blunder."""

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "choices": [{"move": m, "value": v} for m, v in self.choices]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Decision:
        return cls(
            hand=int(data["hand"]),
            move=int(data["move"]),
            seat=int(data["seat"]),
            choices=tuple((str(c["move"]), float(c["value"])) for c in data["choices"]),
            played=str(data["played"]),
            best=str(data["best"]),
            loss=float(data["loss"]),
            size=str(data["size"]),
        )

    @property
    def expected(self) -> float:
        """The seat's expected result before it chose (its best choice's value)."""
        return max(value for _, value in self.choices)


@dataclass
class SeatSummary:
    seat: int
    name: str
    decisions: int = 0
    average_loss: float = 0.0
    flagged: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SIZES, 0))


@dataclass
class Analysis:
    """Every decision of a recorded game, and each seat's summary."""

    game: str
    seats: list[str]
    level: str
    seed: int
    decisions: list[Decision]

    def summary(self) -> list[SeatSummary]:
        out = [SeatSummary(seat, name) for seat, name in enumerate(self.seats)]
        losses: list[list[float]] = [[] for _ in self.seats]
        for decision in self.decisions:
            losses[decision.seat].append(decision.loss)
            if decision.size:
                out[decision.seat].flagged[decision.size] += 1
        for line, lost in zip(out, losses, strict=True):
            line.decisions = len(lost)
            line.average_loss = sum(lost) / len(lost) if lost else 0.0
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": self.seats,
            "level": self.level,
            "seed": self.seed,
            "information": "each decision is valued from the deciding seat's view only",
            "summary": [asdict(line) for line in self.summary()],
            "decisions": [d.to_json() for d in self.decisions],
        }


def analyse(
    replayed: Replay,
    level: str = "normal",
    seed: int = 1,
    progress: Callable[[int, int], None] | None = None,
    known: Sequence[Decision] = (),
    found: Callable[[Decision], None] | None = None,
    skip: Collection[tuple[int, int]] = (),
) -> Analysis:
    """Value every decision of ``replayed`` with the search bot at ``level``.

    ``known`` are decisions an interrupted analysis of the same record, level and seed
    already valued: they are taken as they are (each decision draws from its own
    stream, so the result is the one a whole run gives). ``found`` hears of each
    decision as it is valued, to keep it. The decisions at ``skip`` (hand, move) are
    left out: valued elsewhere, they are neither valued again nor returned."""
    spec = replayed.spec
    bot = SearchBot(level)
    small, medium, large = spec.mistake_points
    positions = list(_decisions(replayed))
    earlier = {(d.hand, d.move): d for d in known}
    decisions: list[Decision] = []
    if progress is not None:
        progress(0, len(positions))
    for done, (hand, number, state, event_move) in enumerate(positions, 1):
        if (hand, number) in skip:
            continue
        if (hand, number) in earlier:
            decisions.append(earlier[(hand, number)])
            continue
        seat = state.current_seat
        assert seat is not None
        legal = list(state.legal_moves())
        candidates = representatives(legal)
        view = state.view(seat)  # what the seat could know, and nothing else
        rng = random.Random(f"{seed}:{hand}:{number}")
        values = [float(v) for v in bot.expected(view, candidates, rng)]
        names = [move_text(m, candidates) for m in candidates]
        played = _group(candidates, event_move)
        best = max(range(len(candidates)), key=values.__getitem__)
        loss = max(0.0, values[best] - values[played])
        size = (
            "blunder"
            if loss >= large
            else "mistake"
            if loss >= medium
            else "inaccuracy"
            if loss >= small
            else ""
        )
        decisions.append(
            Decision(
                hand,
                number,
                seat,
                tuple(zip(names, values, strict=True)),
                names[played],
                names[best],
                loss,
                size,
            )
        )
        if found is not None:
            found(decisions[-1])
        if progress is not None:
            progress(done, len(positions))
    return Analysis(spec.name, list(replayed.seats), level, seed, decisions)


def _decisions(replayed: Replay) -> list[tuple[int, int, Any, Move]]:
    """Every position where the seat to move had a choice that makes a difference:
    (hand, move number, the state before the move, the move played). The states are
    copies, each hand replayed from its deal."""
    spec = replayed.spec
    out: list[tuple[int, int, Any, Move]] = []
    for hand, played in enumerate(replayed.match.hand_states, 1):
        dealt = played.dealt
        state = spec.from_deal(
            replayed.options, dealt.hands, dealt.stock, dealt.voided, played.context
        )
        for number, event in enumerate(played.history, 1):
            if state.current_seat is not None and len(representatives(state.legal_moves())) > 1:
                out.append((hand, number, state.clone(), event.move))
            state.play(event.move)
    return out


def _group(candidates: Sequence[Move], move: Move) -> int:
    """The candidate that stands for ``move`` (the same tile the same way round on a
    point of the same kind: F-04 makes the places equivalent)."""

    def key(m: Move) -> Any:
        if isinstance(m, Play):
            return (m.tile, m.touching, m.at, m.inline)
        return type(m)

    wanted = key(move)
    for number, candidate in enumerate(candidates):
        if key(candidate) == wanted:
            return number
    raise ValueError(f"{move} is none of the choices")


def plot(analysis: Analysis, path: str | IO[bytes], format: str | None = None) -> None:
    """Each seat's expected result over each hand, at its own decisions (PNG or SVG by
    the file's suffix, or ``format`` for a stream)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hands = sorted({d.hand for d in analysis.decisions}) or [1]
    shown = hands[:12]  # a long match: its first twelve hands
    figure, axes = plt.subplots(
        len(shown), 1, figsize=(9, 2.6 * len(shown) + 0.8), squeeze=False, sharex=False
    )
    for row, hand in zip(axes[:, 0], shown, strict=True):
        for seat, name in enumerate(analysis.seats):
            mine = [d for d in analysis.decisions if d.hand == hand and d.seat == seat]
            if not mine:
                continue
            row.plot([d.move for d in mine], [d.expected for d in mine], marker="o", label=name)
            for d in mine:
                if d.size in ("mistake", "blunder"):
                    row.annotate("?" if d.size == "mistake" else "??", (d.move, d.expected))
        row.axhline(0, color="black", linewidth=0.6)
        row.set(title=f"hand {hand}", xlabel="move", ylabel="expected result")
        row.legend(fontsize="small", ncols=min(5, len(analysis.seats)))
    # A long match is cut to its first hands: the title says so (issue 51).
    cut = f"; hands 1 to {len(shown)} of {len(hands)}" if len(shown) < len(hands) else ""
    figure.suptitle(
        f"{find_game(analysis.game).title}: each seat's expected result at its decisions, "
        "as it could see "
        f"them (search {analysis.level}{cut})",
        wrap=True,
    )
    figure.tight_layout()
    figure.savefig(path, dpi=100, format=format)
    plt.close(figure)
