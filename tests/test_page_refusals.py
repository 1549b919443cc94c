"""A page's form refused is answered by its page with the reason (review lows c, d):
the waiting page's forms refused while parsing, an event page's unknown button, and a
stranger's "confirm your club's players' results" (403, not a redirect as if done)."""

from __future__ import annotations

from tests.test_events import new_event
from tests.test_results_server import Site


def test_a_refused_waiting_form_shows_the_waiting_page(site: Site) -> None:
    mallory = site.person("Mallory")
    for path, data in (
        ("/results/waiting/decide", {"action": "obliterate", "ids": "1"}),
        ("/results/waiting/claims", {"decision": "maybe", "claims": "1:Mallory"}),
        ("/results/waiting/confirm", {"confirm": "yes", "ids": "1;2"}),
    ):
        page = mallory.client.post(path, data={"csrf": mallory.csrf, **data})
        assert page.status_code == 422, (path, page.text[:300])
        assert page.headers["content-type"].startswith("text/html"), path
        assert 'action="/results/waiting/confirm"' in page.text or "<main" in page.text


def test_an_unknown_event_button_shows_the_event_page(site: Site) -> None:
    anna, key = new_event(site)
    page = anna.client.post(f"/events/{key}/obliterate", data={"csrf": anna.csrf})
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "no such button" in page.text


def test_a_stranger_confirming_an_events_results_is_refused_with_the_reason(site: Site) -> None:
    _anna, key = new_event(site)
    stranger = site.person("Mallory")
    for confirm in ("", "yes"):
        page = stranger.client.post(
            f"/events/{key}/confirm",
            data={"csrf": stranger.csrf, "confirm": confirm},
            follow_redirects=False,
        )
        assert page.status_code == 403, page.text[:300]
        assert "only a club's representative confirms" in page.text.replace("&#39;", "'")
