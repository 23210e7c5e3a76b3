"""Options several commands share, and how their values become what the layers below take
(no argparse namespace goes further down than the command that parsed it)."""

from __future__ import annotations

import argparse

from wsbench.instrument.sampling import SamplingPlan


def positive_float(text: str) -> float:
    """An argparse type: a number above 0.

    Raises:
        argparse.ArgumentTypeError: 0 or below.
    """
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def add_env_arguments(parser: argparse.ArgumentParser, verb: str) -> None:
    """The environments a command works on, as every command that installs servers takes
    them: ``--impl``, ``--config``, ``--versions`` and ``--environment``
    (:func:`wsbench.jobs.selection.select_envs` reads them); ``verb`` completes their help
    (``"run"``, ``"grade"``, ``"profile"``)."""
    parser.add_argument(
        "--impl", action="append",
        help=f"implementation to {verb} (repeatable; default: all, see ./bench list)",
    )  # fmt: skip
    parser.add_argument(
        "--config", action="append",
        help=f"configuration id to {verb} (repeatable; default: all, see ./bench list)",
    )  # fmt: skip
    parser.add_argument(
        "--versions", choices=["latest", "all"], default="latest",
        help="latest release of each (default) or every version in the matrix",
    )  # fmt: skip
    parser.add_argument(
        "--environment", action="append", metavar="ASV_NAME",
        help="only these environments, by asv's name (repeatable; as in asv.conf.json and "
        "in each run document; with --impl, --config and --versions left out)",
    )  # fmt: skip


def add_plan_arguments(
    parser: argparse.ArgumentParser,
    processes_help: str,
    windows_default: str | None = None,
    processes_default: str | None = None,
    defaults: SamplingPlan | None = None,
) -> None:
    """The sampling plan's options (``--processes``, ``--windows``, ``--warmup``,
    ``--window``/``--duration``, ``--wait-budget``), defaulting to ``defaults``' values (a
    command's own plan, e.g. the nightly's confirmation; default :class:`SamplingPlan`'s);
    ``processes_help`` says what a process is for the command (e.g. its rounds).
    ``windows_default`` and ``processes_default``, when given, say how the command chooses
    ``--windows`` and ``--processes`` itself when that depends on other options (then None
    when not given)."""
    plan = defaults or SamplingPlan()
    parser.add_argument(
        "--processes", type=int, default=None if processes_default else plan.processes,
        help=f"{processes_help} (default {processes_default or plan.processes})",
    )  # fmt: skip
    parser.add_argument(
        "--windows", type=int,
        default=None if windows_default else plan.windows_per_process,
        help="windows per parameter set in each process "
        f"(default {windows_default or plan.windows_per_process})",
    )  # fmt: skip
    parser.add_argument(
        "--warmup", type=float, default=plan.warmup_s,
        help=f"warm-up seconds before each window (default {plan.warmup_s:g})",
    )  # fmt: skip
    parser.add_argument(
        "--window", "--duration", dest="window", type=float, default=plan.window_s,
        help=f"measurement window seconds (default {plan.window_s:g})",
    )  # fmt: skip
    parser.add_argument(
        "--wait-budget", dest="wait_budget", type=float, default=plan.wait_budget_s,
        help="seconds the waited retries of a set with every window disturbed may take in "
        f"the whole run, each its wait plus its window (default {plan.wait_budget_s:g})",
    )  # fmt: skip


def plan_from_args(
    args: argparse.Namespace,
    windows: int | None = None,
    *,
    processes: int | None = None,
    validate: bool = True,
) -> SamplingPlan:
    """The plan :func:`add_plan_arguments`' options give (``windows``, ``processes``:
    instead of ``--windows``, ``--processes``). ``validate=False`` leaves the check to the
    job that takes the plan (when it needs one at all, and with its own error type).

    Raises:
        ValueError: a value out of range (:meth:`SamplingPlan.validate`), when validating.
    """
    plan = SamplingPlan(
        processes=args.processes if processes is None else processes,
        windows_per_process=args.windows if windows is None else windows,
        warmup_s=args.warmup, window_s=args.window, wait_budget_s=args.wait_budget,
    )  # fmt: skip
    if validate:
        plan.validate()
    return plan
