"""``pips bot``: any engine that speaks ``pips.bot/1`` plays at a pips server as a bot
account, the way lichess-bot connects chess engines to lichess (docs/bots-api.md).

It reads the account's event stream, accepts or declines challenges by a policy, and
plays each game on a thread of its own: the game's stream gives the seat's state, and at
its turn the engine is sent the very decide line an external bot gets
(:meth:`pips.bots.external.ExternalBot.decide`), its answer posted as the move. A dropped
stream is opened again after a pause that doubles up to a minute; Ctrl-C stops it, its
engines with it.
"""

from __future__ import annotations

import shlex
from typing import Annotated, Literal

import typer

from pips.cli.base import app, fail
from pips.i18n import _

Policy = Literal["any", "people", "bots", "none"]
POLICIES: tuple[Policy, ...] = ("any", "people", "bots", "none")


@app.command("bot")
def bot_command(
    server: Annotated[str, typer.Option(help="The server's address (https://...).")],
    token: Annotated[
        str,
        typer.Option(
            envvar="PIPS_TOKEN",
            help="The bot account's API token with the scope play (or $PIPS_TOKEN).",
        ),
    ],
    engine: Annotated[
        str, typer.Option(help="The command of an engine that speaks pips.bot/1 (docs/bots.md).")
    ],
    accept: Annotated[
        str,
        typer.Option(help="Which challenges to accept: any, people, bots or none."),
    ] = "any",
    game: Annotated[
        list[str] | None,
        typer.Option(metavar="GAME", help="Accept challenges of this game only (repeatable)."),
    ] = None,
) -> None:
    """Play at a pips server as a bot account: accept challenges, play every game with
    the engine, and connect again when the connection drops (docs/bots-api.md)."""
    if not shlex.split(engine):
        fail(_("--engine names the command of an engine"))
    if accept not in POLICIES:
        fail(_("--accept is one of {choices}").format(choices=", ".join(POLICIES)))
    policy = next(p for p in POLICIES if p == accept)  # checked above: one of them
    from pips.cli.bot_client import BotClient  # httpx: the server extra

    runner = BotClient(server, token.strip(), engine, policy, tuple(game or ()))
    try:
        runner.run()
    finally:
        runner.shutdown()
