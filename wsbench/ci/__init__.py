"""What runs in continuous integration: the nightly (:mod:`~wsbench.ci.nightly`, its version
matrix in :mod:`~wsbench.ci.matrix`, a regression's confirmation in
:mod:`~wsbench.ci.confirm`, its grades and CPU profiles in
:mod:`~wsbench.ci.nightly_grades` and :mod:`~wsbench.ci.nightly_profiles`), the results
branch (:mod:`~wsbench.ci.results_branch`), GitHub (:mod:`~wsbench.ci.github`), a pull
request's comparison (:mod:`~wsbench.ci.pull_request`, its grades and profiles in
:mod:`~wsbench.ci.pr_conformance` and :mod:`~wsbench.ci.pr_profiles`), the workflows'
linters (:mod:`~wsbench.ci.workflow_lint`), the tests (:mod:`~wsbench.ci.devtest`, what
failed in their log in :mod:`~wsbench.ci.devtest_log`) and the pull request of ``uv.lock``'s
weekly refresh (:mod:`~wsbench.ci.lock_refresh`, the packages it moved in
:mod:`~wsbench.ci.lock_changes`). It imports the jobs and every layer below them.
"""
