"""The full-screen terminal client: play a match against bots, or step through a record.

``PlayApp`` runs a :class:`~pips.tui.session.PlaySession`: the person's turns from the
keyboard, the bots' turns off the UI thread, shown one by one at a pace the player sets.
``ReplayApp`` shows a recorded game position by position, forward and back. Both draw
the same table (:mod:`pips.tui.art`, :mod:`pips.tui.widgets`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

from pips.bots.external import BotError
from pips.core.errors import RuleError
from pips.core.moves import Draw, Move, Pass, Play
from pips.core.notation import NotationError, read_tile
from pips.core.phrase import N_
from pips.core.tiles import Tile
from pips.display import (
    PlayOutcome,
    describe_event,
    move_words,
    play_outcomes,
    refusal,
)
from pips.extras import missing_part
from pips.i18n import _, decimal, say
from pips.tui.screens import (
    _KEYS,
    INTERRUPTED,
    TableApp,
    TextScreen,
    _where,
    _where_move,
)
from pips.tui.session import PlaySession
from pips.tui.widgets import (
    count_panel,
    finished_hand,
    hand_line,
    seats_line,
    seats_panel,
)


@dataclass
class TileChoice:
    """A tile whose legal plays differ: the player picks one by its key."""

    tile: Tile
    outcomes: list[PlayOutcome]


class PlayApp(TableApp):
    """One person against bots, hand after hand until the match ends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", N_("◀"), show=False),
        Binding("right", "cursor(1)", N_("▶"), show=False),
        Binding("enter", "confirm", N_("Play")),
        Binding("d", "draw", N_("Draw")),
        Binding("h", "hint", N_("Hint")),
        Binding("u", "undo", N_("Undo")),
        Binding("s", "sheet", N_("Sheet")),
        Binding("space", "skip", N_("Skip bots"), show=False),
        # "-" belongs to typed tiles (6-4), so the pace has keys of its own.
        Binding("greater_than_sign,plus", "pace(0.5)", N_("Faster"), show=False),
        Binding("less_than_sign", "pace(2)", N_("Slower"), show=False),
        Binding("q", "quit_game", N_("Quit")),
    ]

    def __init__(self, session: PlaySession, *, delay: float = 0.8) -> None:
        super().__init__(session.spec, session.options, session.names)
        self.session = session
        self.delay = delay
        self.cursor = 0
        self.typed = ""
        self.choice: TileChoice | None = None
        self.skipping = False
        self.generation = 0  # bumped by undo: a bot move decided before it is dropped
        self.thinking = False
        self.last_sheet: RenderableType | None = None
        self.order: list[Tile] = []
        self.turn_key: tuple[int, int] = (0, -1)  # (hand, moves made) the cursor is for
        self.outcomes: dict[Tile, list[PlayOutcome]] = {}
        self.hinted: Move | None = None  # the hint of this turn: Enter plays it
        self.failure: str | None = None  # why a bot ended the session
        self.knock_asked = False  # a knock the rules would penalize waits for a second k
        # The game's own word for passing (the partnership game knocks, PT-07).
        self.bind("k", "knock", description=_(self.spec.pass_word.capitalize()))

    def on_mount(self) -> None:
        session = self.session
        you = _("you")
        seats = ", ".join(
            f"{n} ({b or you})" for n, b in zip(session.names, session.bot_names, strict=True)
        )
        self.log_line(_("seats in playing order: {seats}").format(seats=seats))
        lots = session.match.lots
        if lots is not None:
            entrant_names = {session.match.seating[s]: n for s, n in enumerate(self.names)}
            drawn = ", ".join(f"{entrant_names[d.entrant]} {d.tile}" for d in lots.draws)
            self.log_line(f"lots: {drawn}")
        for number, hand in enumerate(session.match.hand_states, start=1):
            for event in hand.history:
                self.log_line(
                    say(
                        describe_event(
                            event.seen_by(session.me), self.names, self.spec.name, you=session.me
                        )
                    )
                )
            if hand.is_over:
                # A resumed match keeps the sheet of its last finished hand.
                self.last_sheet = self.sheet_of(number)[0]
        self.fit_screen()
        self.advance()

    def redraw(self) -> None:
        self.refresh_table()

    # -- the flow of the game ------------------------------------------------------------

    def refresh_table(self) -> None:
        session = self.session
        view = session.view()
        mine = session.my_turn and not session.is_over
        moves = session.legal_moves() if mine else []
        self.outcomes = play_outcomes(view, moves)
        playable = set(self.outcomes)
        labels: dict[int, str] = {}
        chosen: list[int] = []
        if self.choice is not None:
            for key, outcome in zip(_KEYS, self.choice.outcomes, strict=False):
                end = outcome.move.end
                labels[end] = labels[end] + "/" + key if end in labels else key
                chosen.append(end)
        self.draw_table(view, labels=labels, chosen=chosen)
        target = session.match.target
        self.query_one("#seats", Static).update(seats_panel(view, self.names, target))
        self.query_one("#seats-line", Static).update(
            seats_line(view, self.names, target, self.size.width - 2)
        )
        self.query_one("#count", Static).update(
            count_panel(view, self.outcomes, self.size.width - 2)
        )
        _, self.order = hand_line(view, playable, None)
        position = (view.hand_number, len(view.history))
        if mine and position != self.turn_key:
            # A new turn: the cursor starts on the first tile that can be played.
            self.turn_key = position
            self.cursor = next((i for i, t in enumerate(self.order) if t in playable), 0)
            self.hinted = None
            self.knock_asked = False
        self.cursor = min(self.cursor, max(0, len(self.order) - 1))
        text, _ = hand_line(
            view,
            playable,
            self.cursor if mine else None,
            width=self.size.width - 2,
            rows=2 if self.short else 3,
        )
        self.query_one("#hand", Static).update(text)
        self.show_status(self.prompt(moves))

    def prompt(self, moves: Sequence[Move]) -> Text:
        session = self.session
        if session.is_over:
            return Text(_("The match is over. q saves and quits."), style="bold")
        if not session.my_turn:
            who = self.names[session.turn or 0]
            said = _("{name} is thinking…") if self.thinking else _("{name} to play")
            return Text(said.format(name=who))
        if self.choice is not None:
            options = "  ".join(
                f"{key}: {_where(o)}" for key, o in zip(_KEYS, self.choice.outcomes, strict=False)
            )
            return Text(
                _("{tile} fits more than one place: {options}  (Esc cancels)").format(
                    tile=self.choice.tile, options=options
                )
            )
        if self.knock_asked:
            return Text(
                _(
                    "A tile fits: {word} anyway and be penalized? "
                    "k again to {word}, any other key to play on."
                ).format(word=_(self.spec.pass_word)),
                style="bold yellow",
            )
        if self.typed:
            return Text(_("tile: {typed}▏ (Enter plays it, Esc clears)").format(typed=self.typed))
        if any(isinstance(m, Play) for m in moves):
            return Text(_("Your turn: ←/→ and Enter, or type a tile like 6-4 and Enter."))
        if any(isinstance(m, Draw) for m in moves):
            return Text(_("Your turn: no tile fits; d draws."))
        if self.spec.pass_word == "knock":
            return Text(_("Your turn: no tile fits; k knocks."))
        return Text(_("Your turn: no tile fits; k passes."))

    def advance(self) -> None:
        """Go on: a bot's turn is decided off the UI thread; the person's waits."""
        session = self.session
        self.refresh_table()
        if session.is_over or session.my_turn or self.thinking:
            if session.my_turn:
                self.skipping = False
            return
        self.thinking = True
        self.show_status(self.prompt(()))
        self.decide_bot_move(self.generation)

    @work(thread=True, exclusive=True, group="bot")
    def decide_bot_move(self, generation: int) -> None:
        try:
            move = self.session.decide()
        except BotError as error:
            self.call_from_thread(self.bot_failed, str(error))
            return
        self.call_from_thread(self.bot_decided, move, generation)

    def bot_failed(self, error: str) -> None:
        """A bot that cannot go on (an external program that exited, hung or answered
        nonsense) ends the session; the command says why in one line."""
        self.failure = error
        self.exit(None, return_code=1)

    def bot_decided(self, move: Move, generation: int) -> None:
        self.thinking = False
        if generation != self.generation:
            self.advance()  # an undo happened meanwhile: decide again
            return
        self.apply(move)

    def apply(self, move: Move) -> bool:
        """Play ``move`` for the seat to move; a refused move changes nothing."""
        session = self.session
        try:
            played = session.play(move)
        except RuleError as exc:
            self.show_status(Text(say(refusal(exc, self.names, session.me)), style="bold red"))
            return False
        self.choice = None
        self.typed = ""
        event = played.event.seen_by(session.me)
        self.log_line(say(describe_event(event, self.names, self.spec.name, you=session.me)))
        self.tell(None)  # the last move's news is old now
        if isinstance(event.move, Play) and event.move.tile.is_double:
            # "Rostock knocking": the table knocks when a double is laid (§1.10).
            knock = _("{tile} laid · knock knock! (Rostock knocking)").format(tile=event.move.tile)
            self.tell(knock)
            self.log_line(Text(knock, style="italic"))
        elif isinstance(event.move, Pass):
            self.tell(say(describe_event(event, self.names, self.spec.name, you=session.me)))
        if played.hand_over:
            self.show_sheet(played.hand)
            return True
        pause = 0 if self.skipping or session.my_turn else self.delay
        self.refresh_table()
        if pause:
            self.set_timer(pause, self.advance)
        else:
            self.call_later(self.advance)
        return True

    def sheet_of(self, hand_number: int) -> tuple[RenderableType, str]:
        """The score sheet of a finished hand (the match's end under the last) and its
        explanation in words."""
        return finished_hand(self.session, self.names, hand_number)

    def show_sheet(self, hand_number: int) -> None:
        body, explanation = self.sheet_of(hand_number)
        self.last_sheet = body
        self.log_line(explanation)
        self.refresh_table()
        title = _("Score sheet, hand {number}").format(number=hand_number)
        self.push_screen(TextScreen(body, title), self._sheet_closed)

    def _sheet_closed(self, _: object) -> None:
        self.advance()

    # -- keys --------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if not self.session.my_turn or self.session.is_over or isinstance(self.screen, ModalScreen):
            return
        if self.knock_asked and event.key != "k":
            self.knock_asked = False  # any other key: no penalized knock
            self.refresh_table()
        if self.choice is not None:
            if event.character and event.character in _KEYS:
                index = _KEYS.index(event.character)
                if index < len(self.choice.outcomes):
                    event.stop()
                    event.prevent_default()
                    self.apply(self.choice.outcomes[index].move)
            elif event.key == "escape":
                event.stop()
                self.choice = None
                self.refresh_table()
            return
        if event.character and (
            (event.character.isascii() and event.character.isdigit()) or event.character == "-"
        ):
            event.stop()
            event.prevent_default()
            self.typed += event.character
            self.refresh_table()
        elif event.key == "backspace" and self.typed:
            event.stop()
            self.typed = self.typed[:-1]
            self.refresh_table()
        elif event.key == "escape" and self.typed:
            event.stop()
            self.typed = ""
            self.refresh_table()

    def action_cursor(self, step: int) -> None:
        if self.order and self.choice is None:
            self.cursor = (self.cursor + step) % len(self.order)
            self.refresh_table()

    def action_confirm(self) -> None:
        session = self.session
        if not session.my_turn or session.is_over:
            return
        hinted = self.hinted
        if self.choice is not None:
            # Enter while choosing a place plays the hinted place of that tile.
            if isinstance(hinted, Play) and hinted.tile == self.choice.tile:
                self.apply(hinted)
            return
        if self.typed:
            text, self.typed = self.typed, ""
            try:
                tile = read_tile(text)
            except NotationError:
                self.refresh_table()
                self.show_status(
                    Text(
                        _("{text!r} is not a tile; type it like 6-4").format(text=text), style="red"
                    )
                )
                return
        elif hinted is not None and (
            not isinstance(hinted, Play)
            or self.order[self.cursor : self.cursor + 1] == [hinted.tile]
        ):
            # The hint, as given: a draw, a pass, or the tile at the place it named.
            self.apply(hinted)
            return
        elif self.order:
            tile = self.order[self.cursor]
        else:
            return
        self.play_tile(tile)

    def play_tile(self, tile: Tile) -> None:
        found = self.outcomes.get(tile)
        if not found:
            self.refresh_table()
            self.show_status(Text(self.session.why_not(tile), style="red"))
            return
        if len(found) == 1:
            self.apply(found[0].move)
            return
        self.choice = TileChoice(tile, list(found))
        self.refresh_table()

    def action_draw(self) -> None:
        if self.session.my_turn:
            draws = [m for m in self.session.legal_moves() if isinstance(m, Draw)]
            if draws:
                self.apply(draws[0])
            else:
                self.show_status(Text(_("You cannot draw now."), style="red"))

    def action_knock(self) -> None:
        # Also when a tile fits: the rules decide (refused, or penalized: PT-08), and a
        # penalty is asked for twice.
        session = self.session
        if not session.my_turn or session.is_over:
            return
        if self.outcomes and not self.knock_asked and session.penalized_pass():
            self.knock_asked = True
            self.refresh_table()
            return
        self.knock_asked = False
        self.apply(Pass())

    def action_hint(self) -> None:
        if not self.session.my_turn or self.session.is_over:
            return
        try:
            advice = self.session.hint()
        except ModuleNotFoundError as exc:  # hints come from the expert: the bots part
            needed = missing_part(exc)
            if needed is None:
                raise
            self.tell(say(needed))
            return
        move = advice.move
        what = say(move_words(move, [], self.spec.pass_word))
        if isinstance(move, Play):
            what += f" ({_where_move(move)})"
        if isinstance(move, Play) and move.tile in self.order:
            self.cursor = self.order.index(move.tile)
        self.hinted = move
        self.refresh_table()
        text = Text(_("Hint: "), style="bold")
        text.append(f"{what} — " + "; ".join(say(reason) for reason in advice.reasons))
        text.append(_("  (Enter plays it)"), style="dim")
        self.show_status(text)
        self.log_line(text)

    def action_undo(self) -> None:
        taken = self.session.undo()
        if not taken:
            self.show_status(Text(_("Nothing of yours to take back."), style="red"))
            return
        self.generation += 1
        self.choice = None
        self.typed = ""
        self.log_line(_("undo: {count} move(s) taken back").format(count=taken))
        self.advance()
        self.show_status(Text(_("Took back {count} move(s).").format(count=taken), style="yellow"))

    def action_sheet(self) -> None:
        if self.last_sheet is None:
            self.show_status(Text(_("No hand has finished yet."), style="red"))
            return
        self.push_screen(TextScreen(self.last_sheet, _("Last score sheet")))

    def action_skip(self) -> None:
        self.skipping = True

    def action_pace(self, factor: float) -> None:
        self.delay = min(5.0, max(0.0, self.delay * factor if self.delay else 0.1))
        self.show_status(_("bots' moves every {seconds} s").format(seconds=decimal(self.delay, 1)))

    def action_quit_game(self) -> None:
        self.exit(self.session.save())

    def action_interrupt(self) -> None:
        self.exit(self.session.save(), return_code=INTERRUPTED)
