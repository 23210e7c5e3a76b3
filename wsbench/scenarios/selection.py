"""The parameter sets a command measures: a grid's sets of the chosen scenarios, narrowed by
``--param NAME=V[,V...]`` filters. One rule for every command that takes ``--param``
(``./bench run`` and the asv suite it runs, ``./bench compare``, ``./bench pr-compare``):

- a filter keeps the sets whose value of NAME is one of its values; a scenario without the
  parameter NAME is not narrowed by it;
- a switch (:data:`~wsbench.scenarios.SWITCHES`: the JSON corpus, a deployment profile's
  parameters) reads 0 where a set leaves it out, and once any filter is given, a switch the
  filters do not name must be 0: ``size_bytes=1024`` keeps the tuned sets of filler
  messages, ``corpus=1`` the corpus sets, ``corpus=1 deflate=0,1`` those in tuned and as
  shipped;
- a filter that selects nothing is refused, before anything is built or measured: a value
  that no set of the chosen scenarios has in the grid (the message names the grid that has
  it, or else the values each grid has), a parameter that none of the named scenarios has,
  or a named scenario left with no set;
- without named scenarios (every scenario with a set in the grid), a scenario the filters
  leave with no set is left out, but the filters together must keep a set of one of the
  scenarios they narrow.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from wsbench.scenarios import (
    GRIDS,
    PARAM_NAMES,
    SCENARIOS,
    SWITCHES,
    Grid,
    Params,
    Scenario,
    in_grid,
    params_key,
    spec,
)


class ParamError(ValueError):
    """A ``--param`` filter that is malformed or selects nothing; the message names it."""


def parse_params(items: Sequence[str]) -> dict[str, set[int]]:
    """``["connections=1,10", "size_bytes=16"]`` -> ``{"connections": {1, 10}, ...}``.

    Raises:
        ParamError: a malformed item, a name no scenario has, or a value that is not an
            integer (the message names the item).
    """
    wanted: dict[str, set[int]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        if not sep or name not in PARAM_NAMES:
            raise ParamError(
                f"--param {item!r}: expected NAME=V[,V...] with NAME one of {sorted(PARAM_NAMES)}"
            )
        try:
            wanted.setdefault(name, set()).update(int(v) for v in values.split(","))
        except ValueError:
            raise ParamError(f"--param {item!r}: values must be integers") from None
    return wanted


def narrowed(
    grid: list[Params], wanted: dict[str, set[int]], switches: Collection[str] | None = None
) -> list[Params]:
    """The parameter sets of ``grid`` whose values are in ``wanted`` (a parameter the sets
    do not have does not narrow them). ``switches``: the scenario's switches (default:
    those some set of ``grid`` has); each reads 0 where a set leaves it out, and must be 0
    unless the filters name it."""
    if switches is None:
        switches = [name for name in SWITCHES if any(name in p for p in grid)]
    if wanted:
        wanted = {**{name: {0} for name in switches}, **wanted}
    return [
        p
        for p in grid
        if all(
            _value(p, name) in values
            for name, values in wanted.items()
            if name in p or name in switches
        )
    ]


def switches_of(scenario: Scenario) -> list[str]:
    """The switches of ``scenario`` (those its full grid sets), for :func:`narrowed`."""
    return [name for name in SWITCHES if name in spec(scenario).asv_axes()]


def _value(params: Params, name: str) -> int:
    """The value of ``name`` in ``params`` (a switch left out reads 0)."""
    return params.get(name, 0) if name in SWITCHES else params[name]


def select(
    which: Grid, names: Sequence[Scenario], items: Sequence[str]
) -> dict[Scenario, list[Params]]:
    """The parameter sets to measure, by scenario (in :data:`~wsbench.scenarios.SCENARIOS`'
    order): the ``which`` grid's sets of the scenarios ``names`` (none: every scenario with
    a set in that grid), narrowed by the ``NAME=V[,V...]`` filters ``items``, by the rule
    of this module's docstring.

    Raises:
        ParamError: a malformed filter, or one that selects nothing, e.g. ``"no parameter
            set of memory in the default grid has connections=10000 (the full grid has it:
            --grid full)"``, or a named scenario with no set in the grid.
        ValueError: an unknown scenario in ``names``.
    """
    wanted = parse_params(items)
    for name in names:
        spec(name)  # raises ValueError naming the known ones
    chosen = _chosen(which, names)
    for name, values in wanted.items():
        if names and not any(name in spec(s).asv_axes() for s in chosen):
            axes = dict.fromkeys(a for s in chosen for a in spec(s).asv_axes())
            verb, whose = ("has", "its") if len(chosen) == 1 else ("have", "their")
            raise ParamError(
                f"{_listed(chosen, 'and')} {verb} no parameter {name} "
                f"({whose} parameters: {', '.join(axes)})"
            )
        for value in sorted(values):
            if value not in _values(which, chosen, name):
                raise ParamError(_missing_value(which, names, name, value))
    grids = {s: narrowed(spec(s).grid(which), wanted, switches_of(s)) for s in chosen}
    for scenario, grid in grids.items():
        if names and not grid:
            raise ParamError(_none_left(which, scenario, wanted))
    narrowing = _narrowed_by(chosen, wanted)
    if narrowing and not any(grids[s] for s in narrowing):
        others = [g for g in GRIDS if g != which and _keeps(g, names, wanted)]
        raise ParamError(
            f"no parameter set of {_listed(narrowing, 'or')} in the {which} grid has "
            f"{_filters(wanted)}"
            + (f" (the {others[0]} grid has it: --grid {others[0]})" if others else "")
        )
    return {s: grid for s, grid in grids.items() if grid}


def _chosen(which: Grid, names: Sequence[Scenario]) -> list[Scenario]:
    return [s for s in SCENARIOS if s in names] if names else in_grid(which)


def _values(which: Grid, scenarios: Iterable[Scenario], name: str) -> list[int]:
    """The values of ``name`` in the ``which`` grid's sets of ``scenarios``, sorted."""
    return sorted(
        {
            _value(p, name)
            for s in scenarios
            for p in spec(s).grid(which)
            if name in p or (name in SWITCHES and name in spec(s).asv_axes())
        }
    )


def _narrowed_by(scenarios: Sequence[Scenario], wanted: dict[str, set[int]]) -> list[Scenario]:
    """The ``scenarios`` with a parameter the filters name."""
    return [s for s in scenarios if any(name in spec(s).asv_axes() for name in wanted)]


def _keeps(which: Grid, names: Sequence[Scenario], wanted: dict[str, set[int]]) -> bool:
    """Whether the filters keep a set of the ``which`` grid among the scenarios they narrow."""
    chosen = _narrowed_by(_chosen(which, names), wanted)
    return any(narrowed(spec(s).grid(which), wanted, switches_of(s)) for s in chosen)


def _listed(scenarios: Sequence[Scenario], conjunction: str) -> str:
    if len(scenarios) == 1:
        return scenarios[0]
    return f"{', '.join(scenarios[:-1])} {conjunction} {scenarios[-1]}"


def _filters(wanted: dict[str, set[int]]) -> str:
    """``"size_bytes=16,1024 and in_flight=64"``."""
    return " and ".join(f"{n}={','.join(map(str, sorted(v)))}" for n, v in wanted.items())


def _missing_value(which: Grid, names: Sequence[Scenario], name: str, value: int) -> str:
    """Why ``name=value`` selects nothing in the ``which`` grid: the grid that has it, or
    else the values each grid has."""
    having = [s for s in _chosen(which, names) if name in spec(s).asv_axes()]
    subject = _listed(having, "or") if having else "any scenario"
    said = f"no parameter set of {subject} in the {which} grid has {name}={value}"
    others = [g for g in GRIDS if g != which and value in _values(g, _chosen(g, names), name)]
    if others:
        return f"{said} (the {others[0]} grid has it: --grid {others[0]})"
    found = {g: _values(g, _chosen(g, names), name) for g in GRIDS}
    listed = "; ".join(f"{', '.join(map(str, v))} in the {g} grid" for g, v in found.items() if v)
    return f"{said}, nor does any grid ({name}: {listed})"


def _none_left(which: Grid, scenario: Scenario, wanted: dict[str, set[int]]) -> str:
    """Why the named ``scenario`` is left with no set of the ``which`` grid."""
    own = {n: v for n, v in wanted.items() if n in spec(scenario).asv_axes()}
    others = [
        g
        for g in GRIDS
        if g != which and narrowed(spec(scenario).grid(g), own, switches_of(scenario))
    ]
    if not spec(scenario).grid(which):
        hint = f" (it is in the {others[0]} grid: --grid {others[0]})" if others else ""
        return f"{scenario} has no parameter set in the {which} grid{hint}"
    hint = f" (the {others[0]} grid has it: --grid {others[0]})" if others else ""
    grid = spec(scenario).grid(which)
    switched = any(all(_value(p, n) in v for n, v in own.items()) for p in grid)
    implied = [  # the switches not named, when they are what leaves no set
        n for n in SWITCHES if switched and n in spec(scenario).asv_axes() and n not in own
    ]
    shown = [*own, *implied]
    if not hint:
        pairs = dict.fromkeys(params_key({n: _value(p, n) for n in shown}) for p in grid)
        hint = f" (what its sets in the {which} grid have: {'; '.join(pairs)})"
    unnamed = f" and {_filters({n: {0} for n in implied})} (a switch not named is 0)"
    return (
        f"no parameter set of {scenario} in the {which} grid has {_filters(own)}"
        f"{unnamed if implied else ''}{hint}"
    )
