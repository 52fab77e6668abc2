"""Referee keys and signatures: Ed25519 keys that sign match logs and results manifests, so that
anyone holding the public key checks a published result without trusting whoever serves it.

Keys are PEM files: a private key (PKCS #8, readable by its owner only) and its public key
(SubjectPublicKeyInfo, what is published). A key is named by its *key id*, the first 16 hex
digits of the SHA-256 of the raw 32-byte public key; a signature names the key id it was made
with, so keys can be rotated and several public keys trusted at once (``TrustedKeys``).

What is signed: ``arena-signature-v1\\n<domain>\\n`` followed by the 32-byte SHA-256 digest of the
signed bytes, where the domain says what the bytes are (``log``, ``manifest``), so a signature
over one kind of file never passes as another's.

A signed match log ends with one more line, the signature record::

    {"type":"signature","algorithm":"ed25519","key_id":"…","sha256":"…","signature":"…"}

``sha256`` is the hex digest of every byte of the log before this line (header to match end,
newlines included) and ``signature`` the base64 signature of that digest in the ``log`` domain.
A flipped, removed, added or reordered byte anywhere before it changes the digest.

A contestant never gets the signed log itself (it holds what is not theirs: the output tails'
paths, a faulty bot's last output, or, for a seat's view, everything that seat did not see). What
the competition server sends them (``arena.host.views.download``) ends instead with a *signed
statement*, made with the same key when it is sent, in the ``statement`` domain::

    {"type":"statement","algorithm":"ed25519","key_id":"…","statement":"{…}","signature":"…"}

``statement`` is the exact signed text (JSON: the document it speaks of and the SHA-256 of its
bytes, the match, its bots, rules and seed commitment, the result, and the signed log's own
digest and key id); ``signature`` signs the SHA-256 of that text. The statement is made only of
a log that this key signed and that still verifies, and it states only what its document's
reader may see: never the seed, its salt or another seat's view.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from arena.errors import ArenaError, ConfigError, SignatureError
from arena.model import MatchResult
from arena.record.log import SIGNATURE_TYPE, STATEMENT_TYPE, open_private, private_dir

ALGORITHM = "ed25519"
KEY_ID_HEX = 16
DEFAULT_KEY_NAME = "referee"
KEYS_DIR = "keys"
"""Where a ladder (or the competition server) keeps the key it made itself, under its state
directory."""
MAX_KEY_FILE = 16 * 1024
"""A key file larger than this is not a key (read no further)."""


def key_id_of(public: Ed25519PublicKey) -> str:
    """A public key's id: the first 16 hex digits of the SHA-256 of its raw 32 bytes."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:KEY_ID_HEX]


def signed_message(domain: str, data: bytes) -> bytes:
    """What a signature in ``domain`` covers for ``data`` (see the module doc)."""
    return digest_message(domain, hashlib.sha256(data).digest())


def digest_message(domain: str, digest: bytes) -> bytes:
    """What a signature in ``domain`` covers for bytes whose SHA-256 is ``digest``."""
    return b"arena-signature-v1\n" + domain.encode() + b"\n" + digest


@dataclass(frozen=True)
class PublicKey:
    """A public key that signatures are checked against."""

    key_id: str
    key: Ed25519PublicKey
    path: Path | None = None
    """The file it was read from, if any."""

    def verify(self, signature: bytes, message: bytes) -> bool:
        """Whether ``signature`` is this key's over ``message``."""
        try:
            self.key.verify(signature, message)
        except InvalidSignature:
            return False
        return True

    def pem(self) -> bytes:
        """The public key as a PEM file's bytes."""
        return self.key.public_bytes(serialization.Encoding.PEM,
                                     serialization.PublicFormat.SubjectPublicKeyInfo)


@dataclass(frozen=True)
class Signer:
    """A private key that signs."""

    key: Ed25519PrivateKey
    path: Path | None = None

    @property
    def public(self) -> PublicKey:
        """Its public key."""
        public = self.key.public_key()
        return PublicKey(key_id_of(public), public)

    @property
    def key_id(self) -> str:
        """Its key id."""
        return self.public.key_id

    def sign(self, message: bytes) -> bytes:
        """The signature of ``message`` (already domain-separated: ``signed_message``)."""
        return self.key.sign(message)


class TrustedKeys:
    """The public keys a verifier trusts, by key id (several at once: rotated keys)."""

    def __init__(self, keys: Iterable[PublicKey] = ()) -> None:
        self._keys = {key.key_id: key for key in keys}

    def get(self, key_id: str) -> PublicKey | None:
        """The trusted key of ``key_id``, or None."""
        return self._keys.get(key_id)

    @property
    def key_ids(self) -> tuple[str, ...]:
        """The trusted key ids, sorted."""
        return tuple(sorted(self._keys))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[PublicKey]:
        return iter(self._keys.values())


# --- key files -------------------------------------------------------------------------------
def new_key(directory: Path, name: str = DEFAULT_KEY_NAME) -> tuple[Path, Path]:
    """Make a signing key: ``<directory>/<name>.key`` (0600, the directory made 0700 if new) and
    its public key ``<name>.pub``. Never overwrites: ``ConfigError`` if either exists."""
    if not name or "/" in name or name.startswith("."):
        raise ConfigError(f"a key name is a plain file name, got {name!r}")
    private, public = directory / f"{name}.key", directory / f"{name}.pub"
    for path in (private, public):
        if path.exists():
            raise ConfigError(f"{path} exists: keys are never overwritten; choose another "
                              f"--name or directory")
    private_dir(directory)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    with open_private(private) as handle:
        handle.write(pem.decode())
    public.write_bytes(Signer(key).public.pem())
    return private, public


def ensure_signer(state_dir: Path) -> tuple[Signer, Path, bool]:
    """The key under ``<state_dir>/keys/``, made on first use: (signer, its public key's path,
    whether it was made now)."""
    directory = state_dir / KEYS_DIR
    private = directory / f"{DEFAULT_KEY_NAME}.key"
    public = directory / f"{DEFAULT_KEY_NAME}.pub"
    created = False
    if not private.exists():
        if public.exists():  # a public key without its private key: a half-made pair
            public.unlink()
        new_key(directory)
        created = True
    signer = load_signer(private)
    if not public.exists():
        public.write_bytes(signer.public.pem())
    return signer, public, created


def load_signer(path: Path) -> Signer:
    """The private key in ``path``; ``ConfigError`` (one line) if it is missing, not an Ed25519
    private key, or readable by group or others."""
    data = _key_file(path, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise ConfigError(f"signing key {path} is not a PEM private key (a public key? make one "
                          f"with `arena keys new DIR`)") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"signing key {path} is not an Ed25519 key")
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(f"signing key {path} is readable by others (mode "
                          f"{stat.S_IMODE(mode):o}): chmod 600 {path}")
    return Signer(key, path)


def load_public_key(path: Path) -> PublicKey:
    """The public key in ``path`` (``ConfigError`` if it is not an Ed25519 public key)."""
    data = _key_file(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise ConfigError(f"public key {path} is not a PEM public key (the .pub file `arena "
                          f"keys new` wrote)") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(f"public key {path} is not an Ed25519 key")
    return PublicKey(key_id_of(key), key, path)


def load_trusted(paths: Iterable[Path]) -> TrustedKeys:
    """The public keys in ``paths``: files, or directories whose ``*.pub`` files are read."""
    keys: list[PublicKey] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.glob("*.pub"))
            if not found:
                raise ConfigError(f"{path} holds no public key (*.pub)")
            keys.extend(load_public_key(p) for p in found)
        else:
            keys.append(load_public_key(path))
    return TrustedKeys(keys)


def _key_file(path: Path, what: str) -> bytes:
    try:
        if path.stat().st_size > MAX_KEY_FILE:
            raise ConfigError(f"{what} {path} is not a key file (larger than {MAX_KEY_FILE} "
                              f"bytes)")
        return path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"{what} {path} is a directory, not a key file") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror}") from None


# --- signed files ----------------------------------------------------------------------------
def sign_bytes(signer: Signer, domain: str, data: bytes) -> bytes:
    """The signature of ``data`` in ``domain``."""
    return signer.sign(signed_message(domain, data))


def verify_bytes(trusted: TrustedKeys, key_id: str, domain: str, data: bytes,
                 signature: bytes) -> PublicKey:
    """The trusted key that signed ``data`` in ``domain``; ``SignatureError`` (one line) if the
    key is not trusted or the signature is not its."""
    key = trusted.get(key_id)
    if key is None:
        raise SignatureError(f"signed by key {key_id}, which is not trusted (trusted: "
                             f"{', '.join(trusted.key_ids) or 'none'})")
    if not key.verify(signature, signed_message(domain, data)):
        raise SignatureError(f"the signature is not key {key_id}'s over these bytes: the "
                             f"{domain} was changed after it was signed")
    return key


# --- signed match logs -----------------------------------------------------------------------
@dataclass(frozen=True)
class LogSignature:
    """A signed log's signature record."""

    key_id: str
    sha256: str
    """The hex SHA-256 of the log's bytes before the signature line."""
    signature: bytes
    verified: bool = False
    """Whether it was checked against a trusted key."""


def sign_log(path: Path, signer: Signer) -> LogSignature:
    """Append the signature record to the finished log at ``path`` (its last record must be the
    match end; ``SignatureError`` if it is not, or if the log is signed already)."""
    data = path.read_bytes()
    record = _json_line(_split_last(data)[1])
    if record.get("type") == SIGNATURE_TYPE:
        raise SignatureError(f"{path} is signed already")
    if record.get("type") != "match_end" or not data.endswith(b"\n"):
        raise SignatureError(f"{path} is not a finished match log (its last record is not the "
                             f"match end): only finished logs are signed")
    digest = hashlib.sha256(data).digest()
    signature = signer.sign(digest_message("log", digest))
    line = json.dumps({"type": SIGNATURE_TYPE, "algorithm": ALGORITHM, "key_id": signer.key_id,
                       "sha256": digest.hex(),
                       "signature": base64.b64encode(signature).decode()},
                      separators=(",", ":")) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, line.encode())  # one write of one line: no torn signature record
    finally:
        os.close(fd)
    return LogSignature(signer.key_id, digest.hex(), signature)


def sign_played(result: MatchResult, signer: Signer, logger: logging.Logger
                ) -> LogSignature | None:
    """Sign the finished log of a match just played, where results are kept (a ladder's runner,
    `arena serve`); None when it could not be signed (no log was written, it is not whole, the
    disk failed), said in ``logger`` unless the match had no log at all: a log that cannot be
    signed costs only its signature, never the result."""
    if result.log is None or not Path(result.log).is_file():
        return None  # a match void before its log began
    try:
        return sign_log(Path(result.log), signer)
    except (ArenaError, OSError, ValueError) as exc:
        logger.error("match %s: its log %s was not signed: %s", result.match_id, result.log,
                     exc)
        return None


def check_log_signature(path: Path, trusted: TrustedKeys | None) -> LogSignature | None:
    """The signature of the log at ``path``: None if it is unsigned; ``SignatureError`` (one
    line) if it does not hold: the bytes before it changed (a flipped byte, a line removed,
    added or reordered), lines follow it, it is malformed, its key is not in ``trusted``, or the
    log's header names another match than its file name ``<match_id>.jsonl``. With
    ``trusted`` None the digest is checked (accidental damage) but not the signature
    (``verified`` False)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SignatureError(f"cannot read {path}: {exc.strerror}") from None
    signature = parse_log_signature(data)
    if signature is None:
        return None
    _check_name(path, data)
    digest = hashlib.sha256(_split_last(data)[0]).digest()
    if digest.hex() != signature.sha256:
        raise SignatureError("the log's bytes before its signature changed after it was signed "
                             "(a changed, removed, added or reordered line)")
    if trusted is None:
        return signature
    key = trusted.get(signature.key_id)
    if key is None:
        raise SignatureError(f"signed by key {signature.key_id}, which is not trusted "
                             f"(trusted: {', '.join(trusted.key_ids) or 'none'})")
    if not key.verify(signature.signature, digest_message("log", digest)):
        raise SignatureError(f"the signature is not key {signature.key_id}'s over this log")
    return LogSignature(signature.key_id, signature.sha256, signature.signature, True)


def parse_log_signature(data: bytes) -> LogSignature | None:
    """The signature record of a log's bytes, None if its last line is no signature record;
    ``SignatureError`` if one appears before the last line or is malformed."""
    body, last = _split_last(data)
    if b'"signature"' in body and any(_is_signature_line(line) for line in body.splitlines()):
        raise SignatureError("lines follow the log's signature record (added after signing)")
    if not _is_signature_line(last):
        return None
    record = _json_line(last)
    try:
        if record.get("algorithm") != ALGORITHM:
            raise SignatureError(f"unknown signature algorithm {record.get('algorithm')!r}")
        key_id, sha, text = record["key_id"], record["sha256"], record["signature"]
        if not (isinstance(key_id, str) and isinstance(sha, str) and isinstance(text, str)):
            raise TypeError
        signature = base64.b64decode(text, validate=True)
    except (KeyError, TypeError, binascii.Error):
        raise SignatureError("a malformed signature record") from None
    return LogSignature(key_id, sha, signature)


ABORTED_SUFFIX = re.compile(r"\.aborted-[0-9]+$")
"""The suffix of a log set aside (``record.log``), taken off its name before it is compared."""


def _check_name(path: Path, data: bytes) -> None:
    """The log's match id is its file's name: ``<match_id>.jsonl``, or ``<match_id>.aborted-<n>
    .jsonl`` for a log set aside before its match was played again (``record.log``: a whole,
    signed log can be set aside when the server died after signing it, before recording it)."""
    first = data.split(b"\n", 1)[0]
    match_id = _json_line(first).get("match_id")
    stem = ABORTED_SUFFIX.sub("", path.name.removesuffix(".jsonl"))
    if isinstance(match_id, str) and path.name.endswith(".jsonl") and match_id != stem:
        raise SignatureError(f"the log is of match {match_id!r}, but its file names match "
                             f"{stem!r}")


def _split_last(data: bytes) -> tuple[bytes, bytes]:
    """(everything before the last line, the last line) of newline-terminated lines."""
    trimmed = data[:-1] if data.endswith(b"\n") else data
    cut = trimmed.rfind(b"\n") + 1
    return data[:cut], data[cut:]


def _is_signature_line(line: bytes) -> bool:
    if b'"signature"' not in line:
        return False
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("type") == SIGNATURE_TYPE


def _json_line(line: bytes) -> dict[str, object]:
    try:
        record = json.loads(line)
    except ValueError:
        raise SignatureError("the log's last line is not a JSON record") from None
    if not isinstance(record, dict):
        raise SignatureError("the log's last line is not a JSON record")
    return record


# --- signed statements -----------------------------------------------------------------------
STATEMENT_DOMAIN = "statement"
"""The signature domain of a statement's text."""
STATEMENT_KIND = "arena-statement"
STATEMENT_VERSION = 1
LOG_DOCUMENT, SEAT_VIEW_DOCUMENT = "log", "seat-view"
"""What a statement speaks of: a match log as a contestant gets it, or one seat's view."""
_STATEMENT_RECORD = ("type", "algorithm", "key_id", "statement", "signature")
_STATEMENT_FIELDS = ("kind", "version", "document", "seat", "sha256", "match_id", "game",
                     "game_version", "options", "ladder", "bots", "seed_commitment", "result",
                     "log")
_RESULT_FIELDS = ("winner", "totals", "rounds", "termination", "faulty_seat", "void",
                  "decisions")
"""What a statement says of the result: what every reader of the match may see (no seed, no
detail: a fault's detail quotes the faulty bot's output, its owner's only)."""
_BOT_FIELDS = ("name", "version", "digest")


@dataclass(frozen=True)
class Statement:
    """A checked statement (``check_statement``)."""

    key_id: str
    """The trusted key that signed it."""
    content: dict[str, Any]
    """What it states (the signed text, parsed)."""
    document: bytes
    """The bytes it speaks of: the file before its line."""

    @property
    def kind(self) -> str:
        """``log`` or ``seat-view``."""
        return str(self.content["document"])

    @property
    def seat(self) -> int | None:
        """The seat of a seat's view (None: a log)."""
        seat = self.content["seat"]
        return seat if isinstance(seat, int) else None


def statement_for(log: bytes, document: str, seat: int | None, data: bytes, signer: Signer
                  ) -> bytes:
    """The statement line ``signer`` makes of ``data``, the ``document`` (``log``: the match log
    as a contestant gets it; ``seat-view``: seat ``seat``'s view) of the finished match whose
    signed log's bytes are ``log``. ``SignatureError`` (one line) unless that log is signed by
    ``signer`` and verifies: no statement vouches for a log the key did not sign."""
    signature = parse_log_signature(log)
    if signature is None:
        raise SignatureError("the match log is not signed: no statement is made of it")
    body = _split_last(log)[0]
    digest = hashlib.sha256(body).digest()
    if digest.hex() != signature.sha256:
        raise SignatureError("the match log's bytes changed after it was signed: no statement "
                             "is made of it")
    if signature.key_id != signer.key_id:
        raise SignatureError(f"the match log was signed by key {signature.key_id}, not by this "
                             f"referee's key {signer.key_id}: no statement is made of it")
    if not signer.public.verify(signature.signature, digest_message("log", digest)):
        raise SignatureError(f"the match log's signature is not key {signer.key_id}'s: no "
                             f"statement is made of it")
    header = _json_line(body.split(b"\n", 1)[0])
    end = _json_line(_split_last(body)[1])
    if header.get("type") != "header" or end.get("type") != "match_end":
        raise SignatureError("the signed log is not a whole match log (header to match end)")
    content = _statement_content(document, seat, data, header, end, signature)
    return sign_statement(signer, content)


def _statement_content(document: str, seat: int | None, data: bytes, header: dict[str, Any],
                       end: dict[str, Any], log: LogSignature) -> dict[str, Any]:
    result = end.get("result")
    result = result if isinstance(result, dict) else {}
    bots = header.get("bots")
    return {
        "kind": STATEMENT_KIND, "version": STATEMENT_VERSION, "document": document,
        "seat": seat, "sha256": hashlib.sha256(data).hexdigest(),
        "match_id": header.get("match_id"), "game": header.get("game"),
        "game_version": header.get("game_version"), "options": header.get("options"),
        "ladder": header.get("ladder"),
        "bots": [{k: b.get(k) for k in _BOT_FIELDS} for b in bots if isinstance(b, dict)]
        if isinstance(bots, list) else [],
        "seed_commitment": header.get("seed_commitment"),
        "result": {k: result.get(k) for k in _RESULT_FIELDS},
        "log": {"sha256": log.sha256, "key_id": log.key_id},
    }


def sign_statement(signer: Signer, content: dict[str, Any]) -> bytes:
    """The statement line of ``content`` signed by ``signer`` (newline included)."""
    text = json.dumps(content, separators=(",", ":"))
    signature = signer.sign(signed_message(STATEMENT_DOMAIN, text.encode()))
    return _record_line({"type": STATEMENT_TYPE, "algorithm": ALGORITHM,
                         "key_id": signer.key_id, "statement": text,
                         "signature": base64.b64encode(signature).decode()})


def check_statement(data: bytes, trusted: TrustedKeys) -> Statement:
    """The statement that ends ``data`` (a downloaded log or seat view), checked: its line as
    the referee wrote it, signed by a trusted key, and the SHA-256 it states that of every byte
    before it. ``SignatureError`` (one line) naming what does not hold."""
    body, last = _split_last(data)
    record = _statement_record(last)
    if _record_line(record) != last:
        raise SignatureError("the statement line is not as the referee wrote it (its bytes "
                             "were changed)")
    key_id, text = record["key_id"], record["statement"]
    key = trusted.get(key_id)
    if key is None:
        raise SignatureError(f"the statement is signed by key {key_id}, which is not trusted "
                             f"(trusted: {', '.join(trusted.key_ids) or 'none'})")
    signature = _signature_bytes(record["signature"])
    if not key.verify(signature, signed_message(STATEMENT_DOMAIN, text.encode())):
        raise SignatureError(f"the statement's signature is not key {key_id}'s: the statement "
                             "was changed after it was signed")
    content = _statement_text(text)
    if hashlib.sha256(body).hexdigest() != content["sha256"]:
        raise SignatureError("the file's bytes before its statement changed after it was "
                             "signed (a changed, removed, added or reordered line)")
    return Statement(key_id, content, body)


def is_statement(data: bytes) -> bool:
    """Whether the last line of ``data`` is a statement record (checked or not)."""
    last = _split_last(data)[1]
    if b'"statement"' not in last:
        return False
    try:
        record = json.loads(last)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("type") == STATEMENT_TYPE


def _statement_record(last: bytes) -> dict[str, Any]:
    try:
        record = json.loads(last)
    except ValueError:
        record = None
    if not isinstance(record, dict) or record.get("type") != STATEMENT_TYPE:
        raise SignatureError("the file's last line is not a signed statement (changed, or a "
                             "file the server sent without one)")
    if tuple(record) != _STATEMENT_RECORD or record.get("algorithm") != ALGORITHM or not all(
            isinstance(record[k], str) for k in _STATEMENT_RECORD):
        raise SignatureError("a malformed statement record")
    return record


def _signature_bytes(text: str) -> bytes:
    """A signature's base64, decoded; only its one canonical spelling is accepted."""
    try:
        signature = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise SignatureError("a malformed statement record (its signature is not "
                             "base64)") from None
    if base64.b64encode(signature).decode() != text:
        raise SignatureError("a malformed statement record (its signature is not base64 as "
                             "written by the referee)")
    return signature


def _statement_text(text: str) -> dict[str, Any]:
    try:
        content = json.loads(text)
    except ValueError:
        content = None
    if not isinstance(content, dict) or tuple(content) != _STATEMENT_FIELDS or \
            content["kind"] != STATEMENT_KIND or content["version"] != STATEMENT_VERSION or \
            content["document"] not in (LOG_DOCUMENT, SEAT_VIEW_DOCUMENT) or \
            not isinstance(content["sha256"], str):
        raise SignatureError("a signed statement this arena does not know (another version? "
                             "update the arena)")
    return content


def _record_line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, separators=(",", ":")) + "\n").encode()
