"""Deployment profiles: their names and the flags each gives a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from wsbench.deployment import (
    AS_SHIPPED,
    BROWSER,
    PROFILES,
    TLS,
    TUNED,
    TlsFiles,
    get_profile,
    server_args,
)

FILES = TlsFiles(Path("/r/cert.pem"), Path("/r/key.pem"), Path("/r/ca.pem"))


def test_tuned_changes_nothing_and_comes_first() -> None:
    assert PROFILES[0] is TUNED
    assert server_args(TUNED) == [] == server_args(TUNED, FILES)


def test_each_profile_gives_its_flags() -> None:
    assert server_args(AS_SHIPPED) == ["--shipped-compression"]
    assert server_args(TLS, FILES) == ["--certfile", "/r/cert.pem", "--keyfile", "/r/key.pem"]
    assert server_args(BROWSER, FILES) == [
        "--shipped-compression", "--certfile", "/r/cert.pem", "--keyfile", "/r/key.pem",
    ]  # fmt: skip


def test_a_tls_profile_without_files_and_an_unknown_name_are_errors() -> None:
    with pytest.raises(ValueError, match="'tls' needs TLS files"):
        server_args(TLS)
    assert get_profile("browser") is BROWSER
    with pytest.raises(
        ValueError,
        match=r"unknown deployment profile 'fast' \(known: tuned, as-shipped, tls, browser\)",
    ):
        get_profile("fast")
