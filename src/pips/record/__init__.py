"""The game record format ``pips.record/1``: write, read, replay, validate.

A record is one JSON document per game; a file of many games is JSON Lines. The
format is described field by field in ``docs/record-format.md``. Reading a record
replays every move through the rules engine, so a record that reads is a record
whose every play, draw, pass and point is legal and correct; the first inconsistency
is reported with its hand, its move number and the rule broken.

The parts: :mod:`~pips.record.write` (writing, saving, loading),
:mod:`~pips.record.replay` (reading back through the engine) and
:mod:`~pips.record.audit` (checking files, where each deal came from); this package
gives them as one API (``record.write_record``, ``record.replay`` ...).
"""

from __future__ import annotations

from pips.record.audit import CheckedFile, check_file, provenance
from pips.record.format import FORMAT, RecordError
from pips.record.replay import Replay, move_from_json, replay
from pips.record.write import dealt_json, dumps, load, save, write_record

__all__ = [
    "FORMAT",
    "CheckedFile",
    "RecordError",
    "Replay",
    "check_file",
    "dealt_json",
    "dumps",
    "load",
    "move_from_json",
    "provenance",
    "replay",
    "save",
    "write_record",
]
