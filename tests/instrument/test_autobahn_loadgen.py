"""The load generator's own WebSocket client graded by the Autobahn|Testsuite's fuzzing server
(:func:`wsbench.instrument.autobahn.run_fuzzing_server`, ``wsbench-loadgen autobahn-client``)
over a few case groups: framing, invalid UTF-8 (one frame, and fragments that must fail
fast), the closing handshake. A few seconds; it fails where the suite has no route (no Python
2.7, no Docker). The whole of cases 1-7, 9, 10 is in ``loadgen/CONFORMANCE.md``."""

from __future__ import annotations

from pathlib import Path

import pytest

from wsbench.instrument import autobahn
from wsbench.instrument.cpus import available_cpus

CASES = ["1.1.*", "6.3.*", "6.4.1", "7.1.*"]
"""Text messages of 0 B to 64 KiB; invalid UTF-8 in one frame; invalid UTF-8 in the second of
three fragments, sent a second apart (the client must fail at that fragment: NON-STRICT when
it waits for the message's end); close frames, and frames after them."""


@pytest.fixture(scope="module")
def suite() -> autobahn.Suite:
    """The suite, by the first route that works (none: the test fails with the reason)."""
    return autobahn.find_suite()


def test_the_load_generators_client_fails_no_case(
    suite: autobahn.Suite, loadgen_binary: Path, tmp_path: Path
) -> None:
    cases = autobahn.run_fuzzing_server(
        suite, loadgen_binary, CASES, tmp_path, timeout_s=60, cpus=available_cpus()[:1]
    )

    assert [c.id for c in cases] == [
        *(f"1.1.{n}" for n in range(1, 9)),
        "6.3.1", "6.3.2", "6.4.1",
        *(f"7.1.{n}" for n in range(1, 7)),
    ]  # fmt: skip
    graded = {c.id: (c.behavior, c.behavior_close) for c in cases}
    # 7.1.6 (a close frame behind a 256 KiB message, then a ping) is graded INFORMATIONAL.
    informational = {"7.1.6": ("INFORMATIONAL", "INFORMATIONAL")}
    assert graded == {c.id: informational.get(c.id, ("OK", "OK")) for c in cases}
    # The client failed the invalid UTF-8 with 1007 and answered the clean closes with 1000.
    codes = {c.id: c.remote_close_code for c in cases}
    assert codes["6.3.1"] == codes["6.4.1"] == 1007
    assert codes["1.1.1"] == codes["7.1.1"] == 1000
