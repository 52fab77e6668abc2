"""Mutual TLS between the hosts of a cluster: a ladder's own CA and one certificate per host
(``arena cluster certs``), and Dask ``Security`` objects that accept only peers with a
certificate of that CA (plain TCP and other CAs are refused).

Each certificate carries a role in its subject's organizational unit: ``arena-head`` for the head
(``--head``: its client and its scheduler), ``arena-worker`` for a worker host (``--host``). A
certificate without a role (made before roles existed) is a worker's. The guard
(``arena.cluster.guard``) lets only the head's role act as a client or drive workers and nannies.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from arena.cluster.settings import TlsFiles
from arena.errors import ConfigError

CERT_DAYS = 825
"""Validity of the certificates ``make_certs`` writes."""
HEAD_ROLE = "arena-head"
"""The role (subject OU) of the head's certificate: the only one that may act as a client."""
WORKER_ROLE = "arena-worker"
"""The role of a worker host's certificate (and of any certificate without a role)."""


@dataclass(frozen=True)
class CertFiles:
    """What ``make_certs`` wrote."""

    ca: Path
    ca_key: Path
    hosts: dict[str, TlsFiles]
    """Each host's files (the CA, its certificate, its key), the head's among them."""


def _name(common_name: str, role: str | None = None) -> Any:
    unit = [x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, role)] if role else []
    return x509.Name([*unit, x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def certificate_role(cert: Path) -> str:
    """The role of the certificate in the PEM file ``cert`` (``WORKER_ROLE`` when it names
    none). Raises ``ConfigError`` for a file that holds no certificate."""
    try:
        loaded = x509.load_pem_x509_certificate(cert.read_bytes())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the certificate {cert}: {exc}") from None
    units = loaded.subject.get_attributes_for_oid(NameOID.ORGANIZATIONAL_UNIT_NAME)
    return role_of(str(unit.value) for unit in units)


def role_of(units: Iterable[str]) -> str:
    """The role named by a certificate's organizational units: ``HEAD_ROLE`` only when one of
    them says so, else ``WORKER_ROLE``."""
    return HEAD_ROLE if HEAD_ROLE in set(units) else WORKER_ROLE


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _alt_name(host: str) -> Any:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def check_host(host: str) -> str:
    """``host`` if it can be a certificate's host name or IP address, else ``ConfigError``."""
    if not host or "/" in host or host.startswith(".") or not host.isprintable() \
            or " " in host:
        raise ConfigError(f"not a host name: {host!r}")
    return host


def new_key() -> Any:
    """A new private key (EC P-256) for a CA or a certificate."""
    return ec.generate_private_key(ec.SECP256R1())


def sign_certificate(common_name: str, key: Any, issuer: tuple[Any, Any] | None = None, *,
                     hosts: Sequence[str] = (), role: str | None = None) -> Any:
    """A certificate of ``key``'s public key valid for ``CERT_DAYS``: without ``issuer``, a
    self-signed CA; else one signed by ``issuer`` (its certificate and key) for ``hosts`` (its
    subject alternative names: host names or IP addresses), ``role`` in its subject."""
    now = datetime.datetime.now(datetime.UTC)
    subject = _name(common_name, role)
    builder = (
        x509.CertificateBuilder().subject_name(subject)
        .issuer_name(subject if issuer is None else issuer[0].subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CERT_DAYS))
    )
    if issuer is None:
        builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=0),
                                        critical=True)
    else:
        builder = builder.add_extension(
            x509.BasicConstraints(ca=False, path_length=None), critical=True,
        ).add_extension(x509.SubjectAlternativeName([_alt_name(h) for h in hosts]),
                        critical=False)
    return builder.sign(key if issuer is None else issuer[1], hashes.SHA256())


def write_key(path: Path, key: Any) -> None:
    """Write a private key (PEM, PKCS#8, unencrypted) readable by its owner only."""
    _write_private(path, key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))


def write_certificate(path: Path, cert: Any) -> None:
    """Write a certificate (PEM)."""
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def make_certs(directory: Path, hosts: Sequence[str], *, head: str | None = None,
               ca_name: str = "arena cluster CA") -> CertFiles:
    """A new CA (``ca.pem``, ``ca-key.pem``) and, per host, ``HOST.pem`` and ``HOST-key.pem``
    signed by it (EC P-256), in ``directory`` (keys 0600): the worker role for ``hosts``, the
    head role for ``head``. An existing CA there is reused, so hosts can be added later. Raises
    ``ConfigError`` for a bad host name or a host named twice."""
    roles = {host: WORKER_ROLE for host in hosts}
    if head is not None:
        if head in roles:
            raise ConfigError(f"{head!r} is named as the head and as a worker host: a head's "
                              "certificate and a worker's must differ")
        roles[head] = HEAD_ROLE
    for host in roles:
        check_host(host)
    directory.mkdir(parents=True, exist_ok=True)
    ca_path, ca_key_path = directory / "ca.pem", directory / "ca-key.pem"
    if ca_path.exists() and ca_key_path.exists():
        ca_cert = x509.load_pem_x509_certificate(ca_path.read_bytes())
        ca_key = serialization.load_pem_private_key(ca_key_path.read_bytes(), password=None)
    else:
        ca_key = new_key()
        ca_cert = sign_certificate(ca_name, ca_key)
        write_key(ca_key_path, ca_key)
        write_certificate(ca_path, ca_cert)
    written: dict[str, TlsFiles] = {}
    for host, role in roles.items():
        key = new_key()
        cert = sign_certificate(host, key, (ca_cert, ca_key), hosts=[host], role=role)
        cert_path, key_path = directory / f"{host}.pem", directory / f"{host}-key.pem"
        write_key(key_path, key)
        write_certificate(cert_path, cert)
        written[host] = TlsFiles(ca_path, cert_path, key_path)
    return CertFiles(ca_path, ca_key_path, written)


def tls_security(files: TlsFiles) -> Any:
    """A Dask ``Security`` for every role of this host (client, scheduler, worker): mutual TLS
    with the ladder's CA, encryption required. Raises ``ConfigError`` for a missing file."""
    # Dask (~2 s to import) only for a cluster: `arena host` reads certificates without it
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
    # Dask (~2 s to import) only for a cluster: `arena host` reads certificates without it
    from distributed.security import Security

    return Security.temporary()
