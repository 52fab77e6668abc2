"""`arena worker` (a worker host joins a ladder's cluster) and `arena cluster certs` (the CA and
host certificates for mutual TLS between the hosts)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import console, handle_errors
from arena.cluster.settings import TlsFiles
from arena.errors import ConfigError


def register(app: typer.Typer) -> None:
    """Add `worker` and the `cluster` group to the root app."""
    app.command("worker")(worker)
    group = typer.Typer(help="Set up a cluster of hosts that play a ladder's matches.",
                        no_args_is_help=True)
    group.command("certs")(certs)
    app.add_typer(group, name="cluster")


@handle_errors
def worker(
    scheduler: Annotated[str, typer.Argument(help="The head's scheduler, tls://HOST:PORT.")],
    ca: Annotated[Path, typer.Option(help="The ladder's CA certificate (ca.pem).")],
    cert: Annotated[Path, typer.Option(help="This host's certificate (HOST.pem).")],
    key: Annotated[Path, typer.Option(help="This host's key (HOST-key.pem).")],
    matches: Annotated[int, typer.Option(
        min=0, help="Matches played at once here (0: floor((cores - 1) / 2), at least 1).")] = 0,
    host: Annotated[str | None, typer.Option(
        help="The address the workers listen on (default: this host's address toward the "
             "scheduler).")] = None,
    cache: Annotated[Path | None, typer.Option(
        help="Where shipped bot directories are kept (default ~/.cache/arena; made private, "
             "0700).")] = None,
    name: Annotated[str | None, typer.Option(
        help="The workers' name prefix (default: the host name).")] = None,
) -> None:
    """Join a ladder's cluster: play its matches on this host, in this host's sandbox.

    Starts one Dask worker process per match slot under Dask nannies (a worker that dies is
    started again), connected to the head's scheduler with mutual TLS (the ladder's CA; this
    host's certificate from `arena cluster certs DIR --host HOST` can play matches, never submit
    them). Bots run on this host's Docker engine (build the base image once: `arena images
    build-base`), or in the process sandbox only where it separates them (as root, with
    util-linux): a process-sandbox match on a host that does not is void, never played. Bot
    directories and submitted images this host lacks are shipped from the head into the
    cache (private to this user). A host whose arena version differs from the head's is
    refused with one error. Stop with Ctrl-C.
    """
    # start-up: `arena` imports it for this command only (Dask)
    from arena.cluster.worker import WorkerOptions, run_worker

    options = WorkerOptions(scheduler, TlsFiles(ca, cert, key), matches, host, cache, name)
    console.print(f"worker: {run_worker(options)}")


@handle_errors
def certs(
    directory: Annotated[Path, typer.Argument(help="Where to write the files.")],
    hosts: Annotated[list[str] | None, typer.Option(
        "--host", help="A worker host's name (or IP address) to make a certificate for; "
                       "repeat it.")] = None,
    head: Annotated[str | None, typer.Option(
        help="The head's host name (or IP address): its certificate, the only one that may "
             "submit matches or run a scheduler.")] = None,
) -> None:
    """Make the ladder's CA (once), the head's certificate and one per worker host.

    Writes ca.pem and ca-key.pem (kept on the head only; an existing CA in DIRECTORY is reused,
    so hosts can be added later), HEAD.pem and HEAD-key.pem for --head (role arena-head: the
    ladder's \\[cluster] cert and key) and HOST.pem and HOST-key.pem per --host (role
    arena-worker: they can play matches, never submit them). Copy ca.pem, HOST.pem and
    HOST-key.pem to each worker host. Keys are written readable by their owner only.
    """
    # start-up: `arena` imports it for this command only (cryptography)
    from arena.cluster.security import make_certs

    if not hosts and head is None:
        raise ConfigError("nothing to make: name the head (--head HOST) or worker hosts "
                          "(--host HOST)")
    made = make_certs(directory, hosts or [], head=head)
    console.print(f"CA: {made.ca} (key {made.ca_key}: keep it on the head)", markup=False)
    for host, files in made.hosts.items():
        role = "head" if host == head else "worker"
        console.print(f"{host} ({role}): {files.cert} {files.key}", markup=False)
