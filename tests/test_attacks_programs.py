"""No seat a client names starts a program (issue "Nothing a stranger sends runs a
program"): a server seats only the bots that declare they may be seated, however the
name is spelt, and the ``external`` bot, which runs the command in its setting, never."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pips.bots.base import (
    BOT_LEVELS,
    bot_names,
    make_bot,
    make_seated_bot,
    parse_bot,
    seated_name,
)
from pips.bots.search import LEVELS, SearchBot
from pips.core.errors import RuleError
from pips.server.accounts.identity import Identity
from tests.in_process import InProcess
from tests.server_helpers import Browser, bots, new_round

SPELLINGS = [
    "external:touch {marker}",
    "External:touch {marker}",
    "EXTERNAL:touch {marker}",
    " external :touch {marker}",
    "External :touch {marker}",
    "\texternal\t: touch {marker}",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_table_with_an_external_bot_seat_is_refused_and_runs_nothing(
    in_process: InProcess, tmp_path: Path, spelling: str
) -> None:
    marker = tmp_path / "pwned"
    guest = Browser(in_process, f"Eve{SPELLINGS.index(spelling)}")
    seats = [{"kind": "me"}, *bots(1), {"kind": "bot", "bot": spelling.format(marker=marker)}]
    response = guest.post(
        "/api/tables", {"game": "fido", "options": {"players": 3}, "seats": seats}
    )
    assert response.status_code == 422, response.text
    assert response.json()["field"].endswith("bot")
    assert "external" not in response.json()["message"].split("choose from")[-1]
    # Nothing was made, so no bot's first decision can ever run the program.
    assert not marker.exists()


# No deadline: the first example imports the server's request models.
@settings(deadline=None)
@given(
    padding=st.text(alphabet=" \t", max_size=3),
    casing=st.lists(st.booleans(), min_size=8, max_size=8),
    setting=st.text(min_size=1, max_size=20).filter(lambda s: s.strip()),
)
def test_no_spelling_of_external_can_be_seated(
    padding: str, casing: list[bool], setting: str
) -> None:
    name = "".join(c.upper() if up else c for c, up in zip("external", casing, strict=True))
    text = f"{padding}{name}{padding}:{setting}"
    with pytest.raises(RuleError):
        parse_bot(text, seatable=True)
    with pytest.raises(ValidationError, match=r"seatable|unknown bot"):
        new_round(
            "draw",
            {"players": 2},
            [{"kind": "me"}, {"kind": "bot", "bot": text}],
            Identity(user_id=None, name="Eve", guest="g"),
            seed=1,
        )


def test_every_bot_but_external_may_be_seated_and_is_stored_by_its_canonical_name() -> None:
    for name in bot_names():
        if name == "external":
            continue
        assert parse_bot(f" {name.upper()} ", seatable=True).text == name
    table = new_round(
        "draw",
        {"players": 2},
        [{"kind": "me"}, {"kind": "bot", "bot": " Search : hard "}],
        Identity(user_id=None, name="Eve", guest="g"),
        seed=1,
    )
    assert table.entrants[1].bot == "search:hard"
    # The command line still runs a program its own user names.
    assert make_bot("external:python3 -c pass").name.startswith("external")


BUDGETS = ["search:600s", "search:25s", "search:10000000", "Search: 0.5S", "ismcts:1000000"]


@pytest.mark.parametrize("budget", BUDGETS)
def test_a_seat_takes_a_bot_level_never_a_budget(in_process: InProcess, budget: str) -> None:
    """A client picked a searching bot's budget (``search:600s``, ten million playouts a
    move) and one such table took the search lane from every other table's bots; now a
    seat a client names takes a level only (422 naming the levels), and nothing is
    made. The command line keeps every setting."""
    guest = Browser(in_process, f"Mallory{BUDGETS.index(budget)}")
    seats = [{"kind": "me"}, {"kind": "bot", "bot": budget}]
    response = guest.post(
        "/api/tables", {"game": "draw", "options": {"players": 2}, "seats": seats}
    )
    assert response.status_code == 422, response.text
    assert response.json()["field"].endswith("bot")
    assert "hard" in response.json()["message"]
    with pytest.raises(RuleError):
        parse_bot(budget, seatable=True)
    assert parse_bot(budget).setting  # still the command line's to choose


@settings(deadline=None)
@given(setting=st.one_of(st.integers(-10, 10**9).map(str), st.floats(0, 1e4).map("{}s".format)))
def test_no_playout_count_or_seconds_can_be_seated(setting: str) -> None:
    for name in ("search", "ismcts"):
        with pytest.raises(RuleError):
            parse_bot(f"{name}:{setting}", seatable=True)


def test_every_level_offered_is_seatable_and_a_stored_budget_plays_at_the_default_level() -> None:
    """The levels a player chooses from are all seatable; a table stored with a budget
    before seats took levels only (``search:600s``) is seated, when loaded or played
    again, at the bot's default level, never at the stored budget."""
    for _label, level in BOT_LEVELS:
        assert parse_bot(level, seatable=True).text == level
    for level in ("search:easy", "search:normal", "ismcts:hard", "greedy:newer", "Search:HARD"):
        assert parse_bot(level, seatable=True).text == level.lower()
    assert seated_name("search:600s") == "search"
    assert seated_name("ismcts:1000000") == "ismcts"
    assert seated_name("search:hard") == "search:hard"
    bot = make_seated_bot("search:600s")
    assert isinstance(bot, SearchBot) and bot.budget == LEVELS["normal"]
    with pytest.raises(RuleError):
        seated_name("external:touch x")
