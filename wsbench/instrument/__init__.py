"""The instrument: measuring a server.

CPU placement (:mod:`~wsbench.instrument.cpus`), the native load generator
(:mod:`~wsbench.instrument.loadgen`), a server process (:mod:`~wsbench.instrument.server`),
its CPU and memory during a window (:mod:`~wsbench.instrument.usage`), one measurement and a
server process serving several (:mod:`~wsbench.instrument.measure`), samples over several
processes (:mod:`~wsbench.instrument.sampling`), interleaved sides
(:mod:`~wsbench.instrument.interleave`), instruction counts under valgrind
(:mod:`~wsbench.instrument.instructions`), the machine and its checks
(:mod:`~wsbench.instrument.machine`, :mod:`~wsbench.instrument.system`), the provenance a run
records (:mod:`~wsbench.instrument.provenance`), and a measurement's summary
(:mod:`~wsbench.instrument.summary`). It imports the results layer and the core only.
"""
