"""The framework pages' *By Python version*: every Python with its ratio to the default, and
a configuration that refuses a Python shown with its reason."""

# The page's multiplication signs are as published.
# ruff: noqa: RUF001

from __future__ import annotations

from tests.python_runs import BASE, FASTER, MEMORY, NOT_SUPPORTED, on, python_results
from tests.runs import ECHO_16_64, failed
from tests.site_runs import IMPLS
from wsbench.site.framework_pages import render_page
from wsbench.site.frameworks import load_frameworks
from wsbench.site.history import history_of
from wsbench.site.python_page import TITLE, headers
from wsbench.site.results import Results


def _page(results: Results) -> str:
    (websockets,) = [f for f in load_frameworks(IMPLS) if f.name == "websockets"]
    page = render_page(websockets, results, "https://example.org/r", history_of([]))
    return page.markdown


def test_the_framework_page_shows_each_python_with_its_ratio_and_the_refusal() -> None:
    refused = on("3.13", [], benchmarks=[failed("echo", ECHO_16_64, NOT_SUPPORTED),
                                         failed("memory", MEMORY, NOT_SUPPORTED)])  # fmt: skip
    text = _page(python_results(on("3.11", BASE, count=80_000, optimizations=()),
                                on("3.12", FASTER, count=84_000, optimizations=("pgo", "lto")),
                                on("3.14t", BASE, optimizations=("lto",)), refused))  # fmt: skip
    section = text.split(f"### {TITLE}")[1].split("\n### ")[0]
    assert "| " + " | ".join(headers()) + " |" in section
    rows = [line for line in section.splitlines() if line.startswith("| websockets")]
    assert [r.split(" | ")[1] for r in rows] == [
        "3.11, no PGO or LTO",
        "3.12, PGO and LTO",
        "3.13",
        "3.14t, GIL off, LTO",
    ]  # the build as each document records it (3.13's: not recorded)
    default, faster, refusal, free = rows
    assert "80,000 |" in default and "×" not in default  # the default: no ratio
    assert "**1.30×" in faster and "84,000 · 1.050×" in faster
    assert f"failed: {NOT_SUPPORTED}" in refusal
    assert "1.00×" in free
    assert "on Python 3.11 unless the row names another" in text


def test_without_another_python_the_page_has_no_python_section() -> None:
    assert f"### {TITLE}" not in _page(python_results(on("3.11", BASE)))
