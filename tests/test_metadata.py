"""The implementations' metadata and the asv configuration derived from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wsbench.asv import conf as asvconf
from wsbench.impls import Impl, ImplError, all_impls, get_impl, load_impl
from wsbench.paths import REPO_ROOT

FAIRNESS = ("compression", "keepalive_pings", "max_message_size")
PYTHON_IMPLS = [impl for impl in all_impls() if not impl.reference]


def test_asv_conf_is_generated_from_the_metadata() -> None:
    assert asvconf.is_in_sync(), "asv.conf.json is stale: run ./bench asv-conf"


def test_one_environment_per_configuration_and_version() -> None:
    conf = json.loads((REPO_ROOT / "asv.conf.json").read_text())
    expected = sum(
        sum(1 for v in i.versions if c.supports(v.version)) if i.package else 1
        for i in all_impls()
        for c in i.configs
    )
    assert len(conf["include"]) == expected
    assert conf["matrix"] == {}
    names = [env.name for env in asvconf.bench_envs()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("impl", PYTHON_IMPLS, ids=lambda i: i.name)
def test_every_framework_states_the_fairness_settings(impl: Impl) -> None:
    """Each configuration: in the implementation's own [deviations], or in its server's
    (keys ``<server>_<setting>``, from impls/asgi_serve.toml for an ``asgi_app``)."""
    for config in impl.configs:
        for setting in FAIRNESS:
            stated = impl.deviations.get(setting) or impl.deviations.get(
                f"{config.server}_{setting}"
            )
            assert stated, f"{impl.name}:{config.id}: no '{setting}' in [deviations]"


def _asgi_impl(root: Path, meta: str) -> Path:
    """``root/app`` with ``meta`` as its meta.toml, beside a settings file of two servers."""
    (root / "asgi_serve.toml").write_text(
        '[uvicorn]\nuvicorn_compression = "off: u"\n[hypercorn]\nhypercorn_compression = "off: h"\n'
    )
    (root / "app").mkdir()
    (root / "app" / "meta.toml").write_text(meta)
    return root / "app"


ASGI_META = """package = "app"
server = "uvicorn"
asgi_app = "server:app"
versions = [{ version = "1.0" }]
[[configurations]]
id = "uvicorn-uvloop"
args = ["--loop", "uvloop"]
[[configurations]]
id = "hypercorn"
server = "hypercorn"
[deviations]
broadcast = "a set"
"""


def test_an_asgi_app_is_served_by_the_launcher_with_each_servers_settings(tmp_path: Path) -> None:
    impl = load_impl(_asgi_impl(tmp_path, ASGI_META))
    assert impl.deviations == {
        "broadcast": "a set", "uvicorn_compression": "off: u", "hypercorn_compression": "off: h"
    }  # fmt: skip
    argv = impl.argv(python="py", loadgen=Path("x"), host="h", port=1, config=impl.configs[0])
    folder = str(tmp_path / "app")
    assert argv == [
        "py", f"{folder}/../asgi_serve.py", "--app-dir", folder, "--app", "server:app",
        "--server", "uvicorn", "--host", "h", "--port", "1", "--loop", "uvloop",
    ]  # fmt: skip
    argv = impl.argv(python="py", loadgen=Path("x"), host="h", port=1, config=impl.configs[1])
    assert argv[argv.index("--server") + 1] == "hypercorn"


def test_an_asgi_app_on_a_server_without_settings_or_with_a_command_is_refused(
    tmp_path: Path,
) -> None:
    folder = _asgi_impl(tmp_path, ASGI_META.replace('server = "hypercorn"', 'server = "daphne"'))
    with pytest.raises(
        ImplError, match=r"asgi_serve.toml: no table of settings for the server 'daphne' of app"
    ):
        load_impl(folder)
    (folder / "meta.toml").write_text('command = ["{python}", "x.py"]\n' + ASGI_META)
    with pytest.raises(ImplError, match="'asgi_app' sets the command"):
        load_impl(folder)


@pytest.mark.parametrize("impl", PYTHON_IMPLS, ids=lambda i: i.name)
def test_every_framework_has_a_version_matrix(impl: Impl) -> None:
    assert impl.package
    assert len(impl.versions) >= 4, "at least 3 versions plus the latest"
    for config in impl.configs:
        argv = impl.argv(python="python", loadgen=Path("x"), host="h", port=1, config=config)
        scripts = [Path(a) for a in argv if a.endswith(".py")]
        assert scripts, f"{impl.name}:{config.id} runs no server script"
        assert all(s.is_file() for s in scripts), f"{impl.name}:{config.id}: {scripts}"


def test_row_names_say_framework_server_backend_and_loop() -> None:
    impl = get_impl("starlette")
    names = {impl.row_name(c, impl.latest) for c in impl.configs}
    assert "Starlette · uvicorn 0.54 · websockets-sansio · uvloop" in names
    assert len(names) == len(impl.configs), "two configurations share a row name"


def test_unknown_configuration_is_named() -> None:
    with pytest.raises(ImplError, match="no configuration 'nope'"):
        get_impl("starlette").config("nope")


def test_configuration_of_an_unlisted_version_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "meta.toml").write_text(
        'package = "x"\n[[versions]]\nversion = "1.0"\n'
        '[[configurations]]\nid = "a"\nversions = ["2.0"]\n'
    )
    with pytest.raises(ImplError, match="unlisted versions"):
        load_impl(folder)


def test_unknown_implementation_and_version_are_named() -> None:
    with pytest.raises(ImplError, match="unknown implementation 'nope'"):
        get_impl("nope")
    impl = PYTHON_IMPLS[0]
    with pytest.raises(ImplError, match=r"has no version .0\.0\.0."):
        impl.version("0.0.0")
