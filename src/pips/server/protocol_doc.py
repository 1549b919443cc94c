"""What the AsyncAPI document of the table's websocket says besides its messages' own
models (:func:`pips.server.messages.asyncapi`): where to connect (servers), how a client
is known (security schemes), the channel's parameter and the codes a socket is closed
with, and the schemas of what a bot plays from: the seat's ``view`` (typed per game: its
``options`` are the game's own), the ``legal`` moves and the ``event`` (the record
format's moves, docs/record-format.md).

Descriptions here are for any reader of the document: plain text, no Sphinx markup
(:func:`plain` takes it out of the docstrings the message models carry)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import TypeAdapter

from pips.core.moves import At
from pips.core.outcome import Ending
from pips.games.registry import all_games

CLOSE_CODES: dict[int, str] = {
    1011: "The link to the process that holds the table broke (several server "
    "processes): connect again.",
    1012: "The table left this process (it closed, or another process took it over): "
    "connect again; a table that is gone answers 4404.",
    4401: "Not (or no longer) signed in: the token is unknown or revoked "
    "(token_invalid), or the browser's session signed out (sign_in_required). "
    "Sign in again, or use another token, and connect anew.",
    4403: "The token lacks the scope play (scope_missing), or a page of another site "
    "opened the socket (its Origin is not this server's).",
    4404: "No such table (a private one, to whoever has neither a seat there nor its invitation).",
    4429: "Too many: frames (a client that floods), or sockets open from one "
    "address. Wait, then connect anew.",
}
"""The codes the server closes a table's socket with (RFC 6455 and pips's own 4xxx,
each an HTTP status plus 4000); an ``error`` message says why first where it can."""

SPHINX = re.compile(r":(?:class|func|meth|attr|mod|data|obj|exc):`~?([^`]+)`")


def plain(text: str) -> str:
    """``text`` without Sphinx markup: a role becomes its target's last name, a double
    backquote a single one (Markdown's code, which AsyncAPI descriptions are)."""
    text = SPHINX.sub(lambda m: f"`{m[1].rsplit('.', 1)[-1]}`", text)
    return text.replace("``", "`")


def unmarked(node: Any) -> Any:
    """Every ``description`` under ``node`` in :func:`plain` text."""
    if isinstance(node, dict):
        return {
            key: plain(value)
            if key == "description" and isinstance(value, str)
            else unmarked(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [unmarked(item) for item in node]
    return node


TILE = {
    "type": "array",
    "items": {"type": "integer", "minimum": 0},
    "minItems": 2,
    "maxItems": 2,
    "description": "A tile as [high, low].",
}
INTS = {"type": "array", "items": {"type": "integer"}}
JSON_TYPES = {bool: "boolean", int: "integer", str: "string", float: "number"}


def _move_kinds() -> list[dict[str, Any]]:
    seat = {"type": "integer", "minimum": 0, "description": "The seat that moves."}
    return [
        {
            "title": "Play",
            "type": "object",
            "properties": {
                "seat": seat,
                "play": {
                    **TILE,
                    "description": "The tile as [the number that touches, the free number].",
                },
                "at": {"enum": [at.value for at in At], "description": "Where it is laid."},
                "end": {"type": "integer", "description": "The open point laid on (its id)."},
                "inline": {"type": "boolean", "description": "A double laid in line (F-23)."},
            },
            "required": ["seat", "play", "at"],
        },
        {
            "title": "Draw",
            "type": "object",
            "properties": {
                "seat": seat,
                "draw": {
                    "anyOf": [TILE, {"type": "null"}],
                    "description": "The tile drawn; null to every other seat.",
                },
            },
            "required": ["seat", "draw"],
        },
        {
            "title": "Pass",
            "type": "object",
            "properties": {"seat": seat, "pass": {"const": True}},
            "required": ["seat", "pass"],
        },
        {
            "title": "Misdeal",
            "type": "object",
            "properties": {
                "seat": seat,
                "misdeal": {
                    "type": "object",
                    "properties": {
                        "returned": {"type": "array", "items": TILE},
                        "drawn": {"type": "array", "items": TILE},
                    },
                    "required": ["returned", "drawn"],
                },
            },
            "required": ["seat", "misdeal"],
            "description": "F-24: a manual deal's tiles returned and drawn again.",
        },
    ]


def schemas() -> dict[str, Any]:
    """The schemas of a move, an event and each game's view, by name."""
    kinds = _move_kinds()
    found: dict[str, Any] = {
        "Tile": TILE,
        "Move": {
            "oneOf": kinds,
            "description": "A move in the record format's words: an item of `legal` "
            "(play the one you choose by its index) and what an `event` is made of.",
        },
        "Event": {
            "allOf": [{"$ref": "#/components/schemas/Move"}],
            "type": "object",
            "properties": {
                "points": {
                    "type": "integer",
                    "description": "What the play scored (games that score during the hand: FIDO).",
                },
                "count": {
                    "type": "integer",
                    "description": "The layout's count after the play (FIDO, F-15).",
                },
                "set_aside": {
                    "type": "array",
                    "items": TILE,
                    "description": "Tiles a penalized false knock put face up (PT-08).",
                },
            },
            "description": "The last move, as the receiving seat may see it.",
        },
        "HandResult": {
            "type": "object",
            "properties": {
                "ended": {"enum": [e.value for e in Ending]},
                "out": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "pips": INTS,
                "points": INTS,
                "final": INTS,
                "ranks": INTS,
            },
            "required": ["ended", "out", "pips", "points", "final", "ranks"],
        },
    }
    views = []
    for game in all_games():
        options = TypeAdapter(game.options).json_schema(ref_template="#/components/schemas/{model}")
        for name, definition in options.pop("$defs", {}).items():
            found[name] = definition
        # As a view carries them: the declared options and what follows from them (a
        # FIDO set's divisor, the hand size), and nothing else, so that a view's
        # options say which game's they are.
        shown = game.options_from_json({"players": game.player_counts[0]}).to_json()
        for key, value in shown.items():
            if key not in options["properties"]:
                options["properties"][key] = {"type": [JSON_TYPES[type(value)], "null"]}
        options["additionalProperties"] = False
        options_name = f"{game.options.__name__}"
        found[options_name] = options
        view_name = f"View{game.options.__name__.removesuffix('Options')}"
        found[view_name] = _view(game.name, options_name)
        views.append({"$ref": f"#/components/schemas/{view_name}"})
    found["View"] = {
        "oneOf": views,
        "description": "A seat's view of the hand (a spectator's: seat -1, no hand); "
        "its `game` says which game's view it is, and so which options it carries.",
    }
    found = unmarked(found)
    return found


def _view(game: str, options: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "game": {"const": game},
            "options": {"$ref": f"#/components/schemas/{options}"},
            "seat": {"type": "integer", "description": "The viewing seat; -1: a spectator."},
            "turn": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "hand": {"type": "array", "items": TILE, "description": "The seat's own tiles."},
            "hand_sizes": INTS,
            "stock_size": {"type": "integer"},
            "layout": {
                "type": "object",
                "properties": {
                    "tiles": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "tile": TILE,
                                "touching": {"type": "integer"},
                                "on": {"type": "integer"},
                                "parent": {"type": "integer"},
                                "across": {"type": "boolean"},
                                "seat": {"type": "integer"},
                                "slot": {"type": "string"},
                            },
                            "required": ["tile", "touching", "on", "parent", "across", "seat"],
                        },
                    },
                    "points": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "id": {"type": "integer"},
                                "value": {"type": "integer"},
                                "kind": {"enum": [at.value for at in At]},
                                "node": {"type": "integer"},
                                "slot": {"type": "string"},
                            },
                            "required": ["id", "value", "kind", "node", "slot"],
                        },
                        "description": "The open points a tile may be laid on (`end` of a play).",
                    },
                    "count": {"type": "integer"},
                },
                "required": ["tiles", "points", "count"],
            },
            "scores": INTS,
            "result": {"anyOf": [{"$ref": "#/components/schemas/HandResult"}, {"type": "null"}]},
            "set_aside": {"type": "array", "items": {"type": "array", "items": TILE}},
            "hand_number": {"type": "integer", "minimum": 1},
            "history": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
        },
        "required": [
            "game",
            "options",
            "seat",
            "turn",
            "hand",
            "hand_sizes",
            "stock_size",
            "layout",
            "scores",
            "result",
        ],
    }


def around(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (the messages) with servers, security, the parameter, the close
    codes and the typed view, moves and event; every description plain."""
    components = document["components"]
    components["schemas"].update(schemas())
    state = components["schemas"].get("StateMessage") or components["messages"]["state"]["payload"]
    properties = state["properties"]
    properties["view"] = {"$ref": "#/components/schemas/View"}
    properties["legal"] = {
        "type": "array",
        "items": {"$ref": "#/components/schemas/Move"},
        "description": "The moves the seat may make now (its turn only): send the index "
        "of the one chosen.",
    }
    properties["event"] = {"$ref": "#/components/schemas/Event"}
    components["securitySchemes"] = {
        "token": {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (pips_...) with the scope play, in "
            "Authorization: Bearer (a program; docs/api.md).",
        },
        "session": {
            "type": "httpApiKey",
            "in": "cookie",
            "name": "pips_session",
            "description": "A browser's session (signed in, or a guest); nothing else is needed.",
        },
        "invite": {
            "type": "httpApiKey",
            "in": "query",
            "name": "invite",
            "description": "A private table's invitation, for a spectator who is not "
            "seated there (with or without a session or token).",
        },
    }
    document["servers"] = {
        "pips": {
            "url": "{host}",
            "protocol": "wss",
            "description": "The pips server serving this document (ws:// where it is "
            "served over plain HTTP); the channel is /ws/{table_id} there.",
            "variables": {"host": {"default": "localhost:8000"}},
            "security": [{"token": []}, {"session": []}, {"invite": []}, {}],
        }
    }
    channel = document["channels"]["/ws/{table_id}"]
    channel["servers"] = ["pips"]
    channel["parameters"] = {
        "table_id": {
            "description": "The table's id, as POST /api/tables answers it (id) and its "
            "page shows it (/t/{table_id}).",
            "schema": {"type": "string", "minLength": 1, "maxLength": 24},
        }
    }
    channel["description"] = "A table: the state of the game as the seat (or a spectator) " + (
        "sees it after every move, and the moves, chat and hints the client sends. "
        "Close codes: " + "; ".join(f"{code}: {words}" for code, words in CLOSE_CODES.items())
    )
    channel["bindings"] = {
        "ws": {
            "query": {
                "type": "object",
                "properties": {"invite": {"type": "string", "maxLength": 40}},
            },
            "bindingVersion": "0.1.0",
        }
    }
    document["info"]["x-close-codes"] = {str(code): words for code, words in CLOSE_CODES.items()}
    plain_document: dict[str, Any] = unmarked(document)
    return plain_document
