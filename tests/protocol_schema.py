"""The websocket protocol's AsyncAPI document as a validator: every message a protocol
test sees is checked against the document clients are given (``/api/asyncapi.json``),
not only against the server's own types."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from pips import __version__
from pips.server import messages

ASYNCAPI_SCHEMA = Path(__file__).parent / "data" / "asyncapi-2.6.0.schema.json"
"""The AsyncAPI 2.6.0 JSON schema, as the AsyncAPI initiative publishes it (the npm
package @asyncapi/specs 6.11.1, schemas/2.6.0.json; Apache-2.0)."""


@cache
def document() -> dict[str, Any]:
    return messages.asyncapi(__version__)


@cache
def _validator(direction: str) -> Any:
    doc = document()
    channel = doc["channels"]["/ws/{table_id}"][direction]["message"]["oneOf"]
    # The message payloads as one schema whose references point into the document.
    root = {
        "components": doc["components"],
        "oneOf": [{"$ref": ref["$ref"] + "/payload"} for ref in channel],
    }
    return jsonschema_rs.Draft7Validator(root)


def check_server_message(message: Any, *, built: bool = False) -> None:
    """``message`` (sent by the server) is one the document describes, and one of the
    server's own declared types; AssertionError naming what is wrong otherwise.
    ``built``: made in this process (tuples and all), not read from a frame: it is
    checked as its JSON would read."""
    messages.SERVER.validate_python(message)
    seen = json.loads(json.dumps(message)) if built else message
    errors = [str(e) for e in _validator("subscribe").iter_errors(seen)]
    assert not errors, f"not in the AsyncAPI document: {message!r}: {errors[:3]}"


def check_client_message(message: Any) -> None:
    errors = [str(e) for e in _validator("publish").iter_errors(message)]
    assert not errors, f"not in the AsyncAPI document: {message!r}: {errors[:3]}"


def check_document() -> list[str]:
    """The document's errors against the AsyncAPI 2.6.0 schema (none: valid)."""
    schema = json.loads(ASYNCAPI_SCHEMA.read_text())
    return [str(e) for e in jsonschema_rs.validator_for(schema).iter_errors(document())]
