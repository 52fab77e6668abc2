"""The competition server's TLS files: its own CA (what a contestant's client pins) and the
server's certificate for the host names and IP addresses contestants connect to.

``arena host-certs DIR --host HOST ...`` writes, in ``DIR``:

* ``ca.pem``: the CA certificate. Hand it to the contestants (``arena login --ca``): their
  client trusts this CA only, not the system's, so nobody else's certificate passes for the
  server's.
* ``ca.key``: the CA's key (0600). Keep it off the server if you can: it makes certificates.
* ``server.pem``, ``server.key`` (0600): the server's certificate (every ``--host`` in its subject
  alternative names) and key, named by ``[server] tls_cert``/``tls_key``.

The competition's CA is its own, never the cluster's (``arena cluster certs``): a contestant's
pinned CA opens no door to the cluster. The certificates are the cluster's kind
(``arena.cluster.security``: EC P-256, valid ``CERT_DAYS``). Existing files are never overwritten
unless asked (``force``).
"""

from __future__ import annotations

import datetime
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from arena.cluster.security import (
    check_host,
    new_key,
    sign_certificate,
    write_certificate,
    write_key,
)
from arena.errors import ConfigError

CA_NAME = "arena competition CA"
"""The common name of a competition's CA."""


@dataclass(frozen=True)
class CertPaths:
    """What ``make_server_certs`` wrote."""

    ca: Path
    """The CA certificate (contestants pin it)."""
    ca_key: Path
    """The CA's private key (0600)."""
    cert: Path
    """The server's certificate."""
    key: Path
    """The server's private key (0600)."""


def cert_paths(directory: Path) -> CertPaths:
    """Where ``make_server_certs`` writes in ``directory``."""
    return CertPaths(directory / "ca.pem", directory / "ca.key", directory / "server.pem",
                     directory / "server.key")


def make_server_certs(out_dir: Path, hosts: Sequence[str], *, force: bool = False) -> CertPaths:
    """A new CA and a server certificate for ``hosts`` (host names or IP addresses, the first
    one its common name) in ``out_dir``. ``ConfigError`` (nothing written) for no host, a bad
    or repeated one, or files already there (unless ``force``)."""
    if not hosts:
        raise ConfigError("name at least one host the contestants connect to (--host "
                          "127.0.0.1 --host localhost, or the server's DNS name)")
    for host in hosts:
        check_host(host)
    if len(set(hosts)) != len(hosts):
        raise ConfigError(f"{next(h for h in hosts if hosts.count(h) > 1)!r} is named twice")
    paths = cert_paths(out_dir)
    there = [p.name for p in (paths.ca, paths.ca_key, paths.cert, paths.key) if p.exists()]
    if there and not force:
        raise ConfigError(f"{out_dir} already holds {', '.join(there)}: a new CA means every "
                          "contestant must pin the new ca.pem; pass --force to replace them")
    out_dir.mkdir(parents=True, exist_ok=True)
    ca_key, key = new_key(), new_key()
    ca = sign_certificate(CA_NAME, ca_key)
    cert = sign_certificate(hosts[0], key, (ca, ca_key), hosts=hosts)
    write_key(paths.ca_key, ca_key)
    write_key(paths.key, key)
    write_certificate(paths.ca, ca)
    write_certificate(paths.cert, cert)
    return paths


def server_cert_problem(cert: Path, key: Path, host: str) -> str | None:
    """Why the server could not serve ``host`` with this certificate and key (missing or
    unreadable, not a pair, expired, ``host`` not among its names, a key others may read), or
    None. For ``arena host --check``."""
    try:
        loaded = x509.load_pem_x509_certificate(cert.read_bytes())
        private = serialization.load_pem_private_key(key.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        return f"cannot read the TLS files {cert}, {key}: {exc} (see `arena host-certs`)"
    if loaded.public_key() != private.public_key():
        return f"{key} is not the key of {cert}"
    now = datetime.datetime.now(datetime.UTC)
    if not loaded.not_valid_before_utc <= now <= loaded.not_valid_after_utc:
        return (f"{cert} is not valid now (valid {loaded.not_valid_before_utc:%Y-%m-%d} to "
                f"{loaded.not_valid_after_utc:%Y-%m-%d})")
    if stat.S_IMODE(key.stat().st_mode) & 0o077:
        return f"{key} may be read by other users: chmod 600 it"
    try:
        alt = loaded.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        names = [*alt.get_values_for_type(x509.DNSName),
                 *(str(ip) for ip in alt.get_values_for_type(x509.IPAddress))]
    except x509.ExtensionNotFound:
        names = []
    if host not in ("", "0.0.0.0", "::") and host not in names:
        return (f"{cert} does not name {host!r} (it names {', '.join(names) or 'nothing'}): "
                f"make it with `arena host-certs DIR --host {host}`")
    return None
