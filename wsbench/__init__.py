"""wsbench: the harness that measures Python WebSocket servers with a native load generator.

Packages, in layers (a package imports only those below it; ``tests/test_layers.py`` keeps
the direction):

- :mod:`wsbench.commands`: ``./bench``'s command line.
- :mod:`wsbench.ci`: the nightly, the results branch, GitHub, pull requests, the tests.
- :mod:`wsbench.jobs`: whole runs: the main job, the client libraries, comparisons, studies.
- :mod:`wsbench.asv`: wsbench on asv: the suite, its configuration, its environments.
- :mod:`wsbench.instrument`: measuring a server: CPUs, the load generator, the server, its
  usage, measurements, samples, instruction counts, the machine.
- :mod:`wsbench.results`: the run format, the store, the figures, statistics, comparisons.
- the core: :mod:`wsbench.scenarios` (one module per scenario and their registry),
  :mod:`wsbench.impls` (the implementations under ``impls/`` and their metadata),
  :mod:`wsbench.loadreport` (the load generator's report, its contract),
  :mod:`wsbench.policy` (standing policies the layers share), :mod:`wsbench.deployment`
  (the deployment profiles), :mod:`wsbench.pythons` (the Python versions' names),
  :mod:`wsbench.cpulist`, :mod:`wsbench.paths` and :mod:`wsbench.digest`.

:mod:`wsbench.site` builds the published site from the results layer and the core only.
"""

__version__ = "0.1.0"
