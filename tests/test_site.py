"""`sheepsim report`: the static site, the saved outputs it is built from (report
sidecars, figure specs), replays, and bad input."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import shutil
import sys
import types
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import assert_bad
from conftest import run_cli as run

from sheepsim.errors import SheepsimError
from sheepsim.report import interactive, saved, site
from sheepsim.report.markdown import Report, format_interval

GRID = ('name = "grid"\ntitle = "Tiny grid"\nkind = "grid"\ngame = "bobbysitter"\nseed = 1\n'
        'focal_policy = "child"\npolicy = "adult"\ngames = 400\nmetrics = ["focal_win_rate", "mean:turns"]\n'
        'rows = { name = "players", players = [2, 3] }\n'
        'cols = { name = "child start", focal_option = "start_tokens", values = [2, 4], others = 2 }\n')
SEATS = ('name = "seats"\nkind = "seat_advantage"\ngame = "pig"\nseed = 3\nplayers = [2]\n'
         'policies = ["random", "hold"]\ngames = 500\n')


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> Path:
    """Two small analyses run into one reports folder (a few seconds with warm kernels)."""
    root = tmp_path_factory.mktemp("site")
    folder = root / "reports"
    for name, text in (("grid", GRID), ("seats", SEATS)):
        toml = root / f"{name}.toml"
        toml.write_text(text)
        result = run("run", str(toml), "--reports", str(folder), "-q")
        assert result.exit_code == 0, result.output
    return folder


@pytest.fixture(scope="module")
def built(reports: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out") / "site"
    result = run("report", str(reports), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"site: {out / 'index.html'} (2 reports" in result.output
    return out


def md_tables(text: str) -> list[list[list[str]]]:
    """The Markdown's tables: rows of cell texts (separator lines left out)."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            if current is None:
                current = []
                tables.append(current)
            if not re.fullmatch(r"\|(-+:?\|)+", line):
                current.append([c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip("|"))])
        else:
            current = None
    return tables


def test_sidecars_and_specs_are_written(reports: Path) -> None:
    for name in ("grid", "seats"):
        data = saved.read_sidecar(reports / f"{name}.md")
        assert data is not None and data["format"] == "sheepsim-report" and data["findings"]
        kinds = [s["type"] for s in data["sections"]]
        assert {"heading", "table", "figure"} <= set(kinds)
        for section in data["sections"]:
            if section["type"] == "figure":
                assert (reports / section["path"]).is_file()
            if section["type"] == "table":
                assert len(section["rows"]) == len(section["cells"])
                assert all(len(cells) == len(section["columns"]) for cells in section["cells"])
        assert data["provenance"]["game"] in ("bobbysitter", "pig")
    for figure in ("grid/focal-win-rate", "grid/focal-win-rate-lines", "seats/seat0-edge", "seats/length"):
        assert saved.read_figure_spec(reports / f"{figure}.png") is not None, figure


def test_index_links_every_report(reports: Path, built: Path) -> None:
    index = (built / "index.html").read_text()
    links = re.findall(r'<a class="report-link" href="([^"]+)">', index)
    assert sorted(links) == ["grid.html", "seats.html"]
    for link in links:
        assert (built / link).is_file()
    assert "Tiny grid" in index and "Pig: seat advantage" in index
    # each report's headline, the answer to its question, under its link
    shown = re.sub(r"</?(strong|code)>", "", index)
    for name in ("grid", "seats"):
        headline = saved.read_sidecar(reports / f"{name}.md")["headline"]
        assert headline
        for piece in re.split(r"[*`]", headline):
            assert html.escape(piece.strip(), quote=False) in shown, piece


def test_page_holds_findings_and_every_table(reports: Path, built: Path) -> None:
    for name in ("grid", "seats"):
        page = (built / f"{name}.html").read_text()
        data = saved.read_sidecar(reports / f"{name}.md")
        findings = page.index('id="findings"')
        assert findings < page.index("<table")        # the findings come first
        assert findings < page.index('<p class="headline">') < page.index("<ul>", findings)   # the headline first
        for line in data["findings"]:
            plain = re.sub(r"\*\*", "", line)
            for piece in re.split(r"[*`]", plain):
                assert html.escape(piece.strip(), quote=False) in re.sub(r"</?strong>", "", page), piece
        tables = md_tables((reports / f"{name}.md").read_text())
        assert page.count('<table class="sortable">') == len(tables) > 0
        for table in tables:
            for row in table:
                for cell in row:
                    assert html.escape(cell, quote=False) in page, (name, cell)
        assert 'id="provenance"' in page and html.escape(data["provenance"]["command"], quote=False) in page


def test_heatmap_spec_has_every_cell_and_the_page_embeds_it(reports: Path, built: Path) -> None:
    spec = json.loads((reports / "grid" / "focal-win-rate.json").read_text())
    assert spec["kind"] == "heatmap" and spec["rows"] == ["2", "3"] and spec["cols"] == ["2", "4"]
    for key in ("value", "lo", "hi", "n"):
        assert np.shape(spec[key]) == (2, 2), key
    value, lo, hi = (np.array(spec[k], float) for k in ("value", "lo", "hi"))
    assert np.isfinite(value).all() and (lo <= value).all() and (value <= hi).all()
    assert spec["n"] == [[400, 400], [400, 400]]
    page = (built / "grid.html").read_text()
    assert page.count('class="figure figure-interactive"') >= 3
    block = page[page.index('<figure class="figure figure-interactive"'):]
    block = block[:block.index("</figure>")]
    assert '<div class="plotly-graph-div"' in block and "grid/focal-win-rate.png" in block
    embedded = json.loads(re.search(r'<script type="application/json" class="figure-data">(.*?)</script>',
                                    block).group(1))
    hovers = interactive.hover_texts(embedded)
    for i in range(2):
        for j in range(2):
            text = format_interval(value[i, j], lo[i, j], hi[i, j], percent=True)
            assert re.fullmatch(r"\d+\.\d% \[\d+\.\d, \d+\.\d\]", text)
            assert any(text in h and "n = 400 games" in h for h in hovers), text
    assert embedded["data"][0]["type"] == "heatmap"


def test_pages_load_nothing_from_the_network(built: Path) -> None:
    pages = list(built.rglob("*.html"))
    assert len(pages) >= 3
    for page in pages:
        text = page.read_text()
        assert not re.search(r"https?://", text), page
        for src in re.findall(r'<script src="([^"]+)"', text):
            assert src == "assets/plotly.min.js" and (built / src).is_file()
        for src in re.findall(r'<img[^>]* src="([^"]+)"', text):
            assert (page.parent / src).is_file(), src
    assert [p.name for p in built.rglob("*.js")] == ["plotly.min.js"]       # one copy for the whole site
    packaged = resources.files("plotly") / "package_data" / "plotly.min.js"
    assert (built / "assets" / "plotly.min.js").read_bytes() == packaged.read_bytes()
    assert '<script src="assets/plotly.min.js"></script>' in (built / "grid.html").read_text()


def test_tables_carry_values_to_sort_by(built: Path) -> None:
    page = (built / "grid.html").read_text()
    cells = re.findall(r'<td class="num" data-sort="([^"]*)">(\d+\.\d)% \[', page)
    assert cells
    for value, text in cells:
        assert abs(100 * float(value) - float(text)) <= 0.05 + 1e-9
    assert "table.sortable" in page and "aria-sort" in page          # the inline sorting script


def test_a_report_without_sidecar_renders_from_its_markdown(reports: Path, tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy(reports / "seats.md", old / "seats.md")
    shutil.copytree(reports / "seats", old / "seats")
    (old / "seats" / "report.json").unlink()
    # and one whose sidecar is stale (its Markdown changed after): not used either
    shutil.copy(reports / "grid.md", old / "grid.md")
    shutil.copytree(reports / "grid", old / "grid")
    (old / "grid.md").write_text((old / "grid.md").read_text() + "\nEdited by hand.\n")
    result = run("report", str(old))
    assert result.exit_code == 0, result.output
    assert "2 from their Markdown alone" in result.output
    out = old / "site"
    index = (out / "index.html").read_text()
    assert index.count('class="report-link"') == 2 and "from Markdown" in index
    page = (out / "seats.html").read_text()
    assert "class=\"figure figure-interactive\"" not in page and "plotly.min.js" not in page
    assert page.index('id="findings"') < page.index("<table")
    assert page.count('<table class="sortable">') == len(md_tables((old / "seats.md").read_text()))
    for src in ("seats/seat0-edge.png", "seats/length.png"):
        assert f'src="{src}"' in page and (out / src).is_file()
    assert "Edited by hand." in (out / "grid.html").read_text()
    # each Markdown table downloads as CSV: its header and cells as the Markdown has them
    links = re.findall(r'<a class="csv-link" href="([^"]+)"', page)
    assert links == [f"seats/table-{k}.csv" for k in range(1, len(md_tables((old / "seats.md").read_text())) + 1)]
    for link, table in zip(links, md_tables((old / "seats.md").read_text())):
        assert list(csv.reader(io.StringIO((out / link).read_text()))) == table
    assert not (out / "assets").exists()          # no interactive figure: no plotly either


def test_a_stale_figure_spec_falls_back_to_the_png(reports: Path, tmp_path: Path) -> None:
    copy = tmp_path / "r"
    shutil.copytree(reports, copy, ignore=shutil.ignore_patterns("site"))
    png = copy / "grid" / "focal-win-rate.png"
    png.write_bytes(png.read_bytes() + b"\0")           # another image than the spec describes
    assert saved.read_figure_spec(png) is None
    built = site.build(copy, tmp_path / "s")
    page = (tmp_path / "s" / "grid.html").read_text()
    assert '<figure class="figure"><img src="grid/focal-win-rate.png"' in page
    assert sum(p.interactive for p in built.pages if p.name == "grid") == 2


@pytest.mark.parametrize("case", ["empty", "missing", "file-parent", "foreign-out", "reports-itself"])
def test_bad_input_exits_2_and_writes_nothing(reports: Path, tmp_path: Path, case: str) -> None:
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    if case == "empty":
        (tmp_path / "empty").mkdir()
        (tmp_path / "empty" / "notes.txt").write_text("no report here")
        before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
        assert_bad(run("report", str(tmp_path / "empty")), "no saved analysis output", "*.md")
    elif case == "missing":
        assert_bad(run("report", str(tmp_path / "nowhere")), "does not exist")
    elif case == "file-parent":
        (tmp_path / "file.txt").write_text("x")
        before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
        assert_bad(run("report", str(reports), "--out", str(tmp_path / "file.txt" / "deeper" / "site")),
                   "cannot write the site", "--out")
    elif case == "foreign-out":
        (tmp_path / "mine").mkdir()
        (tmp_path / "mine" / "thesis.tex").write_text("keep me")
        before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
        assert_bad(run("report", str(reports), "--out", str(tmp_path / "mine")), "is not a site", ".sheepsim-site")
        assert (tmp_path / "mine" / "thesis.tex").read_text() == "keep me"
    else:
        copy = tmp_path / "r"
        copy.mkdir()
        (copy / "x.md").write_text("# X\n")
        before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
        assert_bad(run("report", str(copy), "--out", str(copy)), "would replace the reports folder")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_failed_build_leaves_the_old_site_and_no_half_new_one(reports: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "deep" / "site"
    site.build(reports, out)
    old = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(site, "_index", broken)
    with pytest.raises(OSError, match="disk full"):
        site.build(reports, out)
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == old
    assert [p.name for p in out.parent.iterdir()] == ["site"]           # no temporary folder left
    fresh = tmp_path / "new" / "place" / "site"
    with pytest.raises(OSError):
        site.build(reports, fresh)
    assert not (tmp_path / "new").exists()                               # nor the folders made for it
    monkeypatch.undo()
    site.build(reports, out)                                             # a site made before is replaced
    assert (out / "index.html").is_file() and (out / site.MARKER).is_file()


def test_seat_advantage_records_replays_and_the_page_links_them(reports: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    data = saved.read_sidecar(reports / "seats.md")
    records = data["replays"]
    runs = {r["run"] for r in records}
    assert runs == {"2p random", "2p hold"}
    for r in records:
        assert set(site.REPLAY_KEYS) <= set(r)
        assert r["game"] == "pig" and r["players"] == 2 and r["seed"] == 3 and r["rotate"] is True
    labels = [r["label"] for r in records if r["run"] == "2p random"]
    assert labels[:2] == ["typical game (median length)", "longest game"]
    assert set(labels) <= {"typical game (median length)", "longest game", "biggest comeback"}
    longest = next(r for r in records if r["run"] == "2p hold" and r["label"] == "longest game")
    assert site.trace_command(longest) == f"sheepsim trace pig -p 2 --policy hold --seed 3 --game {longest['index']}"

    calls = []

    def write_replay(path, **record):
        calls.append(record)
        Path(path).write_text(f"<!DOCTYPE html><title>{record['label']}</title>")

    monkeypatch.setitem(sys.modules, "sheepsim.report.replay", types.SimpleNamespace(write_replay=write_replay))
    site.build(reports, tmp_path / "s")
    page = (tmp_path / "s" / "seats.html").read_text()
    assert "<h2>Replays</h2>" in page
    links = re.findall(r'<a class="replay-link" href="(replays/seats-\d+\.html)">', page)
    assert len(links) == len(records) == len(calls)
    assert all((tmp_path / "s" / link).is_file() for link in links)
    assert all(set(c) == {*site.REPLAY_KEYS, "report"} for c in calls)   # only the documented keys
    # each replay page links back to its report's page, from SITE/replays/
    assert all(c["report"] == {"href": "../seats.html", "title": "Pig: seat advantage"} for c in calls)
    assert html.escape(site.trace_command(longest), quote=False) in page

    # without a viewer: the commands alone, no dead link
    monkeypatch.setitem(sys.modules, "sheepsim.report.replay", types.SimpleNamespace())
    site.build(reports, tmp_path / "s")
    page = (tmp_path / "s" / "seats.html").read_text()
    assert "replay-link" not in page and "sheepsim trace pig" in page
    assert not (tmp_path / "s" / "replays").exists()


PROVENANCE = {"game": "pig", "game_version": 1, "rules": '{"goal": 100}', "policies": ["hold", "random"], "seed": 7,
              "games": {"2p hold": 1000}, "packages": {"numpy": "2.0"}, "command": "sheepsim run analyses/x.toml"}
# Report.render of the report below by the code before the sidecar existed (but for the one rule
# of intervals since: a bound of 0.0002 that is not zero shows as 0.02, not 0.0)
BEFORE = (
    '# Pig: a hand-built report\n\nWhat was run.\n\n## Findings\n\n- **2p hold**: seat 0 wins 3.1 [2.5, 3.7] points '
    'more often\n- second\n\n## Seats\n\nSeat 0 rolls first | always.\n\n| cell | games | win rate | seat-0 edge '
    '(points) | mean turns | ok |\n|---|---:|---:|---:|---:|---|\n| 2p hold | 1,000 | 53.1% [50.0, 56.0] | +3.1 '
    '[+2.5, +3.7] | 17.1 | yes |\n| 2p a\\|b | 20,000 | 0.0% [0.0, 0.02] | 0.0 [-0.4, +0.3] | n/a | no |\n\n*one '
    'table*\n\n### Length\n\n| cell | mean |\n|---|---:|\n| 2p hold | 17.1 |\n| 2p a\\|b | n/a |\n\n![A forest '
    'plot.](seats/forest.png)\n\n*A forest plot.*\n\n## Provenance\n\n- **game**: pig\n- **game_version**: 1\n- '
    '**rules**:\n\n```json\n{\n  "goal": 100\n}\n```\n- **policies**: `hold`, `random`\n- **seed**: 7\n- '
    '**games**:\n\n```json\n{\n  "2p hold": 1000\n}\n```\n- **packages**:\n\n```json\n{\n  "numpy": "2.0"\n}\n```\n'
    '- **command**: sheepsim run analyses/x.toml\n')


def hand_built() -> Report:
    r = Report("Pig: a hand-built report", PROVENANCE, description="What was run.\n")
    r.findings(["**2p hold**: seat 0 wins 3.1 [2.5, 3.7] points more often", "second"])
    r.heading("Seats").paragraph("Seat 0 rolls first | always.")
    df = pd.DataFrame({"cell": ["2p hold", "2p a|b"], "games": [1000, 20000], "win_rate": [0.5312, 0.0],
                       "win_rate_lo": [0.5001, 0.0], "win_rate_hi": [0.5601, 0.0002], "edge": [0.031, -0.0004],
                       "edge_lo": [0.025, -0.004], "edge_hi": [0.037, 0.003], "mean": [17.123, np.nan],
                       "ok": [True, False]})
    r.table(df, caption="one table", points=["edge"], headers={"mean": "mean turns"})
    r.heading("Length", 3).table(df[["cell", "mean"]], floatfmt=".1f")
    r.figure("seats/forest.png", "A forest plot.")
    return r


def test_the_markdown_is_unchanged_by_the_sidecar(tmp_path: Path) -> None:
    report = hand_built()
    assert report.render() == BEFORE
    path = report.write(tmp_path / "hand.md")
    assert path.read_text() == BEFORE
    data = json.loads((tmp_path / "hand" / "report.json").read_text())
    assert data["markdown_sha256"] == saved.sha256(BEFORE) and data["markdown"] == "hand.md"
    table = next(s for s in data["sections"] if s["type"] == "table")
    assert [c["format"] for c in table["columns"]] == ["text", "count", "percent", "points", "number", "text"]
    assert table["cells"][0] == ["2p hold", "1,000", "53.1% [50.0, 56.0]", "+3.1 [+2.5, +3.7]", "17.1", "yes"]
    assert table["cells"][1][0] == "2p a|b"                      # the text itself, not the Markdown escape
    assert table["rows"][1]["mean"] is None and table["rows"][0]["win_rate_lo"] == 0.5001
    assert data["sections"][-1] == {"type": "figure", "path": "seats/forest.png", "caption": "A forest plot.",
                                    "data": None}


def test_site_api_refuses_a_folder_named_like_a_report(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    hand_built().write(folder / "site.md")           # a report named "site": its folder is the default --out
    with pytest.raises(SheepsimError, match="figure folder of report site.md"):
        site.build(folder)


def test_the_headline_is_read_back_from_a_report_without_sidecar() -> None:
    report = Report("R", PROVENANCE).findings(["**2p**: a bullet", "another"]).headline("The answer, in one line.")
    parts = site.split_markdown(report.render())
    assert parts["headline"] == "The answer, in one line." and parts["findings"] == ["**2p**: a bullet", "another"]
    assert site.split_markdown(Report("R", PROVENANCE).findings(["only"]).render())["headline"] == ""


def test_a_figure_after_the_findings_is_its_own_figure_in_a_page_from_markdown(tmp_path: Path) -> None:
    """A skill ladder's report opens its body with a figure right after the findings: from
    the Markdown alone, the image was read as more words of the last finding."""
    folder = tmp_path / "r"
    report = Report("Pig: skill ladder", PROVENANCE)
    report.findings(["**32 against 16**: a gain", "Against hold: from 15.5% to 22.2%,\nover two lines"])
    report.figure("ladder/ladder.png", "Win rate of 2b against b.").heading("Each doubling").paragraph("Text.")
    (folder / "ladder").mkdir(parents=True)
    (folder / "ladder" / "ladder.png").write_bytes(b"\x89PNG not really")
    report.write(folder / "ladder.md")
    (folder / "ladder" / "report.json").unlink()              # an older report: no saved data
    parts = site.split_markdown((folder / "ladder.md").read_text())
    assert parts["findings"] == ["**32 against 16**: a gain", "Against hold: from 15.5% to 22.2%, over two lines"]
    assert parts["body"].startswith("![Win rate of 2b against b.](ladder/ladder.png)")
    site.build(folder, tmp_path / "s")
    page = (tmp_path / "s" / "ladder.html").read_text()
    findings = page[page.index('id="findings"'):page.index("</section>")]
    assert "<img" not in findings and "Win rate" not in findings
    assert page.count('<img src="ladder/ladder.png" alt="Win rate of 2b against b."') == 1
    assert (tmp_path / "s" / "ladder" / "ladder.png").is_file()


def test_each_table_downloads_as_csv_with_every_column_exact(reports: Path, built: Path) -> None:
    for name in ("grid", "seats"):
        page = (built / f"{name}.html").read_text()
        tables = [t for t in saved.read_sidecar(reports / f"{name}.md")["sections"] if t["type"] == "table"]
        links = re.findall(r'</table></div><p class="table-tools"><a class="csv-link" href="([^"]+)" '
                           r'download="([^"]+)">', page)
        assert [link for link, _ in links] == [f"{name}/table-{k}.csv" for k in range(1, len(tables) + 1)]
        for (link, download), table in zip(links, tables):
            assert download == link.replace("/", "-")
            rows = list(csv.DictReader(io.StringIO((built / link).read_text())))
            assert len(rows) == len(table["rows"]) > 0
            for got, want in zip(rows, table["rows"]):
                assert list(got) == list(want)            # every column of the data, X_lo and X_hi too
                for key, value in want.items():
                    if isinstance(value, float):
                        assert float(got[key]) == value, (link, key)      # exact, not the rounded text
                    else:
                        assert got[key] == ("" if value is None else str(value)), (link, key)
    assert any("win_rate_lo" in (built / f"seats/table-{k}.csv").read_text() for k in (1, 2))


def test_the_index_line_is_the_headline_else_the_first_finding(reports: Path, tmp_path: Path) -> None:
    copy = tmp_path / "r"
    shutil.copytree(reports, copy, ignore=shutil.ignore_patterns("site"))
    sidecar = saved.sidecar_path(copy / "grid.md")
    data = json.loads(sidecar.read_text())
    data["headline"] = "Child start **2 tokens** is fairest"
    sidecar.write_text(json.dumps(data))
    seats = saved.sidecar_path(copy / "seats.md")              # a report saved without a headline
    data = json.loads(seats.read_text())
    data.pop("headline", None)
    seats.write_text(json.dumps(data))
    site.build(copy, tmp_path / "s")
    index = (tmp_path / "s" / "index.html").read_text()
    lines = re.findall(r'<a class="report-link" href="([^"]+)">.*?<p class="headline">(.*?)</p></li>', index)
    assert dict(lines)["grid.html"] == "Child start <strong>2 tokens</strong> is fairest"
    first = saved.read_sidecar(copy / "seats.md")["findings"][0]
    assert dict(lines)["seats.html"] == site._inline(first, set())          # no headline: the first finding
    # the search box filters on the words of the title, the line and the game
    assert 'id="filter"' in index
    words = {link: text for text, link in re.findall(r'<li data-search="([^"]+)"><a class="report-link" '
                                                     r'href="([^"]+)"', index)}
    assert "fairest" in words["grid.html"] and "bobby sitter" in words["grid.html"]
    assert "pig" in words["seats.html"] and "fairest" not in words["seats.html"]
