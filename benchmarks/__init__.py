"""asv benchmarks of wsbench. They import the harness (``wsbench/``) from the repository root,
which asv does not install into the benchmark environments (the repository is not a package
under test: asv.conf.json has empty build and install commands)."""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
