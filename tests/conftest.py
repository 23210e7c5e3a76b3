"""Shared fixtures: the load generator is built once per session; a package index served
locally (``WSBENCH_PYPI_URL``)."""

from __future__ import annotations

import fcntl
import http.server
import json
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.site_runs import IMPLS, build, write_store
from wsbench import paths
from wsbench.ci import devtest
from wsbench.impls import Impl
from wsbench.instrument import loadgen
from wsbench.instrument.cpus import available_cpus
from wsbench.jobs.releases import INDEX_ENV

SERVERS = Path(__file__).parent / "fixtures" / "servers"

NEVER_DISTURBED = 1000.0
"""A threshold (percent) no window reaches, for ``SamplingPlan``'s ``max_other_cpu_percent`` or
``max_steal_percent``: a test that counts windows, or checks the verdict of an interleaved
comparison, must not lose its windows to the hypervisor. On this kind of virtual machine the
steal time on the measured CPUs varies from minute to minute with the host's load, from
under 1 % to 65 % of a window (2026-11-26; CI then lost every window of the comparison
tests to the 5 % rule). Both sides of an interleaved comparison take the steal alike; the
rule itself is tested in tests/instrument/test_sampling.py."""

VERDICT_RETRY = pytest.mark.flaky(reruns=1)
"""For a test that asserts the verdicts of a wall-clock comparison (pytest-rerunfailures):
when it fails, it is measured once more, from new server processes, and fails only if that
fails too. Each figure a control or an A/A comparison reads is, by design, a false verdict
with probability about the test's level (p < 0.01; 0.95 % over 315 A/A comparisons, the
Methodology page's calibration), and the suite asserts about 8 such figures, so about one
run in 13 would fail with nothing wrong. Measured twice, a false verdict fails about one
run in 10,000 (CI, 2026-11-28: a control read 1.195 [1.004, 1.423], p = 0.0089), while a
harness that misreports fails both times. pytest prints each rerun (``R``)."""


def pytest_configure(config: pytest.Config) -> None:
    """In a worker of the parallel step, the servers and load generators the tests start
    without an explicit placement go on this worker's CPUs
    (:func:`wsbench.ci.devtest.worker_layout`), not every worker's on CPU 0."""
    os.environ.update(devtest.worker_layout(os.environ, available_cpus()))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``-m alone`` (``./bench test``'s last step), a test file that cannot hold such a
    test is not collected (:func:`wsbench.ci.devtest.may_hold_alone_tests`)."""
    if (
        config.getoption("markexpr") == devtest.ALONE
        and collection_path.name.startswith("test_")
        and collection_path.suffix == ".py"
        and not devtest.may_hold_alone_tests(collection_path)
    ):
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Fail the collection when a test is marked ``alone`` in a file that does not say
    ``mark.alone`` (a marker applied by a hook, say): the last step of ``./bench test``
    would never run it.

    Raises:
        pytest.UsageError: naming the test.
    """
    for item in items:
        if item.get_closest_marker(devtest.ALONE) and not devtest.may_hold_alone_tests(item.path):
            raise pytest.UsageError(
                f"{item.nodeid} is marked {devtest.ALONE!r} but its file never says "
                f"'mark.{devtest.ALONE}': ./bench test's last step would not collect it"
            )


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--server-python PATH``: the interpreter that runs the servers of
    tests/impls/test_servers.py (default: this one, with the latest release of every
    framework), e.g. an environment holding a framework's oldest listed version with its
    pins (narrow the run to that framework with ``-k``)."""
    parser.addoption(
        "--server-python",
        default=sys.executable,
        help="interpreter that runs the implementations' servers in tests/impls/test_servers.py",
    )


@pytest.fixture(scope="session", autouse=True)
def loadgen_binary() -> Path:
    """The release build of the load generator (built if missing or stale)."""
    return loadgen.ensure_built()


def fixture_impl(script: str, *args: str, name: str | None = None) -> Impl:
    """An implementation running ``tests/fixtures/servers/<script>.py ARGS`` (a test server)."""
    return Impl(
        name=name or script,
        display_name=script,
        directory=SERVERS,
        package=None,
        server="test fixture",
        event_loop="asyncio",
        protocol="websocket",
        homepage="",
        command=("{python}", f"{{dir}}/{script}.py", "--host", "{host}", "--port", "{port}", *args),
        versions=(),
        deviations={},
        reference=False,
    )


def clean_clone_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a ``./bench`` command run in a clean clone by a test: a temporary
    HOME (so that asv leaves ``~/.asv-machine.json`` alone), the user's uv cache and build
    cache (``WSBENCH_CACHE``: the site's bundled libraries, which a temporary HOME would
    install again with ``npm ci``, 7 s a site build, as a new machine does once), the load
    generator built for the test session, this interpreter's folder first on PATH, and
    every window kept (:func:`keep_every_window`)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv")),
        paths.CACHE_ENV: str(paths.cache_dir()),
        loadgen.BINARY_ENV: str(loadgen.ensure_built()),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "NO_MKDOCS_2_WARNING": "1",
        **keep_every_window(),
    }


def keep_every_window() -> dict[str, str]:
    """The environment that sets both disturbed-window thresholds of a run's sampling plan
    to :data:`NEVER_DISTURBED`. A test of what a run writes keeps every window: beside the
    parallel suite the other worker's load disturbs most windows, and measuring them again
    (after waits when a set has none usable) only lengthens the test; the rule itself is
    tested in tests/instrument/test_sampling.py."""
    return {
        "WSBENCH_MAX_STEAL_PERCENT": str(NEVER_DISTURBED),
        "WSBENCH_MAX_OTHER_CPU_PERCENT": str(NEVER_DISTURBED),
    }


@pytest.fixture
def index_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, object]]:
    """A package index's JSON API on a free local port, named by ``WSBENCH_PYPI_URL``:
    ``pages["/pypi/<project>/json"] = {...}`` serves a project; anything else is a 404."""
    pages: dict[str, object] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            if body is None:
                self.send_error(404)
                return
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv(INDEX_ENV, f"http://127.0.0.1:{server.server_address[1]}/pypi/")
    try:
        yield pages
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from :func:`tests.site_runs.write_store` (``./bench site``'s build),
    once per test run: the page tests read its HTML, the browser tests load it. Not written
    to. The parallel step's workers share one build in the run's temporary folder, made by
    the first that asks, under a lock (each worker built its own: 5-7 s of CPU each)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get(devtest.XDIST_WORKER_ENV) else base
    root = shared / "built-site"
    with (shared / "built-site.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not (root / BUILT).is_file():  # none yet, or a build that failed part-way
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            build(root / "public", write_store(root / "results"), IMPLS)
            (root / BUILT).touch()
    return root / "public"


BUILT = ".built"
"""Written beside the shared site once its build is complete."""
