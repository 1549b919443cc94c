"""The Bot API across several server processes (issue 52): an account's event stream at
one process hears what is done at another (challenges made, declined, accepted, and the
game that starts), over the broker every process listens to."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster_helpers import cluster, logs, needs_cluster
from tests.server_helpers import Browser, register, wait_for
from tests.test_bot_api import Events, api, bot_account

pytestmark = needs_cluster


@pytest.mark.process
def test_an_event_stream_at_one_process_hears_a_challenge_made_at_another(
    tmp_path: Path,
) -> None:
    _url, nodes = cluster(tmp_path, 2)
    try:
        token = bot_account(nodes[0], "Fernbot")
        bot = api(nodes[0], token)
        bot_events = Events(api(nodes[0], token))
        person = Browser(nodes[1])
        assert register(person, "Fernspielerin").status_code == 303
        person_events = Events(person.http)
        for stream in (bot_events, person_events):
            stream.start()
            assert stream.opened.wait(30)
        draw = {"game": "draw", "options": {"players": 2}}
        asked = person.post("/api/challenge/Fernbot", draw)
        assert asked.status_code == 201, asked.text
        # Made at process 1, heard on the bot's stream at process 0.
        heard = wait_for(lambda: bot_events.of("challenge"), 30)
        assert heard[0]["challenge"]["id"] == asked.json()["id"], logs(nodes)
        assert heard[0]["challenge"]["challenger"] == {"name": "Fernspielerin", "bot": False}
        # Declined at process 0, heard at process 1.
        declined = bot.post(f"/api/challenge/{asked.json()['id']}/decline")
        assert declined.status_code == 200, declined.text
        wait_for(lambda: person_events.of("challengeDeclined"), 30)
        # Accepted at process 0: its table is made there, and both streams hear the
        # game start (every seat is an account's, so it starts at once).
        again = person.post("/api/challenge/Fernbot", draw)
        assert again.status_code == 201, again.text
        accepted = bot.post(f"/api/challenge/{again.json()['id']}/accept")
        assert accepted.status_code == 200, accepted.text
        table_id = accepted.json()["id"]
        for stream in (person_events, bot_events):
            started = wait_for(lambda stream=stream: stream.of("gameStart"), 30)
            assert started[-1]["game"]["id"] == table_id, logs(nodes)
        bot.close()
        bot_events.client.close()
        person.http.close()
    finally:
        for node in nodes:
            node.stop()
