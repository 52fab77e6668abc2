"""The record of a match, below the loop that plays it: its log (``log``: JSON lines, seed
sidecars, private files), its replay (``replay``: the rules engine re-runs a log and checks
every deal, action, score and clock), its signatures (``signing``: Ed25519 keys, signed logs,
statements and manifests) and the clocks both the referee and the replay run (``clock``).

Nothing here plays a match: it needs the rules (``arena.games``), the events (``arena.model``)
and the errors, so a log is read, checked and replayed without the referee, a sandbox or a bot."""
