#!/usr/bin/env python3
"""A misbehaving external bot for the tests: its first argument says how."""

import json
import sys
import time

how = sys.argv[1]
for line in sys.stdin:
    legal = json.loads(line)["legal"]
    if how == "garbage":
        print("this is not json", flush=True)
    elif how == "index":
        print(json.dumps({"move": len(legal) + 5}), flush=True)
    elif how == "illegal":
        print(json.dumps({"move": {"seat": 0, "play": [9, 9], "at": "end", "end": 0}}), flush=True)
    elif how == "shape":
        print(json.dumps([1, 2]), flush=True)
    elif how == "exit":
        sys.exit(3)
    elif how == "slow":
        time.sleep(30)
