"""A row's id as a client names it (review F4): ``str.isdigit`` is true for ``²`` and
``①``, which ``int`` refuses, and twenty digits overflow the database's integer. Each
route that reads an id out of text answers such an id with a refusal or "no such row",
never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pips.core.notation import NotationError, read_move
from pips.server.routes.results.pages import claim_refs, from_ranges, row_ids
from pips.store.ids import MAX_ID, row_id
from tests.in_process import InProcess
from tests.server_helpers import Browser

NOT_IDS = ["²", "①", "٣", "0", "99999999999999999999", "9223372036854775808", str(MAX_ID + 1)]

ids_of_text = st.one_of(
    st.sampled_from(NOT_IDS),
    st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=25),
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
)
"""What a client may put where an id belongs: digits of any script, any size."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    with InProcess(tmp_path_factory.mktemp("ids")) as app:
        yield app


@given(ids_of_text)
def test_row_id_takes_ascii_digits_in_bounds_only(text: str) -> None:
    number = row_id(text)
    if number is not None:
        assert text.isascii() and 1 <= number <= MAX_ID and str(number) == text.lstrip("0")


def test_the_parsers_of_forms_leave_out_what_is_no_id() -> None:
    for text in NOT_IDS:
        assert row_ids([text, f"{text},7"]) == [7]
        assert claim_refs([f"{text}:Mallory", "7:Ann"]) == [(7, "Ann")]
        assert from_ranges(f"{text},3-4,5-{text}") == [3, 4]
    # A range is bounded before it is made, not after.
    assert len(from_ranges(f"1-{MAX_ID}")) == 10_000


def test_a_move_typed_in_other_digits_is_refused_not_a_crash() -> None:
    with pytest.raises(NotationError):
        read_move("²", [])
    with pytest.raises(NotationError):
        read_move("misdeal ² draw 5-1", [], ["Ann", "Ben"])


def test_the_review_cases_answer_without_a_500(server: InProcess) -> None:
    guest = Browser(server)
    for text in NOT_IDS:
        path = quote(text)
        for url in (
            f"/api/lists/fido/players/{path}",
            f"/list/fido/players/{path}",
            f"/api/results?player={path}",
            f"/results?player={path}",
        ):
            response = guest.http.get(url)
            assert response.status_code < 500, (url, response.text)
    assert guest.http.get("/api/lists/fido/players/99999999999999999999").status_code == 404


def test_waiting_forms_with_no_ids_change_nothing(server: InProcess) -> None:
    mallory = Browser(server)
    assert mallory.form("/register", name="Mallory", password="password-1").status_code == 303

    @settings(
        max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(ids_of_text, st.sampled_from(["reject", "uphold"]), st.sampled_from(["", "yes"]))
    def post(text: str, action: str, confirm: str) -> None:
        for path, fields in (
            ("/results/waiting/decide", {"action": action, "ids": text}),
            ("/results/waiting/claims", {"decision": "approve", "claims": f"{text}:Mallory"}),
            ("/results/waiting/confirm", {"ids": text}),
        ):
            response = mallory.form(path, confirm=confirm, **fields)
            assert response.status_code < 500, (path, text, response.text)

    post()


def test_get_routes_naming_a_player_never_answer_500(server: InProcess) -> None:
    guest = Browser(server)

    @settings(
        max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(ids_of_text, st.sampled_from(["/api/lists/fido/players/", "/list/fido/players/"]))
    def get(text: str, prefix: str) -> None:
        for url in (prefix + quote(text), f"/api/results?player={quote(text)}"):
            response = guest.http.get(url)
            assert response.status_code < 500, (url, response.text)

    get()
