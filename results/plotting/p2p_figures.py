"""The figure of a `cuvk p2p --format json` file (schema cuvk.p2p/1): GB/s per direction against
the transfer size, one panel per pair of GPUs (one way, then both directions at once), a line per
API and method (staged through host memory on both APIs; CUDA's peer copy and peer-read kernel).
Rows that did not run or failed verification are not drawn; the panel's note says how many.
"""

import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter

from .common import API_STYLE, fig_width, no_data, save

P2P_SCHEMA = "cuvk.p2p/"
METHOD_STYLE = {  # (api, method): colour, marker, line style, label
    ("cuda", "staged"): (API_STYLE["cuda"]["color"], "o", "-", "CUDA staged (pinned host)"),
    ("vulkan", "staged"): (API_STYLE["vulkan"]["color"], "s", "-", "Vulkan staged (imported host)"),
    ("cuda", "peer-copy"): ("#1f5fbf", "^", "--", "CUDA cudaMemcpyPeerAsync"),
    ("cuda", "peer-read"): ("#7a3fb0", "v", ":", "CUDA peer-read kernel"),
}


def size_text(b):
    for shift, unit in ((30, "G"), (20, "M"), (10, "k")):
        if b >= 1 << shift:
            v = b / (1 << shift)
            return f"{v:g}{unit}"
    return f"{b:g}"


def pair_label(row):
    arrow = " <-> " if row.get("both_directions") else " -> "
    loop = " (loopback)" if row.get("src") == row.get("dst") else ""
    return f"GPU {row.get('src')}{arrow}GPU {row.get('dst')}{loop}"


def panels_of(doc):
    """{pair label: {(api, method): [(bytes, GB/s)]}} in row order, and rows not drawn per pair."""
    panels, skipped = {}, {}
    for r in doc.get("rows") or []:
        key = pair_label(r)
        panel = panels.setdefault(key, {})
        if r.get("state") != "ok" or not r.get("bytes"):
            if r.get("bytes"):
                skipped[key] = skipped.get(key, 0) + 1
            continue
        panel.setdefault((r.get("api"), r.get("method")), []).append(
            (r["bytes"], r.get("gbps_per_direction") or 0.0))
    return panels, skipped


def p2p_figure(src, out, drawn_by):
    panels, skipped = panels_of(src.doc)
    names = list(panels) or ["no pair"]
    fig, axes = plt.subplots(1, len(names), figsize=(fig_width(4.2, len(names)), 3.8),
                             squeeze=False, layout="constrained")
    for ax, name in zip(axes[0], names):
        lines = panels.get(name) or {}
        if not lines:
            no_data(ax, f"{name}: no row ran and verified")
            continue
        for key, points in lines.items():
            colour, marker, style, label = METHOD_STYLE.get(key, ("#555555", "x", "-", " ".join(key)))
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], color=colour, marker=marker,
                    ls=style, lw=1.2, ms=4, label=label)
        ax.set_xscale("log", base=2)
        sizes = sorted({p[0] for points in lines.values() for p in points})
        ax.xaxis.set_major_locator(FixedLocator(sizes))  # the sizes measured, as cuvk names them
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_text(v)))
        ax.xaxis.set_minor_locator(FixedLocator([]))
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        note = f"; {skipped[name]} rows unavailable or failed" if skipped.get(name) else ""
        ax.set_title(name + note, fontsize=8.5)
        ax.set_xlabel("bytes per transfer (each direction)")
        ax.set_ylabel("GB/s per direction")
        ax.legend(fontsize=7, frameon=False)
    title = "GPU to GPU: GB/s per direction by transfer size"
    fig.suptitle(title, fontsize=10)
    caption = ("Copies between GPUs of one node (`cuvk p2p`), timed with the host clock around each "
               "whole transfer: staged through one host buffer on both APIs (chunked, double-buffered), "
               "and CUDA's peer copy and peer-read kernel where peer access is possible; every drawn row "
               "verified word by word.")
    save(fig, out, title, caption, [src], drawn_by)
    return title, caption, [src]
