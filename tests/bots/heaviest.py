#!/usr/bin/env python3
"""An example external bot (docs/bots.md): lays the heaviest tile it may, else passes
or draws as the single legal move says. Standard library only, as a bot in any other
language would be."""

import json
import sys
from typing import Any

for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") != "decide":
        continue
    legal = message["legal"]

    def weight(move: dict[str, Any]) -> int:
        return int(sum(move["play"])) if "play" in move else -1

    best = max(range(len(legal)), key=lambda i: weight(legal[i]))
    # Answer with the move itself (an index would do as well).
    print(json.dumps({"move": legal[best]}), flush=True)
