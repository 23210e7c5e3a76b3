"""wsbench: the harness that measures Python WebSocket servers with a native load generator.

Modules, one job each:

- :mod:`wsbench.paths`: where the repository's parts live.
- :mod:`wsbench.impls`: the implementations under ``impls/`` and their metadata.
- :mod:`wsbench.cpus`: which CPUs the server and the load generator are pinned to.
- :mod:`wsbench.loadgen`: building and running the native load generator.
- :mod:`wsbench.loadreport`: the load generator's report as typed structs (its contract).
- :mod:`wsbench.scenarios`: the scenarios, one module each, and their registry.
- :mod:`wsbench.server`: one server subprocess, from start to a clean stop.
- :mod:`wsbench.sampler`: the server's CPU and memory during the measurement window.
- :mod:`wsbench.measure`: one measurement window (server + load generator + sampler), and
  a server process serving several.
- :mod:`wsbench.sampling`: samples: windows in several server processes, disturbed ones
  marked and measured again.
- :mod:`wsbench.runformat`: the run format, the one source of every figure.
- :mod:`wsbench.store`: the results store, where runs are added and never overwritten.
- :mod:`wsbench.provenance`: the machine, harness, load generator and implementation facts.
- :mod:`wsbench.metrics`: the published figures, one definition each.
- :mod:`wsbench.stats`: medians, confidence intervals, comparisons, tied ranks.
- :mod:`wsbench.suite`: what the asv benchmarks run.
- :mod:`wsbench.compare`, :mod:`wsbench.interleave`, :mod:`wsbench.venvs`,
  :mod:`wsbench.comparejob`: comparisons of runs, commits and versions.
- :mod:`wsbench.instructions`, :mod:`wsbench.instruction_verdicts`: the server's
  instructions per message under valgrind, and their verdicts; :mod:`wsbench.crosscheck`:
  those counts against the CPU time per message of the same run (rank correlation).
- :mod:`wsbench.noise`: the noise study.
- :mod:`wsbench.nightly`, :mod:`wsbench.matrix`: the nightly's steps, and which older
  versions a night measures.
- :mod:`wsbench.asv_main`: asv's command line, its configuration read faster.
- :mod:`wsbench.cli`: the command line.
"""

__version__ = "0.1.0"
