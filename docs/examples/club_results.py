"""A club's results, posted from its own spreadsheet's CSV export with an API token.

    PIPS_URL=https://pips.example.org PIPS_TOKEN=pips_... \\
        python club_results.py abend-2026-10.csv --group dc-kiel

The token needs the scope ``results`` (made on the account page, /account, or with
``pips admin tokens create NAME --label "club script" --scope results``). The file is
sent as it is: semicolons or commas, UTF-8 or a German spreadsheet's Windows-1252, German
column names (Spiel;Datum;Ort;Spielart;...) or English ones (docs/results.md). All games
are entered or none; the answer says which results were made or what is wrong and where.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import httpx


def main() -> int:
    parser = argparse.ArgumentParser(description="Post a club's results CSV to pips.")
    parser.add_argument("csv", type=Path)
    parser.add_argument("--group", help="the group the games were played in (its short name)")
    parser.add_argument("--new-players", default="", help="names confirmed as new, comma-separated")
    arguments = parser.parse_args()
    server, token = os.environ["PIPS_URL"], os.environ["PIPS_TOKEN"]
    params = {"new_players": arguments.new_players}
    if arguments.group:
        params["group"] = arguments.group
    answer = httpx.post(
        f"{server}/api/results/csv",
        content=arguments.csv.read_bytes(),
        params=params,
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "text/csv",
            "Accept-Language": "de",  # the errors in German
        },
        timeout=60,
    )
    if answer.status_code == 201:
        made = answer.json()
        print(f"{len(made['ids'])} results entered: {made['ids']}")
        if made["new_players"]:
            print("new players:", ", ".join(made["new_players"]))
        return 0
    # Every refusal has the same shape: code, message, rule, field (docs/api.md).
    problem = answer.json()
    print(
        f"refused ({answer.status_code} {problem['code']}): {problem['message']}", file=sys.stderr
    )
    if answer.status_code == 429:
        print(f"try again in {answer.headers['Retry-After']} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
