"""``./bench measure``: one configuration measured without asv, its summary or its record
printed."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from wsbench.commands.options import positive_float
from wsbench.instrument.cpus import placement_from
from wsbench.instrument.measure import MeasureConfig, measure
from wsbench.instrument.summary import summarize
from wsbench.scenarios import SCENARIOS, spec

NAME = "measure"
HELP = "measure one configuration without asv"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The implementation, scenario, parameters, window and CPUs."""
    parser.add_argument("--impl", required=True, help="implementation (see ./bench list)")
    parser.add_argument("--config", help="its configuration (default: the first; see ./bench list)")
    parser.add_argument("--scenario", choices=SCENARIOS, default="echo")
    parser.add_argument("--size", type=int, default=16, help="message size in bytes (>= 16)")
    parser.add_argument(
        "--in-flight", type=int, default=1, help="messages in flight per connection"
    )
    parser.add_argument(
        "--connections",
        type=int,
        help="connections (clients, memory: the number held open; default 1, offered: 10)",
    )
    parser.add_argument(
        "--subscribers", type=int, default=10, help="broadcast, market: subscribers (10)"
    )
    parser.add_argument(
        "--rate", type=float, default=0.0,
        help="messages/s: offered (echo at that rate), broadcast (published; 0: as fast as "
        "delivered), market (ticks; default 100)",
    )  # fmt: skip
    parser.add_argument(
        "--load-percent", type=int, default=0,
        help="offered: the rate as a percentage of the capacity measured first",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=int, default=16, help="connect scenario: concurrent workers (16)"
    )
    parser.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds")
    parser.add_argument("--duration", type=positive_float, default=3.0, help="window seconds")
    parser.add_argument("--text", action="store_true", help="text frames instead of binary")
    parser.add_argument(
        "--count", type=int, help="exact messages per connection instead of a window"
    )
    parser.add_argument("--server-cpus", help="CPU list for the server (default: 0)")
    parser.add_argument("--loadgen-cpus", help="CPU list for the load generator (default: 1)")
    parser.add_argument("--python", default=sys.executable, help="interpreter that runs the server")
    parser.add_argument("--json", action="store_true", help="print the full record entry as JSON")


def run(args: argparse.Namespace) -> int:
    """Measure; 0 when the measurement is ok, else 1."""
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
