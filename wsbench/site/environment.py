"""Markdown of the Runs and environment page: which runs the shown figures come from, the
machine and software they recorded, and every other run (listed, never compared)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from wsbench.cpulist import cpu_list
from wsbench.results.runformat import SystemCheck
from wsbench.site import templates
from wsbench.site.downloads import COLUMNS, DOWNLOADS_DIR, download_links
from wsbench.site.installed import installed_table
from wsbench.site.markup import DASH, cell, code, heading, table
from wsbench.site.render import NO_RESULTS, machine_heading, row_name_cell
from wsbench.site.results import EnvRun, Results, RunInfo, by_environment
from wsbench.site.sources import (
    RUNS_PAGE_TITLE,
    commit_text,
    date_text,
    loadgen_text,
    run_ids,
    settings_text,
    waited_text,
)

ENVIRONMENT_PAGE = "environment.md"
"""The Runs and environment page, relative to the docs dir."""
RAW_RESULTS_ANCHOR = "raw-results"
"""The id of its section on the downloads (what the JSON and CSV files hold)."""
GIB = float(2**30)


def _distinct(values: Iterable[object | None]) -> str:
    seen: list[str] = []
    for value in values:
        if value is None or value == "":
            continue
        text = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        if text not in seen:
            seen.append(text)
    return cell("; ".join(seen)) if seen else "not recorded"


def _span(infos: Sequence[RunInfo]) -> str | None:
    start = date_text(min(i.started_at for i in infos))
    ends = [i.finished_at for i in infos]
    end = None if None in ends else date_text(max(e for e in ends if e))
    return f"{start} to {end}" if end else f"started {start}"


def _run_rows(infos: Sequence[RunInfo], shown: bool) -> list[list[str]]:
    rows = []
    for info in infos:
        row = [
            code(info.run_id),
            cell(date_text(info.started_at) or DASH),
            cell(settings_text(info.settings)),
            cell(loadgen_text(info.loadgen)),
            cell(", ".join(commit_text(c) for c in info.harness_commits)),
        ]
        if shown:
            note = info.why_not_shown
            if note and info.figures:
                note += f" ({info.figures_shown} of its {info.figures} figures shown)"
            row += [f"{info.shown} of {info.environments}", cell(note or DASH)]
        else:
            row += [str(info.environments), cell(info.why_not_shown)]
        rows.append([*row, download_links(info.machine, info.run_id)])
    return rows


def _facts(runs: Sequence[EnvRun], infos: Sequence[RunInfo]) -> str:
    docs = [r.doc for r in runs]
    s = docs[0].settings
    facts = [
        ["Machine name", code(docs[0].machine.name)],
        ["CPU model", _distinct(d.machine.cpu_model for d in docs)],
        ["CPU count", _distinct(d.machine.cpu_count for d in docs)],
        ["RAM", _distinct(f"{d.machine.ram_bytes / GIB:.1f} GiB" for d in docs)],
        ["Kernel", _distinct(d.machine.kernel for d in docs)],
        ["CPUs used by the server", _distinct([s.server_cpus])],
        ["CPUs used by the load generator", _distinct([s.loadgen_cpus])],
        [
            "CPUs of the server in the multi-CPU profiles",
            _distinct(
                f"{cpu_list(d.settings.multi_server_cpus)} (2 CPUs on the first two; workers: "
                f"{len(d.settings.multi_server_cpus)} worker processes)"
                if d.settings.multi_server_cpus
                else "none: the 2 CPUs and workers profiles not measured"
                for d in docs
            ),
        ],
        ["Python", _distinct(d.environment.python for d in docs)],
        ["Load generator", _distinct(loadgen_text(d.loadgen) for d in docs)],
        ["Load generator compiler", _distinct(d.loadgen.rustc for d in docs)],
        ["Harness commit(s)", _distinct(commit_text(d.harness.commit) for d in docs)],
        ["Samples", cell(settings_text(s) + f", {s.connections} connection(s)")],
        [
            "Open-file limit (RLIMIT_NOFILE)",
            _distinct(
                f"{d.settings.open_files:,}" if d.settings.open_files else "not recorded"
                for d in docs
            ),
        ],
        [
            "Disturbed window",
            cell(
                f"other work above {s.max_other_cpu_percent:g} % CPU or steal time above "
                f"{s.max_steal_percent:g} % on the measured CPUs, left out of every figure; "
                f"one disturbed by other work is measured again up to {s.retries} times"
                + waited_text(s)
            ),
        ],
        ["Date of the runs", _distinct([_span([i for i in infos if i.shown])])],
    ]
    return table(["", ""], facts)


def _tuning(runs: Sequence[EnvRun]) -> str:
    """The tuning check (``./bench system check``) each shown run recorded when it started."""
    checks: dict[str, SystemCheck] = {}
    for r in runs:
        if r.doc.system is not None:
            checks.setdefault(r.run_id, r.doc.system)
    if not checks:
        return "Not recorded: the shown runs predate the tuning check.\n"
    out = []
    for run_id, check in checks.items():
        verdict = "tuned" if check.tuned else "**not tuned** for benchmarking"
        out.append(f"Run {code(run_id)}: {verdict}.\n")
        rows = [
            [cell(i.name), cell("ok" if i.ok else "not ok"), cell(i.value), cell(i.reason or DASH)]
            for i in check.items
        ]
        out.append(table(["Item", "", "Value", "Why not"], rows))
    return "\n".join(out)


def _versions(runs: Sequence[EnvRun]) -> str:
    """One row per environment, naming every run its shown figures come from (newest
    first)."""
    rows = [
        [
            row_name_cell(r) + (" (reference)" if r.impl.reference else ""),
            cell(r.impl.version or DASH),
            code(r.env_name),
            ", ".join(code(i) for i in run_ids(env)),
            _distinct(e.doc.environment.python for e in env),
        ]
        for env in by_environment(runs)
        for r in env[:1]
    ]
    return table(["Framework", "Version", "asv environment", "Run", "Python"], rows)


def render_environment(results: Results) -> str:
    """The Runs and environment page: per machine, the runs of the current comparison group
    (run id, date, settings, load generator build, harness commit, environments), the
    machine and software they recorded, the environments shown with the packages installed
    in each (:func:`wsbench.site.installed.installed_table`), and every other run with why
    it is not shown. Every value comes from the run documents."""
    level = "###" if len(results.machines) > 1 else "##"
    run_headers = ["Run", "Started", "Settings", "Load generator", "Harness commit"]
    machines = []
    for machine in results.machines:
        runs = [r for r in results.runs if r.machine == machine]
        infos = [i for i in results.history if i.machine == machine]
        current = [i for i in infos if i.current and i.shown]
        others = [i for i in infos if not (i.current and i.shown)]
        other_headers = [*run_headers, "Environments", "Why not shown", "Download"]
        machines.append(
            {
                "heading": machine_heading(results, machine, "##"),
                "shown": table(
                    [*run_headers, "Environments shown", "Note", "Download"],
                    _run_rows(current, shown=True),
                ),
                "facts": _facts(runs, infos),
                "tuning": _tuning(runs),
                "versions": _versions(runs),
                "installed": installed_table(runs),
                "others": table(other_headers, _run_rows(others, shown=False)) if others else "",
            }
        )
    return templates.render(
        "environment.md.j2",
        title=RUNS_PAGE_TITLE,
        no_results=NO_RESULTS,
        level=level,
        machines=machines,
        raw_results=raw_results(),
    )


def raw_results() -> str:
    """The section on the downloads: what the JSON and CSV file of each run hold, and the
    CSV's columns (:data:`wsbench.site.downloads.COLUMNS`: name, unit, meaning)."""
    columns = [[code(c.name), cell(c.unit or DASH), cell(c.meaning)] for c in COLUMNS]
    return "\n".join(
        [
            heading("##", "Raw results", RAW_RESULTS_ANCHOR),
            "Every run of the results store, shown or not, can be downloaded (the *Download* "
            "column above), in two files under "
            f"`{DOWNLOADS_DIR}/<machine>/<run id>`:\n",
            "- **JSON** (`.json`): the run's documents as the results store holds them, in a "
            "JSON array: one element per environment (framework, configuration, version) and "
            "harness commit, each a complete run document of the "
            "[run format](methodology.md#results-one-document-per-run-never-overwritten) "
            '(`"format": "wsbench-run"`, its version in `"version"`), with every sample '
            "and every failure. `wsbench.results.runformat.decode` validates one element; "
            "`wsbench.site.downloads.decode_bundle` reads the whole file.\n"
            "- **CSV** (`.csv`, UTF-8, comma-separated, with a header row): one row per sample "
            "(measurement window) of every document of the run, disturbed and failed windows "
            "included; a parameter set that failed without any sample has one row with its "
            "reason in `benchmark_error`, and an environment that did not install without "
            "any parameter set one row with `install_error`. Empty cells have no value "
            "(latency in a stream row, the sample of a failure); flags are `true` or "
            "`false`.\n",
            "The site's figures from these rows: of a parameter set, the usable rows "
            "(`usable` is `true`) grouped by `process`. A figure shown with an interval "
            "comes from the server processes, each counted once: a process's value is the "
            "geometric mean of its windows, and the figure is the geometric mean of the "
            "processes' values (plain means where a value is 0 or below; "
            "[Statistics](methodology.md#statistics)); a figure shown without one is the median "
            "over the windows. The CSV's columns:\n",
            table(["Column", "Unit", "Meaning"], columns),
        ]
    )
