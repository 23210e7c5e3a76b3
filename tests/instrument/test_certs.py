"""A run's throw-away certificate authority and server certificate (wsbench/instrument/certs.py)."""

from __future__ import annotations

import ssl
import stat
from pathlib import Path

import pytest

from wsbench.deployment import TlsFiles
from wsbench.instrument.certs import IDENTITIES, make_tls_files


def handshake(server: ssl.SSLContext, client: ssl.SSLContext, hostname: str) -> None:
    """A TLS handshake between ``client`` (checking ``hostname``) and ``server`` in memory.

    Raises:
        ssl.SSLError: the handshake failed (on the client's side, e.g. a certificate it
            does not trust).
    """
    into_server, into_client = ssl.MemoryBIO(), ssl.MemoryBIO()
    server_end = server.wrap_bio(into_server, into_client, server_side=True)
    client_end = client.wrap_bio(into_client, into_server, server_hostname=hostname)
    done = {"server": False, "client": False}
    for _ in range(10):
        for name, end in (("client", client_end), ("server", server_end)):
            if not done[name]:
                try:
                    end.do_handshake()
                    done[name] = True
                except ssl.SSLWantReadError:
                    pass
        if all(done.values()):
            return
    raise AssertionError(f"the handshake did not finish: {done}")


def server_context(files: TlsFiles) -> ssl.SSLContext:
    """A server's context with the files' certificate and key, as Python servers load them."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(files.certfile, files.keyfile)
    return context


def client_context(cafile: Path) -> ssl.SSLContext:
    """A client's context that trusts ``cafile`` alone and checks the host name."""
    return ssl.create_default_context(cafile=cafile)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_tls_files(tmp_path_factory.mktemp("tls"))


def test_the_files_load_into_a_server_context_and_the_key_is_private(files: TlsFiles) -> None:
    server_context(files)
    assert files.keyfile.read_text().startswith("-----BEGIN PRIVATE KEY-----\n")  # PKCS#8
    assert stat.S_IMODE(files.keyfile.stat().st_mode) == 0o600
    assert files.cafile.read_text().startswith("-----BEGIN CERTIFICATE-----\n")


@pytest.mark.parametrize("hostname", IDENTITIES)
def test_a_client_trusting_the_authority_accepts_the_server(files: TlsFiles, hostname: str) -> None:
    handshake(server_context(files), client_context(files.cafile), hostname)


def test_a_client_trusting_another_authority_refuses_the_server(
    files: TlsFiles, tmp_path: Path
) -> None:
    other = make_tls_files(tmp_path / "other")
    assert other.cafile.read_bytes() != files.cafile.read_bytes()
    with pytest.raises(ssl.SSLCertVerificationError, match="unable to get local issuer"):
        handshake(server_context(files), client_context(other.cafile), "127.0.0.1")


def test_a_client_checking_another_name_refuses_the_server(files: TlsFiles) -> None:
    with pytest.raises(ssl.SSLCertVerificationError, match="mismatch"):
        handshake(server_context(files), client_context(files.cafile), "example.com")
