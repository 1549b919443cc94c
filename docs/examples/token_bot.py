"""A bot that plays at a pips table over the websocket, as its account, with a token.

    PIPS_URL=http://127.0.0.1:8000 PIPS_TOKEN=pips_... python token_bot.py
    PIPS_URL=... PIPS_TOKEN=... python token_bot.py --join TABLE_ID

The token needs the scope ``play``. Without ``--join`` the bot makes a table of its own
(the draw game for two, against the server's greedy bot) and plays it; with it, it takes
an open seat at that table. It plays the heaviest legal move each turn; the messages are
described in /api/asyncapi.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import httpx
from websockets.sync.client import connect


def main() -> int:
    parser = argparse.ArgumentParser(description="Play at a pips table with an API token.")
    parser.add_argument("--join", metavar="TABLE_ID", help="take an open seat at this table")
    arguments = parser.parse_args()
    server, token = os.environ["PIPS_URL"].rstrip("/"), os.environ["PIPS_TOKEN"]
    api = httpx.Client(base_url=server, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    if arguments.join:
        answer = api.post(f"/api/tables/{arguments.join}/join")
        table = arguments.join
    else:
        seats = [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}]
        answer = api.post(
            "/api/tables", json={"game": "draw", "options": {"players": 2}, "seats": seats}
        )
        table = answer.json().get("id", "")
    if answer.status_code not in (200, 201):
        print(f"refused: {answer.json()['message']}", file=sys.stderr)
        return 1
    socket_url = server.replace("http", "ws", 1) + f"/ws/{table}"
    with connect(socket_url, additional_headers={"Authorization": f"Bearer {token}"}) as socket:
        while True:
            message = json.loads(socket.recv(timeout=120))
            if message["type"] == "error":
                print(f"{message['code']}: {message['message']}", file=sys.stderr)
                if message["code"] in ("token_invalid", "scope_missing", "not_found"):
                    return 1
                continue
            if message["type"] != "state":
                continue
            if message["match"].get("over"):
                print("final scores:", message["match"].get("scores"))
                return 0
            legal = message.get("legal") or []
            if legal:
                # The heaviest tile first: fewer pips left in hand if the hand is blocked.
                weights = [sum(move.get("tile") or [0]) for move in legal]
                choice = weights.index(max(weights))
                socket.send(
                    json.dumps(
                        {
                            "v": 1,
                            "type": "move",
                            "move": choice,
                            "moves_made": message["moves_made"],
                        }
                    )
                )


if __name__ == "__main__":
    sys.exit(main())
