"""Every page of the site built from a real main job's documents (:mod:`tests.main_job_runs`:
all 42 configurations, so that the widest tables appear, and the documents derived from
them that fill the Conformance, deployment, profile and Python pages) fits the screen, in
Chromium (:func:`tests.site.test_site_browser.launched`) at 1,400 x 900 px (a laptop) and
at 390 x 844 px (a phone), as a reader sees it: each page loaded once, at 1,400 px with its
charts drawn, then the window narrowed to 390 px (the site's scripts and material's redraw
on a resize; tests/site/test_site_browser.py loads every page at 390 px too).

"No page's content is wider than the viewport" means, per page and width:

- the page never scrolls sideways: ``document.documentElement.scrollWidth <=
  window.innerWidth``;
- no visible element of the content area (material's ``.md-content``) reaches past its
  right edge, or the viewport's, unless a box inside the content area that scrolls or
  clips sideways holds it: mkdocs-material wraps every table in a ``.md-typeset__scrollwrap``
  (``overflow-x: auto``), and a code block scrolls in its ``pre``;
- such a box hides nothing to its right at 1,400 px unless it is a code block (a line of
  code or of a log is not broken) or a table that keeps its first column in view while it
  scrolls (``position: sticky``: the leaderboards, the deployment page's tables of ratios,
  whose figures read against the name beside them). Any other table must fit its column: a
  reader of a laptop's screen sees it cut off at the right edge, as the deployment page's
  statements and the Findings verdicts were. At 390 px a table may scroll inside
  material's wrapper (a phone cannot show a table of figures side by side), the page never.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.main_job_runs import write_store
from tests.site.test_site_browser import drawn, launched, served, site_pages
from tests.site_runs import build

SCREENS = ((1400, 900), (390, 844))
"""The viewports (width, height in px): a laptop's, a phone's."""
PHONE = 390
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
"""Waits two frames: the site's scripts redraw on a resize before the next frame is
painted."""

WIDER = """(phone) => {
  const content = document.querySelector('.md-content');
  const edge = Math.min(content.getBoundingClientRect().right, window.innerWidth);
  const heading = (el) => {
    const found = document.evaluate(
      'preceding::*[self::h1 or self::h2 or self::h3][1]', el, null,
      XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    return found ? found.textContent.replace('¶', '').trim().slice(0, 70) : '';
  };
  const what = (el) => {
    const name = el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
      ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
    return `${name} under "${heading(el)}"`;
  };
  const found = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth) {
    found.push(`the page scrolls sideways by ${root.scrollWidth - window.innerWidth} px`);
  }
  for (const el of content.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (!box.width && !box.height) continue;
    if (box.right > edge + 1) {
      let holder = el.parentElement;
      while (holder !== content && getComputedStyle(holder).overflowX === 'visible') {
        holder = holder.parentElement;
      }
      if (holder === content) {
        found.push(`${what(el)} sticks out ${Math.round(box.right - edge)} px`);
      }
    }
    if (phone || el.scrollWidth <= el.clientWidth + 1 || !el.clientWidth) continue;
    if (!['auto', 'scroll'].includes(getComputedStyle(el).overflowX)) continue;
    if (el.closest('pre')) continue;
    const table = el.closest('table') || el.querySelector('table');
    const first = table && table.querySelector('td');
    if (first && getComputedStyle(first).position === 'sticky') continue;
    // What the box hides: its table's right edge past the box's inner edge (material's
    // wrapper pads the table, and the padding alone scrolling hides nothing).
    const inner = box.left + el.clientLeft + el.clientWidth;
    const hidden = table && table !== el
      ? table.getBoundingClientRect().right - inner : el.scrollWidth - el.clientWidth;
    if (hidden > 1) found.push(`${what(table || el)} is cut off ${Math.round(hidden)} px`);
  }
  return found;
}"""
"""What of a page is wider than the viewport, by the module's rule: one line each; its
argument is true at phone width."""


@pytest.fixture(scope="module")
def main_job_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from :func:`tests.main_job_runs.write_store` (``./bench site``'s
    build, the repository's ``impls/``), without its search index."""
    root = tmp_path_factory.mktemp("main-job-site")
    site = build(root / "public", write_store(root / "results"))
    # Material's search worker indexes the whole site's text again on every page load, CPU
    # the test need not spend: the index draws nothing on the page.
    (site / "search" / "search_index.json").unlink()
    return site


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with launched() as found:
        yield found


def test_every_page_fits_the_screen_at_both_widths(main_job_site: Path, browser: Browser) -> None:
    pages = site_pages(main_job_site)
    # The pages the derived documents fill are among them, filled.
    assert {"deployment/", "conformance/", "conformance/reports/socketify/"} <= set(pages)

    def text(path: str) -> str:
        return (main_job_site / path / "index.html").read_text(encoding="utf-8")

    assert "Not answered here" not in text(".")
    assert "No conformance grades yet" not in text("conformance")
    assert {"Where the time goes", "By Python version"} <= set(
        re.findall(r"Where the time goes|By Python version", text("frameworks/aiohttp"))
    )
    wider: list[str] = []
    context = browser.new_context()
    try:
        page = context.new_page()
        with served(main_job_site) as origin:
            for path in pages:
                for i, (width, height) in enumerate(SCREENS):
                    page.set_viewport_size({"width": width, "height": height})
                    if i == 0:
                        page.goto(origin + path, wait_until="load")
                        drawn(page)
                    else:
                        page.evaluate(SETTLED)
                    found = page.evaluate(WIDER, width == PHONE)
                    wider += [f"{path or '/'} at {width} px: {line}" for line in found]
    finally:
        context.close()
    assert not wider, "\n".join(wider)
