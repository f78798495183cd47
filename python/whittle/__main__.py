"""``python -m whittle …`` runs the ``whittle`` command."""

from ._cli import main

main()
