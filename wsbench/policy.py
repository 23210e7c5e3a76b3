"""Standing policies of the harness that several layers state: the instrument and the
nightly act on them, the site's Methodology page publishes them."""

OPEN_FILES_CAP = 1_048_576
"""The highest open-file limit the harness sets (Linux's default ``fs.nr_open``)."""
MATRIX_PERIOD_DAYS = 7
"""An older version is measured again once its newest document in the comparison group is
this many days old (the weekly matrix; README "The version matrix")."""
OTHER_PYTHONS_MINUTES = 60
"""Minutes of a nightly shard for the latest releases on Pythons other than the default
(measured and counted): the shard starts none of them once this many minutes have passed
since it started the first, and those left stay due for the next nights. One
environment took 5 min 3 s (websockets · asyncio on 3.13, on the default grid with the full
grid's settings and its 7 sets counted) to 27 min 26 s (Flask-SocketIO's threading
configuration, the slowest to count), so the step ends within this budget plus the one
started last (README "The version matrix")."""
