"""Fill a catalog's missing or fuzzy German messages from a dict module (a maintainer's
helper for the catalogs; see docs/i18n.md): python scripts/translate.py de words.py"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

language, source = sys.argv[1], sys.argv[2]
words: dict[str, str] = runpy.run_path(source)["WORDS"]
path = Path(__file__).parent.parent / f"src/pips/locale/{language}/LC_MESSAGES/pips.po"
with path.open("rb") as handle:
    catalog = read_po(handle, locale=language)
done = 0
for message in catalog:
    key = message.id[0] if isinstance(message.id, tuple) else message.id
    if key and key in words and (not any(message.string) or message.fuzzy):
        message.string = words[key]
        message.flags.discard("fuzzy")
        message.previous_id = []
        done += 1
with path.open("wb") as handle:
    write_po(handle, catalog, width=0, omit_header=False)
left = [m.id for m in catalog if m.id and (not any(m.string) or m.fuzzy)]
print(f"{done} translated, {len(left)} left")
for message_id in left:
    print("  ", repr(message_id))
