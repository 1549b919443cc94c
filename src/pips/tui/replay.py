"""Replaying a recorded game in the terminal: move by move, with the analysis of each
seat's decisions."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType
from textual.widgets import RichLog, Static

from pips.bots.analysis import Analysis, analyse
from pips.core.phrase import N_
from pips.display import (
    addressed,
    describe_event,
    replay_positions,
    score_sheet,
)
from pips.i18n import _, decimal, say
from pips.record import Replay
from pips.tui.screens import (
    TableApp,
    TextScreen,
)
from pips.tui.widgets import (
    analysis_table,
    called_you,
    count_panel,
    seats_line,
    seats_panel,
    sheet_table,
)


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
                self.replayed.options,
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
