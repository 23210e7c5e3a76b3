"""The built site in a real browser (Playwright driving Debian's ``chromium``, which ``./bench``
installs when missing): what wsbench/site/assets/wsbench.js and the home page do for a
visitor. Every page loads without a console error and without a request leaving the site's
origin; the home page's charts draw; a filter narrows a table; a header click sorts it; a
legend click hides a series; a leaderboard shows its tuned sets and the filter bar picks
another deployment profile; the pages hold at 390 px wide. Assertions are on what the page
shows and on the charts' own state, never on pixels. Screenshots of the main pages at
1,400 and 390 px go to ``.wsbench/screenshots/`` (ignored by git) for a person to look at.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    FloatRect,
    Page,
    Request,
    sync_playwright,
)

from tests.site_runs import CURRENT
from wsbench.results.profile_shares import CLASSES
from wsbench.site.home import FAMILIES
from wsbench.site.interactive import TOOLTIP_NUMBERS
from wsbench.site.markup import anchor

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / ".wsbench" / "screenshots"
CHROMIUM_ENV = "WSBENCH_CHROMIUM"
"""The browser to drive (default: the first of :data:`BROWSERS` on ``PATH``)."""
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
"""Debian's package, other distributions' name for it, and the Chrome of GitHub's hosted
runners (the same ``./bench`` looks for)."""
WIDE, PHONE = 1400, 390
SHOT_HEIGHT = 4000
"""Screenshots show a page's first 4,000 px (a leaderboard is 20,000 px long at 1,400 px)."""
SHOTS = (
    "",
    "leaderboards/echo/",
    "leaderboards/clients/",
    "frameworks/websockets/",
    "conformance/",
    "conformance/reports/starlette/",
    "frameworks/aiohttp/",
)
"""The pages photographed at both widths: home, echo (with its chart of CPU per message),
concurrent clients, a framework, the Conformance page, a page of case reports and a
framework page with a CPU profile (its flame graph)."""


def chromium() -> str:
    found = os.environ.get(CHROMIUM_ENV) or next(filter(None, map(shutil.which, BROWSERS)), None)
    if not found:
        pytest.fail(
            "no chromium on PATH: ./bench installs Debian's chromium package when it runs as "
            f"root; elsewhere install it, or set {CHROMIUM_ENV} to a Chromium binary"
        )
    return found


@contextlib.contextmanager
def served(site: Path) -> Iterator[str]:
    """The built site ``site`` served over HTTP on 127.0.0.1 (a free port), as its origin
    URL."""
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def origin(built_site: Path) -> Iterator[str]:
    """The built site served over HTTP (:func:`served`), as its origin URL."""
    with served(built_site) as url:
        yield url


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def launched() -> Iterator[Browser]:
    """The browser (:func:`chromium`) driven by Playwright, closed on leaving."""
    with sync_playwright() as p:
        found = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            yield found
        finally:
            found.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with launched() as found:
        yield found


class Visit:
    """A page of the browser that records console errors and requests outside ``origin``."""

    def __init__(self, browser: Browser, origin: str, width: int = WIDE) -> None:
        self.origin = origin
        self.page: Page = browser.new_page(viewport={"width": width, "height": 900})
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("request", self._request)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"{message.text} ({message.location.get('url')})")

    def _request(self, request: Request) -> None:
        if not request.url.startswith((self.origin, "data:", "blob:")):
            self.outside.append(request.url)

    def open(self, path: str) -> Page:
        self.page.goto(self.origin + path, wait_until="load")
        return self.page

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def visit(browser: Browser, origin: str) -> Iterator[Visit]:
    opened = Visit(browser, origin)
    yield opened
    opened.close()


def site_pages(site: Path) -> list[str]:
    """Every HTML page of the built site, as paths relative to its root (``""`` for home)."""
    pages = []
    for html in sorted(site.rglob("index.html")):
        rel = html.parent.relative_to(site).as_posix()
        if rel == "." or not rel.startswith(("assets", "search", "downloads")):
            pages.append("" if rel == "." else rel + "/")
    return pages


def charts_drawn(page: Page, count: int) -> None:
    """Wait until the page's ``count`` interactive charts are drawn (wsbench.js marks it)."""
    page.wait_for_function(
        f"document.documentElement.getAttribute('data-wsbench-charts') === '{count}'"
    )


def flames_drawn(page: Page, count: int) -> None:
    """Wait until the page's ``count`` flame graphs are drawn (wsbench.js marks it)."""
    page.wait_for_function(
        f"document.documentElement.getAttribute('data-wsbench-flames') === '{count}'"
    )


def drawn(page: Page) -> None:
    """Wait until the page's interactive charts and flame graphs are drawn, as a reader
    sees them."""
    charts = page.locator("script.wsbench-chart").count()
    if charts:
        charts_drawn(page, charts)
    flames = page.locator("a.wsbench-flame-data").count()
    if flames:
        flames_drawn(page, flames)


def _shoot(page: Page, path: str, width: int) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = path.strip("/").replace("/", "-") or "home"
    out = SCREENSHOTS / f"{name}-{width}.png"
    height = min(SHOT_HEIGHT, page.evaluate("document.documentElement.scrollHeight"))
    clip = FloatRect(x=0, y=0, width=width, height=height)
    page.screenshot(path=str(out), full_page=True, clip=clip)
    assert out.stat().st_size > 10_000


def test_every_page_loads_at_phone_width_without_errors_or_outside_requests(
    built_site: Path, browser: Browser, origin: str
) -> None:
    pages = site_pages(built_site)
    assert set(SHOTS) <= set(pages)
    phone = Visit(browser, origin, width=PHONE)
    try:
        for path in pages:
            page = phone.open(path)
            drawn(page)
            assert phone.errors == [], path
            # Nothing wider than the screen: wide tables and charts scroll inside themselves.
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE, path
            if path in SHOTS:
                _shoot(page, path, PHONE)
        assert phone.outside == []
    finally:
        phone.close()


def test_screenshots_of_the_main_pages_at_1400_px(visit: Visit) -> None:
    for path in SHOTS:
        page = visit.open(path)
        drawn(page)
        _shoot(page, path, WIDE)
    assert visit.errors == [] and visit.outside == []


def test_the_home_page_answers_with_charts(visit: Visit) -> None:
    page = visit.open("")
    titles = [t.rstrip("¶").strip() for t in page.locator("article h2").all_inner_texts()]
    answered = [f.title for f in FAMILIES if f.title in titles]
    assert answered[:2] == ["The fastest WebSocket server", "The fastest Socket.IO server"]
    charts = page.locator("script.wsbench-chart").count()
    assert charts == len(answered)
    charts_drawn(page, charts)
    # Each chart is drawn (an SVG with its bars) and its static image is hidden.
    first = page.locator(".wsbench-chart").first
    assert first.locator(".wsbench-echart svg").count() == 1
    assert first.locator(".wsbench-echart svg path").count() > 3
    assert not page.locator("img[src$='home/websocket.svg']").is_visible()
    # The answer names its leader and links to the leaderboard table it comes from.
    websocket = page.locator("#websocket ~ p").nth(1).inner_text()
    assert "configurations measured, higher is better" in websocket
    link = page.get_by_role("link", name="Full leaderboard: Echo").first
    assert "leaderboards/echo/#16-b-messages-64-in-flight-per-connection" in (
        link.get_attribute("href") or ""
    )


def _visible_names(page: Page, table: int) -> list[str]:
    rows = page.locator("article table").nth(table).locator("tbody tr:visible")
    return [rows.nth(i).locator("td").nth(1).inner_text() for i in range(rows.count())]


def test_a_filter_narrows_the_tables_and_a_header_sorts_them(visit: Visit) -> None:
    page = visit.open("leaderboards/echo/")
    everything = _visible_names(page, 0)
    assert any("Socket.IO" in name for name in everything)
    assert any("Socket.IO" not in name for name in everything)
    page.locator(".wsbench-filters select[name=protocol]").select_option("Socket.IO")
    narrowed = _visible_names(page, 0)
    assert narrowed and all("Socket.IO" in name for name in narrowed)
    assert len(narrowed) < len(everything)
    page.locator(".wsbench-filters select[name=protocol]").select_option("")
    assert _visible_names(page, 0) == everything
    # A click on the Messages/s header sorts the rows by that figure, either way.
    table = page.locator("article table").first
    header = table.locator("th", has_text="Messages/s")
    column = table.locator("th").all_inner_texts().index(header.inner_text())

    def figures() -> list[float]:
        cells = table.locator(f"tbody tr td:nth-child({column + 1})")
        values = [cells.nth(i).get_attribute("data-sort") for i in range(cells.count())]
        return [float(v) for v in values if v]

    header.click()
    first = figures()
    assert first in (sorted(first), sorted(first, reverse=True))
    header.click()
    assert figures() == list(reversed(first)) or figures() == sorted(first, reverse=True)


def test_a_legend_click_hides_a_series(visit: Visit) -> None:
    page = visit.open("leaderboards/clients/")
    charts = page.locator("script.wsbench-chart").count()
    charts_drawn(page, charts)
    chart = page.locator(".wsbench-chart").first
    legend = chart.locator(".wsbench-echart svg text", has_text="aiohttp")
    label = legend.first.text_content() or ""
    assert label.startswith("aiohttp")

    def selected() -> object:
        return page.evaluate(
            """([index, name]) => {
                const el = document.querySelectorAll('.wsbench-echart')[index];
                const legend = echarts.getInstanceByDom(el).getOption().legend[0];
                return Object.entries(legend.selected || {}).find(([k]) => k.startsWith(name));
            }""",
            [0, label.rstrip(".…")],
        )

    before = selected()
    assert before is None or before[1] is True  # type: ignore[index]
    legend.first.click()
    after = selected()
    assert after is not None and after[1] is False  # type: ignore[index]


def test_a_tooltip_quotes_the_sites_confidence_level(visit: Visit) -> None:
    # The tooltip of a point with an interval names its confidence level, taken from the
    # chart's data (wsbench.site.interactive.TOOLTIP_NUMBERS), not typed in the script.
    page = visit.open("leaderboards/clients/")
    charts_drawn(page, page.locator("script.wsbench-chart").count())
    text = page.evaluate(
        """() => {
            const el = document.querySelector('.wsbench-echart');
            const option = echarts.getInstanceByDom(el).getOption();
            const point = option.series.flatMap((s) => s.data)
                .find((d) => d && d.wsbench && d.wsbench[1].interval);
            return point ? option.tooltip[0].formatter({ data: point }) : null;
        }"""
    )
    assert text is not None
    assert f"({TOOLTIP_NUMBERS['confidence_percent']} % interval " in text


def test_the_shown_runs_are_named_on_the_home_page(visit: Visit) -> None:
    # The test store's current run is what the home page's bars come from (hover shows it).
    page = visit.open("")
    data = page.locator("script.wsbench-chart").first.text_content() or ""
    assert CURRENT in data


def loaded(page: Page) -> list[str]:
    """The addresses of every resource the page loaded."""
    names = page.evaluate("performance.getEntriesByType('resource').map((e) => e.name)")
    return [str(name) for name in names]


def test_a_flame_graph_zooms_searches_and_resets(visit: Visit) -> None:
    page = visit.open("frameworks/aiohttp/#where-the-time-goes")
    flames_drawn(page, 1)
    vendor = [name.rsplit("/", 1)[-1] for name in loaded(page) if "/vendor/d3" in name]
    assert sorted(vendor) == ["d3-flamegraph.min.js", "d3.min.js"]
    graph = page.locator(".wsbench-flame-graph").first
    frames = graph.locator("g.frame")
    assert frames.count() > 5
    root_width = float(graph.locator("svg").first.get_attribute("width") or 0)
    assert 0 < root_width <= page.locator("article").first.bounding_box()["width"]  # type: ignore[index]
    # Hovering a frame names it with its samples and share.
    frame = graph.locator("g.frame", has_text="WebSocketWriter.send_frame").first
    frame.hover()
    details = page.locator(".wsbench-flame-details").first.inner_text()
    assert "WebSocketWriter.send_frame" in details and "120 samples" in details
    # A click zooms: the clicked frame then spans the whole width.
    frame.click()
    page.wait_for_timeout(600)
    zoomed = float(frame.locator("rect").first.get_attribute("width") or 0)
    assert zoomed == pytest.approx(root_width, rel=0.02)
    page.get_by_role("button", name="Reset zoom").first.click()
    page.wait_for_timeout(600)
    assert float(frame.locator("rect").first.get_attribute("width") or 0) < root_width * 0.9
    # The search box highlights the matching frames and says how much they hold.
    page.get_by_role("searchbox", name="Search the flame graph's frames").first.fill("feed_data")
    count = page.locator(".wsbench-flame .wsbench-count").first.inner_text()
    assert count == "1 frame matches: 20.0 % of the samples", count
    assert visit.errors == [] and visit.outside == []


def test_the_echo_leaderboard_stacks_cpu_per_message_by_class(visit: Visit) -> None:
    page = visit.open("leaderboards/echo/")
    charts_drawn(page, page.locator("script.wsbench-chart").count())
    option = page.evaluate(
        """() => {
            const el = Array.from(document.querySelectorAll('.wsbench-echart')).find(
                (e) => echarts.getInstanceByDom(e).getOption().series[0].stack === 'cpu');
            const o = echarts.getInstanceByDom(el).getOption();
            return {labels: o.yAxis[0].data, series: o.series.map((s) => s.name)};
        }"""
    )
    assert option["series"] == list(CLASSES)
    # ECharts lists the first row at the bottom: the leaderboard's order, reversed.
    assert option["labels"][-1] == "aiohttp · asyncio 3.13.2"
    assert len(option["labels"]) == 3
    # The table of the same figures is the fallback without JavaScript: hidden once drawn.
    fallback = page.locator("table", has_text="CPU / message (µs)").first
    assert not fallback.is_visible()
    # A page without a flame graph loads neither d3 nor d3-flame-graph.
    assert not [name for name in loaded(page) if "/vendor/d3" in name]


def test_a_leaderboard_shows_the_tuned_profile_and_picks_another(visit: Visit) -> None:
    page = visit.open("leaderboards/echo/")
    profile = page.locator(".wsbench-filters select[name=profile]")
    assert profile.locator("option").all_inner_texts() == ["Tuned", "As shipped"]
    assert profile.input_value() == "tuned"  # the default view
    corpus = "1,024 B messages, the JSON corpus, 64 in flight per connection"
    tuned = page.locator("article h2", has_text=f"{corpus} · Tuned")
    shipped = page.locator("article h2", has_text=f"{corpus} · As shipped")
    assert tuned.is_visible() and not shipped.is_visible()
    assert not page.locator("article .admonition", has_text="As shipped").is_visible()
    profile.select_option("as-shipped")
    assert shipped.is_visible() and not tuned.is_visible()
    assert page.locator("article .admonition", has_text="As shipped").is_visible()
    # The first table shown is the as-shipped set's: its three configurations.
    shown = page.locator("article table:visible").first.locator("tbody tr")
    assert shown.count() == 3 and "aiohttp" in shown.first.inner_text()
    # A link to a table of another profile picks that profile.
    page = visit.open(f"leaderboards/echo/#{anchor(corpus)}-permessage-deflate-offered")
    assert page.locator(".wsbench-filters select[name=profile]").input_value() == "as-shipped"
    assert page.locator("article h2", has_text=f"{corpus} · As shipped").is_visible()
    assert visit.errors == [] and visit.outside == []


def test_an_environments_packages_unfold_from_their_count(visit: Visit) -> None:
    page = visit.open("environment/")
    fold = page.locator("details.wsbench-packages", has_text="8 packages")
    assert fold.count() == 1
    package = fold.get_by_text("aiohappyeyeballs==2.6.1")
    assert not package.is_visible()  # folded: the count only
    fold.locator("summary").click()
    assert package.is_visible()
    # Unfolded, the table still scrolls inside itself at phone width, never the page.
    page.set_viewport_size({"width": PHONE, "height": 900})
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
    assert visit.errors == [] and visit.outside == []
