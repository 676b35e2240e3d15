"""Bar charts as inline SVG for the HTML report: no script, no external asset, readable
offline and in any browser."""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy_simdedup.audit.bins import Histogram

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 40, 10, 24, 46
COLOURS = ("#3b6fb6", "#e08a2c", "#5a9e5a")
LABEL_CHAR_PX = 6.5
"""A tick label's width per character at the ticks' 11 px font: labels are printed one bin
in so many that they never overlap (every bin's full label is in its bars' tooltips)."""


def bar_chart(histogram: Histogram, *, marker: str, after: bool = False) -> str:
    """A grouped bar chart of ``histogram`` (one colour per series, a legend), with a
    dashed line and ``marker`` at the marked bin: at its left edge, or its right one when
    ``after`` (k is the last distance within reach)."""
    bins, series = histogram.bins, histogram.counts
    largest = max((n for counts in series.values() for n in counts), default=0) or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / max(1, len(bins))
    bar = slot * 0.8 / max(1, len(series))
    widest = max((len(label) for label in bins), default=0) * LABEL_CHAR_PX
    every = max(1, math.ceil((widest + LABEL_CHAR_PX) / slot))
    parts = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(histogram.title)}">',
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - RIGHT}" y2="{TOP + plot_h}" '
        'class="axis"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" class="tick" text-anchor="end">{largest}</text>',
        f'<text x="{LEFT - 6}" y="{TOP + plot_h}" class="tick" text-anchor="end">0</text>',
    ]
    for at, label in enumerate(bins):
        x0 = LEFT + at * slot + slot * 0.1
        for number, (name, counts) in enumerate(series.items()):
            count = counts[at]
            height = plot_h * count / largest
            x = x0 + number * bar
            parts.append(
                f'<rect class="bar" x="{x:.1f}" y="{TOP + plot_h - height:.1f}" '
                f'width="{bar:.1f}" height="{height:.1f}" fill="{COLOURS[number % 3]}">'
                f"<title>{escape(name)} {escape(label)}: {count}</title></rect>"
            )
        if at % every == 0:
            parts.append(
                f'<text x="{LEFT + (at + 0.5) * slot:.1f}" y="{TOP + plot_h + 14}" class="tick" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    if histogram.marked is not None:
        x = LEFT + (histogram.marked + (1 if after else 0)) * slot
        parts.append(
            f'<line class="marker" x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{TOP + plot_h}"/>'
            f'<text x="{x + 4:.1f}" y="{TOP - 10 + 6}" class="tick">{escape(marker)}</text>'
        )
    for number, name in enumerate(series):
        x = LEFT + number * 130
        parts.append(
            f'<rect x="{x}" y="{HEIGHT - 16}" width="10" height="10" '
            f'fill="{COLOURS[number % 3]}"/><text x="{x + 14}" y="{HEIGHT - 7}" '
            f'class="tick">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
