"""The jobs: whole runs made of measurements.

The main job (:mod:`~wsbench.jobs.main`: releases, shards and the site), the client
libraries' job (:mod:`~wsbench.jobs.clients`), comparisons of versions, commits and
implementations (:mod:`~wsbench.jobs.compare`, :mod:`~wsbench.jobs.commits`, one commit's
worker in :mod:`~wsbench.jobs.commit_worker`), the cross-check of instruction counts
against CPU time (:mod:`~wsbench.jobs.crosscheck`), the noise study
(:mod:`~wsbench.jobs.noise`), the newest releases (:mod:`~wsbench.jobs.releases`) and the
environments' shards (:mod:`~wsbench.jobs.shards`). They import asv, the instrument, the
results layer and the core, and take typed options
(:class:`~wsbench.jobs.compare.CompareOptions` and the like): a command's parsed command
line stays in :mod:`wsbench.commands` (the commit worker parses its own, the one between
two commits' harnesses).
"""
