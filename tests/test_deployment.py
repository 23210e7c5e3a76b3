"""Deployment profiles: their names and the flags each gives a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from wsbench.cpulist import CpuSetError
from wsbench.deployment import (
    AS_SHIPPED,
    BROWSER,
    MULTI_SERVER_CPUS_ENV,
    PROFILES,
    TLS,
    TUNED,
    TWO_CPUS,
    WORKERS,
    TlsFiles,
    get_profile,
    measured_profiles,
    multi_server_cpus,
    profile_of,
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
        match=r"unknown deployment profile 'fast' \(known: tuned, as-shipped, tls, browser, "
        r"two-cpus, workers\)",
    ):
        get_profile("fast")


def test_the_multi_cpu_profiles_place_the_server_on_the_runners_set() -> None:
    assert (TWO_CPUS.params, WORKERS.params) == ({"two_cpus": 1}, {"cpu_workers": 1})
    assert profile_of({"size_bytes": 1024, "two_cpus": 1}) is TWO_CPUS
    assert profile_of({"cpu_workers": 1}) is WORKERS
    assert TWO_CPUS.cpus_of((2, 3, 4)) == (2, 3)
    assert WORKERS.cpus_of((2, 3, 4)) == (2, 3, 4)
    assert server_args(WORKERS, server_cpus=3) == ["--worker-processes", "3"]
    assert server_args(TWO_CPUS, server_cpus=2) == []  # one process, only its CPUs change
    with pytest.raises(
        ValueError, match=r"'workers' needs a multi-CPU server set of at least 2 CPUs, not \[5\]"
    ):
        WORKERS.cpus_of((5,))
    with pytest.raises(ValueError, match="'tuned' runs the server on one CPU"):
        TUNED.cpus_of((2, 3))
    with pytest.raises(ValueError, match="'workers' needs 2 server CPUs or more"):
        server_args(WORKERS, server_cpus=1)
    with pytest.raises(ValueError, match=r"no deployment profile sets \{'tls': 1, 'two_cpus': 1\}"):
        profile_of({"tls": 1, "two_cpus": 1})


def test_the_full_grid_measures_the_multi_cpu_profiles_where_the_runner_has_the_cpus() -> None:
    single = (TUNED, AS_SHIPPED, TLS, BROWSER)
    assert measured_profiles(()) == single == measured_profiles((2,))
    assert measured_profiles((2, 3)) == PROFILES
    assert multi_server_cpus({}) == () == multi_server_cpus({MULTI_SERVER_CPUS_ENV: " "})
    assert multi_server_cpus({MULTI_SERVER_CPUS_ENV: "4,2-3"}) == (2, 3, 4)
    with pytest.raises(CpuSetError, match="WSBENCH_MULTI_SERVER_CPUS: bad CPU list '3-1'"):
        multi_server_cpus({MULTI_SERVER_CPUS_ENV: "3-1"})


def test_a_profiles_title_inside_a_sentence() -> None:
    assert [p.in_text for p in PROFILES] == [
        "tuned", "as shipped", "TLS", "browser", "2 CPUs", "workers, one per CPU",
    ]  # fmt: skip
