"""The bot author's lab (docs/lab.md): the arena's games in the libraries of the field, an optional
extra (``pip install arena[lab]``: OpenSpiel, PettingZoo, numpy). Nothing outside this package
imports those libraries (the import contract ``lab-only``), so the core stays lean."""
