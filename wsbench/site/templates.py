"""The pages' templates (Jinja2, ``wsbench/site/templates/*.md.j2``): each page's outline and
prose; the Python modules compute what they show and pass it in.

Templates produce Markdown: nothing is auto-escaped (the values passed in are escaped cell
by cell, :func:`wsbench.site.markup.cell`), and an undefined name is an error, not an empty
string. Every template sees the statistics' numbers under the names of
:data:`wsbench.site.markup.STATISTICS` (``alpha``, ``min_effect_percent``, ``min_processes``,
``confidence_percent``, ``comparison_confidence_percent``, ``unstable_percent``,
``too_few``) without its page passing them: the prose quotes them, never types them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2

from wsbench.pythons import DEFAULT_PYTHON
from wsbench.site.markup import STATISTICS

TEMPLATES = Path(__file__).resolve().parent / "templates"
"""The folder of the templates."""


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment of :data:`TEMPLATES` (Markdown: no autoescape; strict
    undefined; trailing newlines kept; block tags trimmed of their line), with
    :data:`wsbench.site.markup.STATISTICS` and ``default_python``
    (:data:`wsbench.pythons.DEFAULT_PYTHON`: the Python of every figure whose row names no
    other) as globals."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=False,  # Markdown, escaped cell by cell (wsbench.site.markup.cell)
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
    )
    env.globals.update(STATISTICS, default_python=DEFAULT_PYTHON)
    return env


def render(template: str, /, **context: Any) -> str:
    """The template ``template`` (e.g. ``"index.md.j2"``) rendered with ``context``.

    Raises:
        jinja2.TemplateNotFound: no such template.
        jinja2.UndefinedError: the template uses a name ``context`` does not give.
    """
    return environment().get_template(template).render(**context)
