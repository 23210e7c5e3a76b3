"""The Studies revisited page (wsbench.site.claims): the verdict of every rule from run
documents built in code, the claims file's checks, and the shipped claims' consistency with
the implementations' and client libraries' metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runs import benchmark, failed, impl, run
from wsbench.impls import all_impls
from wsbench.paths import CLIENTS_DIR
from wsbench.results.metrics import BY_NAME
from wsbench.results.runformat import Run
from wsbench.scenarios import SPECS
from wsbench.site.claims import (
    Claim,
    ClaimsError,
    Measure,
    check,
    figure_of,
    load_claims,
    render_studies,
)
from wsbench.site.studies import STUDIES_FILE

ECHO = {"size_bytes": 16, "in_flight": 1}


def echo_run(name: str, rate: float, version: str = "1.0", run_id: str = "") -> Run:
    return run(
        [],
        impl_info=impl(name, version, "asyncio"),
        benchmarks=[benchmark("echo", ECHO, [rate] * 4)],
        run_id=run_id or "20261123T190000Z-aaaaaa",
    )


def measure(name: str) -> Measure:
    return Measure(store="servers", impl=name, config="asyncio", scenario="echo",
                   metric="messages_per_s", size_bytes=16, in_flight=1)  # fmt: skip


def claim(rule: str, **fields: object) -> Claim:
    base: dict[str, object] = {
        "study": "S", "source": "README", "claim": "A beats B", "their_figures": "2x",
        "conditions": "c", "reading": "r", "rule": rule,
    }  # fmt: skip
    return Claim(**{**base, **fields})  # type: ignore[arg-type]


SERVERS = [echo_run("a", 2000.0), echo_run("b", 1000.0)]


@pytest.mark.parametrize(
    ("threshold", "verdict"), [(1.5, "confirmed"), (2.0, "confirmed"), (2.5, "contradicted")]
)
def test_ratio_at_least(threshold: float, verdict: str) -> None:
    c = claim("ratio_at_least", threshold=threshold, a=measure("a"), b=measure("b"))
    checked = check(c, SERVERS, [])
    assert checked.verdict == verdict
    assert "a / b = 2" in checked.reason
    assert "2,000 messages/s" in checked.ours and "1,000 messages/s" in checked.ours


@pytest.mark.parametrize(("value", "verdict"), [(1000.0, "confirmed"), (100.0, "contradicted")])
def test_about(value: float, verdict: str) -> None:
    c = claim("about", value=value, threshold=2.0, a=measure("a"))
    assert check(c, SERVERS, []).verdict == verdict


@pytest.mark.parametrize(("value", "verdict"), [(3.0, "confirmed"), (5.0, "contradicted")])
def test_ratio_about(value: float, verdict: str) -> None:
    c = claim("ratio_about", value=value, threshold=2.0, a=measure("a"), b=measure("b"))
    assert check(c, SERVERS, []).verdict == verdict


def test_a_figure_we_do_not_have_is_not_comparable() -> None:
    c = claim("ratio_at_least", a=measure("a"), b=measure("missing"))
    checked = check(c, SERVERS, [])
    assert checked.verdict == "not comparable"
    assert checked.reason.startswith("not measured: missing (asyncio) echo")


def test_a_failed_row_is_not_comparable_with_its_reason() -> None:
    broken = run(
        [], impl_info=impl("c", "1.0", "asyncio"),
        benchmarks=[failed("echo", ECHO, "server crashed\ntraceback")],
    )  # fmt: skip
    checked = check(claim("about", value=1.0, a=measure("c")), [broken], [])
    assert checked.verdict == "not comparable"
    assert checked.reason == "c · asyncio 1.0 failed: server crashed"


def test_large_ratios_read_as_whole_numbers() -> None:
    c = claim("about", value=1.0, threshold=2.0, a=measure("a"))
    assert check(c, SERVERS, []).reason.startswith("ours is 2,000× the claimed 1 messages/s")  # noqa: RUF001


def test_the_rule_none_is_not_comparable_for_its_reading() -> None:
    checked = check(claim("none", reading="their rate is the feed's"), SERVERS, [])
    assert (checked.verdict, checked.reason) == ("not comparable", "their rate is the feed's")


def test_the_newest_version_then_the_newest_run_gives_the_figure() -> None:
    docs = [
        echo_run("a", 100.0, "1.9"),
        echo_run("a", 200.0, "1.10", "20261123T190000Z-aaaaaa"),
        echo_run("a", 300.0, "1.10", "20261124T190000Z-bbbbbb"),
    ]
    found = figure_of(measure("a"), docs)
    # The geometric mean of equal windows: 300 to within a rounding of exp(log(300)).
    assert found.value == pytest.approx(300.0) and found.label == "a · asyncio 1.10"


def test_client_claims_read_the_client_store() -> None:
    client = measure("a")
    client = Measure(**{**{f: getattr(client, f) for f in client.__struct_fields__},
                        "store": "clients"})  # fmt: skip
    # A factor of 1.01: the figure, a geometric mean, is 2,000 to within rounding.
    c = claim("about", value=2000.0, threshold=1.01, a=client)
    assert check(c, [], SERVERS).verdict == "confirmed"
    assert check(c, SERVERS, []).verdict == "not comparable"


def test_page_lists_every_claim_with_counts() -> None:
    claims = [
        claim("ratio_at_least", threshold=1.0, a=measure("a"), b=measure("b")),
        claim("none"),
    ]
    page = render_studies(claims, SERVERS, [], "https://example.org/r")
    assert "1 confirmed, 0 contradicted, 1 not comparable of 2 claims." in page
    assert page.count("**confirmed**") == 1 and page.count("**not comparable**") == 1


def test_claims_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "studies.toml"
    bad.write_text('[[claims]]\nstudy = "S"\n', encoding="utf-8")
    with pytest.raises(ClaimsError, match=r"studies\.toml"):
        load_claims(bad)
    bad.write_text(
        '[[claims]]\nstudy="S"\nsource="s"\nclaim="c"\ntheir_figures="f"\nconditions="c"\n'
        'rule="about"\nreading="r"\n', encoding="utf-8",
    )  # fmt: skip
    with pytest.raises(ClaimsError, match="needs a, value"):
        load_claims(bad)


def test_shipped_claims_name_real_configurations_and_metrics() -> None:
    """Every figure a shipped claim asks for exists: the implementation or client library,
    its configuration, a scenario that has the metric, and parameters of that scenario."""
    claims = load_claims(STUDIES_FILE)
    assert len(claims) >= 8
    configs = {
        "servers": {(i.name, c.id) for i in all_impls() for c in i.configs},
        "clients": {(i.name, c.id) for i in all_impls(CLIENTS_DIR) for c in i.configs},
    }
    for c in claims:
        for m in (c.a, c.b):
            if m is None:
                continue
            assert (m.impl, m.config) in configs[m.store], (m.impl, m.config)
            assert m.scenario in BY_NAME[m.metric].scenarios, (m.scenario, m.metric)
            assert set(m.params) <= set(SPECS[m.scenario].axes), m.params
