"""Throw-away TLS certificates for the deployment profiles that serve TLS (issue 44).

A run that measures the *tls* or *browser* profile (:mod:`wsbench.deployment`) makes a new
certificate authority and one server certificate it signs, valid for 127.0.0.1 and
localhost (the only host the harness serves on, and its name), into a directory of its
own: every server of the run is started with that certificate and key
(``--certfile``/``--keyfile``), and the client trusts that authority alone. Nothing is kept
or reused between runs, and the authority's private key is never written.

The certificates come from trustme (python-trio's library of certificates for tests), at its
defaults: ECDSA P-256 keys, certificates signed with SHA-256. The server's key is written in
PKCS#8 (``BEGIN PRIVATE KEY``), which every server here reads: granian's ``--ssl-keyfile``
reads PKCS#8 only, and trustme writes the older OpenSSL format (``BEGIN EC PRIVATE KEY``).
"""

from __future__ import annotations

from pathlib import Path

import trustme
from cryptography.hazmat.primitives import serialization

from wsbench.deployment import TlsFiles

IDENTITIES = ("127.0.0.1", "localhost")
"""What the server certificate is valid for (its subject alternative names)."""
CERTFILE = "server.pem"
"""The server's certificate (the chain: trustme's authority signs it directly)."""
KEYFILE = "server-key.pem"
"""The server certificate's private key, PKCS#8, readable by its owner only."""
CAFILE = "ca.pem"
"""The authority's certificate, which the client trusts."""


def make_tls_files(directory: Path) -> TlsFiles:
    """Make a new certificate authority and a server certificate it signs for
    :data:`IDENTITIES`, and write them into ``directory`` (created if missing; files of the
    same names are replaced) as PEM: :data:`CERTFILE`, :data:`KEYFILE` and :data:`CAFILE`.

    Returns:
        Their paths.

    Raises:
        OSError: the directory or a file cannot be written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    authority = trustme.CA()
    server = authority.issue_cert(*IDENTITIES)
    files = TlsFiles(
        certfile=directory / CERTFILE, keyfile=directory / KEYFILE, cafile=directory / CAFILE
    )
    key = serialization.load_pem_private_key(server.private_key_pem.bytes(), password=None)
    pkcs8 = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    files.keyfile.unlink(missing_ok=True)
    files.keyfile.touch(mode=0o600)
    files.keyfile.write_bytes(pkcs8)
    files.certfile.write_bytes(b"".join(pem.bytes() for pem in server.cert_chain_pems))
    authority.cert_pem.write_to_path(files.cafile)
    return files
