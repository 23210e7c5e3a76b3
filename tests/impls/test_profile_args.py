"""impls/profile_args.py, the deployment profiles' flags that every server parses with it
(impls/PROTOCOL.md, "Deployment profiles"), in this process: loaded from its file (each
server appends its folder, ``impls/``, to ``sys.path`` and imports it)."""

from __future__ import annotations

import argparse
import importlib.util
import ssl
from pathlib import Path
from types import ModuleType

import pytest

from wsbench.deployment import TlsFiles
from wsbench.instrument.certs import make_tls_files
from wsbench.paths import IMPLS_DIR


def load_module() -> ModuleType:
    """impls/profile_args.py as a module of its own."""
    spec = importlib.util.spec_from_file_location("profile_args", IMPLS_DIR / "profile_args.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


profile_args = load_module()


def parse(argv: list[str], **refused: str) -> argparse.Namespace:
    """``argv`` parsed by a server's parser with the profiles' flags; ``refused``: its
    ``no_tls`` and ``no_workers``."""
    parser = argparse.ArgumentParser(prog="server.py")
    parser.add_argument("--port", type=int, default=8000)
    args: argparse.Namespace = profile_args.parse_profile_args(
        parser, compression="nothing changes", argv=argv, **refused
    )
    return args


def refusal(capsys: pytest.CaptureFixture[str], argv: list[str], **refused: str) -> str:
    """The error line of a command line the parser refuses with status 2."""
    with pytest.raises(SystemExit) as exited:
        parse(argv, **refused)
    assert exited.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_the_flags_parse_into_the_arguments_every_server_reads() -> None:
    args = parse(["--port", "1"])
    assert (args.shipped_compression, args.certfile, args.keyfile) == (False, None, None)
    assert args.worker_processes is None
    argv = ["--shipped-compression", "--certfile", "c.pem", "--keyfile", "k.pem"]
    args = parse([*argv, "--worker-processes", "4"])
    assert (args.shipped_compression, args.certfile, args.keyfile) == (True, "c.pem", "k.pem")
    assert args.worker_processes == 4


def test_a_bad_or_refused_flag_exits_with_status_2_and_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert refusal(capsys, ["--certfile", "c.pem"]) == (
        "server.py: error: --certfile and --keyfile go together"
    )
    assert refusal(capsys, ["--worker-processes", "1"]) == (
        "server.py: error: --worker-processes 1: N must be at least 2 (without the flag the "
        "server runs one process)"
    )
    tls = ["--certfile", "c.pem", "--keyfile", "k.pem"]
    assert refusal(capsys, tls, no_tls="no ssl option") == (
        "server.py: error: TLS not supported: no ssl option"
    )
    assert refusal(capsys, ["--worker-processes", "1"], no_workers="no workers option") == (
        "server.py: error: --worker-processes not supported: no workers option"
    )
    # Refused or not, a flag a server never gets is accepted.
    assert parse(["--shipped-compression"], no_tls="x", no_workers="y").shipped_compression


def test_the_tls_context_loads_the_certificate_chain(tmp_path: Path) -> None:
    files: TlsFiles = make_tls_files(tmp_path)
    assert profile_args.tls_context(parse([])) is None
    args = parse(["--certfile", str(files.certfile), "--keyfile", str(files.keyfile)])
    context = profile_args.tls_context(args)
    assert isinstance(context, ssl.SSLContext) and context.protocol == ssl.PROTOCOL_TLS_SERVER
    assert context.verify_mode == ssl.CERT_NONE  # a server's: it asks for no client certificate
    plain = profile_args.tls_context(args, profile_args.plain_tls_context)
    assert isinstance(plain, ssl.SSLContext)
