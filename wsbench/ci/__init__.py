"""What runs in continuous integration: the nightly (:mod:`~wsbench.ci.nightly`, its version
matrix in :mod:`~wsbench.ci.matrix`, a regression's confirmation in
:mod:`~wsbench.ci.confirm`), the results branch (:mod:`~wsbench.ci.results_branch`), GitHub
(:mod:`~wsbench.ci.github`), a pull request's comparison (:mod:`~wsbench.ci.pull_request`),
the workflows' linters (:mod:`~wsbench.ci.workflow_lint`) and the tests
(:mod:`~wsbench.ci.devtest`). It imports the jobs and every layer below them.
"""
