"""wsbench.results.outliers: a configuration far below the other configurations of its app
at a parameter set is an outlier; one within the rule, or without peers or an interval, is
not."""

from __future__ import annotations

from wsbench.results.outliers import FAR_BELOW, Figure, outliers, rule_text
from wsbench.results.stats import summarize

SET = (("in_flight", 64), ("size_bytes", 65536))


def figure(config: str, rate: float, *, impl: str = "starlette", processes: int = 3,
           reference: bool = False) -> Figure:  # fmt: skip
    """``impl`` 1.0 in ``config`` at echo 64 KiB x 64: ``processes`` server processes of
    two windows each, at 98 %, 100 %, 102 % ... of ``rate``."""
    groups = [[rate * (0.98 + 0.02 * i)] * 2 for i in range(processes)]
    return Figure("m", impl, "1.0", config, "websocket", reference, "echo", SET,
                  summarize(groups))  # fmt: skip


def test_a_configuration_far_below_its_peers_median_is_an_outlier() -> None:
    figures = [figure("uvicorn", 6000), figure("hypercorn", 5000), figure("daphne", 3000),
               figure("gunicorn", 100)]  # fmt: skip
    (found,) = outliers(figures)
    assert found.figure.config == "gunicorn"
    assert [p.config for p in found.peers] == ["uvicorn", "hypercorn", "daphne"]
    assert found.peers_median == found.peers[1].messages_per_s.value  # hypercorn's
    assert round(found.ratio, 4) == 0.02


def test_a_configuration_just_within_the_rule_is_not_an_outlier() -> None:
    # the upper end of its interval is above FAR_BELOW x the peers' median
    peers = [figure("uvicorn", 6000), figure("hypercorn", 6000)]
    high = figure("gunicorn", 6000 * FAR_BELOW)
    assert high.high is not None and high.high > 6000 * FAR_BELOW
    assert outliers([*peers, high]) == []
    low = figure("gunicorn", 6000 * FAR_BELOW * 0.9)
    assert [o.figure.config for o in outliers([*peers, low])] == ["gunicorn"]


def test_no_peer_no_interval_other_apps_and_the_reference_are_not_judged() -> None:
    assert outliers([figure("gunicorn", 100)]) == []  # no peer
    one_process = figure("gunicorn", 100, processes=1)
    assert one_process.high is None
    assert outliers([figure("uvicorn", 6000), one_process]) == []
    # another implementation is not a peer, nor is the reference
    assert outliers([figure("uvicorn", 6000, impl="fastapi"), figure("gunicorn", 100)]) == []
    assert outliers([figure("websocket", 60000, impl="native", reference=True),
                     figure("gunicorn", 100)]) == []  # fmt: skip


def test_the_rule_in_words_names_its_fraction_and_interval() -> None:
    assert rule_text(0.1).startswith(
        "the upper end of its 95 % confidence interval is below 10 % of its peers' median"
    )
