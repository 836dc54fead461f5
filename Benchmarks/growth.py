#!/usr/bin/env python3
"""Draws how subdash's costs grow with the store, from the figures subdash-bench saved.

    subdash-bench --subscribers 10000,100000 --figures-file docs/growth.json
    subdash-bench --subscribers 1000000 --imports v1 --figures-file docs/growth.json   # merged in
    Benchmarks/growth.py docs/growth.json docs/growth.md docs/growth.svg

Writes a Markdown table (µs per imported document, the import's peak memory, the dashboard's
first frame and each pane's first visit, at every size in the file) and an SVG with one panel per
kind of figure, sizes on a logarithmic axis. Only the standard library is needed.
"""
import html
import json
import math
import sys

# (figure name in the file, label, panel)
SERIES = [
    ("import v1: µs per document", "import v1, µs per document", "µs per document"),
    ("import v1: peak MB", "import v1, peak RSS (MB)", "peak RSS, MB"),
    ("dashboard first frame: ms", "dashboard first frame (pane 1), ms", "first visit, ms"),
]
PANE_PREFIX = "dashboard first visit, pane "
PANELS = ["µs per document", "peak RSS, MB", "first visit, ms"]
TARGETS = {"peak RSS, MB": (300, "300 MB bound"), "first visit, ms": (100, "100 ms target")}
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]


def load(path):
    with open(path) as handle:
        by_size = json.load(handle)["bySubscribers"]
    return {int(size): values for size, values in by_size.items()}


def series(figures):
    names = {name for values in figures.values() for name in values}
    chosen = [s for s in SERIES if s[0] in names]
    for name in sorted(n for n in names if n.startswith(PANE_PREFIX)):
        pane = name[len(PANE_PREFIX):].removesuffix(": ms")
        chosen.append((name, f"pane {pane}, first visit, ms", "first visit, ms"))
    return chosen


def table(figures, chosen):
    sizes = sorted(figures)
    lines = ["| figure | " + " | ".join(f"{n:,}" for n in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for name, label, _ in chosen:
        cells = []
        for n in sizes:
            value = figures[n].get(name)
            cells.append("–" if value is None else f"{value:,.0f}" if value >= 100 else f"{value:.3g}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def svg(figures, chosen):
    sizes = sorted(figures)
    width, panel_height, left, right, top = 760, 230, 70, 250, 30
    height = top + len(PANELS) * (panel_height + 40)
    low, high = math.log10(min(sizes)), math.log10(max(sizes))
    span = high - low or 1

    def x(n):
        return left + (math.log10(n) - low) / span * (width - left - right)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="13">subdash: cost by store size (subscribers, log scale)</text>']
    colour = 0
    for index, panel in enumerate(PANELS):
        y0 = top + index * (panel_height + 40) + 10
        members = [(name, label) for name, label, p in chosen if p == panel]
        values = [figures[n][name] for name, _ in members for n in sizes if name in figures[n]]
        target = TARGETS.get(panel)
        ceiling = max(values + ([target[0]] if target else []) + [1]) * 1.1

        def y(v):
            return y0 + panel_height - v / ceiling * panel_height

        out.append(f'<text x="{left}" y="{y0 - 2}" font-weight="bold">{html.escape(panel)}</text>')
        out.append(f'<line x1="{left}" y1="{y0 + panel_height}" x2="{width - right}" y2="{y0 + panel_height}" stroke="black"/>')
        out.append(f'<line x1="{left}" y1="{y0}" x2="{left}" y2="{y0 + panel_height}" stroke="black"/>')
        for k in range(5):
            v = ceiling * k / 4
            out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:,.0f}</text>')
            out.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{width - right}" y2="{y(v):.1f}" stroke="#ddd"/>')
        for n in sizes:
            out.append(f'<text x="{x(n):.1f}" y="{y0 + panel_height + 14}" text-anchor="middle">{n:,}</text>')
        if target:
            out.append(f'<line x1="{left}" y1="{y(target[0]):.1f}" x2="{width - right}" y2="{y(target[0]):.1f}" '
                       f'stroke="#999" stroke-dasharray="4 3"/>')
            out.append(f'<text x="{width - right + 6}" y="{y(target[0]) + 4:.1f}" fill="#666">{target[1]}</text>')
        for row, (name, label) in enumerate(members):
            stroke = COLOURS[colour % len(COLOURS)]
            colour += 1
            points = [(x(n), y(figures[n][name])) for n in sizes if name in figures[n]]
            if len(points) > 1:
                path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
                out.append(f'<polyline points="{path}" fill="none" stroke="{stroke}" stroke-width="2"/>')
            for px, py in points:
                out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{stroke}"/>')
            ly = y0 + 14 + row * 16
            out.append(f'<rect x="{width - right + 6}" y="{ly - 9}" width="10" height="10" fill="{stroke}"/>')
            out.append(f'<text x="{width - right + 20}" y="{ly}">{html.escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    figures = load(sys.argv[1])
    chosen = series(figures)
    with open(sys.argv[2], "w") as handle:
        handle.write(table(figures, chosen))
    with open(sys.argv[3], "w") as handle:
        handle.write(svg(figures, chosen))


if __name__ == "__main__":
    main()
