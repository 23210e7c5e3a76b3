"""What a pull request's change asks to measure."""

from __future__ import annotations

from wsbench.prcompare import select


def test_a_harness_or_load_generator_change_measures_everything_at_a_reduced_scale() -> None:
    chosen = select(["impls/aiohttp/server.py", "loadgen/src/main.rs", "README.md"])
    assert chosen.everything and chosen.impls == () and not chosen.empty
    assert "loadgen/src/main.rs" in chosen.reason
    assert select(["wsbench/measure.py"]).everything
    assert select(["pyproject.toml"]).everything and select(["bench"]).everything
    assert not select(["bench.md"]).everything


def test_an_implementation_change_measures_those_implementations() -> None:
    chosen = select(["impls/tornado/server.py", "impls/aiohttp/meta.toml", "site/index.md"])
    assert chosen.impls == ("aiohttp", "tornado") and not chosen.everything


def test_documentation_tests_and_workflows_measure_nothing() -> None:
    chosen = select(["README.md", "tests/test_x.py", ".github/workflows/ci.yml",
                     "impls/PROTOCOL.md", "site/methodology.md"])  # fmt: skip
    assert chosen.empty and "no implementation" in chosen.reason
