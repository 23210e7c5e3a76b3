"""The implementations' metadata and the asv configuration derived from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wsbench.asv import conf as asvconf
from wsbench.impls import (
    DEFAULT_CLIENT_COMMAND,
    DEFAULT_COMMAND,
    Impl,
    ImplConfig,
    ImplError,
    ImplVersion,
    all_impls,
    get_impl,
    load_impl,
)
from wsbench.paths import REPO_ROOT
from wsbench.pythons import DEFAULT_PYTHON

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
            stated = impl.deviation(config, setting)
            assert stated, f"{impl.name}:{config.id}: no '{setting}' in [deviations]"


STATED = (
    'shipped_compression = "declines: {0}"\ntls = "not supported: {0}"\n'
    'workers = "not supported: {0}"\n'
)
"""The deployment profiles' statements (top level, a configuration or a server's table),
``{0}`` the owner's name."""


def _asgi_impl(root: Path, meta: str) -> Path:
    """``root/app`` with ``meta`` as its meta.toml, beside a settings file of two servers,
    each stating the profiles' statements."""
    (root / "asgi_serve.toml").write_text(
        '[uvicorn]\nuvicorn_compression = "off: u"\n' + STATED.format("u")
        + '[hypercorn]\nhypercorn_compression = "off: h"\n' + STATED.format("h")
    )  # fmt: skip
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
    (folder / "meta.toml").write_text(ASGI_META)
    (tmp_path / "asgi_serve.toml").write_text("[uvicorn]\nuvicorn_compression = false\n")
    with pytest.raises(
        ImplError, match=r"asgi_serve.toml: the settings of the server 'uvicorn': Expected `str`"
    ):
        load_impl(folder)


def test_busy_threads_come_from_the_configuration_the_top_level_or_the_asgi_server(
    tmp_path: Path,
) -> None:
    folder = _asgi_impl(tmp_path, ASGI_META)
    (tmp_path / "asgi_serve.toml").write_text(
        '[uvicorn]\nuvicorn_compression = "off: u"\n' + STATED.format("u")
        + '[hypercorn]\nhypercorn_compression = "off: h"\nshared_cpu = "hypercorn threads"\n'
        + STATED.format("h")
    )  # fmt: skip
    impl = load_impl(folder)
    # The server's text reaches the configurations on it, and is not a deviation.
    assert {c.id: c.shared_cpu for c in impl.configs} == {
        "uvicorn-uvloop": "", "hypercorn": "hypercorn threads"
    }  # fmt: skip
    assert "shared_cpu" not in impl.deviations and "hypercorn_compression" in impl.deviations
    # A configuration's own text, even an empty one, wins over the server's.
    own = ASGI_META.replace('server = "hypercorn"\n', 'server = "hypercorn"\nshared_cpu = ""\n')
    (folder / "meta.toml").write_text(own)
    assert load_impl(folder).config("hypercorn").shared_cpu == ""
    # The top level's text is every configuration's that states none.
    (folder / "meta.toml").write_text('shared_cpu = "app threads"\n' + ASGI_META)
    assert {c.shared_cpu for c in load_impl(folder).configs} == {"app threads"}
    # Without [[configurations]], the implicit one takes the top level's.
    (folder / "meta.toml").write_text(
        'shared_cpu = "app threads"\n' + ASGI_META.split("[[configurations]]")[0]
    )
    assert [(c.id, c.shared_cpu) for c in load_impl(folder).configs] == [("default", "app threads")]


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
        STATED.format("x") + 'package = "x"\n[[versions]]\nversion = "1.0"\n'
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


def _written(tmp_path: Path, meta: str) -> Path:
    """The folder ``tmp_path/x`` with ``meta`` as its meta.toml."""
    folder = tmp_path / "x"
    folder.mkdir(exist_ok=True)
    (folder / "meta.toml").write_text(meta)
    return folder


VERSIONS = 'package = "x"\nversions = [{ version = "1.0" }]\n'
"""The smallest valid top of a meta.toml with a package (the bad files below add to it)."""


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        (VERSIONS + 'homepage_url = "h"\n',
         "Object contains unknown field `homepage_url` (at the top level)"),
        (VERSIONS + '[[configurations]]\nid = "a"\nslow_subscriber = "waits"\n',
         "Object contains unknown field `slow_subscriber` - at `$.configurations[0]` (a "
         "top-level key written after a [[configurations]] table belongs to it: move it "
         "above the first one)"),
        ('package = "x"\nversions = [{ version = "1.0", require = ["a==1"] }]\n',
         "Object contains unknown field `require` - at `$.versions[0]`"),
        (VERSIONS + '[[configurations]]\nid = "a"\n[configurations.unsupported]\nechoo = "no"\n',
         "Invalid enum value 'echoo' - at `key` in `$.configurations[0].unsupported` (known: "
         "echo, stream,"),
    ],
    ids=["top-level", "configuration", "version", "scenario"],
)  # fmt: skip
def test_an_unknown_key_is_refused_with_its_place(tmp_path: Path, meta: str, message: str) -> None:
    folder = _written(tmp_path, meta)
    with pytest.raises(ImplError) as raised:
        load_impl(folder)
    assert str(raised.value).startswith(f"{folder / 'meta.toml'}: {message}")


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        (VERSIONS + '[[configurations]]\nid = "a"\nargs = "--loop uvloop"\n',
         "Expected `array`, got `str` - at `$.configurations[0].args`"),
        ('package = "x"\nversions = [{ version = 1.0 }]\n',
         "Expected `str`, got `float` - at `$.versions[0].version`"),
        (VERSIONS + "reference = 1\n", "Expected `bool`, got `int` - at `$.reference`"),
        (VERSIONS + "[deviations]\ncompression = false\n",
         "Expected `str`, got `bool` - at `$.deviations[...]`"),
        (VERSIONS + 'protocol = "carrier-pigeon"\n',
         "Invalid enum value 'carrier-pigeon' - at `$.protocol` (known: websocket, socketio)"),
        (VERSIONS + '[[configurations]]\nid = "A b"\n',
         "Expected `str` matching regex '^[a-z0-9][a-z0-9-]*$' - at `$.configurations[0].id`"),
        ('name = "x"\nname = "y"\n', "not valid TOML: "),
    ],
    ids=["array", "version-number", "bool", "deviation", "protocol", "config-id", "toml"],
)  # fmt: skip
def test_a_key_of_the_wrong_type_or_value_is_refused_with_its_place(
    tmp_path: Path, meta: str, message: str
) -> None:
    folder = _written(tmp_path, meta)
    with pytest.raises(ImplError) as raised:
        load_impl(folder)
    assert str(raised.value).startswith(f"{folder / 'meta.toml'}: {message}")


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        ('["uvicorn>=0.30"]', "requirement 'uvicorn>=0.30' must be an exact pin 'name==version'"),
        ('["uvicorn==0.*"]', "requirement 'uvicorn==0.*' must be an exact pin 'name==version'"),
        ('["uvicorn[standard]==0.30.0"]',
         "requirement 'uvicorn[standard]==0.30.0' must be an exact pin 'name==version'"),
        ('["uvicorn 0.30"]', "requirement 'uvicorn 0.30' is not a requirement: Expected "),
        ('["uvicorn==0.30.0", "uvicorn==0.31.0"]',
         "requirement 'uvicorn==0.31.0' pins 'uvicorn' twice"),
    ],
    ids=["range", "wildcard", "extras", "syntax", "twice"],
)  # fmt: skip
def test_a_requirement_that_is_not_an_exact_pin_is_refused(
    tmp_path: Path, pins: str, message: str
) -> None:
    folder = _written(
        tmp_path, f'package = "x"\nversions = [{{ version = "1.0", requires = {pins} }}]\n'
    )
    with pytest.raises(ImplError) as raised:
        load_impl(folder)
    assert str(raised.value).startswith(f"{folder / 'meta.toml'}: version '1.0': {message}")
    _written(tmp_path, f'{VERSIONS}[[configurations]]\nid = "a"\nrequires = {pins}\n')
    with pytest.raises(ImplError, match=r"meta\.toml: configuration 'a': requirement "):
        load_impl(folder)


def test_a_version_that_is_not_pep_440_or_is_listed_twice_is_refused(tmp_path: Path) -> None:
    folder = _written(tmp_path, 'package = "x"\nversions = [{ version = "latest" }]\n')
    with pytest.raises(ImplError, match=r"meta\.toml: version 'latest' is not a PEP 440 version"):
        load_impl(folder)
    _written(tmp_path, 'package = "x"\nversions = [{ version = "1.0" }, { version = "1.0" }]\n')
    with pytest.raises(ImplError, match=r"meta\.toml: version '1\.0' is listed twice"):
        load_impl(folder)
    _written(tmp_path, VERSIONS + '[[configurations]]\nid = "a"\n[[configurations]]\nid = "a"\n')
    with pytest.raises(ImplError, match=r"meta\.toml: configuration 'a' is listed twice"):
        load_impl(folder)


FULL_META = """name = "x"
shipped_compression = "accepts: the default"
tls = "not supported: no ssl option"
workers = "supported: workers=N"
display_name = "X"
package = "x"
homepage = "https://x.example/"
protocol = "websocket"
server = "uvicorn"
event_loop = "asyncio"
slow_subscriber = "waits"
versions = [
  { version = "1.0", requires = ["uvicorn==0.29.0", "websockets == 12.0"], api = "legacy" },
  { version = "2.0", requires = ["uvicorn==0.54.0"], speedups = "C" },
]
[unsupported]
soak = "too slow"
[[configurations]]
id = "wsproto-uvloop"
ws_backend = "wsproto"
event_loop = "uvloop"
args = ["--ws", "wsproto"]
requires = ["wsproto==1.3.2", "uvloop==0.23.0"]
versions = ["2.0"]
[configurations.unsupported]
market = "no"
[[configurations]]
id = "sio"
protocol = "socketio"
server = "hypercorn"
command = ["{python}", "{dir}/sio.py"]
shipped_compression = "declines: hypercorn's socketio"
workers = "not supported: no workers option"
[deviations]
compression = "off"
"""


def test_a_valid_meta_toml_reads_into_the_harness_objects(tmp_path: Path) -> None:
    folder = _written(tmp_path, FULL_META)
    assert load_impl(folder) == Impl(
        name="x",
        display_name="X",
        directory=folder,
        package="x",
        server="uvicorn",
        event_loop="asyncio",
        protocol="websocket",
        homepage="https://x.example/",
        command=DEFAULT_COMMAND,
        versions=(
            ImplVersion("1.0", {"uvicorn": "0.29.0", "websockets": "12.0"}, api="legacy"),
            ImplVersion("2.0", {"uvicorn": "0.54.0"}, speedups="C"),
        ),
        deviations={"compression": "off"},
        reference=False,
        configurations=(
            ImplConfig(
                id="wsproto-uvloop", server="uvicorn", event_loop="uvloop", ws_backend="wsproto",
                args=("--ws", "wsproto"), requires={"wsproto": "1.3.2", "uvloop": "0.23.0"},
                versions=("2.0",), unsupported={"soak": "too slow", "market": "no"},
                shipped_compression="accepts: the default", tls="not supported: no ssl option",
                workers="supported: workers=N",
            ),
            ImplConfig(
                id="sio", server="hypercorn", event_loop="asyncio", protocol="socketio",
                command=("{python}", "{dir}/sio.py"), unsupported={"soak": "too slow"},
                shipped_compression="declines: hypercorn's socketio",
                tls="not supported: no ssl option", workers="not supported: no workers option",
            ),
        ),
        slow_subscriber="waits",
    )  # fmt: skip


def test_a_folder_is_loaded_once_for_the_same_bytes_and_again_when_they_change(
    tmp_path: Path,
) -> None:
    folder = _written(tmp_path, FULL_META)
    first = load_impl(folder)
    assert load_impl(folder) is first  # the same bytes: not decoded again
    meta = folder / "meta.toml"
    meta.write_text(FULL_META.replace('display_name = "X"', 'display_name = "Y"'))
    changed = load_impl(folder)
    assert changed.display_name == "Y" and first.display_name == "X"
    meta.write_text(FULL_META.replace('name = "x"', 'name = "other"', 1))
    with pytest.raises(ImplError, match="must equal the folder name"):  # never cached
        load_impl(folder)
    meta.write_text(FULL_META)
    assert load_impl(folder) is first


def test_a_version_names_the_backend_of_the_configurations_that_name_none(
    tmp_path: Path,
) -> None:
    # python-socketio's case: its server.py runs uvicorn's default backend of the pinned
    # release, which each version names; a configuration's own backend wins, and one on
    # another server than the top-level one keeps its own (none named: that server's).
    folder = _written(
        tmp_path,
        STATED.format("x")
        + """package = "x"
server = "uvicorn"
versions = [
  { version = "1.0", requires = ["uvicorn==0.30.6"], ws_backend = "websockets" },
  { version = "2.0", requires = ["uvicorn==0.54.0"], ws_backend = "websockets-sansio" },
]
[[configurations]]
id = "asyncio"
[[configurations]]
id = "wsproto"
ws_backend = "wsproto"
[[configurations]]
id = "granian"
server = "granian"
""",
    )
    impl = load_impl(folder)
    assert impl.versions[1] == ImplVersion(
        "2.0", {"uvicorn": "0.54.0"}, ws_backend="websockets-sansio"
    )
    backends = {
        (c.id, v): impl.ws_backend(c, v) for c in impl.configs for v in ("1.0", "2.0", "9.9")
    }
    assert backends == {
        ("asyncio", "1.0"): "websockets", ("asyncio", "2.0"): "websockets-sansio",
        ("asyncio", "9.9"): "",  # an unlisted version states nothing
        ("wsproto", "1.0"): "wsproto", ("wsproto", "2.0"): "wsproto", ("wsproto", "9.9"): "wsproto",
        ("granian", "1.0"): "", ("granian", "2.0"): "", ("granian", "9.9"): "",
    }  # fmt: skip
    # The row's name is the configuration's, as before (the documents keep their names).
    assert impl.row_name(impl.config("asyncio"), impl.versions[1]) == "x · uvicorn 0.54 · asyncio"


def test_left_out_keys_take_their_defaults(tmp_path: Path) -> None:
    impl = load_impl(_written(tmp_path, STATED.format("x")))
    assert (impl.name, impl.display_name, impl.server, impl.package, impl.versions) == (
        "x", "x", "x", None, ()
    )  # fmt: skip
    assert impl.command == DEFAULT_COMMAND and impl.role == "server" and not impl.reference
    assert impl.configs == (
        ImplConfig(
            id="default", server="x", event_loop="asyncio",
            shipped_compression="declines: x", tls="not supported: x",
            workers="not supported: x",
        ),
    )  # fmt: skip
    client = load_impl(_written(tmp_path, 'role = "client"\n'))
    assert client.server == "" and client.command == DEFAULT_CLIENT_COMMAND


def test_the_profile_statements_come_from_the_configuration_the_top_level_or_the_asgi_server(
    tmp_path: Path,
) -> None:
    folder = _asgi_impl(tmp_path, ASGI_META)
    impl = load_impl(folder)
    # Each server's statements reach the configurations on it, and are not deviations.
    assert [(c.shipped_compression, c.tls, c.workers) for c in impl.configs] == [
        ("declines: u", "not supported: u", "not supported: u"),
        ("declines: h", "not supported: h", "not supported: h"),
    ]  # fmt: skip
    assert not {"shipped_compression", "tls", "workers"} & set(impl.deviations)
    # A configuration's own statement wins over its server's, the top level's over both.
    own = ASGI_META.replace(
        'server = "hypercorn"\n',
        'server = "hypercorn"\ntls = "supported: certfile"\nworkers = "supported: --workers"\n',
    )
    (folder / "meta.toml").write_text('shipped_compression = "accepts: app"\n' + own)
    impl = load_impl(folder)
    assert [(c.shipped_compression, c.tls, c.workers) for c in impl.configs] == [
        ("accepts: app", "not supported: u", "not supported: u"),
        ("accepts: app", "supported: certfile", "supported: --workers"),
    ]  # fmt: skip
    assert [
        (c.accepts_shipped_deflate, c.supports_tls, c.supports_workers) for c in impl.configs
    ] == [(True, False, False), (True, True, True)]
    (folder / "meta.toml").write_text('workers = "supported: app"\n' + own)
    assert [c.workers for c in load_impl(folder).configs] == [
        "supported: app",
        "supported: --workers",
    ]


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        (VERSIONS, "configuration 'default' states no shipped_compression (at the top level, "
         "in the configuration, or in its ASGI server's table of asgi_serve.toml): 'accepts: "
         "<how>' or 'declines: <why>'"),
        (VERSIONS + STATED.format("x") + '[[configurations]]\nid = "a"\ntls = ""\n',
         "configuration 'a': tls '' must start with 'supported: ' or 'not supported: ' and go "
         "on with how or why"),
        (VERSIONS + 'shipped_compression = "yes"\ntls = "supported: ssl=ctx"\n',
         "shipped_compression 'yes' must start with 'accepts: ' or 'declines: '"),
        (VERSIONS + 'shipped_compression = "accepts:  "\ntls = "supported: ssl=ctx"\n',
         "shipped_compression 'accepts:  ' must start with"),
        (VERSIONS + 'shipped_compression = "accepts: deflate"\ntls = "maybe: ssl=ctx"\n',
         "tls 'maybe: ssl=ctx' must start with 'supported: ' or 'not supported: '"),
        (VERSIONS + 'shipped_compression = "accepts: deflate"\ntls = "supported: ssl=ctx"\n',
         "configuration 'default' states no workers (at the top level, in the configuration, "
         "or in its ASGI server's table of asgi_serve.toml): 'supported: <how>' or "
         "'not supported: <why>'"),
        (VERSIONS + STATED.format("x") + '[[configurations]]\nid = "a"\nworkers = "yes: 4"\n',
         "configuration 'a': workers 'yes: 4' must start with 'supported: ' or 'not supported: '"),
        (VERSIONS + 'shipped_compression = "accepts: deflate"\ntls = "supported: ssl=ctx"\n'
         + 'workers = "not supported:"\n',
         "workers 'not supported:' must start with 'supported: ' or 'not supported: ' and go on "
         "with how or why"),
    ],
    ids=["missing", "empty", "no-answer", "no-reason", "other-answer", "no-workers",
         "workers-other-answer", "workers-no-reason"],
)  # fmt: skip
def test_a_missing_or_malformed_profile_statement_is_refused(
    tmp_path: Path, meta: str, message: str
) -> None:
    folder = _written(tmp_path, meta)
    with pytest.raises(ImplError) as raised:
        load_impl(folder)
    assert str(raised.value).startswith(f"{folder / 'meta.toml'}: {message}")


def test_a_malformed_statement_of_an_asgi_server_names_its_table(tmp_path: Path) -> None:
    folder = _asgi_impl(tmp_path, ASGI_META)
    settings = tmp_path / "asgi_serve.toml"
    settings.write_text(settings.read_text().replace('"not supported: h"', '"no: h"'))
    with pytest.raises(ImplError) as raised:
        load_impl(folder)
    assert str(raised.value).startswith(
        f"{settings}: [hypercorn]: tls 'no: h' must start with 'supported: ' or 'not supported: '"
    )


def test_clients_state_no_profile_statements_and_the_native_reference_states_them(
    tmp_path: Path,
) -> None:
    client = load_impl(_written(tmp_path, 'role = "client"\n'))
    assert [(c.shipped_compression, c.tls, c.workers) for c in client.configs] == [("", "", "")]
    with pytest.raises(ImplError, match="shipped_compression"):
        load_impl(_written(tmp_path, "reference = true\n"))
    native = get_impl("native")
    assert [
        (c.id, c.accepts_shipped_deflate, c.supports_tls, c.supports_workers)
        for c in native.configs
    ] == [("websocket", True, True, False), ("socketio", False, True, False)]


def test_a_tuned_server_declines_deflate_unless_it_has_no_setting_to(tmp_path: Path) -> None:
    """The ``compression`` deviation starts with ``off:`` where the tuned server declines an
    offer; otherwise it answers as shipped."""
    folder = _asgi_impl(tmp_path, STATED.format("x").replace("declines", "accepts") + ASGI_META)
    settings = tmp_path / "asgi_serve.toml"
    settings.write_text(settings.read_text().replace('"off: h"', '"not offered: no setting"'))
    impl = load_impl(folder)
    assert impl.deviation(impl.config("hypercorn"), "compression") == "not offered: no setting"
    assert [impl.tuned_declines_deflate(c) for c in impl.configs] == [True, False]


def test_an_older_version_is_measured_on_the_python_of_its_time(tmp_path: Path) -> None:
    """meta.toml's ``python`` of a version (default 3.11): its environment's Python when it
    is not the latest release; the latest is on the default Python (and on any other a run
    asks for)."""
    meta = FULL_META.replace('{ version = "1.0", ', '{ version = "1.0", python = "3.12", ')
    impl = load_impl(_written(tmp_path, meta))
    assert [(v.version, v.python) for v in impl.versions] == [("1.0", "3.12"), ("2.0", "3.11")]
    envs = [e for e in asvconf.bench_envs([impl]) if e.config.id == impl.configs[-1].id]
    assert [(e.version and e.version.version, e.python, e.is_default) for e in envs] == [
        ("1.0", "3.12", False), ("2.0", DEFAULT_PYTHON, True),
    ]  # fmt: skip
    assert "-py3.12-" in envs[0].name and f"-py{DEFAULT_PYTHON}-" in envs[1].name
    _written(tmp_path, 'package = "x"\nversions = [{ version = "1.0", python = "2.7" }]\n')
    with pytest.raises(ImplError, match=r"version '1\.0': python '2\.7' is not one of 3\.11, "):
        load_impl(tmp_path / "x")
    assert {v.python for i in all_impls() for v in i.versions} == {DEFAULT_PYTHON}  # today
