"""The noise study read from documents: variance components and plans, and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runs import benchmark, run
from wsbench.jobs.noise import Costs, NoiseError, NoiseOptions, table
from wsbench.jobs.noise import run as study
from wsbench.results import store

LEVELS = (1000.0, 1100.0, 950.0, 1050.0)
"""4 server processes at their own levels; each's 3 windows within 1 % of it."""


def _doc() -> object:
    rates = [level * f for level in LEVELS for f in (0.99, 1.0, 1.01)]
    bench = benchmark("echo", {"size_bytes": 16, "in_flight": 64}, rates, windows_per_process=3)
    return run([], benchmarks=[bench])


def test_the_table_gives_each_figures_components_and_plans() -> None:
    doc = _doc()
    text = table([doc], Costs(process_s=1.0, window_s=0.75))  # type: ignore[list-item]
    rows = [line for line in text.splitlines() if "messages_per_s" in line]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    # 4 processes; the windows vary 1 %, the processes 6 %: nearly all between them
    assert cells[4] == "4"
    assert cells[5] == "1.0 %"
    assert float(cells[6].rstrip(" %")) == pytest.approx(6.3, abs=0.3)
    assert float(cells[7].rstrip(" %")) > 95
    # sqrt(1 s / 0.75 s * 1 %^2 / 6.3 %^2): below 1, so one window per process is best
    assert cells[8] == "0.2"
    # t(n - 1) * 6.3 % / sqrt(n) <= 5 % from n = 9, <= 10 % from n = 5
    assert cells[9] == "9x1 (16 s)" and cells[10] == "5x1 (9 s)"


def test_documents_are_read_instead_of_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store.save(_doc(), tmp_path)  # type: ignore[arg-type]
    assert study(NoiseOptions(documents=tmp_path, process_cost_s=2.0)) == 0
    out = capsys.readouterr().out
    assert "a server process 2.00 s" in out and "a window 1.50 s" in out  # warm-up + window
    assert "| websockets · asyncio | 1 s | echo" in out


def test_documents_need_a_process_cost_and_some_document(tmp_path: Path) -> None:
    with pytest.raises(NoiseError, match="no run document"):
        study(NoiseOptions(documents=tmp_path, process_cost_s=1.0))
    store.save(_doc(), tmp_path)  # type: ignore[arg-type]
    with pytest.raises(NoiseError, match="--process-cost"):
        study(NoiseOptions(documents=tmp_path))
