"""The dashboard's plots: pygal charts rendered on the server as inline SVG.

No script and no font or stylesheet from elsewhere (``js=[]``): the page works offline and behind a strict
Content-Security-Policy; every value is printed on its bar, so nothing needs a tooltip. Labels are
XML-escaped by pygal (ElementTree), so a masked error line cannot become markup.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

import pygal
from pygal.style import Style
from wcwidth import wcwidth

# pygal appends a sys.meta_path finder for its map plugins (unused here) that has no find_spec: importers
# that call find_spec on every finder (pytest's, Python 3.12's importlib) fail or warn on it. Take it out.
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__module__ != "pygal"]

WIDTH = 960
FONT = '-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif'
MONO = 'ui-monospace,Menlo,Consolas,"Noto Sans Mono CJK SC",monospace'
COLOURS = ("#1264a3", "#2eb67d", "#ecb22e", "#e01e5a", "#36c5f0", "#7c3085", "#ff8a00", "#5a6b7b", "#9e9ea6")
WORKED, FAILED = "#2eb67d", "#e01e5a"
LABEL_CHARS = 56  # columns: a longer label (an error's signature, a fix) is cut with an ellipsis
LABEL_FONT_PX = 13
MARGIN = 12


def _style(*colours: str, on_bar: bool = False) -> Style:
    """The charts' look; ``on_bar``: values printed in white on the bars (else in text colour above them)."""
    return Style(background="transparent", plot_background="transparent", foreground="#1d1c1d",
                 foreground_strong="#1d1c1d", foreground_subtle="#d8d8d8", opacity="0.92", opacity_hover="1",
                 colors=colours, font_family=FONT, value_font_family=MONO, label_font_size=LABEL_FONT_PX,
                 major_label_font_size=LABEL_FONT_PX, value_font_size=12, legend_font_size=13, no_data_font_size=16,
                 value_colors=("#ffffff" if on_bar else "#1d1c1d",) * len(colours))


def _config(height: int, no_data: str, **options: object) -> dict[str, object]:
    return {"js": [], "disable_xml_declaration": True, "width": WIDTH, "height": height, "explicit_size": False,
            "style": _style(*COLOURS), "no_data_text": no_data, "print_values": True, "margin": MARGIN,
            "print_zeroes": False,
            "truncate_label": -1, **options}


def short(label: str) -> str:
    """``label`` on one line, cut to ``LABEL_CHARS`` columns (a Chinese character takes two)."""
    line = " ".join(label.split())
    if _columns(line) <= LABEL_CHARS:
        return line
    while _columns(line) > LABEL_CHARS - 1:
        line = line[:-1]
    return line + "…"


def _columns(text: str) -> int:
    return sum(max(wcwidth(ch), 1) for ch in text)


def _label_room(labels: Sequence[str]) -> dict[str, float]:
    """A left margin wide enough for ``labels``: pygal reserves 0.6 em a character, but a Chinese one takes 1 em."""
    if not labels:
        return {}
    font = LABEL_FONT_PX
    needed = max(sum(font if wcwidth(ch) == 2 else 0.6 * font for ch in label) for label in labels)
    reserved = max(len(label) for label in labels) * 0.6 * font
    return {"margin_left": MARGIN + max(0.0, needed - reserved)}


_CONFIG_SCRIPT = re.compile(r"<script[^>]*>.*?</script>", re.S)


def _svg(chart: pygal.graph.graph.Graph) -> str:
    """The chart's SVG without the configuration script pygal always adds for its interactive mode (unused here,
    and refused by the page's Content-Security-Policy). The SVG's text is escaped: the first ``</script>`` ends it."""
    return _CONFIG_SCRIPT.sub("", str(chart.render(is_unicode=True)), count=1)


def stacked_by_day(labels: Sequence[str], series: Sequence[tuple[str, Sequence[int]]], no_data: str) -> str:
    """Bars per day, one colour per series, stacked (the day's total on top)."""
    chart = pygal.StackedBar(**_config(360, no_data, print_values=False, legend_at_bottom=True,
                                       legend_at_bottom_columns=min(len(series), 6) or 1, x_label_rotation=0,
                                       show_minor_x_labels=False, x_labels_major_every=7, show_x_guides=False))
    chart.x_labels = list(labels)
    for name, counts in series:
        chart.add(name, list(counts))
    return _svg(chart)


def horizontal(labels: Sequence[str], values: Sequence[int], series: str, no_data: str, colour: str = COLOURS[0]
               ) -> str:
    """One bar per label, top to bottom in the order given, its value printed on it."""
    shown = [short(label) for label in reversed(labels)]  # pygal draws the first label at the bottom
    chart = pygal.HorizontalBar(**_config(_height(len(labels)), no_data, show_legend=False,
                                          style=_style(colour, on_bar=True), **_label_room(shown)))
    chart.x_labels = shown
    if labels:
        chart.add(series, list(reversed(values)))
    return _svg(chart)


def worked_or_not(labels: Sequence[str], worked: Sequence[int], failed: Sequence[int], names: tuple[str, str],
                  no_data: str) -> str:
    """One bar per fix: its votes that it worked, then those that it did not, stacked."""
    shown = [short(label) for label in reversed(labels)]
    chart = pygal.HorizontalStackedBar(**_config(_height(len(labels)) + 40, no_data, legend_at_bottom=True,
                                                 style=_style(WORKED, FAILED, on_bar=True), **_label_room(shown)))
    chart.x_labels = shown
    if labels:
        chart.add(names[0], list(reversed(worked)))
        chart.add(names[1], list(reversed(failed)))
    return _svg(chart)


def _height(bars: int) -> int:
    return 90 + 34 * max(bars, 3)
