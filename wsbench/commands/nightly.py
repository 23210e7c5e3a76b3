"""``./bench nightly STEP``: the nightly workflow's steps (:mod:`wsbench.ci.nightly`); their
options, and the typed values the steps take."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from wsbench.ci import confirm, github, matrix
from wsbench.ci import nightly as steps
from wsbench.ci.nightly import BRANCH, SHARDS, AllOptions, MeasureOptions, NightlyError
from wsbench.commands.options import add_plan_arguments, plan_from_args
from wsbench.results.runformat import Run
from wsbench.results.store import CONFORMANCE_SUBDIR, PROFILES_SUBDIR

NAME = "nightly"
HELP = "the nightly workflow's steps (see wsbench.ci.nightly)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The nightly command's subcommands and options."""
    sub = parser.add_subparsers(dest="step", required=True)
    plan = sub.add_parser("plan", help="a run id and the shards, as GitHub step outputs")
    plan.add_argument(
        "--shards", type=int, default=SHARDS, help=f"shards (default {SHARDS})"
    )  # fmt: skip
    msr = sub.add_parser(
        "measure", help="a shard: latest and new releases, then the older versions due"
    )
    msr.add_argument("--shard", default="1/1", metavar="I/N")
    msr.add_argument("--run-id", required=True)
    msr.add_argument("--store", type=Path, required=True, help="the shard's results store")
    add_matrix_arguments(msr)
    msr.add_argument("run_args", nargs=argparse.REMAINDER, help="-- then ./bench run options")
    grd = sub.add_parser(
        "grade", help="a shard: its new releases and the listed versions without a grade"
    )
    grd.add_argument("--shard", default="1/1", metavar="I/N")
    grd.add_argument("--run-id", required=True)
    grd.add_argument("--store", type=Path, required=True, help="the shard's results store")
    add_matrix_arguments(grd)
    prf = sub.add_parser(
        "profile", help="a shard: its latest releases' CPU profiles (py-spy, native frames)"
    )
    prf.add_argument("--shard", default="1/1", metavar="I/N")
    prf.add_argument("--run-id", required=True)
    prf.add_argument("--store", type=Path, required=True, help="the shard's results store")
    prf.add_argument(
        "--remote", help="the repository holding the results branch (which were profiled when)"
    )
    prf.add_argument("--branch", default=BRANCH)
    con = sub.add_parser("confirm", help="measure flagged new releases again, interleaved")
    con.add_argument("store", type=Path, help="the shard's results store")
    con.add_argument("--run-id", required=True)
    add_plan_arguments(con, "rounds: server processes per side", defaults=confirm.CONFIRM_PLAN)
    pub = sub.add_parser("publish", help="add shards' documents to the results branch, push")
    pub.add_argument("shard_stores", nargs="+", type=Path)
    pub.add_argument("--remote", required=True, help="the repository holding the branch")
    pub.add_argument("--branch", default=BRANCH)
    pub.add_argument("--store-dir", type=Path, required=True, help="a new folder for the clone")
    pub.add_argument("--reports", type=Path, help="write regression reports here")
    pub.add_argument("--allow-untuned", action="store_true")
    iss = sub.add_parser("issues", help="open or update one issue per regression report")
    iss.add_argument("--reports", type=Path, required=True)
    iss.add_argument("--repo", required=True)
    fail = sub.add_parser("failure", help="open or update the issue saying where it failed")
    fail.add_argument("--repo", required=True)
    fail.add_argument("--where", required=True, help="the failed job or step")
    fail.add_argument("--run-url", default="", help="the workflow run's address")
    every = sub.add_parser("all", help="the whole nightly here, shard after shard")
    every.add_argument("--remote", required=True)
    every.add_argument("--branch", default=BRANCH)
    every.add_argument("--shards", type=int, default=1)
    every.add_argument("--allow-untuned", action="store_true")
    every.add_argument("--work-dir", type=Path, help="where shards and the clone go")
    every.add_argument("--no-site", action="store_true")
    every.add_argument("--no-grade", action="store_true", help="do not grade the shards")
    every.add_argument("--no-profile", action="store_true", help="do not profile the shards")
    every.add_argument(
        "--matrix", choices=matrix.MODES, default="auto",
        help="older versions: when due (default), all, or none",
    )  # fmt: skip
    every.add_argument("run_args", nargs=argparse.REMAINDER, help="-- then ./bench run options")


def add_matrix_arguments(parser: argparse.ArgumentParser) -> None:
    """``--matrix`` and the results branch it reads (``--remote``, ``--branch``)."""
    parser.add_argument(
        "--matrix", choices=matrix.MODES, default="auto",
        help="older versions: when due (default; reads the results branch), all, or none",
    )  # fmt: skip
    parser.add_argument("--remote", help="the repository holding the results branch")
    parser.add_argument("--branch", default=BRANCH)


def run_options(remainder: Sequence[str]) -> list[str]:
    """The ``./bench run`` options of ``run_args`` (``-- OPTION...``), without the ``--``."""
    return [a for a in remainder if a != "--"]


def given_plan_options(argv: Sequence[str]) -> list[str]:
    """The sampling plan's options given in ``argv`` (``./bench run`` options), as
    options for ``confirm``: ``["--windows", "2", ...]``; those not given are left out."""
    parser = argparse.ArgumentParser(add_help=False)
    add_plan_arguments(parser, "")
    parser.set_defaults(processes=None, windows=None, warmup=None, window=None)
    given, _ = parser.parse_known_args(list(argv))
    options = {"processes": "--processes", "windows": "--windows", "warmup": "--warmup",
               "window": "--window"}  # fmt: skip
    return [
        token
        for dest, option in options.items()
        if (value := getattr(given, dest)) is not None
        for token in (option, str(value))
    ]


def measure_options_of(args: argparse.Namespace) -> MeasureOptions:
    """The ``measure`` step's options from the parsed command line."""
    return MeasureOptions(
        run_id=args.run_id, store=args.store, shard=args.shard, matrix=args.matrix,
        remote=args.remote, branch=args.branch, run_args=tuple(run_options(args.run_args)),
    )  # fmt: skip


def all_options_of(args: argparse.Namespace) -> AllOptions:
    """The ``all`` step's options from the parsed command line: the ``./bench run`` options
    after ``--``, and the sampling plan's among them for each shard's ``confirm``."""
    extra = run_options(args.run_args)
    return AllOptions(
        remote=args.remote, branch=args.branch, shards=args.shards,
        allow_untuned=args.allow_untuned, work_dir=args.work_dir, no_site=args.no_site,
        no_grade=args.no_grade, no_profile=args.no_profile,
        matrix=args.matrix, run_args=tuple(extra), confirm_args=tuple(given_plan_options(extra)),
    )  # fmt: skip


def grade_of(args: argparse.Namespace) -> bool:
    """The ``grade`` step (:func:`wsbench.ci.nightly.grade`), the results branch's grades
    read first when ``--matrix`` is "auto"; False when the suite could not run.

    Raises:
        NightlyError: "auto" without ``--remote``, the branch could not be cloned, or a
            malformed shard.
    """
    grades: list[Run] = []
    if args.matrix == "auto":
        if args.remote is None:
            raise NightlyError("--matrix auto reads the results branch: give --remote")
        grades = steps.published_runs(args.remote, args.branch, CONFORMANCE_SUBDIR)
    return steps.grade(args.shard, args.run_id, args.store, mode=args.matrix, grades=grades)


def profile_of(args: argparse.Namespace) -> bool:
    """The ``profile`` step (:func:`wsbench.ci.nightly.profile`), the results branch's
    profiles read first when ``--remote`` is given (without it, every configuration counts
    as never profiled); False when the profiler could not run.

    Raises:
        NightlyError: the branch could not be cloned, or a malformed shard.
    """
    published: list[Run] = []
    if args.remote is not None:
        published = steps.published_runs(args.remote, args.branch, PROFILES_SUBDIR)
    return steps.profile(args.shard, args.run_id, args.store, published=published)


def run(args: argparse.Namespace) -> int:
    """Run one step; returns the exit code.

    Raises:
        NightlyError, wsbench.ci.github.GitHubError: a step failed.
    """
    if args.step == "plan":
        print(steps.plan_outputs(args.shards), end="")
    elif args.step == "measure":
        steps.measure(measure_options_of(args))
    elif args.step == "grade":
        return 0 if grade_of(args) else 1
    elif args.step == "profile":
        return 0 if profile_of(args) else 1
    elif args.step == "confirm":
        try:
            plan = plan_from_args(args)
        except ValueError as exc:
            raise NightlyError(str(exc)) from exc
        steps.confirm_shard(args.store, args.run_id, plan)
    elif args.step == "publish":
        steps.publish(
            args.shard_stores, remote=args.remote, branch=args.branch,
            store_dir=args.store_dir, allow_untuned=args.allow_untuned, reports=args.reports,
        )  # fmt: skip
    elif args.step == "issues":
        for line in steps.file_issues(args.reports, args.repo):
            print(f"nightly: {line}")
    elif args.step == "failure":
        body = steps.failure_body(args.where, args.run_url)
        print(f"nightly: {github.upsert_issue(steps.FAILURE_TITLE, body, repo=args.repo)}")
    else:
        return steps.run_all(all_options_of(args))
    return 0
