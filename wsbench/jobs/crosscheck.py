"""``./bench crosscheck RUN``: do the instruction counts rank the servers as their CPU time
does? Per counted parameter set, the server's instructions per message
(:mod:`wsbench.instrument.instructions`) against its CPU seconds per message in the wall-clock
windows of the same run (server CPU % / 100 / messages/s, the median over the usable windows), over
every configuration of the run: Spearman's rank correlation (``scipy.stats.spearmanr``) and
the configurations whose two ranks differ most.

The two should agree on the order, not on the scale: CPU time also holds the kernel's work
(system calls, TCP), cache misses and waiting for locks, which the counts do not see, and an
instruction of a C extension costs no more in the count than one of the interpreter. The
ratio of the two, instructions per CPU second, says which: a server far below the others
spends its CPU time where the count does not look, one far above executes cheap
instructions. The kernel's share of the server's CPU time in the same windows (system time,
the median over the usable windows) is printed beside it: the part of the cost the count
cannot see.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wsbench.jobs.compare import stored_run
from wsbench.results import compare, store
from wsbench.results.compare import aligned
from wsbench.results.runformat import Benchmark, Run, Sample
from wsbench.scenarios import params_key, params_label

DISAGREE_SHARE = 0.25
"""A configuration whose two ranks differ by more than this share of the configurations
compared is listed as a disagreement."""


class CrossCheckError(RuntimeError):
    """The run cannot be cross-checked (no run, no counted set with a wall-clock figure)."""


@dataclass(frozen=True)
class Pair:
    """One configuration's two figures of one parameter set.

    Attributes:
        row: the configuration's row name.
        key: ``scenario/params_key``, e.g. ``"echo/in_flight=64,size_bytes=16"``.
        label: the set in words, e.g. ``"echo 16 B x64"``.
        instructions: instructions per message.
        cpu_s: server CPU seconds per message (median over the usable windows).
        kernel_share: the kernel's share of the server's CPU time (0.4 = 40 %, median over
            the usable windows), or None when the windows do not hold it.
    """

    row: str
    key: str
    label: str
    instructions: float
    cpu_s: float
    kernel_share: float | None = None

    @property
    def per_cpu_second(self) -> float:
        """Instructions per CPU second (instructions / CPU seconds, per message)."""
        return self.instructions / self.cpu_s


def _median_over_usable(
    benchmark: Benchmark, figure: Callable[[Sample], float | None]
) -> float | None:
    """The median of ``figure`` over ``benchmark``'s usable windows where it is not None;
    None without such a window."""
    found = [x for s in benchmark.usable() if (x := figure(s)) is not None]
    return statistics.median(found) if found else None


def cpu_seconds_per_message(benchmark: Benchmark) -> float | None:
    """The median over ``benchmark``'s usable windows of server CPU seconds per message
    (CPU % / 100 / messages/s); None without such a window."""
    return _median_over_usable(
        benchmark,
        lambda s: (
            s.server_cpu_percent / 100 / s.messages_per_s
            if s.server_cpu_percent and s.messages_per_s
            else None
        ),
    )


def kernel_share(benchmark: Benchmark) -> float | None:
    """The median over ``benchmark``'s usable windows of the kernel's share of the server's
    CPU time (``server_kernel_cpu_percent / server_cpu_percent``); None without a window
    that holds both."""
    return _median_over_usable(
        benchmark,
        lambda s: (
            s.server_kernel_cpu_percent / s.server_cpu_percent
            if s.server_cpu_percent and s.server_kernel_cpu_percent is not None
            else None
        ),
    )


def pairs(docs: Sequence[Run]) -> list[Pair]:
    """Every counted set of ``docs`` (a run's documents) that has an instructions-per-message
    figure and, in the same document, a wall-clock benchmark with a CPU figure."""
    out = []
    for doc in docs:
        for counted in doc.instructions:
            per_message = counted.per_message
            bench = next(
                (
                    b
                    for b in doc.benchmarks
                    if b.scenario == counted.scenario and b.params == counted.params
                ),
                None,
            )
            cpu = cpu_seconds_per_message(bench) if bench else None
            if per_message and cpu:
                key = f"{counted.scenario}/{params_key(counted.params)}"
                label = f"{counted.scenario} {params_label(counted.params)}"
                share = kernel_share(bench) if bench else None
                out.append(Pair(doc.impl.row_name, key, label, per_message, cpu, share))
    return out


@dataclass(frozen=True)
class Correlation:
    """One parameter set over every configuration compared.

    Attributes:
        label: the set in words.
        pairs: its pairs, by instructions per message (fewest first).
        rho: Spearman's rank correlation coefficient (1: the same order); None with fewer
            than 3 configurations.
        p_value: its two-sided p-value (scipy's), or None.
    """

    label: str
    pairs: tuple[Pair, ...]
    rho: float | None
    p_value: float | None

    def ranks(self) -> dict[str, tuple[int, int]]:
        """Each row's rank (1 = fewest) by instructions and by CPU seconds per message."""
        by_count = {p.row: i for i, p in enumerate(self.pairs, 1)}
        by_cpu = {p.row: i for i, p in enumerate(sorted(self.pairs, key=lambda p: p.cpu_s), 1)}
        return {row: (by_count[row], by_cpu[row]) for row in by_count}

    def disagreements(self) -> list[Pair]:
        """The pairs whose two ranks differ by more than :data:`DISAGREE_SHARE` of the
        configurations, the largest difference first."""
        ranks = self.ranks()
        limit = DISAGREE_SHARE * len(self.pairs)

        def gap(p: Pair) -> int:
            return abs(ranks[p.row][0] - ranks[p.row][1])

        return sorted((p for p in self.pairs if gap(p) > limit), key=lambda p: -gap(p))


def correlate(found: Sequence[Pair]) -> list[Correlation]:
    """One :class:`Correlation` per parameter set of ``found``, in order of first
    appearance."""
    from scipy.stats import spearmanr  # a second to import: only the commands that correlate

    out = []
    for key in dict.fromkeys(p.key for p in found):
        mine = tuple(sorted((p for p in found if p.key == key), key=lambda p: p.instructions))
        rho = p_value = None
        if len(mine) >= 3:
            result = spearmanr([p.instructions for p in mine], [p.cpu_s for p in mine])
            rho, p_value = float(result.statistic), float(result.pvalue)
        out.append(Correlation(mine[0].label, mine, rho, p_value))
    return out


def to_text(correlations: Sequence[Correlation]) -> str:
    """Per set: the correlation, then every configuration (instructions and CPU µs per
    message, both ranks, instructions per CPU second, the kernel's share of the CPU time),
    disagreements marked ``<-``; then the kernel's share over the configurations."""
    text = []
    for c in correlations:
        rho = "n/a" if c.rho is None else f"{c.rho:.3f} (p = {c.p_value:.2g})"
        text += [f"{c.label}: {len(c.pairs)} configurations, Spearman rho = {rho}", ""]
        ranks = c.ranks()
        odd = {p.row for p in c.disagreements()}
        rows = [["configuration", "instr/msg", "CPU µs/msg", "ranks", "G instr/CPU s",
                 "kernel", "note"]]  # fmt: skip
        rows += [
            [
                p.row,
                f"{p.instructions:,.0f}",
                f"{p.cpu_s * 1e6:,.2f}",
                f"{ranks[p.row][0]} / {ranks[p.row][1]}",
                f"{p.per_cpu_second / 1e9:.2f}",
                "-" if p.kernel_share is None else f"{p.kernel_share:.0%}",
                "<- ranks differ" if p.row in odd else "",
            ]
            for p in c.pairs
        ]
        text += [*aligned(rows, range(1, 6))]
        shares = sorted(p.kernel_share for p in c.pairs if p.kernel_share is not None)
        if shares:
            text += [
                f"kernel's share of the server's CPU time: {shares[0]:.0%} to {shares[-1]:.0%}, "
                f"median {statistics.median(shares):.0%} (not in the counts)"
            ]
        text += [""]
    return "\n".join(text)


def run(ref: str, *, results: Path | None = None) -> int:
    """Print the cross-check of run ``ref`` (a run id in the store, or a folder of its
    documents); 0. ``results``: the store (None: ``WSBENCH_RESULTS``'s, else ``results/``).

    Raises:
        CrossCheckError: see the class.
    """
    try:
        docs = stored_run(ref, results or store.root_from_env())
    except compare.CompareError as exc:
        raise CrossCheckError(str(exc)) from exc
    found = pairs(docs)
    if not found:
        raise CrossCheckError(
            f"run {ref} has no counted set with a wall-clock figure beside it "
            "(./bench run --instructions counts and measures in one run)"
        )
    print(to_text(correlate(found)), end="")
    return 0
