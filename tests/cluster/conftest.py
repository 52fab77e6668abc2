"""Cluster tests: real Dask processes on 127.0.0.1 only, real TLS, real matches (helpers:
tests/support/cluster.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from arena.cluster.security import CertFiles, make_certs
from tests.support.cluster import stop


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> CertFiles:
    """A CA and certificates for a head (its role) and two workers."""
    return make_certs(tmp_path_factory.mktemp("certs"), ["w1", "w2"], head="head")


@pytest.fixture(scope="module")
def other_certs(tmp_path_factory: pytest.TempPathFactory) -> CertFiles:
    """Another CA, with a head's certificate for an intruder."""
    return make_certs(tmp_path_factory.mktemp("other-certs"), [], head="intruder")


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test started: stopped at its end whatever happened."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        stop(proc)

