"""Mutual TLS between the hosts of a cluster: a ladder's own CA and one certificate per host
(``arena cluster certs``), and Dask ``Security`` objects that accept only peers with a
certificate of that CA (plain TCP and other CAs are refused)."""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.cluster.settings import TlsFiles
from arena.errors import ConfigError

CERT_DAYS = 825
"""Validity of the certificates ``make_certs`` writes."""


@dataclass(frozen=True)
class CertFiles:
    """What ``make_certs`` wrote."""

    ca: Path
    ca_key: Path
    hosts: dict[str, TlsFiles]
    """Each host's files (the CA, its certificate, its key)."""


def _name(common_name: str) -> Any:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _alt_name(host: str) -> Any:
    from cryptography import x509

    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def make_certs(directory: Path, hosts: Sequence[str], *, ca_name: str = "arena cluster CA"
               ) -> CertFiles:
    """A new CA (``ca.pem``, ``ca-key.pem``) and, per host, ``HOST.pem`` and ``HOST-key.pem``
    signed by it (EC P-256), in ``directory`` (keys 0600). An existing CA there is reused, so
    hosts can be added later. Raises ``ConfigError`` for a bad host name."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    for host in hosts:
        if not host or "/" in host or host.startswith("."):
            raise ConfigError(f"not a host name: {host!r}")
    directory.mkdir(parents=True, exist_ok=True)
    ca_path, ca_key_path = directory / "ca.pem", directory / "ca-key.pem"
    now = datetime.datetime.now(datetime.UTC)
    pem = serialization.Encoding.PEM
    if ca_path.exists() and ca_key_path.exists():
        ca_cert = x509.load_pem_x509_certificate(ca_path.read_bytes())
        ca_key = serialization.load_pem_private_key(ca_key_path.read_bytes(), password=None)
    else:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_cert = (
            x509.CertificateBuilder().subject_name(_name(ca_name)).issuer_name(_name(ca_name))
            .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=CERT_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .sign(ca_key, hashes.SHA256())
        )
        _write_private(ca_key_path, ca_key.private_bytes(
            pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        ca_path.write_bytes(ca_cert.public_bytes(pem))
    written: dict[str, TlsFiles] = {}
    for host in hosts:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder().subject_name(_name(host)).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=CERT_DAYS))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName([_alt_name(host)]), critical=False)
            .sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
        )
        cert_path, key_path = directory / f"{host}.pem", directory / f"{host}-key.pem"
        _write_private(key_path, key.private_bytes(
            pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        cert_path.write_bytes(cert.public_bytes(pem))
        written[host] = TlsFiles(ca_path, cert_path, key_path)
    return CertFiles(ca_path, ca_key_path, written)


def tls_security(files: TlsFiles) -> Any:
    """A Dask ``Security`` for every role of this host (client, scheduler, worker): mutual TLS
    with the ladder's CA, encryption required. Raises ``ConfigError`` for a missing file."""
    from distributed.security import Security

    for path in (files.ca, files.cert, files.key):
        if not path.is_file():
            raise ConfigError(f"TLS file {path} does not exist (see `arena cluster certs`)")
    ca, cert, key = str(files.ca), str(files.cert), str(files.key)
    return Security(
        tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key,
        tls_scheduler_cert=cert, tls_scheduler_key=key,
        tls_worker_cert=cert, tls_worker_key=key, require_encryption=True,
    )


def embedded_security() -> Any:
    """The embedded cluster's security: a throw-away certificate only this ladder process and
    the workers it starts hold, so no other local user can submit code to its loopback ports."""
    from distributed.security import Security

    return Security.temporary()
