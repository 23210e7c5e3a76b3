"""wsbench/pythons.py: the Python names, read and ordered."""

from __future__ import annotations

import pytest

from wsbench.pythons import DEFAULT_PYTHON, PYTHONS, PythonName, parse_python, pythons_of


def test_a_name_is_major_minor_and_t_for_the_free_threaded_build() -> None:
    assert parse_python("3.12") == PythonName(3, 12)
    assert parse_python("3.14t") == PythonName(3, 14, free_threaded=True)
    assert str(parse_python(" 3.14t ")) == "3.14t"
    assert parse_python("3.14t").executable == "python3.14t"
    for bad in ("3", "3.12.1", "py3.12", "3.14T", ""):
        with pytest.raises(ValueError, match=r"use MAJOR\.MINOR, e\.g\. 3\.12 or 3\.14t"):
            parse_python(bad)


def test_all_is_every_python_in_order_and_names_are_not_repeated() -> None:
    assert [str(p) for p in pythons_of(["all"])] == list(PYTHONS)
    assert [str(p) for p in pythons_of(["3.14t", "3.12", "3.12", "3.14"])] == [
        "3.12", "3.14", "3.14t",
    ]  # fmt: skip
    assert str(pythons_of([DEFAULT_PYTHON])[0]) == PYTHONS[0] == DEFAULT_PYTHON
    with pytest.raises(ValueError, match="bad Python version 'newest'"):
        pythons_of(["newest"])
