"""The terminal client's frame: the app every screen of a table lives in (sizes, language,
the board that redraws when its room changes, the key line) and its text and table
screens."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, VerticalScroll
from textual.geometry import Region
from textual.screen import ModalScreen, Screen
from textual.widgets import Header, RichLog, Static

from pips.core.moves import Play
from pips.core.phrase import N_
from pips.core.view import View
from pips.display import (
    PlayOutcome,
)
from pips.games.registry import Game
from pips.games.traits import LayoutKind
from pips.i18n import _, say
from pips.tui.art import Picture, Spot, draw_picture
from pips.tui.widgets import (
    fit_parts,
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

    def __init__(self, spec: Game, options: Any, names: Sequence[str]) -> None:
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
