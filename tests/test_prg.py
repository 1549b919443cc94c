"""Post/Redirect/Get on the pages' forms that change something (issue 51): the answer
to a saving form is a redirect, so a reload shows the page again and sends nothing
twice."""

from __future__ import annotations

import html
import re

from tests.test_results_server import Site
from tests.test_results_server import upload as checked_upload

GOOD = [
    [1, "2026-10-03", "Kiel", "fido", 6, 3, 1, "Anna", 14, 0, "yes", "", ""],
    [1, "2026-10-03", "Kiel", "fido", 6, 3, 2, "Ben", 17, 13, "", "", ""],
    [1, "2026-10-03", "Kiel", "fido", 6, 3, 3, "Cleo", 9, 1, "", "", ""],
    [2, "2026-10-05", "Kiel", "fido", 6, 3, 1, "Anna", 3, 0, "", "", ""],
    [2, "2026-10-05", "Kiel", "fido", 6, 3, 2, "Ben", 20, 2, "", "", ""],
    [2, "2026-10-05", "Kiel", "fido", 6, 3, 3, "Cleo", 9, 1, "", "", ""],
]


def test_a_saved_upload_answers_with_a_redirect_and_a_reload_enters_nothing(
    site: Site,
) -> None:
    anna = site.person("Anna")
    shown = checked_upload(anna, GOOD, save=False)
    reviewed = re.search(r'name="reviewed" value="([0-9a-f]+)"', shown.text)
    text = re.search(r'<textarea name="csv_text" hidden>(.*?)</textarea>', shown.text, re.S)
    assert reviewed is not None and text is not None
    saved = anna.client.post(
        "/results/upload",
        data={
            "csrf": anna.csrf,
            "group": "",
            "csv_text": html.unescape(text[1]),
            "reviewed": reviewed[1],
            "action": "save",
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303 and saved.headers["location"].startswith("/results/upload")
    assert site.count() == 2
    answer = anna.client.get("/results/upload")
    assert "Entered 2 results" in answer.text
    ids = re.findall(r'<a href="/results/(\d+)">\1</a>', answer.text)
    assert len(ids) == 2
    # The reload: the page again, without the note, and nothing entered twice.
    again = anna.client.get("/results/upload")
    assert again.status_code == 200 and "Entered 2 results" not in again.text
    assert site.count() == 2


def test_numbers_as_ranges_come_back_as_they_were() -> None:
    from pips.server.routes.results.pages import from_ranges, id_ranges

    for ids in ([], [5], [1, 2, 3], [3, 1, 2, 7, 9, 10, 11, 20], list(range(100, 1100))):
        assert from_ranges(id_ranges(ids)) == sorted(ids)
    assert id_ranges([12, 13, 14, 60]) == "12-14,60"
    assert from_ranges("x,3-a,-,5") == [5]
