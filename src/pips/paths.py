"""Where pips keeps its files: ``$PIPS_HOME`` (default ``~/.pips``)."""

from __future__ import annotations

import os
from pathlib import Path


def pips_home() -> Path:
    """The folder for records, the SQLite database and the server's secret (made on
    first use)."""
    home = Path(os.environ.get("PIPS_HOME", Path.home() / ".pips"))
    home.mkdir(parents=True, exist_ok=True)
    return home
