"""An attacker's Dask preload (tests only): a worker started with a stolen worker certificate
that announces the arena's version (so the head's gate keeps it) and answers every match with
an object whose unpickling would run code, of a class whose import would run code too. Never
imported by the head: ``tests/cluster/test_guard.py`` names it only as a string."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

MARKS_ENV = "ARENA_TEST_MARKS"
"""The directory where the attack leaves its marks."""

if os.environ.get(MARKS_ENV):  # importing this module is the attack's first payload
    (Path(os.environ[MARKS_ENV]) / f"imported-{os.getpid()}").touch()


class EvilResult:
    """Unpickled, it leaves a mark: the code a head would run."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[Path]]:
        return Path.touch, (self.path,)


def _evil_task(*args: Any, **kwargs: Any) -> EvilResult:
    return EvilResult(Path(os.environ[MARKS_ENV]) / "result-unpickled")


def dask_setup(worker: Any) -> None:
    """Pass the version gate, then answer every match with ``EvilResult``; leave a ``gathered``
    mark when someone fetches it."""
    import arena.cluster.task as task
    from arena.cluster.session import INFO_KEY, arena_info

    worker.startup_information[INFO_KEY] = arena_info
    task.play_task = _evil_task
    get_data = worker.handlers["get_data"]

    async def gathered(comm: Any, **kwargs: Any) -> Any:
        (Path(os.environ[MARKS_ENV]) / "gathered").touch()
        return await get_data(comm, **kwargs)

    worker.handlers["get_data"] = gathered
