"""``--param`` filters: what they keep, and every way of selecting nothing refused with a
message that names the grid having the value, or the values the grids have."""

from __future__ import annotations

import pytest

from wsbench.scenarios import Grid, in_grid, spec
from wsbench.scenarios.selection import ParamError, narrowed, parse_params, select


def test_parse_params_reads_the_filters_and_names_a_malformed_one() -> None:
    assert parse_params(["connections=1,10", "size_bytes=16", "connections=100"]) == {
        "connections": {1, 10, 100},
        "size_bytes": {16},
    }
    with pytest.raises(ParamError, match="--param 'colour=3': expected NAME=V"):
        parse_params(["colour=3"])
    with pytest.raises(ParamError, match="--param 'size_bytes': expected NAME=V"):
        parse_params(["size_bytes"])
    with pytest.raises(ParamError, match="--param 'size_bytes=big': values must be integers"):
        parse_params(["size_bytes=big"])


def test_narrowed_keeps_the_matching_sets_and_ignores_a_parameter_they_lack() -> None:
    grid = [{"size_bytes": 16, "in_flight": 1}, {"size_bytes": 1024, "in_flight": 64}]
    assert narrowed(grid, {"in_flight": {64}}) == [{"size_bytes": 1024, "in_flight": 64}]
    assert narrowed(grid, {"connections": {1}}) == grid


def test_without_filters_the_grid_of_every_scenario_that_has_sets_in_it() -> None:
    grids = select("default", [], [])
    assert list(grids) == in_grid("default")
    assert all(grids[s] == spec(s).grid("default") for s in grids)
    assert select("full", ["connect"], []) == {"connect": spec("connect").grid("full")}


def test_filters_narrow_the_scenarios_that_have_the_parameter() -> None:
    # Named scenarios keep their order in the registry; memory has no in_flight.
    assert select("default", ["memory", "echo"], ["in_flight=64"]) == {
        "echo": [{"size_bytes": 16, "in_flight": 64}, {"size_bytes": 65536, "in_flight": 64}],
        "memory": [{"connections": 1000}],
    }
    # No scenario named: those the filter leaves with no set are left out.
    assert select("default", [], ["size_bytes=65536"]) == {
        "echo": [{"size_bytes": 65536, "in_flight": 64}],
        "memory": [{"connections": 1000}],
    }
    assert select("full", ["memory"], ["connections=10000"]) == {"memory": [{"connections": 10000}]}


@pytest.mark.parametrize(
    ("which", "names", "items", "message"),
    [
        # a value the grid does not have, which another grid has
        ("default", ["memory"], ["connections=10000"],
         "no parameter set of memory in the default grid has connections=10000 "
         "(the full grid has it: --grid full)"),
        ("default", [], ["connections=1000,10000"],
         "no parameter set of clients or memory in the default grid has connections=10000 "
         "(the full grid has it: --grid full)"),
        ("default", [], ["workers=1"],
         "no parameter set of any scenario in the default grid has workers=1 "
         "(the full grid has it: --grid full)"),
        # a value no grid has: the values the grids have
        ("default", ["memory"], ["connections=5"],
         "no parameter set of memory in the default grid has connections=5, nor does any "
         "grid (connections: 1000 in the default grid; 1000, 10000 in the full grid)"),
        ("full", [], ["workers=3"],
         "no parameter set of connect in the full grid has workers=3, nor does any grid "
         "(workers: 1, 16 in the full grid)"),
        # a parameter none of the named scenarios has
        ("default", ["echo"], ["connections=1000"],
         "echo has no parameter connections (its parameters: size_bytes, in_flight, corpus, "
         "deflate, tls)"),
        ("default", ["stream", "echo"], ["connections=1000"],
         "echo and stream have no parameter connections (their parameters: size_bytes, "
         "in_flight, corpus, deflate, tls)"),
        # a named scenario left with no set
        ("default", ["echo", "stream"], ["size_bytes=65536"],
         "no parameter set of stream in the default grid has size_bytes=65536 "
         "(the full grid has it: --grid full)"),
        ("default", ["echo"], ["size_bytes=65536", "in_flight=1"],
         "no parameter set of echo in the default grid has size_bytes=65536 and in_flight=1 "
         "(the full grid has it: --grid full)"),
        ("default", ["connect"], [],
         "connect has no parameter set in the default grid (it is in the full grid: --grid full)"),
        # filters that together keep no set of the scenarios they narrow
        ("default", [], ["size_bytes=65536", "in_flight=1"],
         "no parameter set of echo, stream, clients or broadcast in the default grid has "
         "size_bytes=65536 and in_flight=1 (the full grid has it: --grid full)"),
    ],
)  # fmt: skip
def test_a_filter_that_selects_nothing_is_refused(
    which: Grid, names: list[str], items: list[str], message: str
) -> None:
    with pytest.raises(ParamError) as exc:
        select(which, names, items)
    assert str(exc.value) == message


def test_a_combination_no_grid_has_lists_the_combinations_the_grid_has() -> None:
    with pytest.raises(ParamError) as exc:
        select("full", ["clients"], ["connections=10000", "size_bytes=1024"])
    assert str(exc.value) == (
        "no parameter set of clients in the full grid has connections=10000 and "
        "size_bytes=1024 (what its sets in the full grid have: connections=1,size_bytes=16; "
        "connections=1,size_bytes=1024; connections=10,size_bytes=16; "
        "connections=10,size_bytes=1024; connections=100,size_bytes=16; "
        "connections=100,size_bytes=1024; connections=1000,size_bytes=16; "
        "connections=1000,size_bytes=1024; connections=10000,size_bytes=16)"
    )


def test_an_unknown_scenario_is_named() -> None:
    with pytest.raises(ValueError, match="unknown scenario 'pingpong'"):
        select("default", ["pingpong"], [])


def test_a_switch_the_filters_do_not_name_must_be_0() -> None:
    filler = [{"size_bytes": 1024, "in_flight": 1}, {"size_bytes": 1024, "in_flight": 64}]
    corpus = [{**p, "corpus": 1} for p in filler]
    shipped = [{**p, "deflate": 1} for p in corpus]
    assert select("full", ["echo"], ["size_bytes=1024"]) == {"echo": filler}
    assert select("full", ["echo"], ["corpus=1"]) == {"echo": corpus}
    assert select("full", ["echo"], ["corpus=1", "deflate=0,1"]) == {"echo": corpus + shipped}
    with pytest.raises(ParamError) as refused:  # the profile's echo sets are the corpus's
        select("full", ["echo"], ["deflate=1"])
    assert str(refused.value) == (
        "no parameter set of echo in the full grid has deflate=1 and corpus=0 and tls=0 (a "
        "switch not named is 0) (what its sets in the full grid have: corpus=0,deflate=0,tls=0; "
        "corpus=1,deflate=0,tls=0; corpus=1,deflate=1,tls=0; corpus=1,deflate=0,tls=1; "
        "corpus=1,deflate=1,tls=1)"
    )


def test_a_switch_narrows_only_the_scenarios_whose_sets_have_it() -> None:
    found = select(
        "full", ["echo", "clients", "connect", "memory"],
        ["corpus=1", "deflate=0,1", "workers=16", "connections=100,1000"],
    )  # fmt: skip
    assert {s: len(sets) for s, sets in found.items()} == {
        "echo": 4, "clients": 2, "connect": 2, "memory": 2,
    }  # fmt: skip
    assert found["memory"] == [{"connections": 1000}, {"connections": 1000, "deflate": 1}]
