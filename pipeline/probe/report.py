"""The trend of the three rates across probe runs: a text table and a self-contained HTML page.

One row per run key (model, mode, source, prompt, catalog and suite versions): its latest run,
rated over the ``matched`` answers it holds. The page draws each rate as points with their 95%
Wilson intervals as error bars, in inline SVG written here (no script, no external resource).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from sqlalchemy.orm import Session

from pipeline.probe.scoring import aggregate
from pipeline.probe.storage import RunInfo, latest_runs, stored
from pipeline.probe.summary import GATED

__all__ = ["TrendRow", "format_table", "render_html", "trend"]


@dataclass(frozen=True)
class TrendRow:
    run: RunInfo
    answers: int
    rates: dict[str, dict[str, Any]]  # GATED name -> {"rate", "count", "total", "ci95"}


def trend(s: Session) -> list[TrendRow]:
    """The latest run of every key, oldest first, with its three rates."""
    rows = []
    for run in latest_runs(s):
        answers = stored(s, run.id)
        rates = aggregate(a.verdict for a in answers if a.variant == "matched" and a.verdict is not None)
        rows.append(TrendRow(run, len(answers), {name: rates[name] for name in GATED}))
    return rows


def _cell(figure: dict[str, Any]) -> str:
    if not figure["total"]:
        return "-"
    lo, hi = figure["ci95"]
    return f"{figure['rate']:.3f} [{lo:.2f},{hi:.2f}] {figure['count']}/{figure['total']}"


def format_table(rows: list[TrendRow]) -> str:
    """One line per run key; each rate as rate [ci95] count/total."""
    header = ["run", "started", "model", "mode", "source", "prompt", "catalog", "suite", "status", *GATED]
    lines = [header]
    for row in rows:
        run, key = row.run, row.run.key
        lines.append([str(run.id), f"{run.started_at:%Y-%m-%d %H:%M}", key.model, key.mode, key.source,
                      key.prompt_version, key.catalog_version, key.suite_version, run.status,
                      *(_cell(row.rates[name]) for name in GATED)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in lines)


_W, _H, _LEFT, _RIGHT, _TOP, _BOTTOM = 760, 240, 56, 16, 16, 40


def _y_max(rows: list[TrendRow], name: str) -> float:
    high = max((row.rates[name]["ci95"][1] for row in rows if row.rates[name]["total"]), default=0.0)
    for top in (0.05, 0.1, 0.2, 0.5, 1.0):
        if high <= top:
            return top
    return 1.0


def _chart(rows: list[TrendRow], name: str) -> str:
    """One SVG: a point per run key, its CI as a vertical bar, the y axis scaled to the highest bar."""
    top = _y_max(rows, name)
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM
    step = plot_w / max(len(rows), 1)

    def y(value: float) -> float:
        return _TOP + plot_h * (1 - value / top)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" role="img" '
             f'aria-label="{escape(name)} rate by version">']
    for tick in range(5):
        value = top * tick / 4
        at = y(value)
        parts.append(f'<line x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{at:.1f}" y2="{at:.1f}" stroke="#ddd"/>'
                     f'<text x="{_LEFT - 6}" y="{at + 4:.1f}" text-anchor="end" font-size="11">{value:.3g}</text>')
    for i, row in enumerate(rows):
        x = _LEFT + step * (i + 0.5)
        parts.append(f'<text x="{x:.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle" '
                     f'font-size="11">r{row.run.id}</text>')
        figure = row.rates[name]
        if not figure["total"]:
            continue
        lo, hi = figure["ci95"]
        tip = escape(f"run {row.run.id} {row.run.key.model}: {_cell(figure)}")
        parts.append(
            f'<g><title>{tip}</title>'
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y(lo):.1f}" y2="{y(hi):.1f}" stroke="#345" stroke-width="1.5"/>'
            f'<line x1="{x - 5:.1f}" x2="{x + 5:.1f}" y1="{y(lo):.1f}" y2="{y(lo):.1f}" stroke="#345"/>'
            f'<line x1="{x - 5:.1f}" x2="{x + 5:.1f}" y1="{y(hi):.1f}" y2="{y(hi):.1f}" stroke="#345"/>'
            f'<circle cx="{x:.1f}" cy="{y(figure["rate"]):.1f}" r="4" fill="#c33"/></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def render_html(rows: list[TrendRow]) -> str:
    """A self-contained page: a chart per rate, then the table of versions behind each run label."""
    charts = "".join(f"<h2>{escape(name.replace('_', ' '))} rate</h2>{_chart(rows, name)}" for name in GATED)
    head = ("<tr><th>run</th><th>started</th><th>model</th><th>mode</th><th>source</th><th>prompt</th>"
            "<th>catalog</th><th>suite</th><th>status</th>" + "".join(f"<th>{n}</th>" for n in GATED) + "</tr>")
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in (
            f"r{r.run.id}", f"{r.run.started_at:%Y-%m-%d %H:%M}", r.run.key.model, r.run.key.mode, r.run.key.source,
            r.run.key.prompt_version, r.run.key.catalog_version, r.run.key.suite_version, r.run.status,
            *(_cell(r.rates[n]) for n in GATED))) + "</tr>"
        for r in rows
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>factline probe report</title>'
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}</style></head><body>"
        "<h1>Tool-hallucination rates by version</h1>"
        "<p>Latest run per model, mode, source and prompt/catalog/suite version; points are rates over the "
        "matched-prompt answers, bars their 95% Wilson intervals.</p>"
        f"{charts}<h2>Runs</h2><table>{head}{body}</table></body></html>\n"
    )
