"""``python -m arena`` and the ``arena`` script: the `arena` command.

Only ``main`` imports the command line. A process that multiprocessing spawns (the Dask workers
of a ladder's embedded cluster, of `arena worker`, of `arena host`) runs its parent's main module
again before its own work: from here (or the script that calls ``main``) that costs nothing,
where running ``arena.cli.main`` as the main module made each worker import the whole command
line first (0.6-0.8 s of CPU a worker, measured).

``main`` builds the command line for the command named (``arena.cli.root.command_app``): only
its module is imported; ``--help``, ``--version`` and unknown names get the whole one
(``arena.cli.main``)."""

from __future__ import annotations

import sys


def main() -> None:
    from arena.cli.root import command_app

    app = command_app(sys.argv[1:])
    if app is None:
        from arena.cli.main import main as arena

        arena()
    else:
        app()


if __name__ == "__main__":
    main()
