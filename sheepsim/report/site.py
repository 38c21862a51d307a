"""`sheepsim report`: the reports as a static HTML site a designer clicks through.

    REPORTS/<name>.md (+ <name>/report.json, figures, their data specs)
        --> SITE/index.html              every report: title, headline, link; a search box
                                         filters them
            SITE/<name>.html             one page per report: findings first, then the
                                         Markdown's content, then provenance
            SITE/<name>/<figure>.png     the figures, copied
            SITE/<name>/table-<k>.csv    each table of the page as CSV, linked under it
            SITE/assets/plotly.min.js    plotly, copied once from the Python package
            SITE/replays/<name>-<k>.html the replays a report names (report/replay.py)

Nothing is re-run: a page is made from the report's sidecar (report/saved.py) when it
has a current one, else from its Markdown alone (an older report: its tables and PNGs,
rendered by markdown-it). A figure whose data spec matches its PNG is drawn with plotly
(report/interactive.py), the PNG kept as the fallback where scripts do not run. Tables
sort by a click on a header (numbers by value, "51.2% [50.3, 52.1]" by its 51.2), scroll
sideways when wider than the page, and download as CSV: a sidecar's table with every
column of its data and the exact values (X_lo and X_hi beside X), a Markdown table with
its cells' text. The index line under a report's title is its headline (the sidecar's
`headline`), else its first finding.
Every page works from disk (file://): it loads nothing but the site's own files.

The site is built in a hidden folder beside SITE and renamed into place, so a failure
leaves the previous site (or none) and no half of a new one. A SITE that exists must
be a site made by this command (it holds the marker file .sheepsim-site): any other
folder is refused, never replaced.

Markers for tests and browser checks: an interactive figure's container has class
`figure-interactive` and holds the plotly div (class `plotly-graph-div`), a table has
class `sortable` and its CSV link class `csv-link`, an index link has class `report-link`
(its line `headline`, the search box id `filter`), a replay link `replay-link`.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import shlex
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt

from ..errors import SheepsimError
from ..fileio import disk_full
from . import saved

MARKER = ".sheepsim-site"
# a replay record's keys (report/saved.py); a record may hold more (run: the run's label,
# why: what makes the game worth watching), which only the page shows
REPLAY_KEYS = ("label", "game", "players", "options", "policies", "seed", "index", "rotate")
PLOTLY = "assets/plotly.min.js"
# markdown-it with raw HTML off (a report's text is escaped, never markup) and GitHub's tables
MD = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


@dataclass
class Page:
    """One report as the site shows it, from its sidecar or from its Markdown."""
    name: str
    title: str
    game: str
    findings: list[str]                 # Markdown, one bullet each
    body: str                           # HTML of everything after the findings, provenance included
    from_data: bool                     # made from a sidecar (interactive figures, exact table values)
    interactive: int = 0                # figures drawn with plotly
    scripts: bool = False               # the page loads plotly
    headline: str = ""                  # Markdown: the sentence answering the report's question; the
                                        # index's line under the title ("": the first finding)


@dataclass
class Site:
    path: Path
    pages: list[Page] = field(default_factory=list)
    files: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def index(self) -> Path:
        return self.path / "index.html"


# ---------------------------------------------------------------------------
# Building and placing the site
# ---------------------------------------------------------------------------


def build(reports: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Site:
    """Build the site of the reports in `reports` into `out` (default REPORTS/site).
    Bad input raises SheepsimError before anything is written."""
    reports = Path(reports)
    if not reports.exists():
        raise SheepsimError(f"reports folder {reports} does not exist: give the folder `sheepsim run` wrote its "
                            f"reports to (default: reports)")
    if not reports.is_dir():
        raise SheepsimError(f"{reports} is a file, not a reports folder: give the folder `sheepsim run` wrote its "
                            f"reports to (default: reports)")
    sources = sorted(p for p in reports.glob("*.md") if p.is_file())
    if not sources:
        raise SheepsimError(f"no saved analysis output in {reports}: it has no *.md report; run an analysis into "
                            f"it first (`sheepsim run analyses/NAME.toml --reports {reports}`)")
    target = Path(out) if out is not None else reports / "site"
    _check_target(target, reports, sources)
    made = _make_parents(target.parent)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    except OSError as exc:
        _remove_made(made)
        raise SheepsimError(f"cannot write the site to {target}: {exc.strerror or exc}; give --out a folder you "
                            f"can write") from None
    try:
        site = Site(path=target)
        with disk_full(target):
            _write_site(site, reports, sources, staging)
            _swap(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_made(made)
        raise
    return site


def _check_target(target: Path, reports: Path, sources: Sequence[Path]) -> None:
    where, home = target.resolve(), reports.resolve()
    if where == home or where in home.parents:
        raise SheepsimError(f"--out {target} would replace the reports folder {reports} itself: give a folder of "
                            f"its own (default: {reports / 'site'})")
    for md in sources:
        folder = (reports / md.stem).resolve()
        if where == folder or where in folder.parents or folder in where.parents:
            raise SheepsimError(f"--out {target} would write into the figure folder of report {md.name}: give "
                                f"another folder (default: {reports / 'site'})")
    if target.exists() or target.is_symlink():
        if not target.is_dir() or target.is_symlink():
            raise SheepsimError(f"--out {target} exists and is not a folder: give a new folder, or a site "
                                f"`sheepsim report` made before (it is replaced)")
        if any(target.iterdir()) and not (target / MARKER).is_file():
            raise SheepsimError(f"--out {target} exists and is not a site `sheepsim report` made (no {MARKER} in "
                                f"it): give a new or empty folder, so that nothing else is replaced")


def _make_parents(folder: Path) -> list[Path]:
    """Create the missing folders above the site; the list of those created, to remove
    on failure."""
    missing = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise SheepsimError(f"cannot write the site under {probe}: it is a file, not a folder; give --out a folder "
                            f"you can write")
    made = []
    for path in reversed(missing):
        try:
            path.mkdir()
        except OSError as exc:
            _remove_made(made)
            raise SheepsimError(f"cannot write the site to {folder}: {exc.strerror or exc} ({path}); give --out a "
                                f"folder you can write") from None
        made.append(path)
    return made


def _remove_made(made: list[Path]) -> None:
    for path in reversed(made):
        try:
            path.rmdir()
        except OSError:
            pass


def _swap(staging: Path, target: Path) -> None:
    """The new site in place of the old in two renames; the old one removed after."""
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
        os.rmdir(old)
        os.rename(target, old)
    try:
        os.rename(staging, target)
    except OSError:
        if old is not None:
            os.rename(old, target)
        raise
    os.chmod(target, 0o755)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _write_site(site: Site, reports: Path, sources: Sequence[Path], folder: Path) -> None:
    names = {md.stem for md in sources}
    for md in sources:
        page = _page(md, reports, folder, names, site)
        _write(folder / f"{page.name}.html", _document(page.title, page.body, page.scripts,
                                                      back=True, findings=page.findings, headline=page.headline))
        site.pages.append(page)
    if any(p.scripts for p in site.pages):
        plotly = resources.files("plotly") / "package_data" / "plotly.min.js"
        (folder / "assets").mkdir(exist_ok=True)
        with resources.as_file(plotly) as source:
            shutil.copyfile(source, folder / PLOTLY)
    _write(folder / "index.html", _index(site.pages, reports))
    _write(folder / MARKER, "made by `sheepsim report`; the whole folder is replaced when it runs again\n")
    site.files = sum(1 for p in folder.rglob("*") if p.is_file())


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# ---------------------------------------------------------------------------
# One report's page
# ---------------------------------------------------------------------------


def _page(md: Path, reports: Path, folder: Path, names: set[str], site: Site) -> Page:
    data = saved.read_sidecar(md)
    if data is not None:
        return _page_from_data(md.stem, data, reports, folder, names, site)
    return _page_from_markdown(md, reports, folder, names)


class _Figures:
    """Copies the figures a page shows into the site (same path below it as below
    REPORTS) and numbers them; writes its tables as CSV beside them."""

    def __init__(self, reports: Path, folder: Path, name: str) -> None:
        self.reports, self.folder, self.name, self.count, self.tables = reports, folder, name, 0, 0
        self.home = reports.resolve()

    def csv(self, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
        """Write the page's next table to SITE/<name>/table-<k>.csv; the link under it."""
        self.tables += 1
        link = f"{self.name}/table-{self.tables}.csv"
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(["" if v is None else v for v in row] for row in rows)
        _write(self.folder / link, buffer.getvalue())
        href = html.escape(link, quote=True)
        return (f'<p class="table-tools"><a class="csv-link" href="{href}" download="{self.name}-table-'
                f'{self.tables}.csv">Download CSV</a></p>')

    def copy(self, link: str) -> str | None:
        """The figure's path in the site, or None when it is missing or lies outside REPORTS."""
        relative = unquote(link)
        source = (self.reports / relative).resolve()
        if self.home not in source.parents or not source.is_file():
            return None
        inside = source.relative_to(self.home)
        target = self.folder / inside
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            shutil.copyfile(source, target)
        return inside.as_posix()

    def next_id(self) -> str:
        self.count += 1
        return f"fig-{self.count}"


def _page_from_data(name: str, data: Mapping[str, Any], reports: Path, folder: Path, names: set[str],
                    site: Site) -> Page:
    figures = _Figures(reports, folder, name)
    parts: list[str] = []
    if data.get("description"):
        parts.append(f'<div class="description">{_markdown(data["description"], names)}</div>')
    headings = [s for s in data.get("sections", []) if s.get("type") == "heading" and s.get("level") == 2]
    contents = [(f"s-{k}", s["text"]) for k, s in enumerate(data.get("sections", []))
                if s.get("type") == "heading" and s.get("level") == 2]
    interactive = 0
    for k, section in enumerate(data.get("sections", [])):
        kind = section.get("type")
        if kind == "heading":
            level = min(max(int(section.get("level", 2)), 2), 6)
            parts.append(f'<h{level} id="s-{k}">{_inline(section["text"], names)}</h{level}>')
        elif kind == "paragraph":
            parts.append(_markdown(section.get("text", ""), names))
        elif kind == "table":
            parts.append(_table(section, names, figures))
        elif kind == "figure":
            text, drawn = _figure(section, reports, figures, names)
            parts.append(text)
            interactive += drawn
    replays = data.get("replays") or []
    if replays:
        parts.append(_replays(name, data.get("title") or name, replays, folder, site))
        contents.append(("replays", "Replays"))
    parts.append(_provenance(data.get("provenance") or {}))
    contents.append(("provenance", "Provenance"))
    toc = _contents(contents) if len(headings) > 1 else ""
    provenance = data.get("provenance") or {}
    return Page(name=name, title=data.get("title") or name, game=str(provenance.get("game", "")),
                findings=list(data.get("findings") or []), body=toc + "\n".join(parts), from_data=True,
                interactive=interactive, scripts=interactive > 0, headline=data.get("headline") or "")


def _contents(entries: Sequence[tuple[str, str]]) -> str:
    items = "".join(f'<li><a href="#{anchor}">{_inline(text, set())}</a></li>' for anchor, text in entries)
    return f'<nav class="contents" aria-label="contents"><ul>{items}</ul></nav>'


def _figure(section: Mapping[str, Any], reports: Path, figures: _Figures, names: set[str]) -> tuple[str, int]:
    """A figure: interactive when its data spec matches its PNG, else the PNG."""
    from . import interactive
    caption = _inline(section.get("caption", ""), names)
    alt = html.escape(section.get("caption", ""), quote=True)
    path = section.get("path", "")
    src = figures.copy(path)
    if src is None:
        return f'<p class="missing">Figure not found: {html.escape(path)}</p>', 0
    spec = saved.read_figure_spec(reports / unquote(path))
    fig = interactive.figure(spec) if spec is not None else None
    link = html.escape(src, quote=True)
    if fig is None:
        return (f'<figure class="figure"><img src="{link}" alt="{alt}" loading="lazy">'
                f'<figcaption>{caption}</figcaption></figure>'), 0
    ident = figures.next_id()
    height = int(fig["layout"].get("height") or 450)
    return (f'<figure class="figure figure-interactive" id="{ident}">'
            f'<div class="plotly-graph-div" id="{ident}-plot" style="height:{height}px" role="img" '
            f'aria-label="{alt}"></div>'
            f'<img class="figure-fallback" src="{link}" alt="{alt}" loading="lazy">'
            f'<script type="application/json" class="figure-data">{_script_json(fig)}</script>'
            f'<figcaption>{caption} <a class="static-link" href="{link}">Static image (PNG)</a></figcaption>'
            f'</figure>'), 1


def _script_json(data: Any) -> str:
    """JSON inside a <script> element: '<' escaped, so no '</script>' can end it early."""
    return json.dumps(saved.jsonable(data), separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


def _table(section: Mapping[str, Any], names: set[str], figures: _Figures) -> str:
    """A sidecar table: the Markdown's cell texts, each numeric cell carrying its value
    (data-sort) so that sorting goes by the number, not the text; its CSV holds every
    column of the data, exact."""
    columns = section.get("columns", [])
    head = "".join(f'<th scope="col"{_num(c)}>{html.escape(str(c.get("header", c.get("key", ""))))}</th>'
                   for c in columns)
    rows = []
    for record, cells in zip(section.get("rows", []), section.get("cells", [])):
        tds = []
        for column, text in zip(columns, cells):
            value = record.get(column.get("key")) if column.get("numeric") else None
            sort = "" if not isinstance(value, (int, float)) or isinstance(value, bool) else f' data-sort="{value!r}"'
            if column.get("numeric") and value is None:
                sort = ' data-sort=""'
            tds.append(f"<td{_num(column)}{sort}>{html.escape(str(text))}</td>")
        rows.append("<tr>" + "".join(tds) + "</tr>")
    caption = section.get("caption")
    note = f'<p class="caption">{_inline(caption, names)}</p>' if caption else ""
    keys = list(dict.fromkeys(k for record in section.get("rows", []) for k in record))
    download = figures.csv(keys, [[record.get(k) for k in keys] for record in section.get("rows", [])])
    return (f'<div class="table-wrap"><table class="sortable"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>{download}{note}')


def _num(column: Mapping[str, Any]) -> str:
    return ' class="num"' if column.get("numeric") else ""


def _provenance(provenance: Mapping[str, Any]) -> str:
    """Provenance as the Markdown gives it: scalars and flat lists inline, mappings and
    JSON text as a JSON block."""
    items = []
    for key, value in provenance.items():
        if isinstance(value, str):
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            if isinstance(parsed, (dict, list)):
                value = parsed
        nested = (dict, list)
        if isinstance(value, list) and not any(isinstance(v, nested) for v in value):
            shown = ", ".join(f"<code>{html.escape(str(v))}</code>" for v in value)
        elif isinstance(value, nested):
            shown = f"<pre>{html.escape(json.dumps(value, indent=2, sort_keys=True, default=str))}</pre>"
        elif key == "command":
            shown = f"<code>{html.escape(str(value))}</code>"
        else:
            shown = html.escape(str(value))
        items.append(f"<dt>{html.escape(str(key))}</dt><dd>{shown}</dd>")
    return f'<section class="provenance" id="provenance"><h2>Provenance</h2><dl>{"".join(items)}</dl></section>'


# ---------------------------------------------------------------------------
# Replays (the hook for report/replay.py)
# ---------------------------------------------------------------------------


def trace_command(record: Mapping[str, Any]) -> str:
    """The `sheepsim trace` command that plays a replay record's game again."""
    words = ["sheepsim", "trace", str(record["game"]), "-p", str(record["players"])]
    policies = list(record.get("policies") or [])
    if policies and all(p == policies[0] for p in policies):
        policies = policies[:1]
    for policy in policies:
        words += ["--policy", str(policy)]
    for key, value in (record.get("options") or {}).items():
        shown = ",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)
        words += ["-o", f"{key}={shown}"]
    words += ["--seed", str(record["seed"]), "--game", str(record["index"])]
    if record.get("rotate") is False:
        words.append("--no-rotate")
    return shlex.join(words)


def write_replay_page(path: Path, record: Mapping[str, Any], report: Mapping[str, str]) -> bool:
    """The replay page of one `replays` record (report/replay.py's write_replay; the
    record's keys: label, game, players, options, policies, seed, index, rotate), linked
    back to its report's page (`report`: {href, title})."""
    from .replay import write_replay
    write_replay(path, **{key: record[key] for key in REPLAY_KEYS if key in record}, report=dict(report))
    return path.is_file()


def _replays(name: str, title: str, records: Sequence[Mapping[str, Any]], folder: Path, site: Site) -> str:
    items = []
    back = {"href": f"../{name}.html", "title": _plain(title)}       # from SITE/replays/ to SITE/<name>.html
    for k, record in enumerate(records):
        label = html.escape(str(record.get("label", f"game {record.get('index')}")))
        if record.get("run"):
            label = f"{html.escape(str(record['run']))}: {label}"
        try:
            command = trace_command(record)
        except KeyError as exc:
            site.notes.append(f"{name}: replay {k} lacks {exc}: left out")
            continue
        page = folder / "replays" / f"{name}-{k}.html"
        page.parent.mkdir(exist_ok=True)
        try:
            written = write_replay_page(page, record, back)
        except Exception as exc:  # noqa: BLE001  (a replay page must not cost the designer the whole site)
            written = False
            page.unlink(missing_ok=True)
            site.notes.append(f"{name}: the replay page of {record.get('label')!r} was not written: {exc}")
        policies = ", ".join(dict.fromkeys(str(p) for p in record.get("policies") or []))
        what = (f"game {record.get('index')} of seed {record.get('seed')}, {record.get('players')} players"
                + (f", {html.escape(policies)}" if policies else "")
                + (f" ({html.escape(str(record['why']))})" if record.get("why") else ""))
        head = (f'<a class="replay-link" href="replays/{html.escape(page.name, quote=True)}">{label}</a>'
                if written else f"<strong>{label}</strong>")
        items.append(f"<li>{head}: {what}. <code>{html.escape(command)}</code></li>")
    if not any(folder.joinpath("replays").iterdir()):
        folder.joinpath("replays").rmdir()
    note = ("<p>Games of the runs worth watching. Each command prints the game move by move; a linked page "
            "replays it step by step.</p>")
    return f'<section id="replays"><h2>Replays</h2>{note}<ul class="replays">{"".join(items)}</ul></section>'


# ---------------------------------------------------------------------------
# A report without a sidecar: from its Markdown
# ---------------------------------------------------------------------------


def split_markdown(text: str) -> dict[str, Any]:
    """A report's Markdown in the parts a page shows: title, description, headline (the
    findings' text before their first bullet), findings (one Markdown string per
    bullet), body (the sections) and provenance."""
    title, description, headline, findings, body, provenance = "", [], [], [], [], []
    part, fenced, blank = "description", False, False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and not title and line.startswith("# "):
            title = line[2:].strip()
            continue
        if not fenced and line.startswith("## "):
            heading = line[3:].strip()
            part = {"Findings": "findings", "Provenance": "provenance"}.get(heading, "body")
            if part != "body":
                continue
        if part == "findings":
            # a bullet's text goes on in an indented line, or an unindented one right under
            # it; after a blank line an unindented line ends the list (a figure, a table)
            if line.startswith("- "):
                findings.append(line[2:])
            elif line.strip() and findings and (line[0].isspace() or not blank):
                findings[-1] += " " + line.strip()
            elif line.strip() and not findings:
                headline.append(line.strip())
            elif line.strip():
                part = "body"
            blank = not line.strip()
        if part != "findings":
            {"description": description, "body": body, "provenance": provenance}[part].append(line)
    return {"title": title, "description": "\n".join(description).strip(), "headline": " ".join(headline),
            "findings": findings,
            "body": "\n".join(body).strip(), "provenance": "\n".join(provenance).strip()}


def _page_from_markdown(md: Path, reports: Path, folder: Path, names: set[str]) -> Page:
    parts = split_markdown(md.read_text(encoding="utf-8"))
    figures = _Figures(reports, folder, md.stem)
    out = []
    if parts["description"]:
        out.append(f'<div class="description">{_markdown(parts["description"], names)}</div>')
    body, contents = _render_body(parts["body"], names, figures)
    out.append(body)
    if parts["provenance"]:
        out.append(f'<section class="provenance" id="provenance"><h2>Provenance</h2>'
                   f'{_markdown(parts["provenance"], names)}</section>')
        contents.append(("provenance", "Provenance"))
    toc = _contents(contents) if len(contents) > 2 else ""
    game = re.search(r"^- \*\*game\*\*: (\S+)", parts["provenance"], re.MULTILINE)
    return Page(name=md.stem, title=parts["title"] or md.stem, game=game.group(1) if game else "",
                findings=parts["findings"], body=toc + "\n".join(out), from_data=False, headline=parts["headline"])


def _render_body(text: str, names: set[str], figures: _Figures) -> tuple[str, list[tuple[str, str]]]:
    """The Markdown body with its tables sortable, its figures copied and its links to
    other reports pointing at their pages."""
    tokens = MD.parse(text)
    contents = []
    tables: list[list[list[str]]] = []          # each table's rows of cell texts, for its CSV
    for k, token in enumerate(tokens):
        if token.type == "table_open":
            token.attrSet("class", "sortable")
            tables.append([])
        elif token.type == "tr_open":
            tables[-1].append([])
        elif token.type == "inline" and tables and tokens[k - 1].type in ("th_open", "td_open"):
            tables[-1][-1].append("".join(c.content for c in token.children or [] if c.type != "softbreak"))
        elif token.type == "heading_open":
            token.attrSet("id", f"s-{k}")
            if token.tag == "h2":
                contents.append((f"s-{k}", tokens[k + 1].content))
        elif token.type == "inline":
            for child in token.children or []:
                if child.type == "image":
                    src = figures.copy(str(child.attrGet("src") or ""))
                    if src is None:
                        child.attrSet("src", "")
                        child.attrSet("class", "missing")
                    else:
                        child.attrSet("src", src)
                    child.attrSet("loading", "lazy")
                elif child.type == "link_open":
                    child.attrSet("href", _link(str(child.attrGet("href") or ""), names))
    pieces = MD.renderer.render(tokens, MD.options, {}).split("</table>")
    rendered = pieces[0]
    for rows, piece in zip(tables, pieces[1:]):
        rendered += "</table></div>" + figures.csv(rows[0], rows[1:]) + piece
    return rendered.replace("<table", '<div class="table-wrap"><table'), contents


def _link(href: str, names: set[str]) -> str:
    """A link to another report's Markdown goes to its page."""
    match = re.fullmatch(r"(?:\.?/)?(?:reports/)?([A-Za-z0-9_.-]+)\.md", href)
    return f"{match.group(1)}.html" if match and match.group(1) in names else href


def _markdown(text: str, names: set[str]) -> str:
    tokens = MD.parse(text)
    for token in tokens:
        if token.type == "table_open":
            token.attrSet("class", "sortable")
        for child in token.children or []:
            if child.type == "link_open":
                child.attrSet("href", _link(str(child.attrGet("href") or ""), names))
    rendered = MD.renderer.render(tokens, MD.options, {})
    return rendered.replace("<table", '<div class="table-wrap"><table').replace("</table>", "</table></div>")


def _inline(text: str, names: set[str]) -> str:
    tokens = MD.parseInline(text or "")
    for token in tokens:
        for child in token.children or []:
            if child.type == "link_open":
                child.attrSet("href", _link(str(child.attrGet("href") or ""), names))
    return MD.renderer.render(tokens, MD.options, {})


# ---------------------------------------------------------------------------
# The index and the page frame
# ---------------------------------------------------------------------------


def _index(pages: Sequence[Page], reports: Path) -> str:
    groups: dict[str, list[Page]] = {}
    for page in pages:
        groups.setdefault(page.game or "other", []).append(page)
    parts = [(f'<p class="lead">{len(pages)} report{"s" if len(pages) != 1 else ""} from <code>'
              f'{html.escape(str(reports))}</code>, each opening with its findings. Figures with an '
              f'<span class="tag live">interactive</span> tag show each value, its 95% interval and its n on '
              f'hover; click a table\'s header to sort it.</p>'),
             # shown by the script, which does the filtering
             '<div class="filter" hidden><input type="search" id="filter" placeholder="Filter: words of a title, '
             'headline or game" aria-label="filter the reports" autocomplete="off"> <span id="filter-count" '
             'aria-live="polite"></span></div><p id="no-match" hidden>No report matches.</p>']
    for game in sorted(groups):
        items = []
        for page in groups[game]:
            line = page.headline or (page.findings[0] if page.findings else None)
            lead = _inline(line, set()) if line else "<em>no findings</em>"
            tags = ('<span class="tag live">interactive</span>' if page.interactive else "") + (
                "" if page.from_data else '<span class="tag">from Markdown</span>')
            words = " ".join([page.name, _plain(page.title), _plain(line or ""), _game_title(game)]).lower()
            items.append(f'<li data-search="{html.escape(words, quote=True)}"><a class="report-link" '
                         f'href="{html.escape(page.name, quote=True)}.html">{_inline(page.title, set())}</a> {tags}'
                         f'<p class="headline">{lead}</p></li>')
        parts.append(f'<section class="game"><h2>{html.escape(_game_title(game))}</h2><ul class="reports">'
                     f'{"".join(items)}</ul></section>')
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f'<p class="built">Built by <code>sheepsim report</code> on {when}.</p>')
    return _document("sheepsim reports", "\n".join(parts), scripts=False, back=False)


def _game_title(name: str) -> str:
    try:
        from ..games import get_game
        return get_game(name).title
    except Exception:  # noqa: BLE001  (a report of a game not installed here keeps its name)
        return name


def _document(title: str, body: str, scripts: bool, back: bool, findings: Sequence[str] | None = None,
              headline: str = "") -> str:
    nav = '<nav class="top"><a href="index.html">&larr; All reports</a></nav>' if back else ""
    box = ""
    if findings or headline:
        top = f'<p class="headline">{_inline(headline, set())}</p>' if headline else ""
        items = "".join(f"<li>{_inline(line, set())}</li>" for line in findings or [])
        box = f'<section class="findings" id="findings"><h2>Findings</h2>{top}<ul>{items}</ul></section>'
    plotly = f'<script src="{PLOTLY}"></script>' if scripts else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html.escape(_plain(title))}</title><style>{CSS}</style></head>\n'
            f'<body>{nav}<main><h1>{_inline(title, set())}</h1>{box}\n{body}\n</main>'
            f'{plotly}<script>{SCRIPT}</script></body></html>\n')


def _plain(text: str) -> str:
    return re.sub(r"[*`]", "", text)


CSS = """
:root{--ink:#1d1d1f;--muted:#5f6368;--line:#d9dce1;--tint:#f5f7fa;--accent:#1f5fa8}
*{box-sizing:border-box}
body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#fff}
main{max-width:1080px;margin:0 auto;padding:16px 24px 64px}
nav.top{max-width:1080px;margin:0 auto;padding:12px 24px 0;font-size:14px}
a{color:var(--accent)}
h1{font-size:1.7em;line-height:1.25;margin:.4em 0 .6em}
h2{font-size:1.3em;margin:1.8em 0 .5em;padding-bottom:.2em;border-bottom:1px solid var(--line)}
h3{font-size:1.1em;margin:1.4em 0 .4em}
.findings{background:#eef4fb;border:1px solid #c9dcf1;border-radius:8px;padding:4px 20px 8px;margin:0 0 1.2em}
.findings h2{border:0;margin:.6em 0 .2em}
.findings li{margin:.35em 0}
.findings .headline{font-weight:600;margin:.4em 0 .2em}
.description{color:#333}
nav.contents ul{display:flex;flex-wrap:wrap;gap:4px 14px;list-style:none;padding:0;margin:.8em 0;font-size:14px}
.table-wrap{overflow-x:auto;margin:.8em 0 .3em;max-width:100%}
.table-wrap::-webkit-scrollbar{height:10px}
.table-wrap::-webkit-scrollbar-thumb{background:#b9c0c8;border-radius:5px}
.table-wrap::-webkit-scrollbar-track{background:var(--tint)}
table{border-collapse:collapse;font-size:13.5px;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:4px 9px;vertical-align:top}
td.num,td[style*="right"]{white-space:nowrap}
th{background:var(--tint);text-align:left;cursor:pointer;user-select:none;white-space:nowrap}
th.num,td.num,th[style*="right"],td[style*="right"]{text-align:right}
th[aria-sort=ascending]::after{content:" \\25B2";font-size:.75em}
th[aria-sort=descending]::after{content:" \\25BC";font-size:.75em}
tbody tr:nth-child(even){background:#fafbfc}
tbody tr:hover{background:#fff8e1}
.caption,figcaption{color:var(--muted);font-size:13.5px;font-style:italic;margin:.3em 0 1em}
figure{margin:1.2em 0}
figure img,main p>img{max-width:100%;height:auto;border:1px solid var(--line)}
.figure-interactive .plotly-graph-div{width:100%}
.figure-interactive.live .figure-fallback{display:none}
.figure-interactive:not(.live) .plotly-graph-div{display:none}
.static-link{font-style:normal;font-size:12.5px;margin-left:.4em}
.provenance dt{font-weight:600;margin-top:.5em}
.provenance dd{margin:0 0 0 1.2em}
pre{background:var(--tint);padding:8px 12px;overflow-x:auto;font-size:12.5px;border-radius:4px}
code{font-size:.92em;background:var(--tint);padding:0 3px;border-radius:3px}
pre code{background:none;padding:0}
.missing{color:#a33}
ul.reports{list-style:none;padding:0}
ul.reports li{padding:10px 0;border-bottom:1px solid #eceef1}
.report-link{font-weight:600;font-size:1.05em}
.headline{margin:.25em 0 0;color:#333;font-size:14px}
.filter{margin:1em 0 .5em}
#filter{font:inherit;width:min(100%,30em);padding:6px 10px;border:1px solid #b9c0c8;border-radius:6px}
#filter-count{color:var(--muted);font-size:13px;margin-left:.5em}
.table-tools{margin:0 0 .4em;font-size:12.5px}
.scroll-hint{color:var(--muted);font-size:12.5px;margin:.8em 0 -.5em}
.tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:9px;background:#eceef1;color:var(--muted);
vertical-align:middle}
.tag.live{background:#e3f1e6;color:#23672f}
.lead{color:#333}
.built{color:var(--muted);font-size:13px;margin-top:3em}
ul.replays li{margin:.4em 0}
"""

# Sorting: a click (or Enter) on a header sorts by that column, again to reverse. A
# column sorts by number when every cell has one: data-sort when the page has the value,
# else the cell's first number ("51.2% [50.3, 52.1]" by 51.2, "1,000" by 1000, "< 1e-300"
# just below 1e-300); empty and "n/a" cells go last. A table wider than the page scrolls
# in its frame, and a line above it says so (a scroll bar alone is easy to miss). The
# index's search box keeps the reports holding every word typed. Figures: plotly draws
# each spec, and the PNG stays where it cannot (no script, or plotly.min.js missing).
SCRIPT = """
(function(){
function num(td){var s=td.getAttribute('data-sort');if(s!==null)return s===''?NaN:parseFloat(s);
var t=td.textContent.trim().replace(/,/g,'');
var m=t.match(/^<\\s*([0-9.]+(e[+-]?\\d+)?)/i);if(m)return parseFloat(m[1])*(1-1e-9);
m=t.match(/^[+-]?(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?/i);return m?parseFloat(m[0]):NaN;}
function blank(td){var t=td.textContent.trim();return t===''||t==='n/a';}
document.querySelectorAll('table.sortable').forEach(function(table){
var head=table.tHead?table.tHead.rows[0]:null,body=table.tBodies[0];if(!head||!body)return;
Array.prototype.forEach.call(head.cells,function(th,col){
th.tabIndex=0;th.title='Sort by this column';
function sort(){var rows=Array.prototype.slice.call(body.rows);var up=th.getAttribute('aria-sort')!=='ascending';
var keys=rows.map(function(r){return r.cells[col]?num(r.cells[col]):NaN;});
var numeric=rows.every(function(r,i){return !isNaN(keys[i])||!r.cells[col]||blank(r.cells[col]);});
var order=rows.map(function(r,i){return i;});
order.sort(function(a,b){if(numeric){var x=keys[a],y=keys[b];if(isNaN(x)||isNaN(y))return isNaN(x)-isNaN(y)||a-b;
return (up?x-y:y-x)||a-b;}var p=rows[a].cells[col].textContent,q=rows[b].cells[col].textContent;
var c=p.localeCompare(q,undefined,{numeric:true});return (up?c:-c)||a-b;});
Array.prototype.forEach.call(head.cells,function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',up?'ascending':'descending');order.forEach(function(i){body.appendChild(rows[i]);});}
th.addEventListener('click',sort);
th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();sort();}});});});
document.querySelectorAll('.table-wrap').forEach(function(wrap){
if(wrap.scrollWidth<=wrap.clientWidth+1)return;var hint=document.createElement('p');hint.className='scroll-hint';
hint.textContent='A wide table: scroll it sideways for all '+wrap.querySelector('tr').cells.length+' columns.';
wrap.parentNode.insertBefore(hint,wrap);});
var filter=document.getElementById('filter');
if(filter){var items=document.querySelectorAll('ul.reports li');filter.parentNode.hidden=false;
var apply=function(){var words=filter.value.toLowerCase().split(/\\s+/).filter(Boolean),shown=0;
items.forEach(function(li){var hit=words.every(function(w){return li.getAttribute('data-search').indexOf(w)>=0;});
li.hidden=!hit;shown+=hit;});
document.querySelectorAll('section.game').forEach(function(s){s.hidden=!s.querySelector('li:not([hidden])');});
document.getElementById('no-match').hidden=shown>0;
document.getElementById('filter-count').textContent=words.length?shown+' of '+items.length+' reports':'';};
filter.addEventListener('input',apply);apply();}
document.querySelectorAll('.figure-interactive').forEach(function(box){
if(!window.Plotly)return;var plot=box.querySelector('.plotly-graph-div'),data=box.querySelector('script.figure-data');
try{var fig=JSON.parse(data.textContent);box.classList.add('live');Plotly.newPlot(plot,fig.data,fig.layout,fig.config);}
catch(e){box.classList.remove('live');}});
})();
"""
