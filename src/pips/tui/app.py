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

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Header, RichLog, Static

from pips.core.errors import RuleError
from pips.core.moves import Draw, Move, Pass, Play
from pips.core.notation import NotationError, move_text, read_tile
from pips.core.tiles import Tile
from pips.core.view import View
from pips.display import (
    PlayOutcome,
    describe_event,
    play_outcomes,
    replay_positions,
    score_sheet,
)
from pips.games.registry import GameSpec
from pips.record import Replay
from pips.tui.art import draw_layout
from pips.tui.session import PlaySession
from pips.tui.widgets import count_panel, hand_line, seats_panel, sheet_table

CSS = """
#top { height: auto; max-height: 12; }
#seats { width: 1fr; padding: 0 1; }
#log { width: 1fr; height: 10; border-left: solid $panel-lighten-2; }
#table-box { height: 1fr; border: round $panel-lighten-2; }
#table { width: auto; padding: 0 1; }
#count { height: auto; padding: 0 1; }
#hand { height: auto; padding: 0 1; border-top: solid $panel-lighten-2; }
#status { height: auto; padding: 0 1; color: $text-muted; }
ModalScreen { align: center middle; }
#dialog { width: 90%; max-width: 100; height: auto; max-height: 90%;
          border: thick $accent; background: $surface; padding: 1 2; }
"""


class TextScreen(ModalScreen[None]):
    """A modal page (a score sheet, the rules); any of Enter, Escape or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q,space", "close", "Close"),
    ]

    def __init__(self, body: RenderableType, title: str) -> None:
        super().__init__()
        self.body = body
        self.title_text = title

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(self.body, id="dialog-body")
            yield Static(Text("Enter to go on", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)


class TableApp(App[object]):
    """The table both apps draw: seats and log, the layout, the count, the hand."""

    CSS = CSS

    def __init__(self, spec: GameSpec, names: Sequence[str]) -> None:
        super().__init__()
        self.spec = spec
        self.names = list(names)
        self.title = spec.title

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="top"):
            yield Static(id="seats")
            log = RichLog(id="log", wrap=True, markup=False)
            log.can_focus = False  # the arrow keys belong to the hand, not the log
            yield log
        box = VerticalScroll(id="table-box")
        box.can_focus = False
        with box:
            yield Static(id="table")
        yield Static(id="count")
        yield Static(id="hand")
        yield Static(id="status")
        yield Footer()

    # -- drawing -------------------------------------------------------------------------

    def draw_table(
        self,
        view: View,
        *,
        labels: dict[int, str] | None = None,
        chosen: Sequence[int] = (),
    ) -> None:
        width = max(20, self.size.width - 6)
        last = len(view.layout.tiles) - 1 if view.layout.tiles else None
        lines = draw_layout(
            view.layout,
            top=int(view.options.get("set", 6)),
            labels=labels,
            chosen=chosen,
            last=last,
            max_width=width,
        )
        self.query_one("#table", Static).update(Text("\n").join(lines))

    def show_status(self, message: str | Text) -> None:
        self.query_one("#status", Static).update(message)

    def log_line(self, text: RenderableType) -> None:
        self.query_one("#log", RichLog).write(text)

    def action_rules(self) -> None:
        body = Text(self.spec.summary or "(no summary)")
        self.push_screen(TextScreen(body, f"Rules: {self.spec.title}"))


@dataclass
class Choice:
    """A tile whose legal plays differ: the player picks one by its key."""

    tile: Tile
    outcomes: list[PlayOutcome]


class PlayApp(TableApp):
    """One person against bots, hand after hand until the match ends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "◀", show=False),
        Binding("right", "cursor(1)", "▶", show=False),
        Binding("enter", "confirm", "Play"),
        Binding("d", "draw", "Draw"),
        Binding("k", "knock", "Knock/pass"),
        Binding("h", "hint", "Hint"),
        Binding("u", "undo", "Undo"),
        Binding("s", "sheet", "Sheet"),
        Binding("space", "skip", "Skip bots"),
        # "-" belongs to typed tiles (6-4), so the pace has keys of its own.
        Binding("greater_than_sign,plus", "pace(0.5)", "Faster"),
        Binding("less_than_sign", "pace(2)", "Slower"),
        Binding("question_mark,f1", "rules", "Rules"),
        Binding("q", "quit_game", "Save & quit"),
    ]

    def __init__(self, session: PlaySession, *, delay: float = 0.8) -> None:
        super().__init__(session.spec, session.names)
        self.session = session
        self.delay = delay
        self.cursor = 0
        self.typed = ""
        self.choice: Choice | None = None
        self.skipping = False
        self.generation = 0  # bumped by undo: a bot move decided before it is dropped
        self.thinking = False
        self.last_sheet: RenderableType | None = None
        self.order: list[Tile] = []
        self.turn_key: tuple[int, int] = (0, -1)  # (hand, moves made) the cursor is for
        self.outcomes: dict[Tile, list[PlayOutcome]] = {}

    def on_mount(self) -> None:
        session = self.session
        seats = ", ".join(
            f"{n} ({b or 'you'})" for n, b in zip(session.names, session.bot_names, strict=True)
        )
        self.log_line(f"seats in playing order: {seats}")
        lots = session.match.lots
        if lots is not None:
            entrant_names = {session.match.seating[s]: n for s, n in enumerate(self.names)}
            drawn = ", ".join(f"{entrant_names[d.entrant]} {d.tile}" for d in lots.draws)
            self.log_line(f"lots: {drawn}")
        for hand in session.match.hands:
            for event in hand.history:
                self.log_line(describe_event(event.seen_by(session.me), self.names, self.spec.name))
        self.refresh_table()
        self.advance()

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
        self.query_one("#seats", Static).update(seats_panel(view, self.names, session.match.target))
        self.query_one("#count", Static).update(count_panel(view, self.outcomes))
        _, self.order = hand_line(view, playable, None)
        position = (view.hand_number, len(view.history))
        if mine and position != self.turn_key:
            # A new turn: the cursor starts on the first tile that can be played.
            self.turn_key = position
            self.cursor = next((i for i, t in enumerate(self.order) if t in playable), 0)
        self.cursor = min(self.cursor, max(0, len(self.order) - 1))
        text, _ = hand_line(view, playable, self.cursor if mine else None)
        self.query_one("#hand", Static).update(text)
        self.show_status(self.prompt(moves))

    def prompt(self, moves: Sequence[Move]) -> Text:
        session = self.session
        if session.is_over:
            return Text("The match is over. q saves and quits.", style="bold")
        if not session.my_turn:
            who = self.names[session.turn or 0]
            return Text(f"{who} is thinking…" if self.thinking else f"{who} to play")
        if self.choice is not None:
            options = "  ".join(
                f"{key}: {_where(o)}" for key, o in zip(_KEYS, self.choice.outcomes, strict=False)
            )
            return Text(f"{self.choice.tile} fits more than one place: {options}  (Esc cancels)")
        if self.typed:
            return Text(f"tile: {self.typed}▏ (Enter plays it, Esc clears)")
        if any(isinstance(m, Play) for m in moves):
            return Text("Your turn: ←/→ and Enter, or type a tile like 6-4 and Enter.")
        if any(isinstance(m, Draw) for m in moves):
            return Text("Your turn: no tile fits; d draws.")
        return Text("Your turn: no tile fits; k " + self.spec.pass_verb() + ".")

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
        move = self.session.decide()
        self.call_from_thread(self.bot_decided, move, generation)

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
            self.show_status(Text(str(exc), style="bold red"))
            return False
        self.choice = None
        self.typed = ""
        event = played.event.seen_by(session.me)
        self.log_line(describe_event(event, self.names, self.spec.name))
        if isinstance(event.move, Play) and event.move.tile.is_double:
            # "Rostock knocking": the table knocks when a double is laid (§1.10).
            knock = f"{event.move.tile} laid · knock knock! (Rostock knocking)"
            self.notify(knock, title="A double", timeout=2)
            self.log_line(Text(knock, style="italic"))
        elif isinstance(event.move, Pass):
            self.notify(describe_event(event, self.names, self.spec.name), timeout=2)
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

    def show_sheet(self, hand_number: int) -> None:
        session = self.session
        state = session.match.hands[hand_number - 1]
        result = state.result
        assert result is not None
        sheet = score_sheet(
            state.game,
            state.options.to_json(),
            [e.seen_by(session.me) for e in state.history],
            result,
            state.context.scores,
            self.names,
            hand_number,
        )
        body: RenderableType = sheet_table(sheet, self.names, session.match.target)
        outcome = session.match.result
        if outcome is not None:
            winners = ", ".join(self.names[s] for s in outcome.winners)
            body = Group(body, Text(f"\nMatch over: {winners} won.", style="bold"))
        self.last_sheet = body
        self.log_line(sheet.explanation)
        self.refresh_table()
        self.push_screen(TextScreen(body, f"Score sheet, hand {hand_number}"), self._sheet_closed)

    def _sheet_closed(self, _: object) -> None:
        self.advance()

    # -- keys --------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if not self.session.my_turn or self.session.is_over or isinstance(self.screen, ModalScreen):
            return
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
        if event.character and (event.character.isdigit() or event.character == "-"):
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
        if not session.my_turn or session.is_over or self.choice is not None:
            return
        if self.typed:
            text, self.typed = self.typed, ""
            try:
                tile = read_tile(text)
            except NotationError:
                self.refresh_table()
                self.show_status(Text(f"{text!r} is not a tile; type it like 6-4", style="red"))
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
            self.show_status(Text(f"{tile} cannot be played now", style="red"))
            return
        if len(found) == 1:
            self.apply(found[0].move)
            return
        self.choice = Choice(tile, list(found))
        self.refresh_table()

    def action_draw(self) -> None:
        if self.session.my_turn:
            draws = [m for m in self.session.legal_moves() if isinstance(m, Draw)]
            if draws:
                self.apply(draws[0])
            else:
                self.show_status(Text("You cannot draw now.", style="red"))

    def action_knock(self) -> None:
        # Also when a tile fits: the rules decide (refused, or penalized: PT-08).
        if self.session.my_turn and not self.session.is_over:
            self.apply(Pass())

    def action_hint(self) -> None:
        if not self.session.my_turn or self.session.is_over:
            return
        advice = self.session.hint()
        move = advice.move
        what = move_text(move)
        if isinstance(move, Play):
            what += f" ({_where_move(move)})"
        elif isinstance(move, Pass):
            what = self.spec.pass_word
        if isinstance(move, Play) and move.tile in self.order:
            self.cursor = self.order.index(move.tile)  # Enter now plays the hint
            self.refresh_table()
        text = Text("Hint: ", style="bold")
        text.append(f"{what} — " + "; ".join(advice.reasons))
        self.show_status(text)
        self.log_line(text)

    def action_undo(self) -> None:
        taken = self.session.undo()
        if not taken:
            self.show_status(Text("Nothing of yours to take back.", style="red"))
            return
        self.generation += 1
        self.choice = None
        self.typed = ""
        self.log_line(f"undo: {taken} move(s) taken back")
        self.advance()
        self.show_status(Text(f"Took back {taken} move(s).", style="yellow"))

    def action_sheet(self) -> None:
        if self.last_sheet is None:
            self.show_status(Text("No hand has finished yet.", style="red"))
            return
        self.push_screen(TextScreen(self.last_sheet, "Last score sheet"))

    def action_skip(self) -> None:
        self.skipping = True

    def action_pace(self, factor: float) -> None:
        self.delay = min(5.0, max(0.0, self.delay * factor if self.delay else 0.1))
        self.show_status(f"bots' moves every {self.delay:.1f} s")

    def action_quit_game(self) -> None:
        self.exit(self.session.save())


class ReplayApp(TableApp):
    """A record shown position by position: every hand face up, forward and back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l", "step(1)", "Next"),
        Binding("left,j", "step(-1)", "Back"),
        Binding("pagedown,n", "hand(1)", "Next hand"),
        Binding("pageup,p", "hand(-1)", "Previous hand"),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("question_mark,f1", "rules", "Rules"),
        Binding("q,escape", "quit", "Quit"),
    ]

    def __init__(self, replayed: Replay) -> None:
        super().__init__(replayed.spec, replayed.seats)
        self.replayed = replayed
        self.frames = replay_positions(replayed)
        self.position = 0
        self.logged: set[int] = set()

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        frame = self.frames[self.position]
        self.draw_table(frame.view)
        target = self.replayed.match.target
        self.query_one("#seats", Static).update(
            seats_panel(frame.view, self.names, target, hands=frame.hands)
        )
        self.query_one("#count", Static).update(count_panel(frame.view, {}))
        last = len(self.frames) - 1
        where = f"hand {frame.hand}, move {frame.move} · position {self.position}/{last}"
        said = describe_event(frame.event, self.names, self.spec.name) if frame.event else "dealt"
        self.query_one("#hand", Static).update(Text(f"{where}: {said}", style="bold"))
        status = "←/→ step, PgUp/PgDn hand, Home/End"
        if frame.result is not None:
            sheet = score_sheet(
                self.spec.name,
                self.replayed.options.to_json(),
                frame.view.history,
                frame.result,
                frame.before,
                self.names,
                frame.hand,
            )
            status = sheet.explanation
            if frame.hand not in self.logged:
                self.logged.add(frame.hand)
                self.log_line(sheet_table(sheet, self.names, target))
        self.show_status(status)

    def action_step(self, step: int) -> None:
        self.position = min(len(self.frames) - 1, max(0, self.position + step))
        self.show()

    def action_hand(self, step: int) -> None:
        hand = self.frames[self.position].hand + step
        starts = [i for i, f in enumerate(self.frames) if f.hand == hand and f.move == 0]
        if starts:
            self.position = starts[0]
            self.show()

    def action_jump(self, position: int) -> None:
        self.position = position % len(self.frames)
        self.show()


_KEYS = "abcdefghijklmnopqrstuvwxyz"


def _where(outcome: PlayOutcome) -> str:
    text = _where_move(outcome.move)
    if outcome.count is not None:
        text += f" → S {outcome.count}" + (f" +{outcome.points}" if outcome.points else "")
    return text


def _where_move(move: Play) -> str:
    if move.end < 0:
        return "to open"
    place = "side" if move.at.value == "side" else "end"
    return f"{place} {move.touching}" + (" in line" if move.inline else "")
