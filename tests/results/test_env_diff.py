"""Every difference between two sides' environments is named, in words and in a stable order:
packages added, removed or at another version, the interpreter's build, the load generator's
build, the kernel and the CPU model; a side that does not record its packages or interpreter
says "not recorded", never "identical"; a side whose documents disagree says so; the
framework compared in a version comparison is named apart."""

from __future__ import annotations

import msgspec
import pytest

from tests.runs import impl, run
from wsbench.results.env_diff import (
    Difference,
    PairDiff,
    diff_pairs,
    diff_sides,
    distribution_name,
    lines,
    parse_package,
    to_markdown,
    to_text,
)
from wsbench.results.runformat import Interpreter, LoadgenBuild, Resolution, Run

BASE_RUN = "20261124T020000Z-abcdef"
CONFIRM_RUN = "20261124T020000Z-abcdef-confirm-head"
BUILD = Interpreter("3.11.7", "CPython", False, True, "none", "GCC 12.2.0", ())
LOCKED = Resolution("lock", "3f" * 32, "2026-12-01", "impls/aiohttp/lock.toml")
AIOHTTP_13 = ("aiohappyeyeballs==2.6.1", "aiohttp==3.13.2", "multidict==6.1.0", "yarl==1.18.0")
AIOHTTP_14 = ("aiohappyeyeballs==2.6.1", "aiohttp==3.14.5", "multidict==6.1.0", "yarl==1.18.0")
IDENTICAL = "environments: identical (packages, interpreter, load generator, kernel, CPU model)"


def _doc(
    version: str,
    packages: tuple[str, ...] | None,
    *,
    name: str = "aiohttp",
    config: str = "default",
    interpreter: Interpreter | None = BUILD,
    run_id: str = BASE_RUN,
) -> Run:
    """A document of ``name`` at ``version`` recording ``packages`` and ``interpreter``
    (None: a document from before they were recorded)."""
    doc = run([1000.0] * 6, run_id=run_id, impl_info=impl(name, version, config))
    env = msgspec.structs.replace(
        doc.environment,
        interpreter=interpreter,
        packages=packages,
        resolution=LOCKED if packages is not None else None,
    )
    return msgspec.structs.replace(doc, environment=env)


def _lines(base: list[Run], head: list[Run]) -> tuple[str, list[str]]:
    return lines(diff_pairs(base, head, match="configuration"))


def test_identical_environments_say_so_and_a_version_comparison_names_the_framework_alone() -> None:
    assert _lines([_doc("3.13.2", AIOHTTP_13)], [_doc("3.13.2", AIOHTTP_13)]) == (IDENTICAL, [])
    assert _lines([_doc("3.13.2", AIOHTTP_13)], [_doc("3.14.5", AIOHTTP_14)]) == (
        "environments: identical but for aiohttp 3.13.2 → 3.14.5",
        [],
    )


def test_packages_added_removed_and_changed_are_named_in_the_order_of_their_names() -> None:
    head = ("aiohttp==3.14.5", "Frozen_List==1.5.0", "multidict==6.2.0", "yarl==1.18.0")
    (pair,) = diff_pairs(
        [_doc("3.13.2", AIOHTTP_13)], [_doc("3.14.5", head)], match="configuration"
    )
    assert pair == PairDiff(
        "aiohttp · default",
        (
            Difference("packages", "differs", "aiohappyeyeballs 2.6.1 removed"),
            Difference("packages", "differs", "frozen-list 1.5.0 added"),
            Difference("packages", "differs", "multidict 6.1.0 → 6.2.0"),
            Difference("packages", "compared", "aiohttp 3.13.2 → 3.14.5"),
        ),
    )
    assert to_text([pair]) == [
        "environments (base → head), besides aiohttp 3.13.2 → 3.14.5 (the compared package):",
        "  - packages: aiohappyeyeballs 2.6.1 removed; frozen-list 1.5.0 added; "
        "multidict 6.1.0 → 6.2.0",
    ]
    assert to_markdown([pair]) == (
        "environments (base → head), besides aiohttp 3.13.2 → 3.14.5 (the compared package):\n"
        "\n"
        "- packages: aiohappyeyeballs 2.6.1 removed; frozen-list 1.5.0 added; "
        "multidict 6.1.0 → 6.2.0\n"
    )


def test_the_frameworks_own_package_is_an_ordinary_difference_at_one_version() -> None:
    # Paired by environment, both sides ran aiohttp 3.13.2: its package moving is no design.
    other = tuple(p.replace("aiohttp==3.13.2", "aiohttp==3.13.3") for p in AIOHTTP_13)
    (pair,) = diff_pairs([_doc("3.13.2", AIOHTTP_13)], [_doc("3.13.2", other)],
                         match="environment")  # fmt: skip
    assert pair.label == "aiohttp · default 3.13.2"
    assert pair.differences == (Difference("packages", "differs", "aiohttp 3.13.2 → 3.13.3"),)


def test_the_interpreters_build_the_load_generator_kernel_and_cpu_are_named() -> None:
    base = _doc("3.13.2", AIOHTTP_13)
    build = Interpreter("3.11.10", "CPython", True, False, "on", "GCC 14.2.0", ("pgo", "lto"))
    head = msgspec.structs.replace(
        _doc("3.13.2", AIOHTTP_13, interpreter=build),
        loadgen=LoadgenBuild(version="0.2.0", source_sha256="cd" * 32, rustc="rustc 1.96.0"),
        machine=msgspec.structs.replace(base.machine, kernel="Linux 7", cpu_model="cpu 2"),
    )
    # Documents of two Pythons are never paired (compare.pair_key); their sides still differ.
    assert diff_pairs([base], [head], match="configuration") == []
    assert lines([PairDiff("aiohttp · default", diff_sides([base], [head]))]) == (
        "environments (base → head):",
        [
            "interpreter: Python 3.11.7 → 3.11.10; compiler GCC 12.2.0 → GCC 14.2.0; "
            "optimizations none → pgo, lto; free-threaded no → yes; GIL on → off; "
            "JIT none → on",
            "load generator: version 0.1.0 → 0.2.0; sources abababababab → cdcdcdcdcdcd; "
            "compiler rustc 1.95.0 → rustc 1.96.0",
            "kernel: Linux 6 → Linux 7",
            "CPU model: cpu → cpu 2",
        ],
    )


def test_documents_from_before_say_not_recorded_never_identical() -> None:
    old, new = _doc("3.13.2", None, interpreter=None), _doc("3.13.2", AIOHTTP_13)
    assert _lines([old], [new]) == (
        "environments (base → head):",
        ["packages: not recorded on the base side", "interpreter: not recorded on the base side"],
    )
    assert _lines([old], [old]) == (
        "environments (base → head):",
        ["packages: not recorded on either side", "interpreter: not recorded on either side"],
    )
    # The framework's versions are its own record: still named apart without the packages.
    assert _lines([_doc("3.13.2", None)], [_doc("3.14.5", AIOHTTP_14)]) == (
        "environments (base → head), besides aiohttp 3.13.2 → 3.14.5 (the compared package):",
        ["packages: not recorded on the base side"],
    )
    # An interpreter build recorded without its optimizations (a document from before them).
    unknown = msgspec.structs.replace(BUILD, optimizations=None)
    assert _lines([_doc("3.13.2", AIOHTTP_13, interpreter=unknown)], [new]) == (
        "environments (base → head):",
        ["interpreter: optimizations not recorded → none"],
    )


def test_a_side_whose_documents_disagree_says_so_naming_their_runs() -> None:
    night = _doc("3.14.5", AIOHTTP_14)
    moved = tuple(p.replace("multidict==6.1.0", "multidict==6.2.0") for p in AIOHTTP_14)
    again = _doc("3.14.5", moved, run_id=CONFIRM_RUN)
    assert _lines([_doc("3.13.2", AIOHTTP_13)], [night, again]) == (
        "environments (base → head), besides aiohttp 3.13.2 → 3.14.5 (the compared package):",
        [
            "packages: multidict 6.1.0 → 6.1.0 or 6.2.0",
            f"packages: the head side's documents disagree: multidict 6.1.0 (run {BASE_RUN}) "
            f"or 6.2.0 (run {CONFIRM_RUN})",
        ],
    )


def test_a_side_recording_its_packages_in_some_documents_only_says_which_not() -> None:
    night = _doc("3.14.5", AIOHTTP_14)
    before = _doc("3.14.5", None, run_id=CONFIRM_RUN, interpreter=None)
    assert _lines([_doc("3.13.2", AIOHTTP_13)], [night, before]) == (
        "environments (base → head), besides aiohttp 3.13.2 → 3.14.5 (the compared package):",
        [
            f"packages: not recorded in 1 of the head side's 2 documents (run {CONFIRM_RUN})",
            f"interpreter: not recorded in 1 of the head side's 2 documents (run {CONFIRM_RUN})",
        ],
    )


def test_a_difference_of_some_configurations_names_them() -> None:
    uvloop = ("aiohttp==3.13.2", "uvloop==0.21.0")
    base = [_doc("3.13.2", AIOHTTP_13), _doc("3.13.2", uvloop, config="uvloop")]
    newer = ("aiohttp==3.14.5", "uvloop==0.22.1")
    head = [_doc("3.14.5", AIOHTTP_14), _doc("3.14.5", newer, config="uvloop")]
    assert _lines(base, head) == (
        "environments (base → head), besides aiohttp 3.13.2 → 3.14.5 (the compared package):",
        ["packages: uvloop 0.21.0 → 0.22.1 (in aiohttp · uvloop)"],
    )
    # Pairs only: a configuration on one side alone is not compared.
    assert _lines(base, head[:1]) == ("environments: identical but for aiohttp 3.13.2 → 3.14.5", [])
    assert diff_pairs(base, [], match="configuration") == []
    assert to_text([]) == [] and to_markdown([]) == ""


def test_a_side_needs_a_document() -> None:
    with pytest.raises(ValueError, match="at least one document"):
        diff_sides([], [_doc("3.13.2", AIOHTTP_13)])


def test_package_lines_are_read_as_uv_pip_freeze_prints_them() -> None:
    assert parse_package("aiohttp==3.13.2") == ("aiohttp", "3.13.2")
    assert parse_package("Flask_SocketIO==5.5.1") == ("flask-socketio", "5.5.1")
    assert parse_package("wsbench @ file:///work/main") == ("wsbench", "@ file:///work/main")
    assert parse_package("-e file:///work/main") == ("-e file:///work/main", "")
    (pair,) = diff_pairs(
        [_doc("3.13.2", AIOHTTP_13)], [_doc("3.13.2", (*AIOHTTP_13, "-e file:///work/main"))],
        match="configuration",
    )  # fmt: skip
    assert pair.differences == (Difference("packages", "differs", "-e file:///work/main added"),)
    assert distribution_name("zope.interface") == "zope-interface"
