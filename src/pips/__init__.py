"""pips: play, study and rank dominoes.

The rules live in :mod:`pips.core` (tiles, sets, hands, layouts, moves, views) and
:mod:`pips.games` (one module per rule system); records, bots and the command line
are built on top and never the reverse.
"""

__version__ = "0.1.0"
