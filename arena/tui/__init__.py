"""The terminal apps (Textual): the interactive `arena watch` (``arena.tui.watch``), `arena play`
(a person against a bot: ``arena.tui.play*``), and the widgets the apps share
(``arena.tui.widgets``: a game's board for one view, the move list, the score and time tables,
a bot's output as plain text). Above the renderers, the log reader and the games; below the
command line."""
