"""wsbench.instrument.provenance: what a document records about the server it measured."""

from __future__ import annotations

from wsbench.impls import get_impl
from wsbench.instrument.provenance import impl_info


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
