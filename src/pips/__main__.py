"""``python -m pips`` runs the ``pips`` command."""

from pips.cli import main

main()
