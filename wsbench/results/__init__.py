"""The results layer: what a run measured and what it means.

The run format (:mod:`~wsbench.results.runformat`, the one source of every figure), the
store that keeps runs and never overwrites them (:mod:`~wsbench.results.store`), the
published figures (:mod:`~wsbench.results.metrics`, memory fits in
:mod:`~wsbench.results.memoryfit`), statistics (:mod:`~wsbench.results.stats`), comparisons
of wall-clock figures and of instruction counts (:mod:`~wsbench.results.compare`,
:mod:`~wsbench.results.instruction_verdicts`), a new release's regressions
(:mod:`~wsbench.results.regressions`), the differential of two CPU profiles
(:mod:`~wsbench.results.profile_diff`) and the outliers among configurations
(:mod:`~wsbench.results.outliers`). It imports the core (scenarios, implementations,
paths) only: the site and every job read results through it.
"""
