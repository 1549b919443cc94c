"""Bots: players that see only their own seat's view (see :mod:`pips.bots.base`)."""

from pips.bots.base import Bot, bot_names, make_bot

__all__ = ["Bot", "bot_names", "make_bot"]
