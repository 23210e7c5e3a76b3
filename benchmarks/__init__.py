"""asv benchmarks of wsbench.

They measure the commit asv is measuring: asv copies that commit's tree into the benchmark
environment (``wsbench.asv.uv``: ``$ASV_ENV_DIR/wsbench-project``), and the harness, the
implementations and the load generator's sources are imported and built from there. Outside
such an environment (``asv run -E existing``, or discovery before the copy exists) they come
from this working tree.
"""

import os
import sys
from pathlib import Path

_ENV_DIR = os.environ.get("ASV_ENV_DIR")
_COPY = Path(_ENV_DIR, "wsbench-project") if _ENV_DIR else None
_ROOT = str(_COPY if _COPY and (_COPY / "wsbench").is_dir() else Path(__file__).parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

# asv's benchmark server (and each benchmark process, see wsbench.asv.suite.measure_grids)
# ends when its parent does: a main job killed mid-run leaves no process behind.
from wsbench.instrument import lifetime as _lifetime  # noqa: E402

if _ENV_DIR:
    _lifetime.die_with_parent()
