"""The Clients pages: the client libraries' leaderboards (one table per parameter set of
:data:`wsbench.scenarios.CLIENT_GRID`, the 256 B ping-pong first) and one page per library
with its figures by version.

Every figure comes from the client store (``<store>/clients``, :mod:`wsbench.jobs.clients`)
through the same rows as the servers' (:mod:`wsbench.site.rows`: messages/s and latency
over the server processes, messages/s with its 95 % interval; CPU as medians over the
windows). In a client's row the load generator's CPU is the client's own; the server's CPU
is the native reference server's, and a figure whose server used more than
:data:`wsbench.instrument.measure.CLIENT_BOUND_CPU_PERCENT` of its core is flagged as possibly
server-bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wsbench.impls import Impl
from wsbench.results.metrics import CLIENT_BOUND_CPU_PERCENT
from wsbench.scenarios import CLIENT_GRID, params_key
from wsbench.site import templates
from wsbench.site.markup import (
    CONFIDENCE_PERCENT,
    DASH,
    cell,
    link,
    num,
    short_reason,
    spread,
    table,
)
from wsbench.site.results import EnvRun, Results, natural_key
from wsbench.site.rows import Row

CLIENTS_INDEX = "clients/index.md"
"""The Clients leaderboards."""
HEADLINE = {"size_bytes": 256, "in_flight": 1}
"""The parameter set of the first table (256 B ping-pong)."""
SCENARIO_WORDS = {"echo": "Echo", "stream": "Receive from a push"}


def client_page(name: str) -> str:
    """The page of client library ``name``."""
    return f"clients/{name}.md"


def set_title(scenario: str, params: dict[str, int]) -> str:
    """A table's title, e.g. ``"Ping-pong, 256 B"``, ``"Pipelined (64 in flight), 16 B"``,
    ``"Receive from a push, 1,024 B"``."""
    size = f"{params['size_bytes']:,} B"
    if scenario == "stream":
        return f"{SCENARIO_WORDS['stream']}, {size}"
    if params.get("in_flight", 1) == 1:
        return f"Ping-pong, {size}"
    return f"Pipelined ({params['in_flight']} in flight), {size}"


def ordered_sets() -> list[tuple[str, dict[str, int]]]:
    """Every (scenario, parameter set) of the client grid, the headline first."""
    sets: list[tuple[str, dict[str, int]]] = [
        (s, dict(p)) for s, grid in CLIENT_GRID.items() for p in grid
    ]
    sets.sort(key=lambda item: not (item[0] == "echo" and item[1] == HEADLINE))
    return sets


def server_bound(row: Row) -> bool:
    """The reference server used more than :data:`CLIENT_BOUND_CPU_PERCENT` of its core."""
    cpu = row.server_cpu_percent
    return cpu is not None and cpu > CLIENT_BOUND_CPU_PERCENT


def flag(row: Row) -> str:
    """What a row's reader must know: failed with the reason, or possibly server-bound."""
    if not row.ok:
        return f"**{row.status}**: {cell(short_reason(row.error or row.status, 200))}"
    if server_bound(row):
        return f"⚠ server-bound (reference server CPU {row.server_cpu_percent:.0f} %)"
    return ""


def row_for(run: EnvRun, scenario: str, params: dict[str, int]) -> Row | None:
    """``run``'s row of ``scenario`` at ``params``, if it measured it."""
    key = params_key(params)
    for row in run.rows:
        if row.scenario == scenario and params_key(dict(row.params)) == key:
            return row
    return None


def latest_runs(results: Results) -> list[EnvRun]:
    """Per machine, (library, configuration) and Python, the environment of its newest
    version: every EnvRun of it (its figures may come from several runs)."""
    newest: dict[tuple[str, str, str, str], EnvRun] = {}
    for run in results.runs:
        key = (run.machine, run.impl.name, run.impl.config, run.doc.python)
        known = newest.get(key)
        if known is None or natural_key(run.impl.version or "") > natural_key(
            known.impl.version or ""
        ):
            newest[key] = run
    chosen = {run.env_id for run in newest.values()}
    return [run for run in results.runs if run.env_id in chosen]


@dataclass(frozen=True)
class _Line:
    run: EnvRun
    row: Row


HEADERS = ["Rank", "Client", "Version", f"messages/s ({CONFIDENCE_PERCENT} % CI)", "p50 µs",
           "p99 µs", "client CPU %", "server CPU %", "n", "Flags"]  # fmt: skip


def _cells(rank: str, line: _Line, linked: bool) -> list[str]:
    run, row = line.run, line.row
    name = (
        link(run.label, client_page(run.impl.name).removeprefix("clients/"))
        if linked
        else (cell(run.label))
    )
    return [
        rank, name, cell(run.impl.version or ""),
        spread(row.messages_per_s, ",.0f"),
        num(row.latency_p50_s.value if row.latency_p50_s else None, ",.0f", 1e-6),
        num(row.latency_p99_s.value if row.latency_p99_s else None, ",.0f", 1e-6),
        num(row.loadgen_cpu_percent, ".0f"), num(row.server_cpu_percent, ".0f"),
        str(row.n) if row.ok else DASH, flag(row),
    ]  # fmt: skip


def leaderboard(runs: Sequence[EnvRun], scenario: str, params: dict[str, int]) -> str:
    """One table: every run's row at this parameter set, ranked by messages/s (failed rows
    last, unranked)."""
    lines = [_Line(run, row) for run in runs if (row := row_for(run, scenario, params))]
    lines.sort(
        key=lambda x: (
            not x.row.ok,
            -(x.row.messages_per_s.value if x.row.ok and x.row.messages_per_s else 0),
            natural_key(x.run.label),
        )
    )
    if not lines:
        return "Not measured yet.\n"
    cells = [
        _cells(str(i) if line.row.ok else DASH, line, linked=True)
        for i, line in enumerate(lines, 1)
    ]
    return table(HEADERS, cells, "lllrrrrrrl")


def render_clients_index(results: Results, clients: Sequence[Impl], repo_url: str) -> str:
    """The Clients page (``templates/clients.md.j2``): the leaderboards, then the libraries
    and their pages."""
    runs = latest_runs(results)
    machines = []
    for machine in results.machines or [""]:
        mine = [r for r in runs if r.machine == machine]
        boards = [
            {"title": set_title(scenario, params), "table": leaderboard(mine, scenario, params)}
            for scenario, params in ordered_sets()
        ]
        name = cell(machine) if len(results.machines) > 1 else ""
        machines.append({"name": name, "boards": boards})
    libraries = table(
        ["Library", "Configurations", "Versions"],
        [
            [
                link(c.display_name, client_page(c.name).removeprefix("clients/")),
                cell(", ".join(f"{cfg.api} · {cfg.event_loop}" for cfg in c.configs)),
                cell(", ".join(v.version for v in c.versions)),
            ]
            for c in clients
        ],
    )
    return templates.render(
        "clients.md.j2",
        repo=repo_url,
        limit=CLIENT_BOUND_CPU_PERCENT,
        measured=bool(runs),
        machines=machines,
        libraries=libraries,
    )


def render_client(client: Impl, results: Results, repo_url: str) -> str:
    """A library's page (``templates/client.md.j2``): its configurations, its deviations,
    and per parameter set every (configuration, version) it was measured at."""
    runs = [r for r in results.runs if r.impl.name == client.name]
    runs.sort(key=lambda r: (r.machine, r.impl.config, natural_key(r.impl.version or "")))
    configurations = table(
        ["Configuration", "API", "Event loop", "Versions"],
        [
            [
                cell(c.id),
                cell(c.api),
                cell(c.event_loop),
                cell(", ".join(c.versions or [v.version for v in client.versions])),
            ]
            for c in client.configs
        ],
    )
    boards = []
    for scenario, params in ordered_sets():
        lines = [_Line(r, row) for r in runs if (row := row_for(r, scenario, params))]
        cells = [_cells(DASH, line, linked=False)[1:] for line in lines]
        boards.append(
            {
                "title": set_title(scenario, params),
                "table": table(HEADERS[1:], cells, "llrrrrrrl") if cells else "Not measured yet.\n",
            }
        )
    return templates.render(
        "client.md.j2",
        name=cell(client.display_name),
        package=client.package,
        homepage=client.homepage,
        folder_name=client.name,
        folder=f"{repo_url}/tree/main/clients/{client.name}",
        configurations=configurations,
        deviations=[(cell(k), cell(v)) for k, v in client.deviations.items()],
        measured=bool(runs),
        boards=boards,
    )
