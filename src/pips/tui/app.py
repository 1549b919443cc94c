"""The full-screen terminal client: play a match against bots, or step through a record.

``PlayApp`` runs a :class:`~pips.tui.session.PlaySession`: the person's turns from the
keyboard, the bots' turns off the UI thread, shown one by one at a pace the player sets.
``ReplayApp`` shows a recorded game position by position, forward and back. Both draw
the same table (:mod:`pips.tui.art`, :mod:`pips.tui.widgets`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, VerticalScroll
from textual.geometry import Region
from textual.screen import ModalScreen, Screen
from textual.widgets import Header, RichLog, Static

from pips.bots.analysis import Analysis, analyse
from pips.bots.external import BotError
from pips.core.errors import RuleError
from pips.core.moves import Draw, Move, Pass, Play
from pips.core.notation import NotationError, read_tile
from pips.core.phrase import N_
from pips.core.tiles import Tile
from pips.core.view import View
from pips.display import (
    PlayOutcome,
    addressed,
    describe_event,
    match_outcome,
    move_words,
    play_outcomes,
    refusal,
    replay_positions,
    score_sheet,
)
from pips.extras import missing_part
from pips.games.registry import GameSpec
from pips.games.traits import LayoutKind
from pips.i18n import _, decimal, say
from pips.record import Replay
from pips.tui.art import Picture, Spot, draw_picture
from pips.tui.session import PlaySession
from pips.tui.widgets import (
    analysis_table,
    called_you,
    count_panel,
    fit_parts,
    hand_line,
    seats_line,
    seats_panel,
    sheet_table,
)

INTERRUPTED = 130
"""The client's return code when Ctrl-C ended it (the shell's 128 + SIGINT)."""

CSS = """
#top { height: auto; max-height: 12; }
#seats { width: 1fr; padding: 0 1; }
#log { width: 1fr; height: 10; border-left: solid $panel-lighten-2; }
#seats-line { height: auto; max-height: 4; padding: 0 1; display: none; }
#table-box { height: 1fr; min-height: 5; border: round $panel-lighten-2; overflow: auto auto; }
#table { width: auto; height: auto; padding: 0 1; }
#count { height: auto; max-height: 3; padding: 0 1; }
#hand { height: auto; padding: 0 1; border-top: solid $panel-lighten-2; }
#status { height: auto; max-height: 2; padding: 0 1; color: $text-muted; }
#too-small { display: none; padding: 1 2; }
#keys { dock: bottom; height: 1; padding: 0 1; background: $panel; }
Screen.replay #top { max-height: 50%; }
Screen.short #top { display: none; }
Screen.short #seats-line { display: block; }
Screen.too-small > * { display: none; }
Screen.too-small #too-small { display: block; }
ModalScreen { align: center middle; }
#dialog { width: 90%; max-width: 100; height: auto; max-height: 90%;
          border: thick $accent; background: $surface; padding: 1 2; }
"""

SMALLEST = (60, 20)
"""Below this many columns and rows the table cannot be drawn usefully: it says so."""
SHORT = 32
"""Below this many rows the seats take a few lines and the log opens on ``l``."""

VIEWS = (N_("auto"), N_("compact"), N_("full"))
"""How the layout is drawn: ``compact`` (a row per lane, long lanes shortened in the
middle), ``full`` (as laid, panned with the keys), ``auto`` (full while it fits)."""


def speak_bindings(node: Any) -> None:
    """The keys' descriptions (the footer, marked with ``N_``) in the current language."""
    keys = node._bindings.key_to_bindings
    for key, bindings in keys.items():
        keys[key] = [
            dataclasses.replace(b, description=_(b.description)) if b.description else b
            for b in bindings
        ]


class TextScreen(ModalScreen[None]):
    """A modal page (a score sheet, the rules); any of Enter, Escape or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q,space", "close", N_("Close")),
    ]

    def __init__(self, body: RenderableType, title: str) -> None:
        super().__init__()
        speak_bindings(self)
        self.body = body
        self.title_text = title

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(self.body, id="dialog-body")
            yield Static(Text(_("Enter to go on"), style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)


class TableScreen(Screen[object]):
    """The table's own screen: it tells the app when the terminal changes size."""

    def on_resize(self, event: events.Resize) -> None:
        app = self.app
        if isinstance(app, TableApp):
            app.fit_screen()


class Board(ScrollableContainer):
    """The box the layout is drawn in. When its size changes (the terminal was resized,
    or the lines around it grew or shrank) the layout is drawn again for the new room:
    drawn for the old one, open ends could lie beyond the edge until redrawn."""

    def on_resize(self, event: events.Resize) -> None:
        app = self.app
        if isinstance(app, TableApp):
            # After this layout pass: content changed during it keeps its old height.
            app.call_after_refresh(app.board_resized)


class TableApp(App[object]):
    """The table both apps draw: seats and log, the layout, the count, the hand.

    The layout sits in a box that scrolls both ways from the keyboard (↑/↓ by rows,
    Shift+↑/↓ by pages, Shift+←/→ sideways) and follows the last tile laid, or the
    places offered for a tile.
    """

    CSS = CSS
    ENABLE_COMMAND_PALETTE = False  # its key would take the footer's room
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_board(0, -2)", N_("Scroll up"), show=False),
        Binding("down", "scroll_board(0, 2)", N_("Scroll down"), show=False),
        Binding("shift+up", "scroll_board(0, -10)", N_("Page up"), show=False),
        Binding("shift+down", "scroll_board(0, 10)", N_("Page down"), show=False),
        Binding("shift+left", "scroll_board(-10, 0)", N_("Pan left"), show=False),
        Binding("shift+right", "scroll_board(10, 0)", N_("Pan right"), show=False),
        Binding("c", "cycle_view", N_("View"), show=False),
        Binding("period", "follow", N_("Last tile"), show=False),
        Binding("l", "show_log", N_("Moves"), show=False),
        Binding("question_mark,f1", "help", N_("Help")),
        # Ctrl-C ends the client as in any terminal program (Textual's own says "press
        # ctrl+q"); what there is to keep is kept first.
        Binding("ctrl+c", "interrupt", N_("Quit"), show=False, priority=True),
    ]

    def __init__(self, spec: GameSpec, options: Any, names: Sequence[str]) -> None:
        super().__init__()
        speak_bindings(self)
        self.spec = spec
        self.names = list(names)
        self.title = _(spec.title)
        # The options in words ("3 players, double-12, ..., first to 30"), not the defaults.
        self.brief = [(weight, say(words)) for weight, words in spec.brief_parts(options)]
        self.sub_title = fit_parts(self.brief, 1000)
        self.board_view = "auto"
        self.picture = Picture([])
        self.follow: list[Spot] = []
        self.shown: View | None = None
        self.drawn_with: tuple[dict[int, str], tuple[int, ...]] = ({}, ())
        self.log_lines: list[RenderableType] = []
        self.drawn_for = (0, 0)  # the board's room the picture was drawn for
        self.status_message: str | Text = ""
        self.notice: Text | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="top"):
            yield Static(id="seats")
            # min_width: lines wrap at the pane's width, not at 78 columns.
            log = RichLog(id="log", wrap=True, markup=False, min_width=20)
            log.can_focus = False  # the arrow keys belong to the hand, not the log
            yield log
        yield Static(id="seats-line")
        box = Board(id="table-box")
        box.can_focus = False  # scrolled by the app's keys: the hand keeps the arrows
        with box:
            yield Static(id="table")
        yield Static(id="count")
        yield Static(id="hand")
        yield Static(id="status")
        yield Static(id="too-small")
        yield Static(id="keys")

    def get_default_screen(self) -> Screen[object]:
        self.table_screen = TableScreen(id="_default")
        return self.table_screen

    # -- the size of the screen ------------------------------------------------------------

    def fit_screen(self) -> None:
        """Classes of the table's screen by the terminal's size; then draw again."""
        width, height = self.size
        screen = self.table_screen
        small = width < SMALLEST[0] or height < SMALLEST[1]
        screen.set_class(small, "too-small")
        screen.set_class(height < SHORT, "short")
        # The header: the game's title, then as much of the options as fits (centred
        # between the icon's room and as much again on the right, with " — " between).
        self.sub_title = fit_parts(self.brief, width - len(self.title) - 24)
        if small:
            self.query_one("#too-small", Static).update(
                Text(
                    _(
                        "The terminal is {width}x{height}; the table needs at least "
                        "{least_width}x{least_height}. Make the window larger (q quits)."
                    ).format(
                        width=width,
                        height=height,
                        least_width=SMALLEST[0],
                        least_height=SMALLEST[1],
                    ),
                    style="bold",
                )
            )
        self.show_keys()
        self.redraw()

    def show_keys(self) -> None:
        """The keys of the table at the foot, as many as fit: the least needed are left
        out first (all of them are in the help, ``?``), none is cut."""
        seen: set[str] = set()
        keys: list[tuple[int, str, str]] = []
        for active in self.active_bindings.values():
            binding = active.binding
            if not binding.show or not binding.description or binding.action in seen:
                continue
            seen.add(binding.action)
            weight = 0 if binding.action in ("help", "quit_game", "confirm") else len(keys) + 1
            keys.append((weight, self.get_key_display(binding), binding.description))
        said = fit_parts(
            [(weight, f"{key} {words}") for weight, key, words in keys],
            max(10, self.size.width - 2),
            separator="  ",
        )
        shown = set(said.split("  "))
        line = Text()
        for _weight, key, words in keys:
            if f"{key} {words}" in shown:
                if line:
                    line.append("  ")
                line.append(key, style="bold")
                line.append(" " + words)
        self.query_one("#keys", Static).update(line)

    @property
    def short(self) -> bool:
        return self.size.height < SHORT

    def redraw(self) -> None:
        """Draw the table again at the current size (the apps say what is on it)."""

    # -- drawing -------------------------------------------------------------------------

    def draw_table(
        self,
        view: View,
        *,
        labels: dict[int, str] | None = None,
        chosen: Sequence[int] = (),
    ) -> None:
        self.shown, self.drawn_with = view, (dict(labels or {}), tuple(chosen))
        room_x, room_y = self.drawn_for = self.board_room()
        last = len(view.layout.tiles) - 1 if view.layout.tiles else None
        through_sides = self.spec.traits(view.options).layout is LayoutKind.SPINNER

        def draw(compact: bool) -> Picture:
            return draw_picture(
                view.layout,
                top=view.options.top,
                labels=labels,
                chosen=chosen,
                last=last,
                max_width=room_x if compact else None,
                through_sides=through_sides,
                compact=compact,
            )

        picture = draw(self.board_view == "compact")
        if self.board_view == "auto" and (picture.width > room_x or len(picture.lines) > room_y):
            picture = draw(True)
        if self.board_view != "full" and len(picture.lines) > room_y:
            # Taller than the board: its scroll bar takes two columns, which the picture
            # gives up rather than be scrolled sideways as well.
            room_x -= 2
            picture = draw(True)
        self.picture = picture
        self.query_one("#table", Static).update(Text("\n").join(picture.lines))
        self.call_after_refresh(self._settle_table)
        # Follow the places offered, else the tile just laid.
        spots = [picture.points[p] for p in chosen if p in picture.points]
        if not spots and last is not None and last in picture.tiles:
            spots = [picture.tiles[last]]
        self.follow = spots
        self.call_after_refresh(self.action_follow)

    def _settle_table(self) -> None:
        """Textual can keep a drawing's old height when it is replaced while the screen
        is laid out anew (a resize): the new rows would then stay hidden. Put the
        drawing in once more when its height does not match."""
        table = self.query_one("#table", Static)
        rows = len(self.picture.lines)
        if rows and table.size.height not in (0, rows):
            table.update(Text("\n").join(self.picture.lines))

    def board_room(self) -> tuple[int, int]:
        """Columns and rows the board has for the layout's picture now."""
        box = self.query_one("#table-box", ScrollableContainer)
        room_x = max(20, (box.size.width or self.size.width - 4) - 2)
        room_y = max(3, box.size.height or self.size.height // 3)
        return room_x, room_y

    def board_resized(self) -> None:
        if self.shown is not None and self.board_room() != self.drawn_for:
            labels, chosen = self.drawn_with
            self.draw_table(self.shown, labels=labels, chosen=chosen)

    def action_follow(self) -> None:
        """Scroll the board to what it follows (the last tile, or the places offered)."""
        if not self.follow:
            return
        top = min(s.row for s in self.follow) - 1
        left = min(s.column for s in self.follow)
        right = max(s.column + s.width for s in self.follow) + 2  # the padding
        bottom = max(s.row for s in self.follow) + 2
        box = self.query_one("#table-box", ScrollableContainer)
        box.scroll_to_region(
            Region(left, max(0, top), right - left, bottom - max(0, top)), animate=False
        )

    def action_scroll_board(self, dx: int, dy: int) -> None:
        box = self.query_one("#table-box", ScrollableContainer)
        box.scroll_to(box.scroll_x + dx, box.scroll_y + dy, animate=False)

    def action_cycle_view(self) -> None:
        self.board_view = VIEWS[(VIEWS.index(self.board_view) + 1) % len(VIEWS)]
        if self.shown is not None:
            labels, chosen = self.drawn_with
            self.draw_table(self.shown, labels=labels, chosen=chosen)
        self.show_status(
            Text(
                _("board: {view} view (c changes it)").format(view=_(self.board_view)),
                style="yellow",
            )
        )

    def show_status(self, message: str | Text) -> None:
        self.status_message = message
        notice = self.notice
        said = Text.assemble(notice, "  ", message) if notice is not None else message
        self.query_one("#status", Static).update(said)

    def tell(self, words: str | None) -> None:
        """A passing event (a double knocked on, a pass) said before the status until
        the next move (``None`` forgets it): a pop-up would cover the hand, the count or
        the board."""
        self.notice = None if words is None else Text(words, style="bold yellow")
        self.show_status(self.status_message)

    def log_line(self, text: RenderableType) -> None:
        self.log_lines.append(text)
        self.query_one("#log", RichLog).write(text)

    def action_show_log(self) -> None:
        lines = [Text(line) if isinstance(line, str) else line for line in self.log_lines]
        self.push_screen(TextScreen(Group(*lines[-400:]), _("Moves")))

    def action_interrupt(self) -> None:
        self.exit(None, return_code=INTERRUPTED)

    def action_help(self) -> None:
        keys = Table(box=None, show_header=False)
        for binding in self._help_keys():
            keys.add_row(Text(binding[0], style="bold"), binding[1])
        body = Group(
            Text(_(self.spec.summary) if self.spec.summary else "", overflow="fold"),
            Text("\n" + _("Keys"), style="bold"),
            keys,
        )
        self.push_screen(TextScreen(body, _("Help: {game}").format(game=_(self.spec.title))))

    def _help_keys(self) -> list[tuple[str, str]]:
        return [
            ("↑ ↓ Shift+↑ Shift+↓", _("scroll the board")),
            ("Shift+← Shift+→", _("pan the board sideways")),
            (".", _("back to the last tile laid")),
            ("c", _("board view: auto, compact, full")),
            ("l", _("every move so far")),
        ]


@dataclass
class Choice:
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
        self.choice: Choice | None = None
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
        for number, hand in enumerate(session.match.hands, start=1):
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
        me = session.me
        body: RenderableType = sheet_table(sheet, self.names, session.match.target, me)
        outcome = session.match.result
        if outcome is not None and hand_number == len(session.match.hands):
            won = match_outcome(state.game, outcome.final, outcome.ranks, self.names)
            words = say(addressed(won, self.names, me))
            over = (
                _("Match over: {outcome}.")
                if session.match.target is not None
                else _("Game over: {outcome}.")
            )
            body = Group(Text(over.format(outcome=words) + "\n", style="bold"), body)
        return body, say(addressed(sheet.explanation, self.names, me))

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
        self.choice = Choice(tile, list(found))
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


class ReplayApp(TableApp):
    """A record shown position by position: every hand face up, forward and back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l", "step(1)", N_("Next")),
        Binding("left,j", "step(-1)", N_("Back")),
        Binding("pagedown,n", "hand(1)", N_("Next hand")),
        Binding("pageup,p", "hand(-1)", N_("Previous hand")),
        Binding("home", "jump(0)", N_("Start")),
        Binding("end", "jump(-1)", N_("End")),
        Binding("a", "analyse", N_("Analyse")),
        Binding("q,escape", "quit", N_("Quit")),
    ]

    def __init__(self, replayed: Replay, *, level: str = "normal") -> None:
        super().__init__(replayed.spec, replayed.options, replayed.seats)
        self.replayed = replayed
        self.frames = replay_positions(replayed)
        self.position = 0
        self.level = level
        self.analysis: Analysis | None = None
        self.analysing = False
        # The seat of the person who played the record ("You"), spoken to in its words.
        self.reader = next((s for s, n in enumerate(replayed.seats) if called_you(n)), None)

    def on_mount(self) -> None:
        self.screen.add_class("replay")
        self.fit_screen()

    def redraw(self) -> None:
        self.show()

    def show(self) -> None:
        frame = self.frames[self.position]
        self.draw_table(frame.view)
        target = self.replayed.match.target
        self.query_one("#seats", Static).update(
            seats_panel(frame.view, self.names, target, hands=frame.hands)
        )
        self.query_one("#seats-line", Static).update(
            seats_line(frame.view, self.names, target, self.size.width - 2)
        )
        self.query_one("#count", Static).update(count_panel(frame.view, {}))
        last = len(self.frames) - 1
        where = _("hand {hand}, move {move} · position {at}/{last}").format(
            hand=frame.hand, move=frame.move, at=self.position, last=last
        )
        said = (
            say(describe_event(frame.event, self.names, self.spec.name))
            if frame.event
            else _("dealt")
        )
        self.query_one("#hand", Static).update(Text(f"{where}: {said}", style="bold"))
        status = _("←/→ step, PgUp/PgDn hand, Home/End")
        sheet = None
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
            status = say(addressed(sheet.explanation, self.names, self.reader))
        self.log_to(frame, sheet)
        said_by_analysis = self.analysed(frame.hand, frame.move)
        self.show_status(said_by_analysis or status)

    def log_to(self, frame: Any, sheet: Any) -> None:
        """The log as it stood at this position: the hand's moves so far, and its sheet
        only once it is over (stepping back from the end takes the sheet away)."""
        log = self.query_one("#log", RichLog)
        log.clear()
        self.log_lines = []
        for earlier in self.frames[: self.position + 1]:
            if earlier.hand == frame.hand and earlier.event is not None:
                self.log_line(say(describe_event(earlier.event, self.names, self.spec.name)))
        if sheet is not None:
            target = self.replayed.match.target
            self.log_line(sheet_table(sheet, self.names, target, self.reader))

    # -- analysis ----------------------------------------------------------------------

    def analysed(self, hand: int, move: int) -> Text | None:
        """What the analysis says of the decision that made this position's move."""
        if self.analysis is None:
            return None
        found = next(
            (d for d in self.analysis.decisions if d.hand == hand and d.move == move), None
        )
        if found is None:
            return Text(_("analysis: no choice that mattered here"), style="dim")
        name = self.names[found.seat]
        text = Text(_("from {name}'s view: ").format(name=name), style="bold")
        text.append(_("played {move}").format(move=found.played))
        if found.loss > 0:
            text.append(
                _(", best {move}, loss {loss}").format(move=found.best, loss=decimal(found.loss))
            )
        if found.size:
            text.append(f" — {_(found.size)}", style="bold red")
        choices = "  ".join(
            f"{m} {'+' if v >= 0 else '-'}{decimal(abs(v), 1)}" for m, v in found.choices
        )
        text.append("\n" + _("choices: {choices}").format(choices=choices), style="dim")
        return text

    def action_analyse(self) -> None:
        """Start the analysis (off the screen's thread), or show its summary."""
        if self.analysis is not None:
            self.push_screen(TextScreen(self.analysis_summary(), _("Analysis")))
            return
        if not self.analysing:
            self.analysing = True
            self.show_status(Text(_("analysing every decision…"), style="yellow"))
            self.run_analysis()

    @work(thread=True, exclusive=True, group="analysis")
    def run_analysis(self) -> None:
        def advanced(done: int, total: int) -> None:
            said = Text(
                _("analysing: {done} of {total} decisions").format(done=done, total=total),
                style="yellow",
            )
            self.call_from_thread(self.show_status, said)

        found = analyse(self.replayed, self.level, progress=advanced)
        self.call_from_thread(self.analysis_done, found)

    def analysis_done(self, found: Analysis) -> None:
        self.analysis, self.analysing = found, False
        self.show()

    def analysis_summary(self) -> RenderableType:
        assert self.analysis is not None
        table = analysis_table(self.analysis)
        worst = sorted(self.analysis.decisions, key=lambda d: -d.loss)[:8]
        lines = [
            Text(
                _(
                    "hand {hand} move {move}: {name} played {played}, best {best} (loss {loss})"
                ).format(
                    hand=d.hand,
                    move=d.move,
                    name=self.names[d.seat],
                    played=d.played,
                    best=d.best,
                    loss=decimal(d.loss) + (", " + _(d.size) if d.size else ""),
                )
            )
            for d in worst
            if d.loss > 0
        ]
        return Group(table, Text("\n" + _("The largest losses"), style="bold"), *lines)

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
        return _("to open")
    place = _("side") if move.at.value == "side" else _("end")
    return f"{place} {move.touching}" + (" " + _("in line") if move.inline else "")
