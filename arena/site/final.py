"""A final tournament's results as a publication checks them (``arena.site.publish`` with a
``final`` section; ``arena.host.final`` plays the final and publishes it).

Before its first match the final's seeds are fixed and committed: its deals come from a fresh
random secret (``arena.ladder.schedules.schedule.encounter_seed``: the secret, the ladder's seed
and name, the cycle, the pairing), and the server publishes a *commitment*, signed with the
referee's key in the ``final-commitment`` domain, naming the entrants, the format and the
SHA-256 of the secret, before any match is played. The published results reveal the secret.

A final's manifest is a results manifest of kind ``arena-final-results`` whose ``final``
section holds the signed commitment, the revealed secret, the entrants (name and version:
``name@version`` names their pairings), the format, the number of encounters per pair, whether
deals are duplicated, the ladder's seed, the tie rule, whether the schedule was played to its
end, the entrants withdrawn after it began (a disqualification: their matches stay listed, the
standings are fitted without them) and the places (``arena.stats.places``). ``check_final``
checks what only a final has:

- the commitment's signature (a trusted key) and that it names this final (its ladder, entrants,
  format, encounters, duplicate deals, seed) and the SHA-256 of the revealed secret;
- every listed match belongs to the schedule those fix, with the schedule's seats (the entrants'
  names and versions) and the seed the secret gives (the log's revealed seed): no deal was
  chosen after the commitment, no match played twice under another id;
- a final said to be complete lists every match of its schedule (but those of withdrawn
  entrants it did not play);
- the places are those the tie rule gives from the ratings recomputed from the logs.

Ratings: every entrant (a version) is a player of its own (``by_entry``), so two selected
versions of one bot are two rows.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import SignatureError
from arena.ladder.reports import Standings, by_version, standings_of
from arena.ladder.schedules.schedule import ScheduledMatch, build_schedule
from arena.ladder.store import StoredMatch
from arena.record.signing import ALGORITHM, Signer, TrustedKeys, sign_bytes, verify_bytes
from arena.stats.places import Place, Rated, places

FINAL_KIND = "arena-final-results"
"""The manifest's ``kind`` of a final's results."""
COMMITMENT_KIND = "arena-final-commitment"
COMMITMENT_DOMAIN = "final-commitment"
"""The signature domain of a final's commitment."""
COMMITTED = ("ladder", "game", "entrants", "format", "encounters", "duplicate", "seed",
             "commitment")
"""What the commitment fixes, and the final section must repeat."""


@dataclass(frozen=True)
class Entrant:
    """A final's entrant: a version of a bot."""

    name: str
    version: str

    @property
    def key(self) -> str:
        """Its player key in the final's ratings and schedule (its pairings are named by it):
        ``name@version``."""
        return f"{self.name}@{self.version}"

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}


def secret_commitment(secret: str) -> str:
    """The commitment to a secret: the hex SHA-256 of its text."""
    return hashlib.sha256(secret.encode()).hexdigest()


def commitment_record(signer: Signer, content: Mapping[str, Any]) -> dict[str, Any]:
    """The signed commitment of ``content`` (``COMMITTED`` and when it began): the exact text
    signed, the key id and the signature."""
    text = json.dumps({"kind": COMMITMENT_KIND, **content}, separators=(",", ":"),
                      ensure_ascii=False)
    signature = sign_bytes(signer, COMMITMENT_DOMAIN, text.encode())
    return {"algorithm": ALGORITHM, "key_id": signer.key_id, "statement": text,
            "signature": base64.b64encode(signature).decode()}


def check_commitment(record: Any, trusted: TrustedKeys) -> dict[str, Any]:
    """What a signed commitment states; ``SignatureError`` (one line) unless a trusted key
    signed it."""
    try:
        text, key_id = record["statement"], record["key_id"]
        signature = base64.b64decode(record["signature"], validate=True)
        if record.get("algorithm") != ALGORITHM or not isinstance(text, str):
            raise TypeError
    except (KeyError, TypeError, ValueError, binascii.Error):
        raise SignatureError("the commitment is not a signed commitment record") from None
    verify_bytes(trusted, key_id, COMMITMENT_DOMAIN, text.encode(), signature)
    content = json.loads(text)
    if not isinstance(content, dict) or content.get("kind") != COMMITMENT_KIND:
        raise SignatureError("the commitment is not a final's commitment")
    return content


def by_entry(ladder: str, matches: Sequence[StoredMatch], prior: float,
             withdrawn: Collection[str] = ()) -> Standings:
    """The final's standings: every version a player of its own, fitted without the matches
    of the ``withdrawn`` versions (``name@version``: taken out after the final began)."""
    keyed = [m for m in by_version(matches) if not set(m.bots) & set(withdrawn)]
    return standings_of(ladder, keyed, prior=prior, live=None, versions=False)


def withdrawn_keys(section: Mapping[str, Any]) -> set[str]:
    """The versions a final's section says were withdrawn after it began."""
    return {Entrant(str(w["name"]), str(w["version"])).key
            for w in section.get("withdrawn", [])}


def final_places(standings: Standings, tie_break: str) -> list[Place]:
    """The places the tie rule gives (``arena.stats.places``)."""
    return places([Rated(r.name, r.rating, r.ci95) for r in standings.fit.ratings], tie_break)


def final_schedule(section: Mapping[str, Any]) -> dict[str, ScheduledMatch]:
    """Every match of the final's schedule by id, from its section (round robin)."""
    keys = [Entrant(e["name"], e["version"]).key for e in section["entrants"]]
    schedule = build_schedule(section["ladder"], keys, cycles=section["encounters"],
                              duplicate=section["duplicate"], seed=section["seed"],
                              secret=section["secret"])
    return {m.match_id: m for enc in schedule for m in enc.matches}


def check_final(manifest: Mapping[str, Any], found: Sequence[StoredMatch],
                trusted: TrustedKeys) -> list[str]:
    """What does not hold of a final's own claims (module doc), one line each; ``found``: the
    listed matches as their logs say, in the manifest's order."""
    section = manifest.get("final")
    problems: list[str] = []
    try:
        entrants = [Entrant(str(e["name"]), str(e["version"]))
                    for e in section["entrants"]]  # type: ignore[index]
        assert isinstance(section, dict)
        secret = section["secret"]
        if not isinstance(secret, str):
            raise TypeError
    except (KeyError, TypeError, AssertionError):
        return ["final: the manifest's final section is malformed"]
    try:
        committed = check_commitment(section.get("commitment_record"), trusted)
    except (SignatureError, ValueError) as exc:
        problems.append(f"final: its commitment: {exc}")
        committed = {}
    for key in COMMITTED:
        if committed and committed.get(key) != _committed_value(section, key):
            problems.append(f"final: the commitment published before the first match says "
                            f"{key} = {json.dumps(committed.get(key))}, the results "
                            f"{json.dumps(_committed_value(section, key))}")
    if secret_commitment(secret) != section.get("commitment"):
        problems.append("final: the revealed secret is not the one committed to (its SHA-256 "
                        "differs)")
        return problems
    try:
        schedule = final_schedule(section)
    except (ValueError, KeyError, TypeError) as exc:
        return [*problems, f"final: its schedule cannot be rebuilt ({exc})"]
    for m in found:
        planned = schedule.get(m.match_id)
        if planned is None:
            problems.append(f"match {m.match_id}: not a match of the final's schedule")
            continue
        seats = tuple((entrants[s].name, entrants[s].version) for s in planned.seats)
        if seats != tuple(zip(m.bots, m.versions, strict=True)):
            problems.append(f"match {m.match_id}: its seats are not the schedule's "
                            f"({seats[0][0]}@{seats[0][1]} against {seats[1][0]}@{seats[1][1]})")
        if m.seed != planned.seed and m.log_path is not None:
            problems.append(f"match {m.match_id}: its deal is not the committed secret's (seed "
                            f"{m.seed}, the schedule's {planned.seed})")
    listed = {m.match_id for m in found}
    out = withdrawn_keys(section)
    due = {match_id for match_id, m in schedule.items()
           if not {entrants[s].key for s in m.seats} & out}
    if section.get("complete") and not due <= listed:
        problems.append(f"final: said to be complete, but {len(due - listed)} of its "
                        f"{len(due)} scheduled matches are not listed")
    return problems


def _committed_value(section: Mapping[str, Any], key: str) -> Any:
    return section.get(key)
