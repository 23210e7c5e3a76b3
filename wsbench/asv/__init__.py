"""wsbench on airspeed velocity (asv): what the asv benchmarks run
(:mod:`~wsbench.asv.suite`), the configuration derived from the implementations' metadata
(:mod:`~wsbench.asv.conf`), asv's command line (:mod:`~wsbench.asv.main`), the uv
environment plugin (:mod:`~wsbench.asv.uv`) and environments made outside asv
(:mod:`~wsbench.asv.venvs`). It imports the instrument, the results layer and the core.
"""
