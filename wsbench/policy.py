"""Standing policies of the harness that several layers state: the instrument and the
nightly act on them, the site's Methodology page publishes them."""

OPEN_FILES_CAP = 1_048_576
"""The highest open-file limit the harness sets (Linux's default ``fs.nr_open``)."""
MATRIX_PERIOD_DAYS = 7
"""An older version is measured again once its newest document in the comparison group is
this many days old (the weekly matrix; README "The version matrix")."""
OTHER_PYTHONS_PER_SHARD = 12
"""At most this many latest releases on Pythons other than the default are measured (and
counted) by one nightly shard; those due beyond it stay due, the first of them measured the
next night. Each costs about 25 s on the default grid and 4 minutes of instruction counts,
so 12 add about 53 minutes to a shard (README "The version matrix")."""
