"""The client libraries' job (wsbench.jobs.clients): which environments, what they install, and
the documents it writes: measured ones (the client in the project's environment against the
native reference) and a version that does not install."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wsbench.asv import venvs
from wsbench.asv.conf import BenchEnv
from wsbench.impls import ImplError
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.sampling import SamplingPlan
from wsbench.jobs import clients as clientjob
from wsbench.results import store
from wsbench.results.runformat import load
from wsbench.scenarios import CLIENT_GRID

PLAN = SamplingPlan(
    processes=1, windows_per_process=1, warmup_s=0.05, window_s=0.2, retries=0, waited_retries=0
)


def test_latest_environments_carry_the_kit_and_a_client_variable() -> None:
    envs = clientjob.client_envs(["websockets"])
    assert {e.config.id for e in envs} == {"asyncio", "uvloop", "sync"}
    for env in envs:
        assert env.is_default
        assert env.requirements["hdrhistogram"] == clientjob.KIT_REQUIRES["hdrhistogram"]
        assert env.env_vars["WSBENCH_CLIENT"] == "websockets"
        assert "WSBENCH_IMPL" not in env.env_vars
    every = clientjob.client_envs(["websockets"], ["sync"], versions="all")
    assert [e.version.version for e in every if e.version] == ["11.0.3", "13.1", "15.0.1", "17.4"]


def test_unknown_client_or_configuration() -> None:
    with pytest.raises(ImplError, match="unknown client 'nope'"):
        clientjob.client_envs(["nope"])
    with pytest.raises(ImplError, match="no client configuration 'twisty'"):
        clientjob.client_envs(["websockets"], ["twisty"])


def _env(config: str = "asyncio") -> BenchEnv:
    return next(e for e in clientjob.client_envs(["websockets"], [config]))


def test_a_version_that_does_not_install_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(env: BenchEnv) -> Path:
        raise venvs.VenvError("no matching distribution for websockets==17.4\nuv output")

    monkeypatch.setattr(venvs, "ensure", refuse)
    outcome = clientjob.measure_env(
        _env(), plan=PLAN, scenarios=["echo"], placement=placement_from(None, None),
        root=tmp_path, machine="m", run_id=store.new_run_id(),
    )  # fmt: skip
    assert not outcome.passed
    doc = load(outcome.path)
    assert doc.environment.install_error == "no matching distribution for websockets==17.4"
    assert len(doc.benchmarks) == len(CLIENT_GRID["echo"])
    assert all(b.status == "failed" for b in doc.benchmarks)
    assert doc.benchmarks[0].error == (
        "does not install: no matching distribution for websockets==17.4"
    )


def test_measured_documents_are_client_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client runs in this interpreter (websockets is installed here); every push
    window passes the load generator's checks and records the client's and the server's
    CPU."""
    monkeypatch.setattr(venvs, "ensure", lambda env: Path(sys.executable))
    outcome = clientjob.measure_env(
        _env("sync"), plan=PLAN, scenarios=["stream"], placement=placement_from(None, None),
        root=tmp_path, machine="m", run_id=store.new_run_id(),
    )  # fmt: skip
    assert outcome.passed, outcome.failures
    doc = load(outcome.path)
    assert (doc.impl.role, doc.impl.api, doc.impl.name) == ("client", "sync client", "websockets")
    assert [b.params for b in doc.benchmarks] == [dict(p) for p in CLIENT_GRID["stream"]]
    for b in doc.benchmarks:
        (window,) = b.usable() or b.samples[-1:]
        assert window.messages_received and window.messages_received > 0
        assert window.loadgen_cpu_percent is not None
        assert window.server_cpu_percent is not None
