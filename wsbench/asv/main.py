"""asv's command line, with asv.conf.json parsed by the standard library when it is strict JSON.

asv reads its configuration with ``json5`` (``asv.config.Config.load`` calls
``asv.util.load_json(..., js_comments=True)``), a parser written in pure Python: for our
asv.conf.json (46 KB, 165 environments, strict JSON written by
:func:`wsbench.asv.conf.render`) it took 3.3 s of the 5.2 s an ``asv run`` that measured
nothing took on a 2-core machine, and every ``asv run`` and ``asv machine`` pays it. Here
``json5.loads``, as ``asv.util`` sees it, first tries :func:`json.loads` and falls back to
``json5`` for anything else (a hand-edited file with comments), so the result is the same.

``python -m wsbench.asv.main ARGS`` is ``asv ARGS`` (:func:`wsbench.jobs.main.asv_command`).
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any


def fast_loads(slow: Callable[..., Any]) -> Callable[..., Any]:
    """``slow`` (``json5.loads``) behind :func:`json.loads`: strict JSON by the standard
    library, anything else by ``slow``."""

    def loads(text: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return json.loads(text)
        except ValueError:
            return slow(text, *args, **kwargs)

    return loads


def main(argv: Sequence[str] | None = None) -> int:
    """Run asv's command line (``argv``, default ``sys.argv[1:]``); returns its exit code."""
    import asv.util
    from asv.main import main as asv_main

    json5 = asv.util.json5
    asv.util.json5 = types.SimpleNamespace(loads=fast_loads(json5.loads))
    sys.argv = ["asv", *(sys.argv[1:] if argv is None else argv)]
    try:
        asv_main()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
