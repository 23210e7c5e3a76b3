"""Standing policies of the harness that several layers state: the instrument and the
nightly act on them, the site's Methodology page publishes them."""

OPEN_FILES_CAP = 1_048_576
"""The highest open-file limit the harness sets (Linux's default ``fs.nr_open``)."""
MATRIX_PERIOD_DAYS = 7
"""An older version is measured again once its newest document in the comparison group is
this many days old (the weekly matrix; README "The version matrix")."""
