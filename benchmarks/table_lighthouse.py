"""Lighthouse (mobile) on the table page while a game is being played (issue 51, item 6).

Starts ``pips serve`` on 127.0.0.1 over a fresh ``PIPS_HOME``, opens a FIDO double-12
practice table for five (the player and four bots) through the API as a guest, plays
``--moves`` of the guest's turns over the websocket so the board holds tiles and it is
the guest's turn again, and runs Lighthouse 12 (its mobile defaults: a phone's screen,
throttled network and CPU) on the table page as that guest (the session's cookie is
sent with every request) in Debian's chromium. Reported: the cumulative layout shift,
the accessibility score and the accessibility audits that failed, best and worst of
``--rounds`` runs.

    (cd benchmarks/lighthouse && npm ci)      # once: Lighthouse, pinned in package-lock.json
    .venv/bin/python -m benchmarks.table_lighthouse   # benchmarks/results/table_lighthouse.json
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.server_helpers import Browser, Server

HERE = Path(__file__).parent
LIGHTHOUSE = HERE / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
RESULTS = HERE / "results"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")


def table_in_play(server: Server, moves: int) -> tuple[Browser, str]:
    """A guest at a double-12 FIDO table for five, after ``moves`` of their own turns
    (the bots play theirs at once), with the turn theirs again."""
    guest = Browser(server, "Lighthouse")
    bots = [{"kind": "bot", "bot": "greedy"}] * 4
    table = guest.create("fido", {"players": 5, "set": 12}, [{"kind": "me"}, *bots], seed=12)
    made = 0
    with guest.socket(table) as socket:
        while True:
            message = json.loads(socket.recv(timeout=60))
            if message["type"] != "state" or not message.get("legal"):
                continue
            if made == moves:
                break
            plays = [i for i, m in enumerate(message["legal"]) if "play" in m]
            socket.send(
                json.dumps(
                    {
                        "v": 1,
                        "type": "move",
                        "move": plays[0] if plays else 0,
                        "moves_made": message["moves_made"],
                    }
                )
            )
            made += 1
    return guest, table


def lighthouse(url: str, cookie: str, report: Path) -> dict[str, Any]:
    """One Lighthouse run (mobile, its defaults); the report's JSON."""
    subprocess.run(
        [
            str(LIGHTHOUSE),
            url,
            "--only-categories=performance,accessibility",
            "--output=json",
            f"--output-path={report}",
            "--chrome-flags=--headless --no-sandbox",
            *([f"--extra-headers={json.dumps({'Cookie': cookie})}"] if cookie else []),
            "--quiet",
        ],
        check=True,
        env={**os.environ, "CHROME_PATH": CHROME},
        timeout=300,
    )
    found: dict[str, Any] = json.loads(report.read_text())
    return found


def figures(report: dict[str, Any]) -> dict[str, Any]:
    audits = report["audits"]
    failed = [
        name
        for name in report["categories"]["accessibility"]["auditRefs"]
        if audits[name["id"]]["score"] is not None and audits[name["id"]]["score"] < 1
    ]
    return {
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "accessibility": round(report["categories"]["accessibility"]["score"] * 100),
        "performance": round(report["categories"]["performance"]["score"] * 100),
        "failed": {
            f["id"]: [
                item.get("node", {}).get("snippet")
                for item in audits[f["id"]].get("details", {}).get("items", [])
            ]
            for f in failed
        },
        "shifts": [
            {"score": round(item.get("score", 0), 4), "node": item.get("node", {}).get("snippet")}
            for item in audits.get("layout-shifts", {}).get("details", {}).get("items", [])
        ],
    }


def bots_playing(server: Server) -> str:
    """A double-12 FIDO table of five bots, being played (a move every ``--bot-delay``)."""
    maker = Browser(server, "Watcher")
    bots = [{"kind": "bot", "bot": "greedy"}] * 5
    return maker.create("fido", {"players": 5, "set": 12}, bots, seed=12)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--moves", type=int, default=3)
    parser.add_argument("--bot-delay", type=float, default=1.0, help="seconds a bot waits")
    arguments = parser.parse_args()
    if not LIGHTHOUSE.exists():
        raise SystemExit("Lighthouse is not installed: cd benchmarks/lighthouse && npm ci")
    with tempfile.TemporaryDirectory() as home:
        server = Server(Path(home), bot_delay=arguments.bot_delay).start()
        try:
            guest, table = table_in_play(server, arguments.moves)
            cookie = "; ".join(f"{k}={v}" for k, v in guest.http.cookies.items())
            watched = bots_playing(server)
            reports = []
            for _round in range(arguments.rounds):
                # Seated, the turn one's own; then watching bots play (moves arrive
                # while the page loads and Lighthouse watches it).
                reports.append(lighthouse(f"{server.url}/t/{table}", cookie, Path(home) / "s.json"))
                reports.append(lighthouse(f"{server.url}/t/{watched}", "", Path(home) / "w.json"))
            runs = [figures(r) for r in reports]
        finally:
            server.stop()
    summary = {
        "page": "table, FIDO double-12, five players, during play (Lighthouse 12, mobile)",
        "cls_worst": max(r["cls"] for r in runs),
        "cls_best": min(r["cls"] for r in runs),
        "accessibility_worst": min(r["accessibility"] for r in runs),
        "performance_worst": min(r["performance"] for r in runs),
        "runs": runs,
    }
    RESULTS.mkdir(exist_ok=True)
    # What the page showed at the end of the worst run, to look at.
    worst = max(range(len(runs)), key=lambda i: runs[i]["cls"])
    shot = reports[worst]["audits"]["final-screenshot"]["details"]["data"]
    (RESULTS / "table_lighthouse.jpg").write_bytes(base64.b64decode(shot.split(",", 1)[1]))
    (RESULTS / "table_lighthouse.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k != "runs"}, indent=2))
    for run in runs:
        print(run["cls"], run["accessibility"], run["failed"], run["shifts"][:3])


if __name__ == "__main__":
    main()
