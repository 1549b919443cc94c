"""What an event's results wait for, in words, and the one-step decisions on them with
their review first: a club's representative confirms their players' results, an
administrator sanctions the event (docs/results.md, "Multi-club events")."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse

from pips.core.phrase import phrase
from pips.i18n import _, ngettext
from pips.results.common import NotAllowed
from pips.results.facts import actor_facts
from pips.results.service import Results
from pips.server.routes.common import results_of, run
from pips.server.web import page, viewer


def waits_said(waiting: list[dict[str, Any]]) -> list[str]:
    """What results wait for, per person who can act, in words."""
    said = []
    for wait in waiting:
        count = int(wait["results"])
        if wait["kind"] == "representative":
            said.append(
                ngettext(
                    "{count} result waits for {who}, who confirms the club's players' "
                    "results on this page in one step.",
                    "{count} results wait for {who}, who confirms the club's players' "
                    "results on this page in one step.",
                    count,
                ).format(count=count, who=wait["who"])
            )
        elif wait["kind"] == "player":
            said.append(
                ngettext(
                    "{count} result waits for {who} to confirm their own line.",
                    "{count} results wait for {who} to confirm their own line.",
                    count,
                ).format(count=count, who=wait["who"])
            )
        else:
            said.append(
                ngettext(
                    "{count} result has a player no approved club answers for: it counts "
                    "once an administrator confirms it or sanctions the event.",
                    "{count} results have a player no approved club answers for: they "
                    "count once an administrator confirms them or sanctions the event.",
                    count,
                ).format(count=count)
            )
    return said


async def confirm_many(
    request: Request, key: str, actor: int, action: str, *, save: bool
) -> HTMLResponse | None:
    """A club's representative's one step for an event's results (``confirm``), or an
    administrator's sanction (``sanction``): first the review, what will change, then
    (``save``) the change; ``None`` once saved."""
    results = results_of(request)
    if action == "confirm":
        if not await run(_represents, results, actor):
            # Refused with its reason (403), not a redirect as if something was done.
            raise NotAllowed(
                phrase("only a club's representative confirms the club's players' results")
            )
        done = await run(results.reviews.confirm_all, actor, event=key, save=save)
    else:
        done = await run(results.reviews.sanction, actor, key, save=save)
    if save:
        return None
    shown = await run(results.events.event, key, viewer(request))
    if action == "confirm":
        question = _("Confirm your players' results of {name}?").format(name=shown["name"])
        lines = [
            _("Result {id}, {date}: {players}").format(
                id=r["id"], date=r["date"], players=", ".join(r["players"])
            )
            + (" · " + _("counts") if r["counts"] else " · " + _("still waits for others"))
            for r in done["results"]
        ] or [_("No result of this event waits for your word.")]
        if done["players"]:
            lines.insert(
                0,
                _("These players become your club's: {names}").format(
                    names=", ".join(done["players"])
                ),
            )
        answer = ngettext(
            "Confirm {count} result", "Confirm {count} results", done["confirmed"]
        ).format(count=done["confirmed"])
    else:
        question = _("Sanction {name}?").format(name=shown["name"])
        lines = [
            _(
                "A sanctioned event's results count whoever plays: an administrator's word "
                "stands behind every seat of its tables."
            ),
            ngettext(
                "{count} of its {total} results will count.",
                "{count} of its {total} results will count.",
                done["counting"],
            ).format(count=done["counting"], total=done["results"]),
        ]
        answer = _("Sanction the event")
    return page(
        request,
        "confirm.html",
        question=question,
        consequences=lines,
        answer=answer,
        action=f"/events/{key}/{action}",
        fields={},
        back=f"/events/{key}",
    )


def _represents(results: Results, actor: int) -> bool:
    """Whether ``actor`` represents a group (whose players' results it may confirm)."""
    with results.context.db.session() as session:
        return bool(actor_facts(session, actor).represents)
