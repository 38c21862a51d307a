"""The report site and the replay pages in a real browser: headless
Chromium (Debian's package, /usr/bin/chromium; `.ci/run` installs it) driven by
Playwright. Every page type loads with no console error and no failed request, the
replay's controls change the board, hovering a heat-map cell shows its interval and n,
a header click sorts a table, and a screenshot of each page type is not blank.

Without a Chromium these tests are skipped on a developer's machine and fail under CI
(CI=true), where a skip would hide a missing install step."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli as run
from test_site import GRID, PROVENANCE, SEATS     # the same two small analyses as the site tests

from sheepsim.report import saved
from sheepsim.report.markdown import Report

CHROMIUM = os.environ.get("SHEEPSIM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# the flags a closed network needs (no background connections to refuse) and root needs
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("no Chromium under CI: .ci/run installs Debian's chromium package")
        pytest.skip("no Chromium here (apt-get install chromium, or set SHEEPSIM_CHROMIUM)")
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """A site of two small reports (a heat map, a seat-advantage page with replays) and
    two replay pages made by trace --html."""
    root = tmp_path_factory.mktemp("browser")
    for name, text in (("grid", GRID), ("seats", SEATS)):
        (root / f"{name}.toml").write_text(text)
        result = run("run", str(root / f"{name}.toml"), "--reports", str(root / "reports"), "-q")
        assert result.exit_code == 0, result.output
    wide = Report("A wide table", PROVENANCE).findings(["Twelve shares side by side."])
    columns = {}
    for k in range(12):
        columns |= {f"s{k}_rate": [0.5121, 0.4873], f"s{k}_rate_lo": [0.5032, 0.4788], f"s{k}_rate_hi": [0.5212, 0.4961]}
    wide.table(pd.DataFrame({"cell": ["2p hold", "3p hold"], **columns})).write(root / "reports" / "wide.md")
    result = run("report", str(root / "reports"), "--out", str(root / "site"))
    assert result.exit_code == 0, result.output
    for game, more in (("battlesheep", []), ("blacksheep", ["-p", "3", "--policy", "threshold:k=7"])):
        result = run("trace", game, "--seed", "1", "--game", "3", *more, "--html", str(root / f"{game}.html"))
        assert result.exit_code == 0, result.output
    replays = sorted((root / "site" / "replays").glob("*.html"))
    assert replays, "the seat-advantage page links no replay"
    return {"index": root / "site" / "index.html", "heat map report": root / "site" / "grid.html",
            "seat report": root / "site" / "seats.html", "replay from a report": replays[0],
            "wide table": root / "site" / "wide.html",
            "battlesheep replay": root / "battlesheep.html", "blacksheep replay": root / "blacksheep.html"}


def _open(browser, path: Path):
    """A page opened from disk, with every console error and failed request it causes."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, problems


def _not_blank(png: bytes) -> None:
    from matplotlib.image import imread
    pixels = imread(io.BytesIO(png), format="png")[..., :3]
    colours = np.unique((pixels.reshape(-1, 3) * 255).astype(np.uint8), axis=0)
    assert pixels.std() > 0.05 and len(colours) > 50, f"a near-blank screenshot ({len(colours)} colours)"


@pytest.mark.parametrize("kind", ["index", "heat map report", "seat report", "replay from a report",
                                  "battlesheep replay", "blacksheep replay"])
def test_every_page_type_loads_without_errors_and_is_not_blank(browser, pages, kind):
    page, problems = _open(browser, pages[kind])
    page.wait_for_timeout(300)                   # plotly draws after load
    assert problems == []
    _not_blank(page.screenshot(full_page=False))
    if kind == "index":
        links = page.locator("a.report-link")
        assert links.count() == 3
        links.first.click()
        page.wait_for_load_state("load")
        assert page.url.endswith(".html") and page.locator("h1").count() == 1
    page.close()


def test_the_replay_controls_change_the_board(browser, pages):
    for kind in ("battlesheep replay", "blacksheep replay"):
        page, problems = _open(browser, pages[kind])
        board = page.locator("#board")
        first, event = board.inner_html(), page.locator("#event").inner_text()
        page.click("#next")
        page.click("#next")
        assert board.inner_html() != first and page.locator("#event").inner_text() != event
        page.click("#prev")
        page.click("#prev")
        assert board.inner_html() == first                       # back where it began
        page.keyboard.press("ArrowRight")
        assert board.inner_html() != first
        page.keyboard.press("ArrowLeft")
        last = int(page.locator("#slider").get_attribute("max"))
        page.locator("#slider").fill(str(last))                  # the slider to the end
        assert board.inner_html() != first
        assert page.locator("#slider").input_value() == str(last)
        if kind == "blacksheep replay":                          # hidden hands behind the toggle
            hidden = board.inner_html()
            page.click("#toggle-hidden")
            assert board.inner_html() != hidden
        assert problems == []
        page.close()


def test_hovering_a_heat_map_cell_shows_its_value_interval_and_games(browser, pages):
    page, problems = _open(browser, pages["heat map report"])
    figure = page.locator(".figure-interactive").first
    figure.scroll_into_view_if_needed()
    page.wait_for_selector(".figure-interactive .nsewdrag")
    box = page.locator(".figure-interactive .nsewdrag").first.bounding_box()
    # the grid is 2 rows x 2 columns: the centre of the top-left quarter is one cell
    page.mouse.move(box["x"] + box["width"] / 4, box["y"] + box["height"] / 4)
    label = page.locator(".hoverlayer .hovertext")
    label.first.wait_for(timeout=5000)
    text = label.first.text_content()          # an SVG group: no innerText
    assert "[" in text and "]" in text and "%" in text, text
    assert "n = 400" in text.replace(",", ""), text
    assert problems == []
    page.close()


def test_a_header_click_sorts_a_table(browser, pages):
    page, problems = _open(browser, pages["seat report"])
    table = next(t for t in page.locator("table.sortable").all()
                 if "win rate" in t.locator("thead th").all_inner_texts())
    headers = table.locator("thead th")
    column = headers.all_inner_texts().index("win rate")

    def values():
        cells = table.locator(f"tbody tr td:nth-child({column + 1})").all_inner_texts()
        return [float(c.split("%")[0].split()[0]) for c in cells]
    headers.nth(column).click()
    once = values()
    headers.nth(column).click()
    twice = values()
    assert sorted(once) in (once, once[::-1]) and twice == once[::-1] and len(once) > 1
    assert problems == []
    page.close()


def test_the_replay_counts_steps_as_the_trace_numbers_moves_and_says_who_is_next(browser, pages):
    page, problems = _open(browser, pages["battlesheep replay"])
    last = int(page.locator("#slider").get_attribute("max"))
    assert page.locator("#counter").inner_text() == f"step 0 of {last}"
    assert page.locator("#toggle-hidden").count() == 0                # Battle Sheep hides nothing
    page.click("#next")
    assert page.locator("#counter").inner_text() == f"step 1 of {last}"
    assert page.locator(".event-head").inner_text().startswith("step 1 ")
    assert page.locator(".event-text").inner_text().startswith("1. seat 0 ")
    status = page.locator("#status").inner_text()
    assert status.startswith("NEXT") and "seat 1" in status, status  # seat 0 laid a tile: seat 1 is next
    assert page.url.endswith("#step=1")
    page.click("#last")
    assert page.locator("#status").inner_text().startswith("END")
    assert problems == []
    page.close()


def test_no_hex_label_covers_a_stack(browser, pages):
    page, problems = _open(browser, pages["battlesheep replay"])
    page.click("#last")
    boxes = page.evaluate("""() => {
        const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
        return {stacks: [...document.querySelectorAll('.pasture circle.stack')].map(box),
                labels: [...document.querySelectorAll('.pasture text.coord')].map(box),
                hexes: document.querySelectorAll('.pasture polygon.hex').length,
                titles: [...document.querySelectorAll('.pasture g > title')].map(t => t.textContent)};
    }""")
    assert boxes["stacks"] and boxes["labels"]
    assert len(boxes["stacks"]) + len(boxes["labels"]) == boxes["hexes"] == len(boxes["titles"])
    for a in boxes["labels"]:
        for b in boxes["stacks"]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    assert any(t.endswith(" sheep") for t in boxes["titles"])     # a stack's hex names itself on hover
    assert problems == []
    page.close()


def test_autoplay_steps_on_until_paused(browser, pages):
    page, problems = _open(browser, pages["blacksheep replay"])
    play = page.locator("#play")
    play.click()
    assert play.get_attribute("aria-pressed") == "true"
    page.wait_for_function("document.getElementById('counter').textContent.startsWith('step 2 ')", timeout=5000)
    play.click()
    assert play.get_attribute("aria-pressed") == "false"
    stopped = page.locator("#counter").inner_text()
    page.wait_for_timeout(1500)                                       # more than a step's time
    assert page.locator("#counter").inner_text() == stopped
    assert problems == []
    page.close()


def test_a_replay_from_a_report_links_back_to_it(browser, pages):
    page, problems = _open(browser, pages["replay from a report"])
    back = page.locator("#back-to-report")
    assert "back to the report: Pig: seat advantage" in back.inner_text()
    back.click()
    page.wait_for_load_state("load")
    assert page.url.endswith("/seats.html") and page.locator("h1").inner_text() == "Pig: seat advantage"
    assert problems == []
    page.close()


def test_the_index_filters_reports_as_one_types(browser, pages):
    page, problems = _open(browser, pages["index"])
    shown = page.locator("ul.reports li:visible")
    assert shown.count() == 3
    page.fill("#filter", "pig seat")
    assert shown.count() == 1 and "Pig: seat advantage" in shown.first.inner_text()
    assert page.locator("#filter-count").inner_text() == "1 of 3 reports"
    assert page.locator("section.game:visible").count() == 1          # the other games' headings go too
    page.fill("#filter", "no such report")
    assert shown.count() == 0 and page.locator("#no-match").is_visible()
    page.fill("#filter", "")
    assert shown.count() == 3 and not page.locator("#no-match").is_visible()
    assert problems == []
    page.close()


def test_a_table_downloads_as_csv(browser, pages):
    page, problems = _open(browser, pages["seat report"])
    link = page.locator("a.csv-link").first
    with page.expect_download() as info:
        link.click()
    download = info.value
    # the download attribute names it seats-table-1.csv; a page opened from disk (file://)
    # keeps the file's own name
    assert download.suggested_filename in ("seats-table-1.csv", Path(link.get_attribute("href")).name)
    text = Path(download.path()).read_text()
    assert text == (pages["seat report"].parent / "seats" / "table-1.csv").read_text()
    sidecar = saved.read_sidecar(pages["seat report"].parent.parent / "reports" / "seats.md")
    table = next(s for s in sidecar["sections"] if s["type"] == "table")
    assert text.splitlines()[0] == ",".join(table["rows"][0]) and len(text.splitlines()) == 1 + len(table["rows"])
    # a link that downloads ends its request as "failed" (aborted, the file saved instead)
    assert problems == [f"request failed: {(pages['seat report'].parent / 'seats' / 'table-1.csv').as_uri()}"]
    page.close()


def test_a_wide_table_scrolls_and_says_so(browser, pages):
    page, problems = _open(browser, pages["wide table"])
    wrap = page.locator(".table-wrap").first
    sizes = wrap.evaluate("w => [w.scrollWidth, w.clientWidth]")
    assert sizes[0] > sizes[1]                                        # wider than the page: it scrolls
    assert "scroll it sideways for all 13 columns" in page.locator(".scroll-hint").inner_text()
    # an interval stays on one line ("51.2% [50.3, 52.1]"), the table does not squeeze it
    lines = page.evaluate("""() => [...document.querySelectorAll('td.num')].map(td => {
        const r = document.createRange(); r.selectNodeContents(td); return r.getClientRects().length; })""")
    assert lines and set(lines) == {1}
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    last, frame = page.locator("thead th").last.bounding_box(), wrap.bounding_box()
    assert last["x"] + last["width"] <= frame["x"] + frame["width"] + 1      # the last column scrolled into view
    assert problems == []
    page.close()
