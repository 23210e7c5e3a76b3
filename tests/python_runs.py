"""Run documents of configurations measured on several Pythons, for the site's tests of
the Python axis (:mod:`wsbench.site.python_costs`)."""

from __future__ import annotations

import msgspec

from tests.runs import ECHO_16_64, benchmark, counted_set, impl, run
from wsbench.results.runformat import Benchmark, Interpreter, Run
from wsbench.results.store import Store
from wsbench.site.results import Results, results_of

MEMORY = {"connections": 1000}
NOT_SUPPORTED = "not supported on Python 3.13: does not install: no wheel for cp313"
"""What a configuration that does not install on Python 3.13 records for its sets."""


def on(python: str, rates: list[float], *, name: str = "websockets", version: str = "17.4",
       count: int | None = None, benchmarks: list[Benchmark] | None = None,
       optimizations: tuple[str, ...] | None = None) -> Run:  # fmt: skip
    """``name``'s asyncio configuration measured on ``python`` at echo 16 B x64 (``rates``,
    two windows a process) and memory, counted at ``count`` instructions per message, on an
    interpreter built with ``optimizations`` (None: not recorded)."""
    info = impl(name, version, "asyncio")
    if python != "3.11":
        info = msgspec.structs.replace(info, row_name=f"{info.row_name} · Python {python}")
    found = benchmarks or [benchmark("echo", ECHO_16_64, rates),
                           benchmark("memory", MEMORY, [1.0] * 6)]  # fmt: skip
    doc = run([], impl_info=info, benchmarks=found,
              env_name=f"uvpip-py{python}-{name}{version}-asyncio")  # fmt: skip
    free = python.endswith("t")
    interpreter = Interpreter(f"{python.rstrip('t')}.0", "CPython", free, not free, "none", "GCC",
                              optimizations)  # fmt: skip
    doc = msgspec.structs.replace(
        doc, environment=msgspec.structs.replace(doc.environment, interpreter=interpreter)
    )
    if count is not None:
        doc = msgspec.structs.replace(doc, instructions=[counted_set(count)])
    return doc


BASE = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0]
FASTER = [r * 1.3 for r in BASE]


def python_results(*docs: Run) -> Results:
    """What the site shows of ``docs``."""
    return results_of(Store(runs=list(docs)))
