"""A real main job's results store, for the site's tests of what a reader sees of one: the
documents ``./bench run`` wrote on the project's 2-CPU development machine (machine
``wsbench-local``, run :data:`MAIN_RUN`: the latest release of each of the 42
configurations in the default grid, 7 sets each) as the job wrote them, in
:data:`FIXTURE` (an xz-compressed tar of the store's machine folder, ``<machine>/<run
id>/<environment>.json``).

That run measured the tuned profile on the default Python only. The pages the job's other
steps fill (conformance grades, CPU profiles, deployment profiles, a second Python) are
filled by documents derived from its own with the test helpers (:mod:`tests.runs`,
:mod:`tests.site_runs`, :mod:`tests.deployment_runs`); their figures are the real ones
scaled, their verdicts and stacks the helpers' (made up, not measured):

- :func:`conformance_runs` (run :data:`CONFORMANCE_RUN`): every WebSocket configuration
  graded on every case of :func:`tests.runs.conformance`, 7.1.6 INFORMATIONAL; socketify
  fails 5.2.3 and Starlette on granian fails 6.4.1 and 7.3.1 (6.4.3 NON-STRICT), so that
  the case reports have wire logs; every Socket.IO configuration not applicable.
- :func:`profile_runs` (run :data:`PROFILE_RUN`): echo 16 B x 64 of aiohttp (both event
  loops, :data:`tests.site_runs.AIOHTTP_STACKS`), Starlette on uvicorn, websockets and
  uvloop (native frames, :data:`tests.site_runs.STARLETTE_STACKS`) and python-socketio on
  asyncio (:data:`tests.site_runs.SOCKETIO_STACKS`).
- :func:`deployment_runs` (run :data:`DEPLOYMENT_RUN`): :data:`SEED`'s configurations at
  echo 1 KiB of the JSON corpus x 64, tuned at :data:`JSON_SHARE` of their echo 16 B x 64
  windows, as shipped (a server whose ``meta.toml`` says it accepts compression at
  :data:`DEFLATED_SHARE` of tuned, compression 3.0; one that declines at tuned) and TLS
  (at :data:`TLS_SHARE` of tuned).
- :func:`python_runs` (run :data:`PYTHON_RUN`): :data:`SEED`'s configurations on Python
  :data:`OTHER_PYTHON`, every window of the main run at :data:`PYTHON_SHARE` of its rate.
"""

from __future__ import annotations

import re
import tarfile
from collections.abc import Callable
from pathlib import Path

import msgspec

from tests.deployment_runs import DEFLATE, ECHO_X64, deflated, shipped
from tests.runs import (
    ECHO_16_64,
    conformance,
    conformance_run,
    not_graded,
    profile_run,
    profile_set,
    times,
    window,
)
from tests.site_runs import (
    AIOHTTP_STACKS,
    CLOSE_FAILED,
    CONTINUATION_FAILED,
    INFORMATIONAL,
    LATE_UTF8,
    SOCKETIO_NOT_APPLICABLE,
    SOCKETIO_STACKS,
    STARLETTE_STACKS,
    UTF8_FAILED,
)
from wsbench.deployment import TLS, in_profile
from wsbench.results import store
from wsbench.results.runformat import Benchmark, Run, Sample, decode
from wsbench.results.stats import median

FIXTURE = Path(__file__).parent / "fixtures" / "main_job_results.tar.xz"
MAIN_RUN = "20261207T215136Z-cebfc3"
"""The main job's run."""
CONFORMANCE_RUN = "20261207T221800Z-c0f0a1"
PROFILE_RUN = "20261207T222000Z-9f0a11"
DEPLOYMENT_RUN = "20261207T222200Z-de9107"
PYTHON_RUN = "20261207T222400Z-3d1300"
SEED: tuple[tuple[str, str], ...] = (
    ("websockets", "asyncio"),
    ("tornado", "asyncio"),
    ("aiohttp", "asyncio"),
    ("autobahn", "asyncio"),
    ("socketify", "default"),
    ("flask-socketio", "eventlet"),
    ("python-socketio", "asyncio"),
    ("starlette", "websockets-asyncio"),
)
"""(implementation, configuration) of the seed servers, one configuration each."""
JSON_SHARE = 0.8
DEFLATED_SHARE = 0.6
TLS_SHARE = 0.85
OTHER_PYTHON = "3.13"
PYTHON_SHARE = 1.1


def main_job_documents() -> dict[str, bytes]:
    """The fixture's documents as the job wrote them: ``{path in the store: bytes}``."""
    with tarfile.open(FIXTURE, "r:xz") as tar:
        return {
            m.name: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }


def main_job_runs() -> list[Run]:
    """The fixture's documents, decoded, in path order."""
    found = main_job_documents()
    return [decode(found[path], source=path) for path in sorted(found)]


def _key(doc: Run) -> tuple[str, str]:
    return doc.impl.name, doc.impl.config


def conformance_runs(docs: list[Run]) -> list[Run]:
    """The conformance store's documents (see the module's docstring)."""
    special = {
        ("socketify", "default"): (CONTINUATION_FAILED,),
        ("starlette", "granian-asyncio"): (UTF8_FAILED, LATE_UTF8, CLOSE_FAILED),
    }
    return [
        conformance_run(
            doc,
            not_graded("not applicable", SOCKETIO_NOT_APPLICABLE)
            if doc.impl.protocol == "socketio"
            else conformance(INFORMATIONAL, *special.get(_key(doc), ())),
            CONFORMANCE_RUN,
        )
        for doc in docs
    ]


def _echo(doc: Run) -> Benchmark:
    """``doc``'s echo 16 B x 64 benchmark."""
    return next(b for b in doc.benchmarks if b.scenario == "echo" and b.params == ECHO_16_64)


def _echo_rate(doc: Run) -> float:
    """``doc``'s echo 16 B x 64 messages/s: the median of its windows."""
    return median([s.messages_per_s for s in _echo(doc).samples if s.messages_per_s])


def profile_runs(docs: list[Run]) -> list[Run]:
    """The profile store's documents (see the module's docstring)."""
    stacks = {
        ("aiohttp", "asyncio"): (AIOHTTP_STACKS, False),
        ("aiohttp", "uvloop"): (AIOHTTP_STACKS, False),
        ("starlette", "websockets-uvloop"): (STARLETTE_STACKS, True),
        ("python-socketio", "asyncio"): (SOCKETIO_STACKS, False),
    }
    out = []
    for doc in docs:
        if _key(doc) not in stacks:
            continue
        found, native = stacks[_key(doc)]
        rate = _echo_rate(doc)
        sets = [
            profile_set(
                found,
                profiled=window(rate * 0.98, 100.0, 30.0),
                unprofiled=[window(rate, 100.0, 30.0), window(rate, 100.0, 30.0)],
                rate_hz=100 if native else 250,
            )
        ]
        out.append(profile_run(doc, sets, PROFILE_RUN, native=native))
    return out


def _scaled(bench: Benchmark, params: dict[str, int], share: float) -> Benchmark:
    """``bench``'s windows as a benchmark of ``params``, every rate (messages/s and bytes/s)
    times ``share`` and the bytes/s those of ``params``' message size."""
    size = params.get("size_bytes")

    def each(s: Sample) -> Sample:
        rate = s.messages_per_s and s.messages_per_s * share
        per_s = rate * size if rate and size else s.bytes_per_s
        return msgspec.structs.replace(s, messages_per_s=rate, bytes_per_s=per_s)

    return msgspec.structs.replace(
        bench, params=dict(params), samples=[each(s) for s in bench.samples]
    )


def _derived(doc: Run, run_id: str, benchmarks: list[Benchmark]) -> Run:
    started, finished = times(run_id)
    return msgspec.structs.replace(
        doc, run_id=run_id, started_at=started, finished_at=finished, benchmarks=benchmarks,
        instructions=[], profiles=[],
    )  # fmt: skip


def _seed(docs: list[Run]) -> list[Run]:
    return [doc for doc in docs if _key(doc) in SEED]


def deployment_runs(docs: list[Run]) -> list[Run]:
    """The deployment profiles' documents (see the module's docstring)."""
    out = []
    for doc in _seed(docs):
        echo = _echo(doc)
        accepts = doc.impl.shipped_compression.startswith("accepts")
        as_shipped = _scaled(
            echo, shipped(ECHO_X64), JSON_SHARE * (DEFLATED_SHARE if accepts else 1)
        )
        benchmarks = [
            _scaled(echo, ECHO_X64, JSON_SHARE),
            deflated(as_shipped, DEFLATE if accepts else None, 3.0 if accepts else None),
            _scaled(echo, in_profile(ECHO_X64, TLS), JSON_SHARE * TLS_SHARE),
        ]
        out.append(_derived(doc, DEPLOYMENT_RUN, benchmarks))
    return out


def on_python(doc: Run, python: str, run_id: str) -> Run:
    """``doc``'s environment on ``python`` (``"3.13"``) in run ``run_id``: its name, row name
    and interpreter say so, every rate of a set of messages times :data:`PYTHON_SHARE`."""
    env = doc.environment
    version = f"{python}.5"
    interpreter = env.interpreter and msgspec.structs.replace(env.interpreter, version=version)
    moved = msgspec.structs.replace(
        doc,
        environment=msgspec.structs.replace(
            env,
            env_name=re.sub(r"-py3\.\d+t?-", f"-py{python}-", env.env_name),
            python=version,
            interpreter=interpreter,
        ),
        impl=msgspec.structs.replace(doc.impl, row_name=f"{doc.impl.row_name} · Python {python}"),
    )
    faster = [
        _scaled(b, b.params, PYTHON_SHARE) if "size_bytes" in b.params else b
        for b in doc.benchmarks
    ]
    return _derived(moved, run_id, faster)


def python_runs(docs: list[Run]) -> list[Run]:
    """The documents of the second Python (see the module's docstring)."""
    return [on_python(doc, OTHER_PYTHON, PYTHON_RUN) for doc in _seed(docs)]


def write_store(root: Path) -> Path:
    """The fixture's documents (their bytes) and :func:`python_runs` and
    :func:`deployment_runs` of them in the results store ``root``, :func:`conformance_runs`
    in its conformance store and :func:`profile_runs` in its profile store; returns
    ``root``."""
    for path, data in main_job_documents().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    docs = main_job_runs()
    derived: list[tuple[Callable[[list[Run]], list[Run]], Path]] = [
        (deployment_runs, root),
        (python_runs, root),
        (conformance_runs, store.conformance_store(root)),
        (profile_runs, store.profile_store(root)),
    ]
    for make, where in derived:
        for doc in make(docs):
            store.save(doc, where)
    return root
