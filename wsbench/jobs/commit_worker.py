"""The worker side of ``./bench compare --commits``: run inside one commit's checkout, with
that commit's harness, implementations and load generator.

The comparing harness (:mod:`wsbench.jobs.commits`) starts ``python -m wsbench.jobs.commit_worker``
with the checkout as working directory, so that everything measured is that commit's code.
The command line below is an interface between commits: a commit can be compared only if
it has this module with these two subcommands.

``arms --impl NAME ... [--config ID ...] --envs-dir DIR``
    Prints a JSON list of the environments to measure, one object per configuration at the
    implementation's newest listed version: ``{"impl", "config_id", "env_name",
    "version", "python"}`` (``python``: the interpreter of an environment installed with uv
    under ``DIR``, shared between commits: an environment's name encodes its pins). An
    implementation or configuration this commit does not have is left out; an environment
    that does not install is an object with ``"error"`` instead of ``"python"``.

``round --arms FILE --grid FILE --run-id ID --label L --machine M --out DIR
[--windows N --warmup S --window S --max-other-cpu P --max-steal P]``
    Measures every arm of ``FILE`` (a list as printed by ``arms``) in one fresh server
    process each, every scenario at the parameter sets of ``--grid`` (JSON: scenario ->
    list of parameter sets), and writes one run document per arm into ``DIR``
    (:mod:`wsbench.results.runformat`, run id ``<ID>-<L>``, as ``000.json``, ``001.json`` ... in the
    arms' order). The comparing harness numbers the rounds' processes when it merges them.

``count --arms FILE --scenarios A,B --run-id ID --label L --machine M --out DIR``
    Counts every arm's instructions per message under valgrind
    (:mod:`wsbench.instrument.instructions`: the sets of those scenarios, or every set when
    ``--scenarios`` is empty) and writes one run document per arm with its ``counting`` and
    ``instructions`` and no samples, named as ``round``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec

from wsbench.asv.conf import bench_envs, on_python
from wsbench.impls import ImplError, all_impls
from wsbench.instrument import instructions, provenance, system
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.interleave import Arm, measure_interleaved
from wsbench.instrument.interpreters import probe
from wsbench.instrument.sampling import SamplingPlan
from wsbench.pythons import DEFAULT_PYTHON
from wsbench.results import runformat, store


def arms(
    impl_names: Sequence[str],
    config_ids: Sequence[str],
    envs_dir: Path,
    pythons: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The environments to measure in this commit (see the module's ``arms`` command).

    Args:
        impl_names: implementations to include (empty: all).
        config_ids: configurations to include (empty: all).
        envs_dir: where environments are installed (:func:`wsbench.asv.venvs.ensure`).
        pythons: other Pythons the latest releases are also measured on (e.g. ``["3.13"]``;
            :func:`wsbench.asv.conf.on_python`), beside the default.

    Returns:
        One JSON-ready mapping per environment, sorted by implementation and configuration.
    """
    from wsbench.asv import venvs

    impls = [i for i in all_impls() if not impl_names or i.name in impl_names]
    latest = [env for env in bench_envs(impls) if env.is_default
              and (not config_ids or env.config.id in config_ids)]  # fmt: skip
    envs = [*latest, *(on_python(e, p) for p in pythons if p != DEFAULT_PYTHON for e in latest
                       if e.version)]  # fmt: skip
    found: list[dict[str, Any]] = []
    for env in envs:
        entry: dict[str, Any] = {
            "impl": env.impl.name,
            "config_id": env.config.id,
            "env_name": env.name,
            "version": env.version.version if env.version else None,
            "python_name": env.python,
        }
        try:
            entry["python"] = str(venvs.ensure(env, envs_dir)) if env.version else sys.executable
        except venvs.VenvError as exc:
            entry["error"] = str(exc)
        found.append(entry)
    return sorted(found, key=lambda e: (e["impl"], e["config_id"], e["python_name"]))


def measure_round(
    arm_entries: Sequence[dict[str, Any]],
    grid: dict[str, list[dict[str, int]]],
    plan: SamplingPlan,
    *,
    run_id: str,
    label: str,
    machine_name: str,
) -> list[runformat.Run]:
    """One round: every arm in one fresh server process (see the module's ``round`` command).

    Raises:
        ImplError: an arm names an implementation or configuration this commit lacks.
    """
    (docs,) = measure_interleaved(
        [_arms(arm_entries)],
        list(grid),  # validated by sample_scenario
        replace(plan, processes=1),
        placement=placement_from(None, None),
        machine_name=machine_name,
        run_id=run_id,
        labels=(label,),
        grids=grid,
    )
    return docs


def _arms(arm_entries: Sequence[dict[str, Any]]) -> list[Arm]:
    """The arms of ``arm_entries`` (as :func:`arms` prints them) in this commit.

    Raises:
        ImplError: an arm names an implementation or configuration this commit lacks.
    """
    by_name = {i.name: i for i in all_impls()}
    side = []
    for entry in arm_entries:
        impl = by_name.get(entry["impl"])
        if impl is None:
            raise ImplError(f"this commit has no implementation {entry['impl']!r}")
        impl.config(entry["config_id"])  # raises ImplError naming the known ones
        side.append(
            Arm(impl, entry["config_id"], entry["python"], entry["env_name"], entry["version"])
        )
    return side


def count_arms(
    arm_entries: Sequence[dict[str, Any]],
    scenarios: Sequence[str],
    *,
    run_id: str,
    label: str,
    machine_name: str,
) -> list[runformat.Run]:
    """Every arm's instruction counts (see the module's ``count`` command): one run document
    per arm, with no samples.

    Raises:
        ImplError: an arm names an implementation or configuration this commit lacks.
    """
    sets = instructions.sets_of(scenarios)
    placement = placement_from(None, None)
    tuning = system.recorded(placement)
    docs = []
    for arm in _arms(arm_entries):
        counted = instructions.count_all(
            arm.impl, arm.config_id, sets, python=arm.python, placement=placement
        )
        version = arm.version or provenance.installed_version_in(arm.python, arm.impl.package)
        doc = provenance.new_run(
            run_id=f"{run_id}-{label}",
            machine_name=machine_name,
            settings=SamplingPlan(processes=1).settings(placement, 1),
            impl=arm.impl,
            config=arm.impl.config(arm.config_id),
            env_name=arm.env_name,
            version=version,
            system_check=tuning,
            interpreter=probe(arm.python).interpreter,
            python=arm.python,
        )
        docs.append(
            msgspec.structs.replace(
                doc,
                finished_at=store.now_iso(),
                counting=counted.counting,
                instructions=counted.instructions,
            )
        )
    return docs


def main(argv: Sequence[str] | None = None) -> int:
    """The worker's command line (see the module docstring); exit code 0 or 2 on bad input."""
    parser = argparse.ArgumentParser(prog="python -m wsbench.jobs.commit_worker")
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("arms")
    a.add_argument("--impl", action="append", default=[])
    a.add_argument("--config", action="append", default=[])
    a.add_argument("--envs-dir", type=Path, required=True)
    a.add_argument("--python", action="append", default=[])
    r = sub.add_parser("round")
    r.add_argument("--arms", type=Path, required=True)
    r.add_argument("--grid", type=Path, required=True)
    r.add_argument("--run-id", required=True)
    r.add_argument("--label", required=True)
    r.add_argument("--machine", required=True)
    r.add_argument("--out", type=Path, required=True)
    plan = SamplingPlan()
    r.add_argument("--windows", type=int, default=plan.windows_per_process)
    r.add_argument("--warmup", type=float, default=plan.warmup_s)
    r.add_argument("--window", type=float, default=plan.window_s)
    r.add_argument("--max-other-cpu", type=float, default=plan.max_other_cpu_percent)
    r.add_argument("--max-steal", type=float, default=plan.max_steal_percent)
    c = sub.add_parser("count")
    c.add_argument("--arms", type=Path, required=True)
    c.add_argument("--scenarios", default="")
    c.add_argument("--run-id", required=True)
    c.add_argument("--label", required=True)
    c.add_argument("--machine", required=True)
    c.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "arms":
            print(json.dumps(arms(args.impl, args.config, args.envs_dir, args.python)))
            return 0
        if args.command == "count":
            docs = count_arms(
                json.loads(args.arms.read_text()),
                [s for s in args.scenarios.split(",") if s],
                run_id=args.run_id,
                label=args.label,
                machine_name=args.machine,
            )
        else:
            docs = measure_round(
                json.loads(args.arms.read_text()),
                json.loads(args.grid.read_text()),
                replace(
                    plan,
                    windows_per_process=args.windows,
                    warmup_s=args.warmup,
                    window_s=args.window,
                    max_other_cpu_percent=args.max_other_cpu,
                    max_steal_percent=args.max_steal,
                ),
                run_id=args.run_id,
                label=args.label,
                machine_name=args.machine,
            )
    except (ImplError, ValueError, OSError) as exc:
        print(f"wsbench.jobs.commit_worker: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for i, doc in enumerate(docs):
        (args.out / f"{i:03d}.json").write_bytes(runformat.encode(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
