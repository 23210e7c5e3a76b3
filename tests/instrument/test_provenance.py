"""wsbench.instrument.provenance: what a document records about the server it measured."""

from __future__ import annotations

import platform
import sys

import msgspec
import pytest

from wsbench.impls import get_impl
from wsbench.instrument import provenance
from wsbench.instrument.cpus import default_placement
from wsbench.instrument.interpreters import this_interpreter
from wsbench.instrument.provenance import impl_info, new_run
from wsbench.instrument.sampling import SamplingPlan
from wsbench.results.runformat import Run


def test_a_document_names_the_websocket_backend_its_version_runs() -> None:
    # python-socketio names no backend per configuration: uvicorn's default, which each
    # version of its metadata names (websockets' legacy API up to uvicorn 0.49).
    impl = get_impl("python-socketio")
    config = impl.config("asyncio")
    assert config.ws_backend == ""
    assert impl_info(impl, config, "5.7.2").ws_backend == "websockets"
    assert impl_info(impl, config, "5.18.1").ws_backend == "websockets-sansio"


def test_a_configurations_own_backend_wins() -> None:
    impl = get_impl("starlette")
    config = impl.config("wsproto-asyncio")
    latest = impl.versions[-1].version
    info = impl_info(impl, config, latest)
    assert (info.ws_backend, info.server, info.event_loop) == ("wsproto", "uvicorn", "asyncio")


def test_a_document_records_its_interpreters_build() -> None:
    impl = get_impl("native")
    settings = SamplingPlan().settings(default_placement(), 1)
    doc = new_run(run_id="r", machine_name="m", settings=settings, impl=impl,
                  config=impl.config(None), env_name="env")  # fmt: skip
    assert doc.environment.python == platform.python_version()
    assert doc.environment.interpreter == this_interpreter()
    assert doc.environment.interpreter is not None
    assert doc.environment.interpreter.python == f"{sys.version_info[0]}.{sys.version_info[1]}"
    # older documents, without it, still read
    raw = msgspec.json.decode(msgspec.json.encode(doc))
    del raw["environment"]["interpreter"]
    assert msgspec.convert(raw, Run).environment.interpreter is None


def test_a_document_of_another_python_is_another_row_named_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    impl = get_impl("websockets")
    config = impl.config("asyncio")
    settings = SamplingPlan().settings(default_placement(), 1)
    other = msgspec.structs.replace(this_interpreter(), version="3.13.0", free_threaded=False)
    monkeypatch.setattr(provenance, "this_interpreter", lambda: other)
    doc = new_run(run_id="r", machine_name="m", settings=settings, impl=impl, config=config,
                  env_name="env", version="17.4")  # fmt: skip
    assert doc.impl.row_name == f"{impl_info(impl, config, '17.4').row_name} · Python 3.13"
    assert doc.python == "3.13" and doc.environment.interpreter == other


def test_a_comparisons_document_records_its_arms_interpreter_not_the_harness() -> None:
    """An interleaved comparison runs in the harness's Python; its arm's server may not."""
    impl = get_impl("websockets")
    config = impl.config("asyncio")
    settings = SamplingPlan().settings(default_placement(), 1)
    arm = msgspec.structs.replace(this_interpreter(), version="3.14.0", free_threaded=True,
                                  gil_enabled=False)  # fmt: skip
    doc = new_run(run_id="r", machine_name="m", settings=settings, impl=impl, config=config,
                  env_name="env", version="17.4", interpreter=arm)  # fmt: skip
    assert doc.environment.interpreter == arm and doc.environment.python == "3.14.0"
    assert doc.python == "3.14t" and doc.impl.row_name.endswith(" · Python 3.14t")
