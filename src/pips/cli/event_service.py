"""What the event commands that keep an event in a database share: the results service over
the database, the organiser's account, a call whose refusal is a one-line error, an
event shown as a table."""

from __future__ import annotations

from datetime import date
from typing import Any

from rich.table import Table

from pips import i18n
from pips.cli.base import (
    fail,
    out,
    spec_for,
)
from pips.core.phrase import N_
from pips.i18n import _, explain


def event_service(database: str | None) -> Any:
    from pips.cli.results import results_service

    return results_service(database)


def account_id(service: Any, name: str) -> int:
    from sqlalchemy import select

    from pips.core.names import name_key
    from pips.store.models import User

    with service.db.session() as session:
        user = session.scalars(select(User).where(User.name_key == name_key(name))).first()
        if user is None:
            fail(_("no account named {name!r}").format(name=name))
        return int(user.id)


def called(function: Any, *args: Any, **kwargs: Any) -> Any:
    from pips.results.entry import EntryError
    from pips.results.service import ResultsError

    try:
        return function(*args, **kwargs)
    except (ResultsError, EntryError) as exc:
        fail(explain(exc))


ROUND_STATES = {
    "drawn": N_("drawn, not started"),
    "playing": N_("being played"),
    "closed": N_("over"),
}
"""A round's state in words, as the event's page says it."""


def show_event(shown: dict[str, Any]) -> None:
    """An event in the terminal: its rounds' tables and the standings."""
    out.print(
        f"[bold]{shown['name']}[/bold] · {_(spec_for(shown['game']).title)} · "
        f"{i18n.numeric_date(date.fromisoformat(shown['date']))} · {shown['key']}",
        highlight=False,
    )
    for one in shown["drawn"]:
        heading = (
            _("Final table")
            if one.get("method") == "final"
            else _("Round {number}").format(number=one["number"])
        )
        day = i18n.numeric_date(date.fromisoformat(one.get("date") or shown["date"]))
        out.print(f"\n{heading} · {day} ({_(ROUND_STATES[one['status']])})", markup=False)
        for table in one["tables"]:
            result = table["result"]
            said = (
                ""
                if result is None
                else " — " + ", ".join(f"{p['name']} {p['final']}" for p in result["players"])
            )
            out.print(
                _("Table {number}: {players}").format(
                    number=table["number"], players=", ".join(table["seats"])
                )
                + said,
                markup=False,
            )
        if one["byes"]:
            out.print(_("Sits out: {players}").format(players=", ".join(one["byes"])), markup=False)
    grid = Table(title=_("Standings"))
    for heading in (_("place"), _("player"), _("points"), _("wins"), _("games"), _("byes")):
        grid.add_column(heading)
    for s in shown["standings"]:
        marks = []
        if s.get("final_place"):
            marks.append(_("final table: place {place}").format(place=s["final_place"]))
        if s.get("late_from"):
            marks.append(_("from round {number}").format(number=s["late_from"]))
        if s.get("withdrawn_from"):
            marks.append(_("withdrew after round {number}").format(number=s["withdrawn_from"] - 1))
        grid.add_row(
            str(s["place"]),
            s["name"] + (f" ({'; '.join(marks)})" if marks else ""),
            str(s["points"]),
            str(s["wins"]),
            str(s["games"]),
            str(s["byes"]),
        )
    out.print(grid)
    for rows, title in ((shown.get("clubs"), _("Clubs")), (shown.get("teams"), _("Teams"))):
        if not rows:
            continue
        groups = Table(title=title)
        for heading in (_("place"), _("name"), _("points"), _("counted")):
            groups.add_column(heading)
        for g in rows:
            groups.add_row(str(g["place"]), g["name"], str(g["points"]), ", ".join(g["counted"]))
        out.print(groups)
