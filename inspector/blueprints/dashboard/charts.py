"""Charts drawn on the server as SVG: bars, stacked bars and lines, with no script and no
style attribute (the CSP forbids both): geometry is SVG attributes, colours are classes
of static/css/dashboard.css. Each drawing is 340 units wide, a phone's width in CSS pixels,
so its 12-unit text reads as 12 px on a 360 px phone and scales with the page elsewhere.
The numbers are always in a table beside the chart (screen readers, printing)."""
from __future__ import annotations

from collections.abc import Sequence
from itertools import count

from markupsafe import Markup, escape

WIDTH = 340
LEGEND_HALF = 22     # characters of an 11-unit legend that fit half the width
_ids = count(1)


def _svg(title: str, height: float, body: list[str]) -> Markup:
    ident = f"grafico-{next(_ids)}"
    return Markup(
        f'<svg class="chart-svg" viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-labelledby="{ident}" preserveAspectRatio="xMinYMin meet" '
        f'xmlns="http://www.w3.org/2000/svg"><title id="{ident}">{escape(title)}</title>'
        + "".join(body) + "</svg>")


def _num(value: float) -> str:
    text = f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"
    return text.replace(",", "X").replace(".", ",").replace("X", ".")


def columns(title: str, labels: Sequence[str], values: Sequence[float]) -> Markup:
    """Vertical bars (a count per week or month), the largest value written above its bar,
    every label that fits written under the axis."""
    height, top, bottom, left = 170, 18, 26, 4
    n = max(len(values), 1)
    top_value = max(values, default=0) or 1
    step = (WIDTH - 2 * left) / n
    bar = max(step * 0.72, 1)
    every = max(1, round(n / 8 + 0.49))     # at most ~8 labels across a phone
    body = [f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{WIDTH - left}" '
            f'y2="{height - bottom}"/>']
    peak = max(range(len(values)), key=lambda i: values[i], default=None)
    for i, (label, value) in enumerate(zip(labels, values)):
        h = (height - top - bottom) * value / top_value
        x = left + i * step + (step - bar) / 2
        y = height - bottom - h
        body.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                    f'height="{h:.1f}"><title>{escape(label)}: {_num(value)}</title></rect>')
        if i % every == 0:
            body.append(f'<text class="tick" x="{x + bar / 2:.1f}" y="{height - 8}" '
                        f'text-anchor="middle">{escape(label)}</text>')
        if i == peak and value:
            body.append(f'<text class="value" x="{x + bar / 2:.1f}" y="{max(y - 4, 12):.1f}" '
                        f'text-anchor="middle">{_num(value)}</text>')
    return _svg(title, height, body)


def bars(title: str, labels: Sequence[str], values: Sequence[float],
         texts: Sequence[str] | None = None) -> Markup:
    """Horizontal bars, one per row: its label above it, its value at its end (`texts` when
    the value is shown otherwise, e.g. in R$)."""
    row, left = 34, 2
    height = max(len(values), 1) * row + 4
    top_value = max(values, default=0) or 1
    room = WIDTH - left - 70
    body = []
    for i, (label, value) in enumerate(zip(labels, values)):
        y = 4 + i * row
        w = max(room * value / top_value, 1 if value else 0)
        shown = texts[i] if texts else _num(value)
        body.append(f'<text class="label" x="{left}" y="{y + 11}">{escape(_cut(label))}</text>')
        body.append(f'<rect class="bar" x="{left}" y="{y + 15}" width="{w:.1f}" height="14">'
                    f'<title>{escape(label)}: {escape(shown)}</title></rect>')
        body.append(f'<text class="value" x="{left + w + 4:.1f}" y="{y + 26}">'
                    f'{escape(shown)}</text>')
    return _svg(title, height, body)


def stacked(title: str, labels: Sequence[str], parts: Sequence[Sequence[float]],
            names: Sequence[str], prefix: str = "part") -> Markup:
    """Horizontal bars cut in parts (states of acts, standing of a fleet), with a legend;
    part k takes the class `<prefix>-k`."""
    row, left = 34, 2
    # two legend columns when every name fits half the width, else one: never cut a name
    per_row = 2 if max((len(n) for n in names), default=0) <= LEGEND_HALF else 1
    legend_rows = (len(names) + per_row - 1) // per_row
    height = max(len(parts), 1) * row + 8 + legend_rows * 18
    total_max = max((sum(p) for p in parts), default=0) or 1
    room = WIDTH - left - 50
    body = []
    for i, (label, values) in enumerate(zip(labels, parts)):
        y = 4 + i * row
        body.append(f'<text class="label" x="{left}" y="{y + 11}">{escape(_cut(label))}</text>')
        x = left
        for k, value in enumerate(values):
            w = room * value / total_max
            if w <= 0:
                continue
            body.append(f'<rect class="{prefix}-{k}" x="{x:.1f}" y="{y + 15}" width="{w:.1f}" '
                        f'height="14"><title>{escape(label)}, {escape(names[k])}: '
                        f'{_num(value)}</title></rect>')
            x += w
        body.append(f'<text class="value" x="{x + 4:.1f}" y="{y + 26}">{_num(sum(values))}</text>')
    y0 = max(len(parts), 1) * row + 10
    for k, name in enumerate(names):
        x, y = (k % per_row) * (WIDTH / 2), y0 + (k // per_row) * 18
        body.append(f'<rect class="{prefix}-{k}" x="{x + 2:.1f}" y="{y}" width="12" height="12"/>'
                    f'<text class="legend" x="{x + 18:.1f}" y="{y + 11}">{escape(name)}</text>')
    return _svg(title, height, body)


def lines(title: str, labels: Sequence[str], series: dict[str, Sequence[float | None]],
          percent: bool = True) -> Markup:
    """Lines over days (the share of the fleet regular), 0 to 100 %, one per series (class
    `line-k`, with a dot on each recorded day); gaps where a day was not recorded."""
    # room on the left for "100%" written at the tick size
    height, top, bottom, left, right = 170, 12, 40, 40, 8
    n = len(labels)
    inner_w, inner_h = WIDTH - left - right, height - top - bottom
    body = []
    for pct in (0, 50, 100):
        y = top + inner_h * (1 - pct / 100)
        body.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{WIDTH - right}" y2="{y:.1f}"/>'
                    f'<text class="tick" x="{left - 3}" y="{y + 4:.1f}" text-anchor="end">{pct}%</text>')

    def x_of(i: int) -> float:
        return left + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)

    for k, (name, values) in enumerate(series.items()):
        points = [(x_of(i), top + inner_h * (1 - v)) for i, v in enumerate(values) if v is not None]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            body.append(f'<polyline class="line-{k}" fill="none" points="{path}"/>')
        for (x, y), (i, v) in zip(points, [(i, v) for i, v in enumerate(values) if v is not None]):
            body.append(f'<circle class="dot-{k}" cx="{x:.1f}" cy="{y:.1f}" r="3"><title>'
                        f'{escape(name)}, {escape(labels[i])}: {_num(v * 100)}%</title></circle>')
        body.append(f'<rect class="part-{k}" x="{left + k * 120}" y="{height - 14}" width="12" '
                    f'height="12"/><text class="legend" x="{left + k * 120 + 16}" '
                    f'y="{height - 4}">{escape(name)}</text>')
    if n:
        for i in sorted({0, n - 1}):
            body.append(f'<text class="tick" x="{x_of(i):.1f}" y="{height - 22}" '
                        f'text-anchor="{"start" if i == 0 and n > 1 else "end" if n > 1 else "middle"}">'
                        f'{escape(labels[i])}</text>')
    return _svg(title, height, body)


def _cut(text: str, most: int = 46) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"
