"""The command line: ``./bench run | test | measure | list | asv-conf`` (``./bench --help``)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from wsbench.asv import conf as asvconf
from wsbench.asv.venvs import VenvError
from wsbench.ci import devtest, github, nightly
from wsbench.ci import pull_request as prcompare
from wsbench.ci import workflow_lint as workflowlint
from wsbench.ci.github import GitHubError
from wsbench.impls import ImplError, all_impls
from wsbench.instrument import loadgen, system
from wsbench.instrument.cpus import CpuSetError, placement_from
from wsbench.instrument.measure import ConfigError, MeasureConfig, measure
from wsbench.instrument.summary import summarize
from wsbench.jobs import clients as clientjob
from wsbench.jobs import compare as comparejob
from wsbench.jobs import crosscheck, noise
from wsbench.jobs import main as mainjob
from wsbench.paths import CLIENTS_DIR, SITE_DIR
from wsbench.results import store
from wsbench.results.compare import CompareError
from wsbench.scenarios import SCENARIOS, spec


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="./bench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="the main job: build, benchmark with asv, build the site")
    mainjob.add_arguments(run)

    sub.add_parser("test", help="ruff, mypy, cargo test and pytest (what CI runs)")

    m = sub.add_parser("measure", help="measure one configuration without asv")
    m.add_argument("--impl", required=True, help="implementation (see ./bench list)")
    m.add_argument("--config", help="its configuration (default: the first; see ./bench list)")
    m.add_argument("--scenario", choices=SCENARIOS, default="echo")
    m.add_argument("--size", type=int, default=16, help="message size in bytes (>= 16)")
    m.add_argument("--in-flight", type=int, default=1, help="messages in flight per connection")
    m.add_argument(
        "--connections",
        type=int,
        help="connections (clients, memory: the number held open; default 1, offered: 10)",
    )
    m.add_argument(
        "--subscribers", type=int, default=10, help="broadcast, market: subscribers (10)"
    )
    m.add_argument(
        "--rate", type=float, default=0.0,
        help="messages/s: offered (echo at that rate), broadcast (published; 0: as fast as "
        "delivered), market (ticks; default 100)",
    )  # fmt: skip
    m.add_argument(
        "--load-percent", type=int, default=0,
        help="offered: the rate as a percentage of the capacity measured first",
    )  # fmt: skip
    m.add_argument(
        "--workers", type=int, default=16, help="connect scenario: concurrent workers (16)"
    )
    m.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds")
    m.add_argument("--duration", type=_positive_float, default=3.0, help="window seconds")
    m.add_argument("--text", action="store_true", help="text frames instead of binary")
    m.add_argument("--count", type=int, help="exact messages per connection instead of a window")
    m.add_argument("--server-cpus", help="CPU list for the server (default: 0)")
    m.add_argument("--loadgen-cpus", help="CPU list for the load generator (default: 1)")
    m.add_argument("--python", default=sys.executable, help="interpreter that runs the server")
    m.add_argument("--json", action="store_true", help="print the full record entry as JSON")

    comp = sub.add_parser(
        "compare", help="two runs, or two versions measured interleaved, figure by figure"
    )
    comparejob.add_arguments(comp)

    cross = sub.add_parser(
        "crosscheck", help="a run's instructions per message against its CPU time per message"
    )
    crosscheck.add_arguments(cross)

    study = sub.add_parser(
        "noise", help="the noise study: variation within and between server processes"
    )
    noise.add_arguments(study)

    sub.add_parser("lint-workflows", help="actionlint and zizmor over .github/workflows")

    prc = sub.add_parser("pr-compare", help="a pull request against its merge base, interleaved")
    prcompare.add_arguments(prc)

    info = sub.add_parser("pr-info", help="a pull request's head and base commits (gh)")
    info.add_argument("--pr", type=int, required=True)
    info.add_argument("--repo", required=True, help="OWNER/NAME")
    comment = sub.add_parser("pr-comment", help="post or update the comparison's comment (gh)")
    which = comment.add_mutually_exclusive_group(required=True)
    which.add_argument("--pr", type=int)
    which.add_argument(
        "--pr-file", type=Path,
        help="a file holding the number (an artifact's: checked against --head-sha)",
    )  # fmt: skip
    comment.add_argument("--head-sha", help="with --pr-file: the commit that was measured")
    comment.add_argument("--repo", required=True, help="OWNER/NAME")
    comment.add_argument("--markdown", type=Path, required=True)
    comment.add_argument("--remove-label", help="the label that asked for the comparison")

    night = sub.add_parser("nightly", help="the nightly workflow's steps (see wsbench.ci.nightly)")
    nightly.add_arguments(night)

    site = sub.add_parser("site", help="build the site from a results store")
    site.add_argument(
        "--results", type=Path, help="the store (default: WSBENCH_RESULTS or results/)"
    )

    sys_cmd = sub.add_parser("system", help="the machine's tuning for benchmarking")
    sys_sub = sys_cmd.add_subparsers(dest="system_command", required=True)
    chk = sys_sub.add_parser("check", help="governor, turbo, SMT, isolation... each ok or not")
    chk.add_argument("--server-cpus", help="CPU list for the server (default: 0)")
    chk.add_argument("--loadgen-cpus", help="CPU list for the load generator (default: 1)")
    chk.add_argument("--json", action="store_true", help="print the check as JSON")
    chk.add_argument("--require-tuned", action="store_true", help="exit 1 unless every item is ok")

    cli_clients = sub.add_parser(
        "clients", help="the client libraries (clients/) against the native reference server"
    )
    clientjob.add_arguments(cli_clients)

    sub.add_parser("list", help="implementations, their configurations and versions")

    conf = sub.add_parser("asv-conf", help="regenerate asv.conf.json from impls/*/meta.toml")
    conf.add_argument("--check", action="store_true", help="only check it is up to date")
    return parser


def _measure(args: argparse.Namespace) -> int:
    rate = args.rate or spec(args.scenario).default_rate
    params = {
        "size_bytes": args.size, "in_flight": args.in_flight, "workers": args.workers,
        "subscribers": args.subscribers, "load_percent": args.load_percent,
    }  # fmt: skip
    if args.connections is not None:
        params["connections"] = args.connections
    config = dataclasses.replace(
        MeasureConfig.for_params(
            args.impl, args.config, args.scenario, params,
            warmup_s=args.warmup, window_s=args.duration,
        ),
        duration_s=args.duration, text=args.text, count=args.count, rate=rate,
    )  # fmt: skip
    result = measure(
        config, python=args.python, placement=placement_from(args.server_cpus, args.loadgen_cpus)
    )
    print(json.dumps(result.to_record(), indent=1) if args.json else summarize(result))
    return 0 if result.status == "ok" else 1


def _list() -> int:
    for impl in [*all_impls(), *all_impls(CLIENTS_DIR)]:
        versions = ", ".join(v.version for v in impl.versions) or "(built from loadgen/)"
        print(f"{impl.name}: {versions}")
        for config in impl.configs:
            only = f"  (versions {', '.join(config.versions)})" if config.versions else ""
            print(f"  --config {config.id:26} {impl.row_name(config)}{only}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 for bad input, with a message)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return mainjob.run(args)
        if args.command == "test":
            return devtest.run()
        if args.command == "measure":
            return _measure(args)
        if args.command == "lint-workflows":
            return workflowlint.run()
        if args.command == "pr-compare":
            return prcompare.run(args)
        if args.command == "pr-info":
            found = github.pull_request(args.pr, repo=args.repo)
            print("".join(f"{k}={v}\n" for k, v in found.items()), end="")
            return 0
        if args.command == "pr-comment":
            pr = args.pr
            if args.pr_file is not None:
                if not args.head_sha:
                    raise GitHubError("--pr-file needs --head-sha (the commit that was measured)")
                text = args.pr_file.read_text(encoding="utf-8", errors="replace")
                pr = github.pr_of_artifact(text, args.head_sha, repo=args.repo)
            body = args.markdown.read_text(encoding="utf-8", errors="replace")
            done = github.upsert_pr_comment(pr, body, repo=args.repo, label=args.remove_label)
            print(f"wsbench: comment {done} on #{pr}")
            return 0
        if args.command == "nightly":
            return nightly.run(args)
        if args.command == "site":
            mainjob.build_site(args.results or store.root_from_env())
            print(f"wsbench: site built in {SITE_DIR}")
            return 0
        if args.command == "system":
            result = system.check(placement_from(args.server_cpus, args.loadgen_cpus))
            print(system.encode(result) if args.json else system.to_text(result), end="")
            return 1 if args.require_tuned and not result.tuned else 0
        if args.command == "list":
            return _list()
        if args.command == "clients":
            return clientjob.run(args)
        if args.command == "noise":
            return noise.run(args)
        if args.command == "compare":
            return comparejob.run(args)
        if args.command == "crosscheck":
            return crosscheck.run(args)
        if args.command == "asv-conf":
            if args.check:
                ok = asvconf.is_in_sync()
                print(
                    "asv.conf.json is up to date"
                    if ok
                    else "asv.conf.json is stale: ./bench asv-conf"
                )
                return 0 if ok else 1
            asvconf.write()
            print(f"wrote {asvconf.CONF_PATH}")
            return 0
    except (
        ConfigError, ImplError, CpuSetError, mainjob.MainJobError, CompareError,
        nightly.NightlyError, crosscheck.CrossCheckError,
    ) as exc:  # fmt: skip
        print(f"wsbench: {exc}", file=sys.stderr)
        return 2
    except (loadgen.LoadgenError, VenvError, GitHubError, workflowlint.LintSetupError) as exc:
        print(f"wsbench: {exc}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
