"""``./bench site`` is strict: a file of the results store that is not a valid run document
fails the build (``mkdocs build --strict`` without ``--quiet``, which would drop the warning
before the strict mode counts it), with exit code 2 and a message naming the file and the
reason. A valid store still builds: tests/site/test_site.py builds its sites through the same
:func:`wsbench.jobs.main.build_site`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runs import impl, run
from tests.site_runs import IMPLS
from wsbench.commands import cli
from wsbench.jobs import main as mainjob
from wsbench.results import store

RATES = [98.0, 99.0, 100.0, 101.0, 102.0, 103.0]


def write_store(root: Path) -> Path:
    """A small store (two environments of one run): a build from it takes a few seconds."""
    for name in ("aiohttp", "websockets"):
        store.save(run(RATES, impl_info=impl(name)), root)
    return root


def _site_into(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    """Make ``./bench site`` build into ``site`` (not the repository's ``public/``), with
    the site tests' few implementations (fewer pages to build)."""
    monkeypatch.setenv("WSBENCH_IMPLS_DIR", str(IMPLS))
    real = mainjob.build_site

    def build(results: Path, site_dir: Path = site) -> None:
        real(results, site_dir)

    monkeypatch.setattr(mainjob, "build_site", build)


def test_a_truncated_document_fails_the_site_build_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_store(tmp_path / "store")
    doc = sorted(root.glob("*/*/*.json"))[0]
    data = doc.read_bytes()
    doc.write_bytes(data[: len(data) // 2])
    _site_into(monkeypatch, tmp_path / "site")
    assert cli.main(["site", "--results", str(root)]) == 2
    err = capsys.readouterr().err
    assert "wsbench: building the site failed (mkdocs build --strict exited 1)" in err
    assert f"skipping a file of the results store: {doc}: " in err
    assert "Input data was truncated" in err
    assert "Aborted with 1 warnings in strict mode!" in err
    assert "INFO" not in err  # mkdocs' progress is not shown


def test_only_mkdocs_progress_is_left_out_of_its_report() -> None:
    output = (
        "INFO    -  Cleaning site directory\n"
        "DEBUG   -  Reading files\n"
        "WARNING -  wsbench site: skipping a file of the results store: /s/a.json: bad\n"
        "Traceback (most recent call last):\n"
        "  ValueError: boom\n"
        "\n"
        "Aborted with 1 warnings in strict mode!\n"
    )
    assert mainjob.mkdocs_report(output) == [
        "WARNING -  wsbench site: skipping a file of the results store: /s/a.json: bad",
        "Traceback (most recent call last):",
        "  ValueError: boom",
        "Aborted with 1 warnings in strict mode!",
    ]
