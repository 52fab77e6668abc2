"""Contestants and tokens on a real SQLite database: tokens shown once and stored only as a
salted HMAC, every bad token the same None, bot names owned by one contestant (ignoring case,
also when two race for one)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.errors import ConfigError
from arena.host.accounts import Accounts, contestants_t

pytestmark = pytest.mark.unit


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state" / "competition.sqlite3"


@pytest.fixture
def accounts(db: Path) -> Accounts:
    return Accounts.open(f"sqlite:///{db}")


def secret_of(token: str) -> str:
    return token.split("_", 2)[2]


def test_a_token_opens_its_contestant_only(accounts: Accounts) -> None:
    alice, bob = accounts.add("alice"), accounts.add("bob")
    assert alice.startswith("arena_") and alice != bob
    assert accounts.authenticate(alice) == "alice"
    assert accounts.authenticate(bob) == "bob"
    assert [c.name for c in accounts.list()] == ["alice", "bob"]


def test_attack_malformed_wrong_and_revoked_tokens_get_none(accounts: Accounts) -> None:
    alice, bob = accounts.add("alice"), accounts.add("bob")
    alice_id, bob_secret = alice.split("_")[1], secret_of(bob)
    flipped = alice[:-1] + ("A" if alice[-1] != "A" else "B")
    for bad in (
        "", "arena_", "arena__", alice + "x", alice[:-1], " " + alice, alice + "\n",
        alice.upper(), flipped,
        f"arena_{alice_id}_{bob_secret}",         # Alice's id, Bob's (valid) secret
        f"arena_{alice_id}_" + "A" * 43,          # Alice's id, a made-up secret
        "arena_" + "0" * 12 + "_" + secret_of(alice),
        "x" * 10_000_000,                          # huge
        alice[:-2] + "é",                          # non-ASCII
        alice[:-1] + "\x00",
        "Bearer " + alice,
    ):
        assert accounts.authenticate(bad) is None, bad[:80]
    accounts.revoke("alice")
    assert accounts.authenticate(alice) is None
    assert accounts.authenticate(bob) == "bob"
    (revoked,) = [c for c in accounts.list() if c.name == "alice"]
    assert revoked.revoked is not None


def test_attack_the_database_never_holds_a_token_or_its_secret(accounts: Accounts,
                                                               db: Path) -> None:
    tokens = [accounts.add(f"c{i}") for i in range(5)]
    tokens.append(accounts.reissue("c0"))
    files = [p for p in db.parent.iterdir() if p.name.startswith(db.name)]
    data = b"".join(p.read_bytes() for p in files)  # the database and its WAL
    assert data
    for token in tokens:
        assert secret_of(token).encode() not in data
        assert token.encode() not in data
    with accounts.engine.connect() as conn:
        rows = conn.execute(select(contestants_t)).mappings().all()
    for row in rows:
        assert all(secret_of(t) not in str(v) for t in tokens for v in row.values())
    accounts.close()
    reopened = Accounts.open(f"sqlite:///{db}")
    assert reopened.authenticate(tokens[-1]) == "c0"  # it still works: salted HMAC only


def test_reissue_replaces_the_token_and_lifts_a_revocation(accounts: Accounts) -> None:
    old = accounts.add("alice")
    accounts.revoke("alice")
    new = accounts.reissue("ALICE")
    assert accounts.authenticate(old) is None and accounts.authenticate(new) == "alice"
    assert accounts.list()[0].revoked is None
    with pytest.raises(ConfigError, match="no contestant named 'zed'"):
        accounts.reissue("zed")


def test_names_are_identifiers_unique_ignoring_case(accounts: Accounts) -> None:
    accounts.add("alice")
    for bad in ("Alice", "ALICE"):
        with pytest.raises(ConfigError, match="already exists"):
            accounts.add(bad)
    for bad in ("", "a b", "../x", "x" * 65, "\x1b[31mred", "ａlice"):
        with pytest.raises(ConfigError, match="contestant name"):
            accounts.add(bad)
    with pytest.raises(ConfigError, match="no contestant named"):
        accounts.revoke("bob")
    assert [c.name for c in accounts.list()] == ["alice"]


def test_attack_a_contestant_cannot_take_another_s_bot_name(accounts: Accounts) -> None:
    accounts.add("victim")
    accounts.add("mallory")
    assert accounts.claim("Lancer", "victim")
    assert accounts.claim("Lancer", "victim")  # already theirs
    for name in ("Lancer", "lancer", "LANCER"):
        assert not accounts.claim(name, "mallory")
        assert accounts.owner(name) == "victim"
    assert accounts.bots_of("victim") == ("Lancer",) and accounts.bots_of("mallory") == ()
    assert accounts.owner("other") is None
    with pytest.raises(ConfigError, match="bot name"):
        accounts.claim("bad name", "mallory")
    with pytest.raises(ConfigError, match="no contestant"):
        accounts.claim("fresh", "nobody")
    assert accounts.owner("fresh") is None


def test_attack_two_contestants_racing_for_a_name_get_one_owner(accounts: Accounts) -> None:
    racers = [f"r{i}" for i in range(8)]
    for racer in racers:
        accounts.add(racer)
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads interleave between any two steps of a claim
    try:
        race_rounds(accounts, racers)
    finally:
        sys.setswitchinterval(before)


def race_rounds(accounts: Accounts, racers: list[str]) -> None:
    """Twenty names, each claimed at once by every racer (some in upper case)."""
    for round_ in range(20):
        bot = f"prize{round_}"
        start = threading.Barrier(len(racers))
        won: dict[str, bool] = {}

        def race(who: str, bot: str = bot, start: threading.Barrier = start,
                 won: dict[str, bool] = won) -> None:
            start.wait()
            won[who] = accounts.claim(bot.upper() if who.endswith(("1", "3")) else bot, who)

        threads = [threading.Thread(target=race, args=(r,)) for r in racers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        winners = [who for who, ok in won.items() if ok]
        assert len(won) == len(racers) and len(winners) == 1
        assert accounts.owner(bot) == winners[0]


def test_the_operator_assigns_names(accounts: Accounts) -> None:
    accounts.add("alice")
    accounts.add("bob")
    accounts.claim("shared", "alice")
    accounts.assign("Shared", "bob")
    assert accounts.owner("shared") == "bob" and not accounts.claim("shared", "alice")
    accounts.assign("reserved", "alice")
    assert accounts.bots_of("alice") == ("reserved",)
    listed = {c.name: c.bots for c in accounts.list()}
    assert listed == {"alice": ("reserved",), "bob": ("Shared",)}
    with pytest.raises(ConfigError, match="no contestant"):
        accounts.assign("x", "carol")


def test_the_accounts_survive_a_reopen_and_share_the_database(db: Path) -> None:
    first = Accounts.open(f"sqlite:///{db}")
    token = first.add("alice")
    first.claim("bot", "alice")
    second = Accounts.open(f"sqlite:///{db}")  # the operator's command while the server runs
    assert second.authenticate(token) == "alice" and second.owner("BOT") == "alice"
    second.revoke("alice")
    assert first.authenticate(token) is None


@pytest.mark.integration
def test_on_postgresql(request: pytest.FixtureRequest) -> None:
    """The same rules on PostgreSQL, in a fresh schema (skips without $ARENA_TEST_POSTGRES_URL,
    fails without it under ARENA_REQUIRE_POSTGRES=1)."""
    accounts = Accounts.open(str(request.getfixturevalue("postgres_url")))
    try:
        racers = [f"r{i}" for i in range(8)]
        tokens = {r: accounts.add(r) for r in racers}
        with pytest.raises(ConfigError, match="already exists"):
            accounts.add("R0")
        assert accounts.authenticate(tokens["r0"]) == "r0"
        accounts.revoke("r1")
        assert accounts.authenticate(tokens["r1"]) is None
        assert accounts.authenticate(tokens["r0"][:-1] + "!") is None
        race_rounds(accounts, racers)
        accounts.assign("Prize0", "r7")
        assert accounts.owner("PRIZE0") == "r7" and "Prize0" in accounts.bots_of("r7")
        assert accounts.reissue("r1") != tokens["r1"]
    finally:
        accounts.close()
