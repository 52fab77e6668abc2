"""Players of a ladder: a bot's name, or one version of it. PURE (no I/O).

A ladder that runs for weeks sees new versions of its entrants (``schedule.type =
"continuous"``): each version is a player of its own, with its own rating, and every result
stays with the version that played it. A version is the ``bots`` row a match was recorded
against: (name, version, code identity). Its key is ``name@version``; when the version is empty,
or two identities of a name share a version (a directory edited without a new ``version`` in
its bot.toml), the identity's first hex digits tell them apart: ``name@1+3f2a9c1b`` or
``name@3f2a9c1b``. The other schedule types rate names, as they always have.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.stats.encounters import Leg

if TYPE_CHECKING:
    from arena.ladder.store import StoredMatch

SHORT_IDENTITY = 8
"""Hex digits of the code identity that tell two versions apart."""


@dataclass(frozen=True)
class Version:
    """One version of a bot, as a ladder recorded it."""

    name: str
    version: str
    identity: str

    @property
    def short_identity(self) -> str:
        """The first hex digits of the identity (``dir:sha256:``/``sha256:`` dropped)."""
        return self.identity.rsplit(":", 1)[-1][:SHORT_IDENTITY]


class VersionKeys:
    """The keys of the versions of a ladder's bots (``name@version``, see the module doc)."""

    def __init__(self, versions: Iterable[Version] = ()) -> None:
        self._identities: dict[tuple[str, str], set[str]] = {}
        for version in versions:
            self.add(version)

    def add(self, version: Version) -> None:
        """Make ``version`` known (keys of others of the same name and version may change from
        ``name@v`` to ``name@v+identity`` when a second identity shares the version)."""
        self._identities.setdefault((version.name, version.version), set()).add(
            version.identity)

    def key(self, version: Version) -> str:
        """The key of ``version`` (``name@version``, or with its identity where needed)."""
        if not version.version:
            return f"{version.name}@{version.short_identity}"
        shared = len(self._identities.get((version.name, version.version), ())) > 1
        suffix = f"+{version.short_identity}" if shared else ""
        return f"{version.name}@{version.version}{suffix}"


def match_versions(matches: Sequence[StoredMatch]) -> VersionKeys:
    """The keys of every version that played in ``matches``."""
    return VersionKeys(Version(m.bots[seat], m.versions[seat], m.identities[seat])
                       for m in matches for seat in (0, 1))


def legs_of(matches: Sequence[StoredMatch], by_version: bool = False) -> list[Leg]:
    """The recorded matches as legs of encounters, their players named by bot name, or (with
    ``by_version``) by version key."""
    keys = match_versions(matches) if by_version else None

    def player(m: StoredMatch, seat: int) -> str:
        if keys is None:
            return m.bots[seat]
        return keys.key(Version(m.bots[seat], m.versions[seat], m.identities[seat]))

    return [Leg(m.encounter_id or m.match_id, m.leg, (player(m, 0), player(m, 1)), m.winner,
                m.totals, m.void, m.finished_at) for m in matches]
