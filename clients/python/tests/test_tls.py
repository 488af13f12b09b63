"""HTTPS: a daemon with server.tls_cert and a client that trusts the test's own CA."""
from __future__ import annotations

import hashlib
import ssl
import subprocess
from pathlib import Path
from typing import Iterator, Tuple

import pytest

from conftest import SOURCE_DIR, TOKEN, Daemon
from mnemo import Client, MnemoError, TransportError


@pytest.fixture
def tls_daemon(binary: str, tmp_path: Path) -> Iterator[Tuple[Daemon, Path]]:
    """A daemon with TLS (a certificate for 127.0.0.1 from a throwaway CA) and a token."""
    certs = tmp_path / "certs"
    subprocess.run(
        [str(SOURCE_DIR / "tests/clients/make_test_cert.sh"), str(certs)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    workspace = tmp_path / "tls-ws"
    workspace.mkdir(mode=0o700)
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    (workspace / "mnemo.toml").write_text(
        f'[server]\ntls_cert = "{certs / "server.pem"}"\ntls_key = "{certs / "server.key"}"\n\n'
        "[memory]\nacl_enabled = true\n\n"
        f'[[security.tokens]]\nprincipal = "alice"\nrole = "user"\nsha256 = "{digest}"\n'
    )
    daemon = Daemon(binary, workspace)
    try:
        yield daemon, certs / "ca.pem"
    finally:
        daemon.stop()


def test_https_with_the_ca_file_option(tls_daemon: Tuple[Daemon, Path]) -> None:
    daemon, ca = tls_daemon
    assert daemon.url.startswith("https://127.0.0.1:")
    with Client.http(daemon.url, token=TOKEN, ca_file=str(ca)) as c:
        c.store(key="k", value="sent over https")
        assert c.get(key="k")["owner"] == "alice"
    context = ssl.create_default_context(cafile=ca)
    with Client.http(daemon.url, token=TOKEN, ssl_context=context) as c:
        assert c.search(query="https")["results"][0]["key"] == "k"


def test_https_refuses_a_certificate_it_does_not_trust(tls_daemon: Tuple[Daemon, Path]) -> None:
    daemon, _ = tls_daemon
    with Client.http(daemon.url, token=TOKEN, retries=0) as c:
        with pytest.raises(TransportError) as caught:
            c.stats()
    assert "CERTIFICATE_VERIFY_FAILED" in str(caught.value)


def test_plain_http_to_the_tls_port_is_told_to_use_https(tls_daemon: Tuple[Daemon, Path]) -> None:
    daemon, _ = tls_daemon
    with Client.http(daemon.url.replace("https://", "http://"), token=TOKEN, retries=0) as c:
        with pytest.raises(MnemoError) as caught:
            c.stats()
    assert "https://" in str(caught.value)


def test_ca_file_and_ssl_context_together_are_refused() -> None:
    with pytest.raises(ValueError):
        Client.http(
            "https://127.0.0.1:1", ca_file="ca.pem", ssl_context=ssl.create_default_context()
        )
