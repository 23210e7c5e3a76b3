"""The generated parts of the hand-written Methodology page (``site/methodology.md``).

The page holds :data:`SCENARIOS_MARKER` where the list of every scenario belongs; the mkdocs
hook replaces it with :func:`render_scenarios` (:func:`fill_markers`), so the scenarios, their
parameter sets in both grids and the many-connection settings are always those of
:mod:`wsbench.scenarios`, never typed by hand.
"""

from __future__ import annotations

from pathlib import Path

from wsbench.deployment import (
    MULTI_SERVER_CPUS_ENV,
    PROFILE_PARAMS,
    PROFILES,
    SHIPPED_COMPRESSION_FLAG,
    WORKER_PROCESSES_FLAG,
    Profile,
    TlsFiles,
    measured_profiles,
    server_args,
)
from wsbench.paths import IMPLS_DIR
from wsbench.policy import MATRIX_PERIOD_DAYS, OPEN_FILES_CAP, OTHER_PYTHONS_MINUTES
from wsbench.results.count_sets import LAYOUTS, SETS
from wsbench.results.function_diff import GROWERS_SHOWN
from wsbench.results.instruction_verdicts import SPREAD_FACTOR, THRESHOLD
from wsbench.results.memoryfit import FLOOR_BYTES, LINEARITY_TOLERANCE
from wsbench.results.metrics import SCENARIO_HEADLINES
from wsbench.results.profile_shares import CLASSES
from wsbench.results.runformat import ERROR_KINDS, FUNCTIONS_KEPT
from wsbench.scenarios import PARAM_DOCS, SCENARIOS, SOURCE_ADDRESSES, SPECS, Grid, connect, spec
from wsbench.scenarios import memory as memory_scenario
from wsbench.scenarios import soak as soak_scenario
from wsbench.site.frameworks import load_frameworks
from wsbench.site.markup import (
    cell,
    code,
    heading,
    params_title,
    profile_changes,
    set_words,
    table,
)
from wsbench.site.render import LEADERBOARD_PAGES, SCENARIO_TITLES
from wsbench.site.shared_cpu import methodology_list

METHODOLOGY_PAGE = "methodology.md"
"""The Methodology page, relative to the docs dir."""
SCENARIOS_MARKER = "<!-- wsbench: scenarios -->"
"""Where :func:`render_scenarios` goes on the Methodology page (on a line of its own)."""
MATRIX_MARKER = "<!-- wsbench: version matrix -->"
"""Where :func:`render_matrix` goes on the Methodology page (on a line of its own)."""
COUNT_VERDICTS_MARKER = "<!-- wsbench: count verdicts -->"
"""Where :func:`render_count_verdicts` goes on the Methodology page (within a line)."""
COUNTED_SETS_MARKER = "<!-- wsbench: counted sets -->"
"""Where :func:`render_counted_sets` goes on the Methodology page (on a line of its own)."""
PROFILE_CLASSES_MARKER = "<!-- wsbench: profile classes -->"
"""Where :func:`render_profile_classes` goes on the Methodology page (within a line)."""
DEPLOYMENT_MARKER = "<!-- wsbench: deployment profiles -->"
"""Where :func:`render_deployment_profiles` goes on the Methodology page (on a line of its
own)."""
SHARED_CPU_MARKER = "<!-- wsbench: shared cpu -->"
"""Where the configurations that state busy threads go on the Methodology page (on a line
of its own): :func:`wsbench.site.shared_cpu.methodology_list` of the implementations."""


def memory_steps_text() -> str:
    """The memory scenario's steps as fractions of N, e.g. ``"0.1, 0.5 and 1"``."""
    parts = [f"{f:g}" for f in memory_scenario.STEPS]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _sets(scenario: str, which: Grid) -> str:
    """A grid's sets in words (:func:`wsbench.site.markup.set_words`: the sets of a profile
    other than tuned with their profile), on a runner that measures every profile (the
    page is the same wherever it is built)."""
    found = spec(scenario).grid(which, PROFILES)
    return "; ".join(cell(set_words(tuple(p.items()))) for p in found) or "not measured"


def _ranked_by(scenario: str) -> str:
    metric = SCENARIO_HEADLINES[scenario]
    return f"{metric.label} ({'higher' if metric.higher_is_better else 'lower'} is better)"


def scenario_table() -> str:
    """Every scenario of :data:`wsbench.scenarios.SPECS` as a table: its title (linked to
    its leaderboard), what it measures, the figure its leaderboard ranks by, its endpoint,
    and its parameter sets in the full and the default grid."""
    rows = [
        [
            f"[{cell(SCENARIO_TITLES[s])}]({LEADERBOARD_PAGES[s]})",
            cell(SPECS[s].summary),
            cell(_ranked_by(s)),
            code(SPECS[s].endpoint),
            _sets(s, "full"),
            _sets(s, "default"),
        ]
        for s in SCENARIOS
    ]
    headers = [
        "Scenario",
        "What is measured",
        "Ranked by",
        "Endpoint",
        "Full grid (`./bench run --grid full`, the nightly)",
        "Default grid (`./bench run`, the main job)",
    ]
    return table(headers, rows)


def parameter_table() -> str:
    """Every parameter of the scenarios with its unit and meaning
    (:data:`wsbench.scenarios.PARAM_DOCS`)."""
    rows = [[code(name), cell(unit), cell(meaning)] for name, (unit, meaning) in PARAM_DOCS.items()]
    return table(["Parameter", "Unit", "Meaning"], rows)


def _max_connections() -> int:
    return max(v for s in SPECS.values() for v in s.axes.get("connections", (0,)))


def many_connections() -> str:
    """The Many connections section: source addresses, the open-file limit, when the CPU
    window opens, errors as figures, memory per connection, the soak run (every number
    from :mod:`wsbench.scenarios`)."""
    many = [SCENARIO_TITLES[s] for s in SCENARIOS if SPECS[s].many_connections]
    kinds = ", ".join(code(k) for k in ERROR_KINDS)
    return "\n".join(
        [
            heading("###", "Many connections", "many-connections"),
            f"The many-connection scenarios ({cell(', '.join(many))}) open up to "
            f"{_max_connections():,} connections at once.\n",
            f"- **Source addresses.** The load generator spreads their connections over "
            f"{SOURCE_ADDRESSES} loopback source addresses (127.0.0.1 to "
            f"127.0.0.{SOURCE_ADDRESSES}). One source address offers only the ephemeral "
            "port range, and every connection the client closes first keeps its port in "
            "TIME_WAIT for 60 s, so repeated windows of many connections, or a connect "
            "storm, would run out of ports from one address.",
            "- **Open files.** Every connection is a file descriptor in the server and in the "
            "load generator. The harness raises the open-file limit (`RLIMIT_NOFILE`) of both "
            "to its own hard limit (at most "
            f"{OPEN_FILES_CAP:,}) before they start, and the load generator refuses to start "
            "when the limit is below the connections it is asked for. Every run records the "
            "limit in its settings (`open_files`); the "
            "[Runs and environment](environment.md) page shows it.",
            "- **The CPU window opens after the connect phase.** The connections open first "
            "(their handshake latencies and connections/s are that phase's figures); when "
            "every connection attempt has ended, the load generator prints a line saying its "
            "traffic starts, and the warm-up and then the measurement window, over which the "
            "server's CPU and memory are sampled, follow that line. The CPU figure is that of "
            "the traffic, not of accepting connections.",
            "- **Errors are figures.** A connection that fails and a message that is lost are "
            f"counted by kind ({kinds}) as figures of the window, not as a failure of the "
            "benchmark: a window fails only when no connection succeeds. The leaderboards "
            "show the total over a row's windows with its non-zero kinds.",
            "- **Memory per connection is a slope.** In one server process the RSS is read "
            "before any connection, then the connections are opened in steps "
            f"({memory_steps_text()} of N), each step held open and idle after its "
            "handshakes for the settle time (the window) before the RSS is read again; "
            "the figure is the slope of the least-squares line through those points "
            "(bytes per connection), one per process, and its median over the processes "
            "with a 95 % interval; the line's value at zero is the *base memory*. A delta at "
            "one count, (RSS with N connections \u2212 RSS before) / N, under-counts: memory "
            "the allocator already holds (from start-up, the readiness probe) is reused "
            "without raising RSS, most for servers that pre-allocate pools, so that delta "
            "grows with N (websockets read 6.3 KB at 1,000 connections and 13.1 KB at 10,000 "
            "on a 2-core VM, while its documentation gives about 14 KiB without "
            "compression). The *kernel's share* is the same slope of the kernel's memory "
            "that grows with sockets (unreclaimable slab and TCP buffers, "
            "`/proc/meminfo` and `/proc/net/sockstat`), which is not in the server's RSS; it "
            "is machine-wide, so it counts both sockets of each loopback connection, the "
            "load generator's too. A figure is **flagged, not published bare**, when it is "
            f"below {FLOOR_BYTES} B per connection (less than any server here keeps for one "
            "socket in its own structures) or when a process's points lie off its line by "
            f"more than {100 * LINEARITY_TOLERANCE:.0f} % of the line's rise.",
            f"- **Connection setup**: each worker repeats connect, handshake, one "
            f"{connect.MESSAGE_BYTES}-byte message and close; connections/s counts the cycles "
            "completed in the window.",
            f"- **RSS growth** (soak): echo on {soak_scenario.CONNECTIONS} connections with "
            f"{soak_scenario.SIZE_BYTES:,}-byte messages, ping-pong, for a long window; the "
            "figure is the server's RSS at the window's end minus at its start.",
            "",
        ]
    )


def render_scenarios() -> str:
    """The generated part of the Methodology page's Scenarios section: every scenario with
    its parameter sets in both grids (:func:`scenario_table`), the parameters
    (:func:`parameter_table`) and the Many connections section (:func:`many_connections`)."""
    return "\n".join(
        [
            heading("###", "Every scenario and its parameter sets", "every-scenario"),
            "Generated from the harness's one definition of each scenario, one module each "
            "([`wsbench/scenarios/`](https://github.com/wsbench/wsbench/tree/main/"
            "wsbench/scenarios)). The **full grid** is what the nightly measures; the "
            "**default grid** is the main job's, a subset that fits its time budget. A "
            "scenario without a set in the default grid is measured only by the full grid; "
            "its leaderboard says so when no shown run has it.\n",
            scenario_table(),
            heading("###", "Parameters", "scenario-parameters"),
            parameter_table(),
            many_connections(),
        ]
    )


def render_matrix() -> str:
    """The Methodology page's paragraph on which versions a night measures
    (:mod:`wsbench.ci.matrix`)."""
    return (
        "**Every version, kept measured.** Each night measures the latest release of every "
        "configuration and every newer release on the package index, on the full grid. An "
        "older version of the matrix is measured on the same night, on the default grid and "
        "with the same settings (so that its figures share the comparison group), whenever "
        "it has no figure in the night's comparison group (the load generator's source, "
        "its compiler, the settings or the machine changed, or the version is new to "
        f"`meta.toml`), and otherwise once its figures are {MATRIX_PERIOD_DAYS} days old. "
        "Each framework page says, for each version, when and in which run it was last "
        "measured. By the same rule, the latest releases are measured on every other Python "
        "the runner has, with their instructions counted, as many as a shard starts in "
        f"{OTHER_PYTHONS_MINUTES} minutes a night (the rest on the next nights).\n"
    )


def render_count_verdicts() -> str:
    """The Methodology page's sentences on instruction-count verdicts, from
    :mod:`wsbench.results.instruction_verdicts`' threshold and spread factor, and on the
    functions named under a *slower* one (:data:`~wsbench.results.runformat.FUNCTIONS_KEPT`,
    :data:`~wsbench.results.function_diff.GROWERS_SHOWN`)."""
    return (
        f"Each set is counted in {LAYOUTS} server processes, each with its own memory layout. "
        f"A comparison calls a set *slower* or *faster* when the two sides differ by at "
        f"least {THRESHOLD:.0%} in instructions per message, or by {SPREAD_FACTOR:g} times "
        "the set's spread where that is larger; no statistical test is needed, because the "
        "counts do not vary with the machine's noise. Counts made with another valgrind, "
        "hash seed, stack layout, number of layouts, CPU model or load generator build are "
        "never compared. A "
        "new release whose count rose is reported at once, without the confirmation run a "
        "wall-clock regression needs. Under a *slower* set, the comparison "
        "(`./bench compare`, the pull request's comment, the nightly's report) names the "
        f"{GROWERS_SHOWN} functions whose own instructions per message grew most, with their "
        f"object file: each counted set keeps its {FUNCTIONS_KEPT} functions with the most, "
        "from callgrind's per-function counts of the same two dumps (a function kept on one "
        "side only counts as 0 on the other). They are C functions, the interpreter's, the C "
        "extensions' and the libraries': the work of Python code is the interpreter's "
        "(`_PyEval_EvalFrameDefault` and what it calls), and `./bench profile` names its "
        "Python functions."
    )


def render_counted_sets() -> str:
    """The parameter sets that are counted (:data:`wsbench.results.count_sets.SETS`) as a
    table: scenario (linked to its leaderboard), parameter set, the low and high counts."""
    rows = [
        [
            f"[{cell(SCENARIO_TITLES[s.scenario])}]({LEADERBOARD_PAGES[s.scenario]})",
            cell(params_title(tuple(s.params.items()))),
            f"{s.lo:,}",
            f"{s.hi:,}",
        ]
        for s in SETS
    ]
    headers = ["Scenario", "Parameter set", "Low count", "High count"]
    return (
        "The counted parameter sets, in the order one server process runs them (a count is "
        "messages per connection; in the fan-out scenarios, messages published):\n\n"
        + table(headers, rows, align="llrr")
    )


def render_profile_classes() -> str:
    """The classes a CPU profile's time is split into, in their order
    (:data:`wsbench.results.profile_shares.CLASSES`), in words: ``"*framework*, *event
    loop*, ... and *kernel*"``."""
    names = [f"*{cell(k)}*" for k in CLASSES]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _flags(args: list[str]) -> str:
    """A profile's server flags as code ("none" for none)."""
    return code(" ".join(args)) if args else "none"


def _shown_args(profile: Profile, tls: TlsFiles) -> list[str]:
    """``profile``'s server flags as the table shows them: N for the worker processes."""
    args = server_args(profile, tls if profile.tls else None, server_cpus=2)
    return [*args[:-1], "N"] if profile.worker_processes else args


def _measured_where(profile: Profile) -> str:
    """Where the full grid measures ``profile`` (:func:`wsbench.deployment.measured_profiles`)."""
    if profile in measured_profiles(()):
        return "yes"
    return f"on a runner with a multi-CPU server set ({code(MULTI_SERVER_CPUS_ENV)})"


def profile_table() -> str:
    """Every deployment profile of :data:`wsbench.deployment.PROFILES` as a table: its
    name on the site and in documents, what it runs (:func:`wsbench.site.markup.
    profile_changes`), its parameters in a set, the flags its server is started with
    (:func:`wsbench.deployment.server_args`) and where the full grid measures it
    (:func:`wsbench.deployment.measured_profiles`)."""
    placeholder = TlsFiles(Path("CERT.pem"), Path("KEY.pem"), Path("CA.pem"))  # the run's
    rows = [
        [
            f"*{cell(p.title)}* ({code(p.name)})",
            cell(profile_changes(p)),
            ", ".join(f"{code(k)} = {v}" for k, v in p.params.items()) or "none (left out)",
            _flags(_shown_args(p, placeholder)),
            _measured_where(p),
        ]
        for p in PROFILES
    ]
    headers = ["Profile", "What it runs", "Its parameters", "Server flags", "Measured"]
    return table(headers, rows)


def render_deployment_profiles() -> str:
    """The generated part of the Methodology page's Deployment profiles section: every
    profile (:func:`profile_table`) and the sets measured in every measured profile (each
    scenario's :attr:`~wsbench.scenarios.base.ScenarioSpec.profiled`)."""
    profiled = [
        f"{cell(SCENARIO_TITLES[s])}: "
        + "; ".join(cell(params_title(p)) for p in SPECS[s].profiled)
        for s in SCENARIOS
        if SPECS[s].profiled
    ]
    switches = ", ".join(code(p) for p in PROFILE_PARAMS)
    return "\n".join(
        [
            profile_table(),
            f"A profile's parameters ({switches}) are switches: 1 when on, left out of the set "
            f"when 0. {code(SHIPPED_COMPRESSION_FLAG)} keeps the framework's default "
            "compression (the tuned server turns it off); the TLS profiles' server gets the "
            "run's certificate and key; the workers profile's server gets "
            f"{code(WORKER_PROCESSES_FLAG + ' N')}, N the CPUs of the runner's multi-CPU "
            "server set, which the run's settings record. The sets measured in every "
            "measured profile, besides tuned:\n",
            *(f"- {line}" for line in profiled),
            "",
        ]
    )


def fill_markers(src_uri: str, markdown: str, impls_dir: Path = IMPLS_DIR) -> str:
    """``markdown`` of the page at ``src_uri`` (relative to the docs dir) with its markers
    replaced: the Methodology page's :data:`SCENARIOS_MARKER` by :func:`render_scenarios`,
    :data:`MATRIX_MARKER` by :func:`render_matrix`, :data:`COUNT_VERDICTS_MARKER` by
    :func:`render_count_verdicts`, :data:`COUNTED_SETS_MARKER` by
    :func:`render_counted_sets`, :data:`PROFILE_CLASSES_MARKER` by
    :func:`render_profile_classes`, :data:`DEPLOYMENT_MARKER` by
    :func:`render_deployment_profiles` and :data:`SHARED_CPU_MARKER` by the list of the
    implementations of ``impls_dir`` (:func:`wsbench.site.shared_cpu.methodology_list`);
    other pages unchanged."""
    if src_uri != METHODOLOGY_PAGE:
        return markdown
    if SHARED_CPU_MARKER in markdown:
        impls = [f.impl for f in load_frameworks(impls_dir)]
        markdown = markdown.replace(SHARED_CPU_MARKER, methodology_list(impls))
    markdown = markdown.replace(PROFILE_CLASSES_MARKER, render_profile_classes())
    markdown = markdown.replace(COUNT_VERDICTS_MARKER, render_count_verdicts())
    markdown = markdown.replace(COUNTED_SETS_MARKER, render_counted_sets())
    markdown = markdown.replace(MATRIX_MARKER, render_matrix())
    markdown = markdown.replace(DEPLOYMENT_MARKER, render_deployment_profiles())
    return markdown.replace(SCENARIOS_MARKER, render_scenarios())
