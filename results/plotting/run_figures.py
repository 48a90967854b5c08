"""Figures of the indexed runs (the run files at the top of the results folder), one panel per GPU,
side by side: parity on a log ratio axis, misaligned offsets, strides, AoS vs SoA.

Each GPU is shown by its first run file in name order (h100.json before h100_repeat.json); the
parity verdicts are cuvk's own (`cuvk report --index` hands them over), so the figure and the
README's tables agree point for point.
"""

import math

import matplotlib.pyplot as plt
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from .common import (API_STYLE, BDA_STYLE, VERDICT_COLOR, binding, bottom_legend, fig_width,
                     median_ci, no_data, ok_rows, save, short_gpu)

RATIO_TICKS = [0.5, 0.7, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20]


def point_label(row):
    """'read_offset scalar offset=1' from a cuvk.parity row; block and binding when they vary."""
    parts = [row["test"]]
    if row.get("layout"):
        parts.append(row["layout"])
    parts.append(row.get("variant") or "")
    if row.get("point"):
        parts.append(row["point"])
    return " ".join(p for p in parts if p)


def point_key(row):
    return (row["test"], row.get("layout"), row.get("variant"), row.get("point"),
            row.get("block_size"), row.get("vulkan_binding"), row.get("copy_mib"), row.get("n"))


def tally(parity):
    c = parity.get("counts") or {}
    names = [("same", "SAME"), ("vulkan_slower", "SLOWER"), ("vulkan_faster", "FASTER"),
             ("uncertain", "UNCERTAIN"), ("failed", "FAILED")]
    return ", ".join(f"{c[k]} {label}" for k, label in names if c.get(k))


def log_ratio_axis(ax, lo, hi):
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ticks = [t for t in RATIO_TICKS if lo <= t <= hi]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


BREAK = 1.6  # ratios above this go to a narrow second panel: a broken log axis


def parity_points(gpus):
    """Point keys in first-seen order, their labels, and per GPU {key: parity row}."""
    keys, labels, per_gpu = [], {}, []
    for gpu, src, parity in gpus:
        pts = {}
        for row in parity.get("rows") or []:
            if row.get("state") != "compared" or not row.get("vulkan_over_cuda"):
                continue
            k = point_key(row)
            if k not in labels:
                keys.append(k)
                labels[k] = point_label(row)
            pts[k] = row
        per_gpu.append((gpu, src, parity, pts))
    for i, extra in ((4, " b{}"), (5, " [{}]")):
        if len({k[i] for k in keys}) > 1:
            for k in keys:
                labels[k] += extra.format(k[i])
    return keys, labels, per_gpu


def draw_parity_points(ax, pts, ys, lo, hi):
    for k, row in pts.items():
        r, low, high = row["vulkan_over_cuda"], row["ratio_ci_low"], row["ratio_ci_high"]
        if not lo <= r <= hi:
            continue
        color = VERDICT_COLOR.get(row.get("verdict") or "UNCERTAIN", "black")
        ax.errorbar([r], [ys[k]], xerr=[[r - max(low, lo)], [min(high, hi) - r]], fmt="o", ms=3.5,
                    capsize=2, color=color, lw=1)
        right = r < lo * (hi / lo) ** 0.6
        ax.text(r * 1.006 if right else r / 1.006, ys[k], f" {r:.3f} " if right else f"{r:.3f} ",
                fontsize=6.5, va="center", ha="left" if right else "right", color=color)


def parity_figure(gpus, out, drawn_by):
    """gpus: [(gpu, Source, parity)]. One panel per GPU, shared point axis, log ratio axis, broken
    at BREAK when a ratio is above it (the copy engine's 3.6x), so 1.03 and 3.6 both read."""
    keys, labels, per_gpu = parity_points(gpus)
    if not keys:
        return None
    ratios = [r for _, _, _, pts in per_gpu for row in pts.values()
              for r in (row["ratio_ci_low"], row["ratio_ci_high"], row["vulkan_over_cuda"])
              if r and math.isfinite(r) and r > 0]
    lo = min(0.95, min(ratios) / 1.01)
    near = [r for r in ratios if r <= BREAK]
    far = [r for r in ratios if r > BREAK]
    hi = max(1.1, max(near) * 1.06) if near else 1.1
    tol = (gpus[0][2].get("tolerance") or 0.03)
    spans = [(lo, hi)] + ([(min(far) / 1.12, max(far) * 1.12)] if far else [])
    widths = [4.0] + ([1.0] if far else [])
    fig, axes = plt.subplots(1, len(per_gpu) * len(spans), figsize=(4.6 * len(per_gpu) + 2.2, 1.7 + 0.2 * len(keys)),
                             sharey=True, squeeze=False, layout="constrained",
                             gridspec_kw={"width_ratios": widths * len(per_gpu)})
    ys = {k: len(keys) - 1 - i for i, k in enumerate(keys)}
    for gi, (gpu, src, parity, pts) in enumerate(per_gpu):
        for si, (a, b) in enumerate(spans):
            ax = axes[0][gi * len(spans) + si]
            if a < 1 < b:
                ax.axvspan(1 - tol, 1 + tol, color="#3b7d00", alpha=0.10, lw=0)
                ax.axvline(1.0, color="black", lw=0.7)
            draw_parity_points(ax, pts, ys, a, b)
            log_ratio_axis(ax, a, b)
            ax.grid(True, axis="x", alpha=0.3)
            ax.grid(True, axis="y", alpha=0.12)
            if si == 0:
                ax.set_title(f"{short_gpu(gpu)}: {src.rel}\n{tally(parity)}", fontsize=9)
                ax.set_xlabel("Vulkan / CUDA median GPU time (log)")
            else:  # the break: no spine between the two spans, a // mark on it
                ax.spines["left"].set_visible(False)
                axes[0][gi * len(spans)].spines["right"].set_visible(False)
                ax.tick_params(axis="y", length=0)
                ax.set_xlabel("(axis broken)")
                for x, axx in ((0, ax), (1, axes[0][gi * len(spans)])):
                    axx.plot([x, x], [0, 1], transform=axx.transAxes, ls=(0, (2, 2)), color="#555555",
                             lw=0.8, clip_on=False)
    axes[0][0].set_yticks([ys[k] for k in keys])
    axes[0][0].set_yticklabels([labels[k] for k in keys], fontsize=7.5)
    axes[0][0].set_ylim(-0.7, len(keys) - 0.3)
    handles = [Patch(color=VERDICT_COLOR[v], label=v) for v in ("SAME", "VULKAN SLOWER", "VULKAN FASTER",
                                                                "UNCERTAIN")]
    handles.append(Patch(color="#3b7d00", alpha=0.15, label=f"SAME band 1 ± {tol * 100:g}%"))
    bottom_legend(fig, handles, 5)
    title = "CUDA vs Vulkan parity per point, " + " beside ".join(short_gpu(g[0]) for g in gpus)
    fig.suptitle(title + " (95% CI; > 1: Vulkan slower)", fontsize=10)
    sources = [g[1] for g in gpus]
    worst = []
    for gpu, src, parity, pts in per_gpu:
        if pts:
            k, row = max(pts.items(), key=lambda kv: kv[1]["vulkan_over_cuda"])
            worst.append(f"{labels[k]} {row['vulkan_over_cuda']:.2f}× on the {short_gpu(gpu)}")
    caption = ("The Vulkan/CUDA ratio of every compared point on a log axis"
               + (f" broken above {BREAK:g}" if far else "") + ", one panel per GPU ("
               + "; ".join(f"{short_gpu(g)}: {tally(p)}" for g, _, p, _ in per_gpu)
               + "), so the 1.03–1.3 gaps and the largest (" + ", ".join(worst)
               + ") both read.")
    save(fig, out, title, caption, sources, drawn_by)
    return title, caption, sources


def gpu_columns(n_gpus, rows, width, height):
    fig, axes = plt.subplots(rows, n_gpus, figsize=(fig_width(width, n_gpus), height * rows), squeeze=False,
                             sharey="row", layout="constrained")
    return fig, axes


def series_style(api, mode):
    return BDA_STYLE if api == "vulkan" and mode == "bda" else API_STYLE.get(api, API_STYLE["cuda"])


def sweep(rows, test, key):
    """{(api, binding): sorted [(x, row)]} of one sweep test at its most common block size."""
    out = {}
    for r in rows:
        if r.get("test") == test and r.get("variant", "scalar") == "scalar":
            out.setdefault((r["api"], binding(r)), []).append((r["params"][key], r))
    for v in out.values():
        v.sort(key=lambda t: t[0])
    return out


def gbps_err(r, field):
    """(below, above) the row's GB/s: its time CI turned into bandwidth. A CI bound on the median
    itself (few samples of a coarse timer) gives 0, which g * t / t - g can round below."""
    g, (t, lo, hi) = r[field], median_ci(r)
    return (max(0.0, g - g * t / hi) if hi > 0 else 0.0, max(0.0, g * t / lo - g) if lo > 0 else 0.0)


def draw_sweep(ax, rows, test, key, fields):
    data = sweep(rows, test, key)
    for (api, mode), pts in sorted(data.items()):
        st = series_style(api, mode)
        for field, dash in fields:
            ys = [r[field] for _, r in pts]
            err = list(zip(*[gbps_err(r, field) for _, r in pts]))
            label = st["label"] + ("" if len(fields) == 1 else f" ({field.split('_')[1]})")
            ax.errorbar([x for x, _ in pts], ys, yerr=err, color=st["color"], marker=st["marker"],
                        ms=3.5, ls=dash, capsize=2, lw=1.2, label=label)
    ax.grid(True, alpha=0.3)
    return bool(data)


def sweeps_figure(gpus, out, drawn_by, kind):
    """kind 'offsets' (read_offset, write_offset rows) or 'stride'; gpus: [(gpu, Source)]."""
    tests = ["read_offset", "write_offset"] if kind == "offsets" else ["stride"]
    have = [t for t in tests if any(r.get("test") == t for _, s in gpus for r in ok_rows(s.doc))]
    if not have:
        return None
    fig, axes = gpu_columns(len(gpus), len(have), 4.6, 3.3)
    for ci, (gpu, src) in enumerate(gpus):
        rows = ok_rows(src.doc)
        for ri, test in enumerate(have):
            ax = axes[ri][ci]
            if kind == "offsets":
                ok = draw_sweep(ax, rows, test, "offset", [("gbps_useful", "-")])
                ax.set_xlabel("offset (4-byte elements)")
                ax.set_ylabel("useful GB/s" if ci == 0 else "")
            else:
                ok = draw_sweep(ax, rows, test, "stride", [("gbps_moved", "-"), ("gbps_useful", "--")])
                ax.set_xscale("log", base=2)
                ax.xaxis.set_major_locator(FixedLocator(sorted({r["params"]["stride"] for r in rows
                                                                if r.get("test") == test})))
                ax.xaxis.set_minor_locator(NullLocator())
                ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
                ax.set_xlabel("stride (4-byte elements), b[i] = a[i * stride]")
                ax.set_ylabel("GB/s (solid: moved, dashed: useful)" if ci == 0 else "")
            if not ok:
                no_data(ax, f"no {test} rows in {src.rel}")
                continue
            ax.set_title(f"{short_gpu(gpu)}: {test} ({src.rel})", fontsize=9)
            ax.legend(fontsize=7, loc="upper right" if kind == "stride" else "best")
    if kind == "stride":
        for ax in axes[:, 0]:
            ax.set_ylim(bottom=0)
    if kind == "offsets":
        title = "Misaligned access: useful bandwidth against offset (median, 95% CI)"
        caption = ("Useful GB/s of `b[i] = a[i + offset]` and `b[i + offset] = a[i]` against the "
                   "offset, CUDA and Vulkan, one column per GPU.")
    else:
        title = "Strided reads: moved and useful bandwidth against stride (median, 95% CI)"
        caption = ("Moved (32-byte sectors) and useful GB/s of `b[i] = a[i * stride]` against the "
                   "stride, CUDA and Vulkan, one column per GPU.")
    fig.suptitle(title, fontsize=10)
    sources = [s for _, s in gpus]
    save(fig, out, title, caption, sources, drawn_by)
    return title, caption, sources


def layouts_figure(gpus, out, drawn_by):
    """AoS and SoA median time per test, API and variant; one panel per GPU."""
    tests = ("read_x", "read_x3", "update_xy")
    if not any(r.get("test") in tests and r.get("layout") for _, s in gpus for r in ok_rows(s.doc)):
        return None
    fig, axes = gpu_columns(len(gpus), 1, 5.6, 3.9)
    for ax, (gpu, src) in zip(axes[0], gpus):
        groups, cells = [], {}
        for r in ok_rows(src.doc):
            if r.get("test") not in tests or not r.get("layout"):
                continue
            g = (tests.index(r["test"]), r.get("variant"), r["api"] != "cuda", binding(r))
            if g not in groups:
                groups.append(g)
            cells[(g, r["layout"])] = r
        groups.sort()
        for gi, g in enumerate(groups):
            st = series_style("vulkan" if g[2] else "cuda", g[3])
            for li, (layout, hatch) in enumerate((("aos", "///"), ("soa", ""))):
                r = cells.get((g, layout))
                if not r:
                    continue
                t, lo, hi = median_ci(r)
                ax.bar(gi + (li - 0.5) * 0.4, t, 0.4, yerr=[[t - lo], [hi - t]], capsize=2,
                       color=st["color"], alpha=0.5 if layout == "aos" else 0.95, hatch=hatch,
                       edgecolor="black", lw=0.5)
            if (g, "aos") in cells and (g, "soa") in cells:
                ratio = cells[(g, "aos")]["time_ms"]["median"] / cells[(g, "soa")]["time_ms"]["median"]
                top = max(median_ci(cells[(g, l)])[2] for l in ("aos", "soa"))
                ax.text(gi, top * 1.03, f"{ratio:.2f}×", ha="center", va="bottom", fontsize=7)
        ax.set_xlim(-0.6, max(len(groups), 4) - 0.4)  # few groups: bars keep their usual width
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([f"{tests[g[0]]}\n{g[1]}\n{series_style('vulkan' if g[2] else 'cuda', g[3])['label']}"
                            for g in groups], fontsize=6.5)
        ax.set_ylabel("median GPU time (ms)")
        ax.set_ylim(0, ax.get_ylim()[1] * 1.15)
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_title(f"{short_gpu(gpu)} ({src.rel})", fontsize=9)
    legend = [Patch(facecolor="#bbbbbb", hatch="///", edgecolor="black", label="AoS (array of structs)"),
              Patch(facecolor="#555555", edgecolor="black", label="SoA (struct of arrays)"),
              Patch(color=API_STYLE["cuda"]["color"], label="CUDA"),
              Patch(color=API_STYLE["vulkan"]["color"], label="Vulkan")]
    bottom_legend(fig, legend, 4)
    title = "Array of structs vs struct of arrays: median GPU time (labels: AoS/SoA)"
    fig.suptitle(title, fontsize=10)
    caption = ("Median GPU time of each AoS/SoA pair per test, variant and API, one panel per GPU, "
               "with the AoS/SoA time ratio above each pair.")
    sources = [s for _, s in gpus]
    save(fig, out, title, caption, sources, drawn_by)
    return title, caption, sources
