"""Size curves (issue 33): a run with several sizes (`cuvk run --n 1k-256M:x4`) drawn per test,
median time and useful GB/s against n on a log axis, one series per variant, API and binding. The
L2 size of the run's device is marked where the test's footprint (the bytes it moves) fills it; the
size reaching 90% of the plateau is cuvk's own (the run file's summary.size_curves).
"""

import matplotlib.pyplot as plt

from .common import API_STYLE, BDA_STYLE, binding, bottom_legend, fig_width, median_ci, ok_rows, save, short_gpu
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, NullFormatter

LINESTYLES = ["-", "--", ":", "-."]


def sizes_of(doc):
    return sorted({int(r["params"]["n"]) for r in ok_rows(doc)})


def is_size_sweep(src):
    """A run whose rows ran at two sizes or more (settings.sizes from cuvk 0.x on)."""
    return len((src.doc.get("settings") or {}).get("sizes") or []) > 1 and len(sizes_of(src.doc)) > 1


def l2_bytes(doc):
    devices = doc.get("devices") or {}
    for api in ("cuda", "vulkan"):
        d = devices.get(api) or {}
        if d.get("l2_bytes"):
            return int(d["l2_bytes"])
    return int((doc.get("measurement") or {}).get("l2_bytes") or 0)


def series(rows, test):
    """{(layout, variant, api, binding): sorted [(n, row)]} of one test."""
    out = {}
    for r in rows:
        if r.get("test") == test and not r.get("queue_family"):
            key = (r.get("layout") or "", r.get("variant") or "", r["api"], binding(r))
            out.setdefault(key, []).append((int(r["params"]["n"]), r))
    return {k: sorted(v, key=lambda t: t[0]) for k, v in out.items() if len(v) > 1}


def size_text(v, _=None):
    """A tick as --n writes sizes: 1k, 4M, 1G (else the number)."""
    v = int(round(v))
    for shift, suffix in ((30, "G"), (20, "M"), (10, "k")):
        if v and v % (1 << shift) == 0:
            return f"{v >> shift}{suffix}"
    return str(v)


def draw_test(axes, rows, test, l2, plateaus, kinds):
    data = series(rows, test)
    for key, pts in sorted(data.items()):
        style = BDA_STYLE if key[2] == "vulkan" and key[3] == "bda" else API_STYLE.get(key[2], API_STYLE["cuda"])
        ls = LINESTYLES[kinds.index((key[0], key[1])) % len(LINESTYLES)]
        ns = [n for n, _ in pts]
        kw = {"color": style["color"], "marker": style["marker"], "ms": 3, "ls": ls, "lw": 1.1}
        axes[0].plot(ns, [median_ci(r)[0] for _, r in pts], **kw)
        axes[1].plot(ns, [r["gbps_useful"] for _, r in pts], **kw)
        n90 = plateaus.get((test,) + key)
        if n90:
            axes[1].plot([n90], [dict(pts)[n90]["gbps_useful"]], marker="*", ms=9, color=style["color"],
                         ls="none")
    bytes_per_n = [r["moved_bytes"] / r["params"]["n"] for v in data.values() for _, r in v]
    if l2 and bytes_per_n:
        n_l2 = l2 / max(bytes_per_n)
        for ax in axes:
            ax.axvline(n_l2, color="#555555", ls=":", lw=1)
        axes[1].annotate(f"L2 {l2 >> 20} MiB", (n_l2, 0.02), xycoords=("data", "axes fraction"),
                         fontsize=7, color="#555555", rotation=90, ha="right")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(size_text))
        ax.grid(True, alpha=0.3)
    axes[0].set_yscale("log")
    axes[0].yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axes[0].yaxis.set_minor_formatter(NullFormatter())
    axes[0].set_title(test, fontsize=9)
    axes[1].set_xlabel("n (elements)")


def plateau_points(doc):
    """{(test, layout, variant, api, binding): n at 90% of the plateau} from summary.size_curves."""
    out = {}
    for c in (doc.get("summary") or {}).get("size_curves") or []:
        key = (c["test"], c.get("layout") or "", c.get("variant") or "", c["api"], binding(c))
        out[key] = c.get("n_at_fraction")
    return out


def size_curve_figure(src, out, drawn_by):
    rows = ok_rows(src.doc)
    tests = [t for t in dict.fromkeys(r["test"] for r in rows) if series(rows, t)]
    if not tests:
        return None
    fig, axes = plt.subplots(2, len(tests), figsize=(fig_width(3.6, len(tests)), 5.6), squeeze=False,
                             sharex="col", layout="constrained")
    l2 = l2_bytes(src.doc)
    plateaus = plateau_points(src.doc)
    kinds = sorted({(k[0], k[1]) for t in tests for k in series(rows, t)})
    for i, test in enumerate(tests):
        draw_test(axes[:, i], rows, test, l2, plateaus, kinds)
    axes[0][0].set_ylabel("median ms")
    axes[1][0].set_ylabel("useful GB/s")
    apis = sorted({r["api"] for r in rows})
    handles = [Line2D([], [], color=API_STYLE[a]["color"], marker=API_STYLE[a]["marker"], label=API_STYLE[a]["label"])
               for a in apis if a in API_STYLE]
    handles += [Line2D([], [], color="#333333", ls=LINESTYLES[i % len(LINESTYLES)], label=" ".join(p for p in k if p))
                for i, k in enumerate(kinds)]
    handles.append(Line2D([], [], color="#333333", marker="*", ls="none", label="90% of the plateau"))
    bottom_legend(fig, handles, min(len(handles), 6), rows=1 + len(handles) // 6)
    gpu = short_gpu(src.gpu)
    l2_mode = (src.doc.get("settings") or {}).get("l2", "cold")
    title = f"{gpu}: median time and useful GB/s against n (L2 {l2_mode}, {src.rel})"
    caption = (f"Each test of {src.rel} at every size it ran, CUDA and Vulkan: median time (top) and "
               "useful GB/s (bottom) against n on log axes; the dotted line is where the test's "
               "footprint equals the L2, a star the smallest n reaching 90% of the GB/s at the largest n.")
    fig.suptitle(title, fontsize=10)
    save(fig, out, title, caption, [src], drawn_by)
    return title, caption, [src]
