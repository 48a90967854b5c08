"""What every cuvk figure shares: reading run and trace files, hashing them, styles, and saving a
figure with its sources in the file's own metadata (PNG tEXt / SVG Dublin Core `Source`).

A figure's `Source` text is one line per file it was drawn from, `sha256sum` style:
    <sha256 of the file's bytes>  <path relative to the results folder>
results/plotting/check.py verifies those lines against the files (ctest `results.figures`).
"""

import gzip
import hashlib
import json
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DPI = 110
RUN_SCHEMA = "cuvk.results/"
TRACE_SCHEMA = "cuvk.trace/"
API_STYLE = {
    "cuda": {"color": "#3b7d00", "marker": "o", "label": "CUDA"},
    "vulkan": {"color": "#b3262d", "marker": "s", "label": "Vulkan"},
}
BDA_STYLE = {"color": "#e07b39", "marker": "^", "label": "Vulkan bda"}
VERDICT_COLOR = {
    "SAME": "#3b7d00",
    "VULKAN FASTER": "#1f5fbf",
    "VULKAN SLOWER": "#b3262d",
    "UNCERTAIN": "#8c8c8c",
    "FAILED": "#000000",
}
# Deterministic output: no timestamps, fixed hash salt for SVG ids.
plt.rcParams["svg.hashsalt"] = "cuvk"
plt.rcParams["font.size"] = 9
plt.rcParams["text.parse_math"] = False  # a '$' in a GPU or file name is text, not mathtext


class Source:
    """One file a figure is drawn from: its path relative to the results folder and its hash."""

    def __init__(self, path, rel, doc):
        self.path, self.rel, self.doc = path, rel, doc
        self.sha256 = sha256_of(path)

    @property
    def revision(self):
        return (self.doc.get("provenance") or {}).get("git_revision") or "unknown"

    @property
    def gpu(self):
        return gpu_name(self.doc)

    def record(self):
        return {"file": self.rel, "sha256": self.sha256, "revision": self.revision, "gpu": self.gpu}


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_json(path):
    """A JSON document, gzip-compressed or not; None when it is not one."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        doc = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, EOFError):
        return None
    return doc if isinstance(doc, dict) else None


def schema_of(doc):
    s = doc.get("schema") if doc else None
    return s if isinstance(s, str) else ""


def gpu_name(doc):
    """The GPU of a run file (its devices) or of a trace file (its lanes)."""
    dev = doc.get("devices") or {}
    for api in ("cuda", "vulkan"):
        if isinstance(dev.get(api), dict) and dev[api].get("name"):
            return dev[api]["name"]
    for lane in doc.get("lanes") or []:
        if isinstance(lane, dict) and isinstance(lane.get("device"), dict):
            return lane["device"].get("name") or "unknown GPU"
    return "unknown GPU"


def short_gpu(name):
    """'NVIDIA H100 80GB HBM3' -> 'H100 80GB HBM3' for panel titles."""
    return name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name


def gpu_order(names):
    """GPUs in a stable order (by name), each once."""
    return sorted(set(names))


def ok_rows(doc):
    return [r for r in doc.get("results") or [] if isinstance(r, dict) and r.get("status") == "ok"]


def binding(r):
    return r.get("binding") or ("pointer" if r.get("api") == "cuda" else "descriptor")


def median_ci(r):
    """(median, low, high) of a row's GPU time in ms."""
    t = r["time_ms"]["median"]
    ci = r.get("ci") or {}
    return t, ci.get("low_ms", t), ci.get("high_ms", t)


def ratio_ci(num, den):
    """Ratio of medians and its 95% interval: the medians' intervals combined in log space, in
    quadrature (the formula of host/results/parity.cpp)."""

    def gap(big, small):
        return math.inf if small <= 0 else max(0.0, math.log(big / small))

    r = num[0] / den[0]
    low = r * math.exp(-math.hypot(gap(num[0], num[1]), gap(den[2], den[0])))
    high = r * math.exp(math.hypot(gap(num[2], num[0]), gap(den[0], den[1])))
    return r, low, high


def source_text(sources):
    return "\n".join(f"{s.sha256}  {s.rel}" for s in sources)


def save(fig, path, title, caption, sources, drawn_by):
    """Writes the figure with its title, caption and sources in its metadata."""
    ext = os.path.splitext(path)[1].lower()
    meta = {"Title": title, "Description": caption, "Source": source_text(sources)}
    if ext == ".png":
        meta["Software"] = drawn_by
    elif ext == ".svg":
        meta["Creator"] = drawn_by
        meta["Date"] = None  # no timestamp: the same data draws the same bytes
    elif ext == ".pdf":
        meta = {"Title": title, "Subject": caption, "Keywords": meta["Source"],
                "Creator": drawn_by, "CreationDate": None}
    fig.savefig(path, dpi=DPI, metadata=meta)
    plt.close(fig)


def figure_record(name, title, caption, sources):
    return {"file": "plots/" + name, "title": title, "caption": caption,
            "sources": [s.record() for s in sources]}


def fig_width(per_panel, panels, least=8.0):
    """Inches: panels side by side, never so narrow that the title is cut."""
    return max(least, per_panel * panels)


def bottom_legend(fig, handles, ncol, rows=1):
    """A legend in a strip kept free under the panels (the same way on every matplotlib from 3.6:
    'outside' legends need 3.7)."""
    height = fig.get_size_inches()[1]
    strip = min(0.3, (0.18 + 0.17 * rows) / height)
    fig.get_layout_engine().set(rect=(0, strip, 1, 1 - strip))
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=7.5, frameon=False)


def no_data(ax, text):
    """A panel without data says why; its axes are hidden (not cleared: they may be shared)."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=8.5,
            color="#555555", bbox={"facecolor": "#f4f4f4", "edgecolor": "#bbbbbb", "pad": 6})
    ax.axis("off")
