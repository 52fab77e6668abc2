"""`arena keys new` (make a referee's signing key) and `arena keys show` (a public key's id).

A referee signs each finished match log with an Ed25519 key (``arena.record.signing``); anyone
holding its public key checks a log with `arena replay LOG --key PUB`. The crypto is all in
``arena.record.signing``: these commands only make, read and print."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import console, handle_errors
from arena.record.signing import load_signer, load_trusted, new_key
from arena.render.text import plain

keys_app = typer.Typer(help="Referee signing keys: make one, or print a public key's id.",
                       no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the `keys` group to the root app."""
    app.add_typer(keys_app, name="keys")


@keys_app.command("new")
@handle_errors
def keys_new(
    directory: Annotated[Path, typer.Argument(help="Where to write NAME.key and NAME.pub (made "
                                              "0700 if missing).", file_okay=False)],
    name: Annotated[str, typer.Option(help="The files' name.")] = "referee",
) -> None:
    """Make an Ed25519 signing key: DIR/NAME.key (private, 0600) and DIR/NAME.pub (public).

    Give the private key to whatever signs logs (`arena match --sign-key`, a ladder's or a
    competition's signing_key, `arena serve --sign-key`) and keep it there only; publish the
    .pub file and its key id, which every signed log names. An existing key is never
    overwritten."""
    private, public = new_key(directory, name)
    signer = load_signer(private)
    console.print(plain(f"key id {signer.key_id}"))
    console.print(plain(f"private key: {private} (0600: keep it secret, on the signing host "
                        "only)"))
    console.print(plain(f"public key: {public} (publish it: `arena replay LOG --key "
                        f"{public}` checks a log)"))


@keys_app.command("show")
@handle_errors
def keys_show(
    public: Annotated[Path, typer.Argument(help="A public key (.pub, PEM) or a directory of "
                                           "them.")],
) -> None:
    """Print the key id of a public key (the id a signed log names), e.g. to publish it."""
    trusted = load_trusted([public])
    for key_id in trusted.key_ids:
        key = trusted.get(key_id)
        console.print(plain(f"{key_id}  {'' if key is None else key.path}"))
