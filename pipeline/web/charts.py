"""Charts as inline SVG written on the server: no script, no external resource, nothing for a CSP to allow.

One chart per probe series: the three rates of every run as points joined by lines, each point with its
95% Wilson interval as a vertical bar; under each point its date and the prompt/catalog versions it was
measured with. Every label is escaped (markupsafe), the numbers are formatted here.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from pipeline.web.probes import GATED, ProbeSeries

__all__ = ["COLOURS", "series_chart"]

COLOURS = {"unknown_tool": "#c0392b", "shadow_call": "#2471a3", "hallucinated_argument": "#b9770e"}
_W, _H, _LEFT, _RIGHT, _TOP, _BOTTOM = 860, 300, 56, 20, 34, 58
_OFFSET = {"unknown_tool": -6, "shadow_call": 0, "hallucinated_argument": 6}  # keep the bars of one run apart


def _y_max(series: ProbeSeries) -> float:
    high = max((p.rates[n]["ci95"][1] for p in series.points for n in GATED if p.rates[n]["total"]), default=0.0)
    return next((top for top in (0.05, 0.1, 0.2, 0.5) if high <= top), 1.0)


def series_chart(series: ProbeSeries) -> Markup:
    """The SVG of one (model, mode, source) series."""
    top = _y_max(series)
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM
    step = plot_w / max(len(series.points), 1)

    def x(i: int) -> float:
        return _LEFT + step * (i + 0.5)

    def y(value: float) -> float:
        return _TOP + plot_h * (1 - value / top)

    title = f"{series.model} {series.mode} {series.source}: tool-hallucination rates by run"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" '
             f'role="img" aria-label="{escape(title)}" class="chart">']
    for tick in range(5):
        value = top * tick / 4
        parts.append(f'<line x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="#ddd"/>'
                     f'<text x="{_LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end" font-size="11">{value:.3g}</text>')
    for n, name in enumerate(GATED):
        lx = _LEFT + n * 220
        parts.append(f'<rect x="{lx}" y="8" width="12" height="12" fill="{COLOURS[name]}"/>'
                     f'<text x="{lx + 18}" y="18" font-size="12">{escape(name.replace("_", " "))} rate</text>')
    for i, point in enumerate(series.points):
        parts.append(f'<text x="{x(i):.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle" font-size="11">'
                     f'{point.started_at:%Y-%m-%d}</text>'
                     f'<text x="{x(i):.1f}" y="{_H - _BOTTOM + 30}" text-anchor="middle" font-size="10" fill="#555">'
                     f'{escape(point.label)}</text>'
                     f'<text x="{x(i):.1f}" y="{_H - _BOTTOM + 43}" text-anchor="middle" font-size="10" fill="#555">'
                     f'run {point.run_id}</text>')
    for name in GATED:
        colour, dx = COLOURS[name], _OFFSET[name]
        measured = [(i, p.rates[name]) for i, p in enumerate(series.points) if p.rates[name]["total"]]
        if len(measured) > 1:
            path = " ".join(f"{x(i) + dx:.1f},{y(f['rate']):.1f}" for i, f in measured)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        for i, figure in measured:
            lo, hi = figure["ci95"]
            cx = x(i) + dx
            tip = (f"run {series.points[i].run_id} {name}: {figure['rate']:.3f} ({figure['count']}/{figure['total']}), "
                   f"95% CI {lo:.3f}-{hi:.3f}")
            parts.append(
                f'<g><title>{escape(tip)}</title>'
                f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(lo):.1f}" y2="{y(hi):.1f}" stroke="{colour}"/>'
                f'<line x1="{cx - 3:.1f}" x2="{cx + 3:.1f}" y1="{y(lo):.1f}" y2="{y(lo):.1f}" stroke="{colour}"/>'
                f'<line x1="{cx - 3:.1f}" x2="{cx + 3:.1f}" y1="{y(hi):.1f}" y2="{y(hi):.1f}" stroke="{colour}"/>'
                f'<circle cx="{cx:.1f}" cy="{y(figure["rate"]):.1f}" r="3.5" fill="{colour}"/></g>')
    parts.append("</svg>")
    return Markup("".join(parts))
