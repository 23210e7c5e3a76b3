"""Building the load generator: the build cache keys binaries by source hash, and the crate
is cleaned before each build so that another tree's binary is never cached under this one's
hash (cargo judges freshness by file times in the shared target folder); ``cargo test``
(``./bench test``'s step) runs on a synced copy in the same target folder with its own
profile, and clippy on a cleaned crate, not again once the same files have passed. A run
that fails is named by its exit code or signal, a hung one is killed after its bound, and a
probe tells a server that never answers the upgrade from one not listening.
Offered permessage-deflate, it agrees with a Python server that accepts it and checks every
message after inflation."""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import stat
import subprocess
import sys
import threading
from pathlib import Path

import msgspec
import psutil
import pytest

from tests.reports import report
from wsbench import loadreport, paths
from wsbench.instrument import loadgen
from wsbench.paths import LOADGEN_DIR

FAKE_CARGO = """#!/bin/sh
echo "$* target=$CARGO_TARGET_DIR" >> "$CARGO_LOG"
if [ "$1" = build ]; then
  mkdir -p "$CARGO_TARGET_DIR/release"
  echo "built from $5" > "$CARGO_TARGET_DIR/release/wsbench-loadgen"
fi
if [ "$1" = clippy ]; then
  [ "$2" = --version ] && echo "clippy ${FAKE_CLIPPY_VERSION:-0.1.0}" && exit 0
  exit "${CARGO_CLIPPY_EXIT:-0}"
fi
if [ "$1" = test ]; then
  mkdir -p "$CARGO_TARGET_DIR/tests"
  echo "tested from $5" > "$CARGO_TARGET_DIR/tests/wsbench-loadgen"
  exit "${CARGO_TEST_EXIT:-0}"
fi
"""


def tree(root: Path, text: str) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "wsbench-loadgen"\n')
    (root / "src" / "main.rs").write_text(text)
    return root


@pytest.fixture
def cargo_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake cargo first on PATH, logging each command line with its target folder into
    the file returned, and an empty build cache."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cargo = bin_dir / "cargo"
    cargo.write_text(FAKE_CARGO)
    cargo.chmod(cargo.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "cargo.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CARGO_LOG", str(log))
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(loadgen.BINARY_ENV, raising=False)
    return log


def test_each_tree_is_built_from_a_clean_crate_and_cached_by_its_hash(
    tmp_path: Path, cargo_log: Path
) -> None:
    log = cargo_log
    old = tree(tmp_path / "old", "fn main() {}\n")
    new = tree(tmp_path / "new", "fn main() { rooms() }\n")

    built_old = loadgen.ensure_built(quiet=True, root=old)
    built_new = loadgen.ensure_built(quiet=True, root=new)

    assert built_old != built_new
    assert built_new == loadgen.cached_binary(new)
    assert built_new.read_text() == f"built from {new / 'Cargo.toml'}\n"
    target = tmp_path / "cache" / "cargo-target"
    assert log.read_text().splitlines() == [
        line.format(manifest=root / "Cargo.toml", target=target)
        for root in (old, new)
        for line in (
            "clean --profile release --quiet -p wsbench-loadgen --manifest-path {manifest} "
            "target={target}",
            "build --release --quiet --manifest-path {manifest} target={target}",
        )
    ]
    # Cached: the same sources are not built again.
    assert loadgen.ensure_built(quiet=True, root=new) == built_new
    assert len(log.read_text().splitlines()) == 4


def test_cargo_test_runs_on_a_synced_copy_in_the_shared_target_with_the_tests_profile(
    tmp_path: Path, cargo_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(tmp_path / "tree", "fn main() {}\n")
    (root / "target").mkdir()
    (root / "target" / "left-over").write_text("not a source")
    tested = tmp_path / "cache" / loadgen.TESTED_COPY
    target = tmp_path / "cache" / "cargo-target"

    assert loadgen.cargo_test(root) == 0
    assert cargo_log.read_text().splitlines() == [
        "test --profile tests --config profile.tests.opt-level=0 --config "
        f'profile.tests.package."*".opt-level=3 --manifest-path {tested / "Cargo.toml"} -- '
        f"--test-threads {loadgen.TEST_THREADS} target={target}",
    ]
    assert sorted(p.relative_to(tested).as_posix() for p in tested.rglob("*.*")) == [
        "Cargo.toml", "src/main.rs",
    ]  # fmt: skip
    # The benchmarks' binary is the release build of the tree itself, not the tested one.
    built = loadgen.ensure_built(quiet=True, root=root)
    assert built == loadgen.cached_binary(root)
    assert built.read_text() == f"built from {root / 'Cargo.toml'}\n"

    # Failing tests give cargo's exit code. An unchanged file keeps its time in the copy,
    # a changed one is written again, a removed one goes.
    os.utime(tested / "Cargo.toml", (1_000_000, 1_000_000))
    os.utime(tested / "src" / "main.rs", (1_000_000, 1_000_000))
    (root / "src" / "main.rs").write_text("fn main() { rooms() }\n")
    (root / "src" / "lib.rs").write_text("")
    monkeypatch.setenv("CARGO_TEST_EXIT", "101")
    assert loadgen.cargo_test(root) == 101
    assert (tested / "Cargo.toml").stat().st_mtime == 1_000_000
    assert (tested / "src" / "main.rs").stat().st_mtime > 1_000_000
    assert (tested / "src" / "main.rs").read_text() == "fn main() { rooms() }\n"
    (root / "src" / "lib.rs").unlink()
    assert loadgen.cargo_test(root) == 101
    assert not (tested / "src" / "lib.rs").exists()
    assert [line.split()[0] for line in cargo_log.read_text().splitlines()] == [
        "test", "clean", "build", "test", "test",
    ]  # fmt: skip


def test_clippy_runs_on_a_clean_crate_and_a_pass_is_not_run_again_for_the_same_key(
    tmp_path: Path, cargo_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(tmp_path / "tree", "fn main() {}\n")
    (root / "tests").mkdir()
    (root / "tests" / "integration.rs").write_text("#[test]\nfn t() {}\n")

    def lints() -> list[str]:
        """The first word of each cargo command logged so far, the version queries left
        out: a lint is a clean of the crate, then clippy."""
        lines = cargo_log.read_text().splitlines()
        return [line.split()[0] for line in lines if "--version" not in line]

    # A failure is never recorded: the next call lints again.
    monkeypatch.setenv("CARGO_CLIPPY_EXIT", "101")
    assert loadgen.cargo_clippy(root) == 101
    assert loadgen.cargo_clippy(root) == 101
    assert lints() == ["clean", "clippy"] * 2
    # A pass is recorded under its key; the same files and toolchain are not linted again.
    monkeypatch.setenv("CARGO_CLIPPY_EXIT", "0")
    assert loadgen.cargo_clippy(root) == 0
    assert loadgen.cargo_clippy(root) == 0
    assert lints() == ["clean", "clippy"] * 3
    passed = sorted(p.name for p in (tmp_path / "cache" / loadgen.PASSED_LINTS).iterdir())
    assert passed == [loadgen.lint_key(root, "cargo")]
    # A changed file (an integration test too), another clippy or RUSTFLAGS: linted again.
    (root / "tests" / "integration.rs").write_text("#[test]\nfn u() {}\n")
    assert loadgen.cargo_clippy(root) == 0
    monkeypatch.setenv("FAKE_CLIPPY_VERSION", "0.2.0")
    assert loadgen.cargo_clippy(root) == 0
    monkeypatch.setenv("RUSTFLAGS", "-C target-cpu=native")
    assert loadgen.cargo_clippy(root) == 0
    assert loadgen.cargo_clippy(root) == 0
    assert lints() == ["clean", "clippy"] * 6
    # The target folder is not part of the key.
    (root / "target").mkdir()
    (root / "target" / "left-over").write_text("built")
    assert loadgen.cargo_clippy(root) == 0
    assert lints() == ["clean", "clippy"] * 6


def _copy_of_the_crate(dest: Path) -> Path:
    """The load generator's manifest, lock file and sources, copied to ``dest``."""
    source = LOADGEN_DIR
    dest.mkdir()
    for name in ("Cargo.toml", "Cargo.lock"):
        (dest / name).write_bytes((source / name).read_bytes())
    shutil.copytree(source / "src", dest / "src")
    return dest


def test_cargo_fmt_check_passes_the_tree_and_fails_an_unformatted_file(tmp_path: Path) -> None:
    copy = _copy_of_the_crate(tmp_path / "crate")
    assert loadgen.cargo_fmt_check(copy) == 0
    with (copy / "src" / "transport" / "url.rs").open("a") as source:
        source.write("\npub fn  unformatted( )->u8{1}\n")
    assert loadgen.cargo_fmt_check(copy) != 0


def test_cargo_clippy_fails_on_a_lint(tmp_path: Path) -> None:
    copy = _copy_of_the_crate(tmp_path / "crate")
    with (copy / "src" / "transport" / "url.rs").open("a") as source:
        source.write("\npub fn always(x: u8) -> bool {\n    x == x\n}\n")  # clippy::eq_op
    assert loadgen.cargo_clippy(copy) != 0


def _fake_loadgen(tmp_path: Path, script: str) -> Path:
    """An executable shell script standing in for the load generator."""
    binary = tmp_path / "fake-loadgen"
    binary.write_text("#!/bin/sh\n" + script)
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    return binary


def _report_line() -> str:
    """A valid report as the load generator prints it (one JSON line)."""
    return msgspec.json.encode(report(connections_ok=1)).decode()


TRAFFIC = loadgen.TRAFFIC_STARTS + " (1 connections)"
"""The progress line a load generator prints, left out of a failure's reason."""


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        (f'echo "{TRAFFIC}" >&2; kill -9 $$', "load generator killed by signal 9 (SIGKILL)"),
        ("kill -TERM $$", "load generator killed by signal 15 (SIGTERM)"),
        ('echo "boom" >&2; exit 1', "load generator exited with code 1: boom"),
    ],
)
def test_a_load_generator_that_fails_is_named_with_its_exit_code_or_signal(
    tmp_path: Path, script: str, reason: str
) -> None:
    binary = _fake_loadgen(tmp_path, script)
    with pytest.raises(loadgen.LoadgenError) as failed:
        loadgen.run_report(["echo"], cpus=[0], timeout_s=30, binary=binary)
    assert str(failed.value) == reason


def test_a_hung_load_generator_is_killed_after_its_bound(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    binary = _fake_loadgen(tmp_path, f"echo $$ > {pid_file}; exec sleep 600")
    with pytest.raises(loadgen.LoadgenError, match=r"^load generator did not finish within "
                       r"0\.5 s: killed \(SIGKILL\)$"):  # fmt: skip
        loadgen.run_report(["echo"], cpus=[0], timeout_s=0.5, binary=binary)
    assert not psutil.pid_exists(int(pid_file.read_text()))


def test_a_hold_killed_before_or_after_its_connections_opened_is_named(tmp_path: Path) -> None:
    killed = _fake_loadgen(tmp_path, "kill -9 $$")
    with pytest.raises(loadgen.LoadgenError, match=r"^load generator hold killed by signal 9 "):
        loadgen.Hold(["hold"], cpus=[0], timeout_s=30, binary=killed).__enter__()
    # The first line printed, then killed while the connections are held.
    held = _fake_loadgen(tmp_path, f"echo '{_report_line()}'; read _; kill -9 $$")
    with loadgen.Hold(["hold"], cpus=[0], timeout_s=30, binary=held) as hold:
        assert hold.opened is not None and hold.opened.connections_ok == 1
        with pytest.raises(loadgen.LoadgenError) as failed:
            hold.release()
    assert str(failed.value) == "load generator hold killed by signal 9 (SIGKILL)"


def test_a_probe_names_a_server_that_never_answers_the_upgrade(loadgen_binary: Path) -> None:
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()  # connections complete in the backlog; nothing ever answers
        url = f"ws://127.0.0.1:{listening.getsockname()[1]}/echo"
        reason = loadgen.probe(url, timeout_s=0.5, binary=loadgen_binary)
    assert reason == (
        f"{url}: the server accepted the TCP connection but did not answer the WebSocket "
        "upgrade (HTTP 101) within 0.5 s"
    )
    # Nothing listens there any more: refused at once.
    reason = loadgen.probe(url, timeout_s=0.5, binary=loadgen_binary)
    assert reason is not None and reason.endswith("connection refused")


def test_the_json_corpus_is_the_one_its_script_makes() -> None:
    """The committed corpus (impls/PROTOCOL.md, "The JSON corpus") is what
    ``loadgen/corpus/make_corpus.py`` writes: 128 JSON objects of 1,024 bytes, each with the
    sequence slot at offset 8."""
    script = LOADGEN_DIR / "corpus" / "make_corpus.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (LOADGEN_DIR / "corpus" / "json-1024.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines[:-1]) == 128
    for line in lines[:-1]:
        assert len(line) == 1024 and line.startswith(b'{"seq":"0000000000000000",')
        assert set(json.loads(line)) >= {"seq", "type"}


def _against_websockets_echo(
    binary: Path, runs: list[list[str]], ssl_context: ssl.SSLContext | None = None
) -> list[subprocess.CompletedProcess[str]]:
    """Each load generator command line of ``runs`` (``{url}`` replaced by the server's
    ``ws://`` or ``wss://`` URL of ``/echo``) against python-websockets' sync ``serve()``
    echoing in a thread (with ``ssl_context``: over TLS), in turn."""
    from websockets.sync.server import ServerConnection, serve

    def echo(ws: ServerConnection) -> None:
        for message in ws:
            ws.send(message)

    with serve(echo, "127.0.0.1", 0, ssl=ssl_context) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        scheme = "wss" if ssl_context else "ws"
        url = f"{scheme}://127.0.0.1:{server.socket.getsockname()[1]}/echo"
        try:
            return [
                subprocess.run(
                    [str(binary), *(a.replace("{url}", url) for a in args)],
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                for args in runs
            ]
        finally:
            server.shutdown()
            thread.join()


def test_deflate_is_agreed_with_websockets_and_every_message_checked(
    loadgen_binary: Path,
) -> None:
    """python-websockets' ``serve()`` accepts permessage-deflate by default, with 12-bit
    windows both ways: offered it as a browser does (``--deflate``), the load generator
    follows that agreement, and every message comes back intact after inflation."""
    args = ["echo", "--url", "{url}", "--connections", "2", "--count", "200", "--in-flight",
            "8", "--size", "4096", "--text", "--timeout", "5", "--deflate"]  # fmt: skip
    (proc,) = _against_websockets_echo(loadgen_binary, [args])
    assert proc.returncode == 0, proc.stderr
    found = loadreport.decode(proc.stdout)
    assert found.messages_received == 400
    assert not any(found.errors.values()) and not any(found.integrity.values()), found
    deflate = found.deflate
    assert deflate is not None
    assert deflate.agreed == (
        "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12"
    )
    assert (deflate.connections_agreed, deflate.inflate_failures) == (2, 0)
    assert deflate.sent_payload_bytes == deflate.received_payload_bytes == 400 * 4096
    assert deflate.received_wire_bytes * 10 < deflate.received_payload_bytes, deflate
    assert deflate.sent_wire_bytes * 10 < deflate.sent_payload_bytes, deflate


def test_tls_with_websockets_and_a_trustme_ca_and_an_untrusted_one_refused(
    loadgen_binary: Path, tmp_path: Path
) -> None:
    """python-websockets' ``serve(ssl=...)`` (OpenSSL through Python's ``ssl``) with a
    certificate from a trustme CA: over ``wss://`` with ``--tls-ca``, and permessage-deflate
    as the server ships it (the browser profile), every message comes back intact and the
    report says what TLS agreed; a CA the client does not trust is refused with its reason."""
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    ca_file, other_file = tmp_path / "ca.pem", tmp_path / "other-ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    trustme.CA().cert_pem.write_to_path(str(other_file))
    args = ["echo", "--url", "{url}", "--tls-ca", str(ca_file), "--connections", "2",
            "--count", "100", "--in-flight", "4", "--size", "1024", "--timeout", "5",
            "--deflate"]  # fmt: skip
    untrusted = ["probe", "--url", "{url}", "--tls-ca", str(other_file), "--timeout", "5"]
    proc, refused = _against_websockets_echo(loadgen_binary, [args, untrusted], context)
    assert proc.returncode == 0, proc.stderr
    found = loadreport.decode(proc.stdout)
    assert found.messages_received == 200
    assert not any(found.errors.values()) and not any(found.integrity.values()), found
    assert found.deflate is not None and found.deflate.connections_agreed == 2
    tls = found.tls
    assert tls is not None and tls.failures == {}
    assert tls.version == "TLSv1.3" and tls.cipher_suite and tls.cipher_suite.startswith("TLS_")
    assert tls.handshake_us.count == 2 and tls.handshake_us.min > 0
    assert found.handshake_us is not None and tls.handshake_us.max <= found.handshake_us.max
    assert refused.returncode == 1
    assert "TLS handshake failed: invalid peer certificate: UnknownIssuer" in refused.stderr
