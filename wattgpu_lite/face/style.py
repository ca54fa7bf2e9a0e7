"""One figure style for every notebook: fonts, a fixed colour per GPU, readable labels.

    wl.plots.use_style()                     # first code cell of every notebook
    sns.scatterplot(..., hue="gpu", palette=wl.plots.gpu_palette(frame["gpu"]))
    wl.plots.readable_columns(table)         # mdape_pct -> "MdAPE (%)"

The eight measured GPUs get eight well-separated colours; every other catalog GPU a shade of its
measured sibling (an H200 SXM is a lighter H200 NVL) or of its own family (Blackwell reds, AMD
greys). A name in no table (a GPU built with ``GPU.from_spec``) gets a grey, the same every time.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable

import matplotlib as mpl
import seaborn as sns

from wattgpu_lite.errors import UnknownGPUError
from wattgpu_lite.face.labels import label, raw_names, readable_columns  # noqa: F401  (the style)
from wattgpu_lite.specs.catalog import gpu

MIN_FONT_PT = 9  # the smallest text any figure of the kit may carry (ticks, legends, annotations)
WIDE_FIGSIZE = (11.0, 4.0)  # two panels side by side; one panel is matplotlib's 6.4 x 4.0 below
UNKNOWN_GPU_COLOR = "#7f7f7f"
GPU_PALETTE: dict[str, str] = {
    # the eight measured GPUs (Watt Counts), by release year
    "V100 SXM2 32GB": "#0173b2",
    "T4": "#882255",
    "A100 SXM4 40GB": "#029e73",
    "A30": "#d55e00",
    "L40S": "#cc78bc",
    "L4": "#ca9161",
    "H100 NVL": "#56b4e9",
    "H200 NVL": "#6a3d9a",
    # siblings: lighter or darker shades of the measured board they resemble
    "V100 PCIe 16GB": "#73b2d5",
    "V100 PCIe 32GB": "#014b74",
    "V100 SXM2 16GB": "#b3d5e8",
    "A10": "#be85a2",
    "A10G": "#581637",
    "A40": "#a04e77",
    "A100 PCIe 40GB": "#74cab2",
    "A100 PCIe 80GB": "#b3e2d5",
    "A100 SXM4 80GB": "#01674b",
    "L40": "#e3b5da",
    "RTX 6000 Ada": "#854e7a",
    "H100 PCIe": "#387597",
    "H100 SXM": "#22485d",
    "H200 SXM": "#ad94c7",
    "GH200": "#d2c5e1",
    # families nobody measured: Blackwell reds, AMD greys and olives, consumer golds
    "B100": "#fb9a99",
    "B200": "#e31a1c",
    "B300": "#99000d",
    "GB200": "#f768a1",
    "GB300": "#ae017e",
    "MI210": "#d9d9d9",
    "MI250": "#bdbdbd",
    "MI250X": "#969696",
    "MI300X": "#636363",
    "MI325X": "#252525",
    "MI350X": "#a1a000",
    "MI355X": "#5a5a00",
    "RTX 3090": "#f0c808",
    "RTX 4090": "#b8860b",
}
MEASURED_ORDER: tuple[str, ...] = tuple(list(GPU_PALETTE)[:8])

_RC = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": MIN_FONT_PT,
    "ytick.labelsize": MIN_FONT_PT,
    "legend.fontsize": MIN_FONT_PT,
    "legend.title_fontsize": MIN_FONT_PT,
    "figure.titlesize": 12,
    "figure.dpi": 100,
    "figure.figsize": (6.4, 4.0),
    "axes.titlelocation": "left",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "axes.formatter.use_mathtext": True,
}


def use_style() -> None:
    """Apply the kit's matplotlib/seaborn style (call it after ``%matplotlib inline``)."""
    sns.set_theme(context="notebook", style="whitegrid", rc=_RC)
    mpl.rcParams.update(_RC)


def gpu_color(name: str) -> str:
    """The fixed colour of a GPU (catalog name, nvidia-smi name or alias); grey if in no table."""
    if name in GPU_PALETTE:
        return GPU_PALETTE[name]
    try:
        return GPU_PALETTE.get(gpu(name).name, UNKNOWN_GPU_COLOR)
    except UnknownGPUError:
        return UNKNOWN_GPU_COLOR


def gpu_palette(names: Iterable[str]) -> dict[str, str]:
    """``{name: colour}`` for seaborn's ``palette=`` (each name as it appears in the data)."""
    return {n: gpu_color(n) for n in dict.fromkeys(names)}


def gpu_order(names: Iterable[str]) -> list[str]:
    """The names in the kit's fixed order (palette order, then any others alphabetically)."""
    rank = {n: k for k, n in enumerate(GPU_PALETTE)}
    return sorted(dict.fromkeys(names), key=lambda n: (rank.get(n, len(rank)), n))


# --- axes helpers -------------------------------------------------------------------------------
def takeaway(ax, finding: str, width: int = 60):
    """Title an Axes with what to see (wrapped to ``width`` characters), left-aligned."""
    ax.set_title(textwrap.fill(finding, width), loc="left")
    return ax


def legend_outside(ax, title: str | None = None):
    """Move the Axes' legend to the right of the plot, off the data."""
    if ax.get_legend() is not None:
        sns.move_legend(ax, "upper left", bbox_to_anchor=(1.01, 1.0), title=title)
    return ax


def log_ticks(ax, axis: str = "both"):
    """Readable log axis: labels 1-2-5 per decade when it spans < 3 decades, decades only
    otherwise, plain numbers (0.02, 300), no minor labels (they are what overlap)."""
    for name in ("x", "y") if axis == "both" else (axis,):
        scale_axis = ax.xaxis if name == "x" else ax.yaxis
        if scale_axis.get_scale() != "log":
            continue
        lo, hi = sorted(ax.get_xlim() if name == "x" else ax.get_ylim())
        subs = (1.0, 2.0, 5.0) if hi / lo < 1000 else (1.0,)
        scale_axis.set_major_locator(mpl.ticker.LogLocator(base=10, subs=subs))
        scale_axis.set_major_formatter(_OneFormat())
        scale_axis.set_minor_formatter(mpl.ticker.NullFormatter())
    return ax


def _plain_range(value: float) -> bool:
    return 1e-4 * (1 - 1e-6) <= value < 1e6  # a tick at 1e-4 may arrive as 9.99999e-05


class _OneFormat(mpl.ticker.Formatter):
    """Plain numbers when every visible tick of the axis has one, else powers of ten for all:
    one axis never mixes "0.0001" with "10⁻⁶"."""

    ticks: tuple = ()

    def set_locs(self, locs):
        self.ticks = tuple(locs)

    def __call__(self, value, pos=None):
        lo, hi = sorted(self.axis.get_view_interval()) if self.axis is not None else (value, value)
        shown = [v for v in self.ticks if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]
        if all(_plain_range(v) for v in shown if v > 0):
            return _plain_number(value)
        return _power_of_ten(value)


def _plain_number(value: float) -> str:
    """1e-3 -> "0.001", 2e4 -> "20,000"; outside 1e-4 .. 1e6 mantissa × a power of ten; "" at or
    below 0 (:func:`_power_of_ten`)."""
    if _plain_range(value):
        return f"{value:,.6f}".rstrip("0").rstrip(".")
    return _power_of_ten(value)


def _power_of_ten(value: float) -> str:
    """1e-6 -> "$10^{-6}$", 2e7 -> "$2\\times10^{7}$"."""
    if value <= 0:
        return ""
    exponent = math.floor(math.log10(value) + 1e-6)
    mantissa = value / 10**exponent
    head = "" if abs(mantissa - 1) < 1e-6 else f"{mantissa:g}\\times"
    return f"${head}10^{{{exponent}}}$"


def figure_texts(fig) -> list[str]:
    """Every visible text of a figure: suptitle, titles, axis and tick labels, legends."""
    texts = fig.findobj(mpl.text.Text)
    return [t.get_text() for t in texts if t.get_visible() and t.get_text().strip()]


def raw_names_in(fig) -> list[str]:
    """The raw column names a reader would see on ``fig`` (see ``labels.raw_names``)."""
    return raw_names(figure_texts(fig))


def readable_texts(ax):
    """Legend entries and categorical tick labels as ``label`` writes them (``server_high`` ->
    "server, high load (0.33 req/s)"), tick labels wrapped at 18 characters so neighbours do not
    collide; numeric ticks are left alone."""
    legend = ax.get_legend()
    for text in legend.get_texts() if legend else []:
        text.set_text(label(text.get_text()))
    for axis in (ax.xaxis, ax.yaxis):
        texts = [t.get_text() for t in axis.get_ticklabels()]
        if raw_names(texts):
            axis.set_ticks(axis.get_ticklocs(), [textwrap.fill(label(t), 18) for t in texts])
    return ax
