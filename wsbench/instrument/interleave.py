"""Interleaved measurement of two sides (base, head) in one session on the same CPUs:
base, head, base, head ..., one fresh server process per side and round, so that the
machine's drift over the session falls on both sides alike.

Round ``r`` gives every side's benchmarks the samples of server process ``r``; after
``plan.processes`` rounds each side has as many samples as a normal run with that plan.
Each round samples one process, its last (:mod:`wsbench.instrument.sampling`): a set whose
windows of that round were all disturbed gets its waited retries in that round, from one
wait budget for the whole session (:mod:`wsbench.instrument.waitbudget`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import msgspec

from wsbench.impls import Impl
from wsbench.instrument import provenance, system
from wsbench.instrument.cpus import CpuPlacement
from wsbench.instrument.interpreters import probe
from wsbench.instrument.sampling import SamplingPlan, sample_scenario
from wsbench.instrument.waitbudget import WaitBudget
from wsbench.results import store
from wsbench.results.compare import SIDE_LABELS, base_first
from wsbench.results.runformat import Benchmark, Run
from wsbench.scenarios import Params, Scenario, spec


@dataclass(frozen=True)
class Arm:
    """One configuration on one side.

    Attributes:
        impl: the implementation.
        config_id: its configuration.
        python: the interpreter that runs the server (the environment of its version).
        env_name: the environment's name in the run document.
        version: the package version in that interpreter (None: read from ``python``).
    """

    impl: Impl
    config_id: str
    python: str
    env_name: str
    version: str | None = None


def merge_round(earlier: list[Benchmark], new: list[Benchmark], process: int) -> list[Benchmark]:
    """``earlier`` (empty before the first round) with ``new``'s samples, all from one server
    process, appended as process ``process``; a failure on either keeps the first error, and
    the waited retries the session's wait budget left out add up. ``new`` has one benchmark
    per benchmark of ``earlier``, in the same order."""
    if not earlier:
        earlier = [
            msgspec.structs.replace(b, samples=[], server_exit_codes=[], waits_skipped=0)
            for b in new
        ]
    merged = []
    for old, add in zip(earlier, new, strict=True):
        samples = [msgspec.structs.replace(s, process=process) for s in add.samples]
        failed = old.status == "failed" or add.status == "failed"
        merged.append(
            msgspec.structs.replace(
                old,
                samples=[*old.samples, *samples],
                server_exit_codes=[*old.server_exit_codes, *add.server_exit_codes],
                status="failed" if failed else "ok",
                error=old.error or add.error,
                waits_skipped=old.waits_skipped + add.waits_skipped,
            )
        )
    return merged


def side_order(sides: int, round_index: int) -> list[int]:
    """The order the sides are measured in round ``round_index`` (0-based): base first in
    even rounds, last in odd rounds (A B, B A, A B...). With a fixed order, one side's first
    arm always followed the other side's last: in a test, the unchanged control read 5 %+
    "faster" on the side that never followed a CPU-spinning server, twice in four runs of
    the test suite on this VM. The comparison takes the order's effect out
    (:func:`wsbench.results.compare.base_first`, the one rule both follow)."""
    order = list(range(sides))
    return order if base_first(round_index) else order[::-1]


def measure_interleaved(
    sides: Sequence[Sequence[Arm]],
    scenarios: Sequence[Scenario],
    plan: SamplingPlan,
    *,
    placement: CpuPlacement,
    machine_name: str,
    run_id: str | None = None,
    labels: Sequence[str] = SIDE_LABELS,
    grids: dict[Scenario, list[Params]] | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> list[list[Run]]:
    """Measure every arm of every side, round by round, the sides alternating in a
    counterbalanced order (:func:`side_order`).

    Args:
        sides: the arms of each side (base first); arm ``i`` of one side is compared with
            arm ``i`` of the other.
        scenarios: the scenarios, each at the parameter sets of ``grids``.
        plan: the sampling plan; ``plan.processes`` is the number of rounds.
        placement: CPUs of server and load generator.
        machine_name: the machine's name in the documents.
        run_id: the documents' run id stem (default: a new one); side ``k``'s documents
            get ``<run_id>-<labels[k]>``.
        labels: one name per side (by default :data:`wsbench.results.compare.SIDE_LABELS`,
            by which :func:`wsbench.results.compare.interleaved` knows the sides).
        grids: the parameter sets of each scenario (default: its full grid,
            :mod:`wsbench.scenarios`).
        log: progress lines.

    Returns:
        Per side, one run document per arm, with ``plan.processes`` processes of samples.

    Raises:
        InterpreterNotFound: an arm's interpreter does not run (read before measuring).
    """
    plan.validate()
    run_id = run_id or store.new_run_id()
    one = replace(plan, processes=1)
    budget = WaitBudget(plan.wait_budget_s)  # one for the session, as for a main job's run
    tuning = system.recorded(placement)  # before the session loads the machine
    # Each arm's interpreter as its documents record it: read before measuring, so that one
    # that does not run stops the comparison at once (InterpreterNotFound).
    builds = {arm.python: probe(arm.python).interpreter for arms in sides for arm in arms}

    def grid_of(scenario: Scenario) -> list[Params]:
        return (grids or {}).get(scenario) or spec(scenario).grid("full")

    found: list[list[list[Benchmark]]] = [[[] for _ in arms] for arms in sides]
    for r in range(plan.processes):
        for k in side_order(len(sides), r):
            arms = sides[k]
            for i, arm in enumerate(arms):
                log(f"round {r + 1}/{plan.processes} {labels[k]}: {arm.env_name}")
                new: list[Benchmark] = []
                for scenario in scenarios:
                    new += sample_scenario(
                        arm.impl, arm.config_id, scenario, grid_of(scenario), one,
                        placement=placement, python=arm.python, budget=budget,
                    )  # fmt: skip
                found[k][i] = merge_round(found[k][i], new, r)
    runs: list[list[Run]] = []
    for k, arms in enumerate(sides):
        side = []
        for i, arm in enumerate(arms):
            version = arm.version or provenance.installed_version_in(arm.python, arm.impl.package)
            doc = provenance.new_run(
                run_id=f"{run_id}-{labels[k]}",
                machine_name=machine_name,
                settings=plan.settings(placement, 1),
                impl=arm.impl,
                config=arm.impl.config(arm.config_id),
                env_name=arm.env_name,
                version=version,
                benchmarks=found[k][i],
                system_check=tuning,
                interpreter=builds[arm.python],
                python=arm.python,
            )
            side.append(msgspec.structs.replace(doc, finished_at=store.now_iso()))
        runs.append(side)
    return runs
