"""No seat a client names starts a program (issue "Nothing a stranger sends runs a
program"): a server seats only the bots that declare they may be seated, however the
name is spelt, and the ``external`` bot, which runs the command in its setting, never."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pips.bots.base import bot_names, make_bot, parse_bot
from pips.core.errors import RuleError
from pips.server.accounts.identity import Identity
from tests.server_helpers import Browser, Server, bots, new_round

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
    shared_server: Server, tmp_path: Path, spelling: str
) -> None:
    marker = tmp_path / "pwned"
    guest = Browser(shared_server, f"Eve{SPELLINGS.index(spelling)}")
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
