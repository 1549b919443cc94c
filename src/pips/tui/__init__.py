"""The terminal client: ``pips play`` and ``pips replay`` full screen (textual)."""
