"""Compute a published world list again from its games (the list page links to it):
    python check_list.py games.json   # saved from /api/lists/GAME/months/MONTH/games.json
The same program as docs/results.md, "Check a month yourself"."""

import json
import math
import sys

from openskill.models import PlackettLuce

with open(sys.argv[1], encoding="utf-8") as file:
    data = json.load(file)
model = PlackettLuce()
known: dict[int, tuple[float, float]] = {}  # player number -> (mu, sigma)
for game in data["games"]:
    start = (data["start"]["mu"], data["start"]["sigma"])
    teams = [[model.rating(*known.get(p, start)) for p in team] for team in game["teams"]]
    after = model.rate(teams, ranks=game["ranks"])
    w = game["weight"]  # 1 would be openskill's own update
    for team, before_team, after_team in zip(game["teams"], teams, after, strict=True):
        for player, old, new in zip(team, before_team, after_team, strict=True):
            mu = old.mu + w * (new.mu - old.mu)
            sigma = math.sqrt(old.sigma**2 + w * (new.sigma**2 - old.sigma**2))
            known[player] = (mu, sigma)
for row in data["list"]:
    mu, sigma = known[row["player"]]
    if abs(mu - row["mu"]) > 1e-6 or abs(sigma - row["sigma"]) > 1e-6:
        print("differs:", row["place"], row["player"], mu, sigma, row["mu"], row["sigma"])
print(len(data["list"]), "players checked")
