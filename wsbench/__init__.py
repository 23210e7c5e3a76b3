"""wsbench: the harness that measures Python WebSocket servers with a native load generator.

Modules, one job each:

- :mod:`wsbench.paths`: where the repository's parts live.
- :mod:`wsbench.impls`: the implementations under ``impls/`` and their metadata.
- :mod:`wsbench.cpus`: which CPUs the server and the load generator are pinned to.
- :mod:`wsbench.loadgen`: building and running the native load generator.
- :mod:`wsbench.server`: one server subprocess, from start to a clean stop.
- :mod:`wsbench.sampler`: the server's CPU and memory during the measurement window.
- :mod:`wsbench.measure`: one measurement (server + load generator + sampler).
- :mod:`wsbench.record`: the per-environment record written beside asv's results.
- :mod:`wsbench.cli`: the command line.
"""

__version__ = "0.1.0"
