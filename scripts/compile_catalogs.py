"""Compile the message catalogs for the running program, once, here rather than at every
start: each language's ``pips.po`` into the ``pips.mo`` that :func:`pips.i18n.translations`
loads, and the messages the pages' scripts mark with ``t(...)`` (as Babel's JavaScript
extractor finds them) into ``locale/script-messages.json``, which the pages hand the
scripts in the reader's language (:func:`pips.server.web.script_words`).

Run by scripts/catalogs after it updates the catalogs (and by hand after a translation:
``python scripts/compile_catalogs.py``); tests/test_i18n.py fails while what is compiled
differs from its sources. The compiled files are committed, so that an install from the
repository (or a wheel) has them without a build step of its own."""

from __future__ import annotations

import io
import json
from pathlib import Path

from babel.messages.extract import extract_javascript
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
PIPS = ROOT / "src" / "pips"
CATALOGS = PIPS / "locale"
SCRIPTS = PIPS / "server" / "static"
SCRIPT_MESSAGES = CATALOGS / "script-messages.json"


def compiled(po: Path) -> bytes:
    """The ``.mo`` of the catalog ``po`` (its fuzzy messages left out)."""
    language = po.parent.parent.name
    with po.open("rb") as source:
        catalog = read_po(source, locale=language, domain=po.stem)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def script_messages() -> list[str]:
    """The messages the pages' scripts mark with ``t(...)``, in order, each once."""
    found: list[str] = []
    for script in sorted(SCRIPTS.glob("*.js")):
        with script.open("rb") as source:
            for _line, _name, message, _comments in extract_javascript(source, {"t": None}, [], {}):
                # t("{n} tiles", {n}) comes back as a tuple of its arguments: the
                # message is the first.
                first = message[0] if isinstance(message, tuple) else message
                if isinstance(first, str):
                    found.append(first)
    return list(dict.fromkeys(found))


def script_messages_json() -> str:
    return json.dumps(script_messages(), ensure_ascii=False, indent=0) + "\n"


def main() -> None:
    for po in sorted(CATALOGS.glob("*/LC_MESSAGES/*.po")):
        po.with_suffix(".mo").write_bytes(compiled(po))
    SCRIPT_MESSAGES.write_text(script_messages_json(), encoding="utf-8")
    print(f"catalogs compiled: {CATALOGS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
