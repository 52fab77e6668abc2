"""Bot names in a competition: whether a contestant may submit under one (``name_refusal``:
asked at the submission's start and once bot.toml gave the name, so a taken name costs no
upload and no build) and the one place a name is claimed (``claim_name``, in the transaction
that enters the submission: a refused, failed or cancelled submission claims nothing, and of
two contestants racing for one name, the first entry owns it and the other is refused in the
same words)."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import Connection

from arena.bots.names import name_key, shown
from arena.errors import ConfigError
from arena.host.accounts import Accounts
from arena.host.errors import Refused
from arena.model import plain_text


def taken(name: str) -> str:
    """The refusal of a name that is another's."""
    return f"the name {shown(name)} belongs to another contestant: choose another name"


def name_refusal(accounts: Accounts, house: Collection[str], name: str, contestant: str
            ) -> str | None:
    """Why ``contestant`` may not submit a bot called ``name`` (``house``: the name keys of
    the house's bots), or None: a house bot's name or another contestant's. A check only: the
    name is claimed when the submission is entered (``claim_name``)."""
    if name_key(name) in house:
        return (f"the name {shown(name)} belongs to another contestant (a house bot): choose "
                "another name")
    if accounts.owner(name) not in (None, contestant):
        return taken(name)
    return None


def claim_name(accounts: Accounts, name: str, contestant: str, conn: Connection) -> None:
    """Claim ``name`` for ``contestant`` within ``conn``'s transaction (the entry's): the only
    place a name is claimed. ``Refused`` when it is another's (the claim is atomic: of two
    racing, one owns it) or not a name at all."""
    try:
        mine = accounts.claim(name, contestant, conn)
    except ConfigError as exc:
        lines = plain_text(str(exc)).strip().splitlines()
        raise Refused(lines[0] if lines else "refused", plain_text(str(exc))) from None
    if not mine:
        raise Refused(taken(name))
