"""Figures of `cuvk trace` files (schema cuvk.trace/1): the residency figure of the results folder
(workgroups resident per SM over time, CUDA and Vulkan, one row per traced configuration, one column
per GPU) and the figure of one trace (`cuvk trace --plot`): every block as a line from its start to
its end at the row of its SM, and under it the residency over time, one panel pair per API.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection

from .common import API_STYLE, BDA_STYLE, fig_width, no_data, save, short_gpu
from .finding_figures import MISSING_TRACE

MAX_SEGMENTS = 200_000  # more blocks: every k-th is drawn (the panel title says so)


def lanes(doc):
    """The lanes that traced: verified output, sound records, a summary."""
    return [l for l in doc.get("lanes") or [] if isinstance(l, dict) and l.get("verified")
            and not l.get("trace_error") and not l.get("unavailable") and l.get("summary")]


def lane_style(lane):
    if lane.get("api") == "vulkan" and lane.get("binding") == "bda":
        return BDA_STYLE
    return API_STYLE.get(lane.get("api"), API_STYLE["cuda"])


def config_of(doc):
    """(test, layout, variant, block) of a trace: its row in the residency figure."""
    s = doc.get("settings") or {}
    return (s.get("test") or "", s.get("layout") or "", s.get("variant") or "", s.get("block_size") or 0)


def config_label(cfg):
    test, layout, variant, block = cfg
    return " ".join(p for p in (test, layout, variant) if p) + f", block {block}"


def residency_steps(lane):
    bins = lane["summary"].get("residency") or []
    xs, ys = [], []
    for t0, t1, per_sm in bins:
        xs += [t0 / 1e3, t1 / 1e3]
        ys += [per_sm, per_sm]
    return xs, ys


def draw_residency(ax, doc):
    s = doc.get("settings") or {}
    for lane in lanes(doc):
        st, summ = lane_style(lane), lane["summary"]
        unit = "SM" if summ.get("sm_known") else "GPU"
        xs, ys = residency_steps(lane)
        label = (f"{st['label']}: mean {summ.get('resident_per_sm_mean', 0):.2f} per {unit}, "
                 f"{summ.get('launch_rate_blocks_per_us', 0):.0f} blocks/µs")
        ax.plot(xs, ys, color=st["color"], lw=1.2, label=label)
        ax.axhline(summ.get("resident_per_sm_mean", 0), color=st["color"], lw=0.8, ls=":")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="lower center")
    grid = ""
    if lanes(doc):
        g = lanes(doc)[0].get("geometry") or {}
        grid = f", {g.get('grid_x', 0) * g.get('grid_y', 1):,} blocks"
    return f"n = {s.get('n', 0):,}{grid}"


def residency_figure(traces, gpus, out, drawn_by):
    """traces: Sources of cuvk.trace files with an SM-resolved lane on both APIs."""
    usable = [t for t in traces if {l.get("api") for l in lanes(t.doc)} >= {"cuda", "vulkan"}]
    if not usable:
        return None
    configs = sorted({config_of(t.doc) for t in usable}, key=lambda c: (c[0], c[1], c[2] != "scalar", c[2], c[3]))
    cells = {}
    for t in sorted(usable, key=lambda t: t.rel):
        cells.setdefault((config_of(t.doc), t.gpu), t)
    fig, axes = plt.subplots(len(configs), len(gpus), figsize=(fig_width(5.2, len(gpus)), 2.5 * len(configs) + 0.6),
                             squeeze=False, sharey=True, layout="constrained")
    used, facts = [], []
    for ri, cfg in enumerate(configs):
        for ci, gpu in enumerate(gpus):
            ax = axes[ri][ci]
            t = cells.get((cfg, gpu))
            if not t:
                no_data(ax, f"{short_gpu(gpu)}, {config_label(cfg)}:\nno trace file published\n({MISSING_TRACE})")
                continue
            used.append(t)
            what = draw_residency(ax, t.doc)
            ax.set_title(f"{short_gpu(gpu)}: {config_label(cfg)}, {what}\n({t.rel})", fontsize=8)
            if ri == len(configs) - 1:
                ax.set_xlabel("time since the first block started (µs)")
            if ci == 0:
                ax.set_ylabel("resident per SM")
            means = {l["api"]: l["summary"].get("resident_per_sm_mean", 0) for l in lanes(t.doc)}
            if "cuda" in means and "vulkan" in means:
                facts.append(f"{config_label(cfg)} on the {short_gpu(gpu)}: "
                             f"{means['cuda']:.2f} CUDA, {means['vulkan']:.2f} Vulkan")
    title = "Workgroups resident per SM over time, CUDA vs Vulkan (cuvk trace; dotted: mean)"
    fig.suptitle(title, fontsize=10)
    caption = ("Blocks resident per SM over each traced dispatch, CUDA against Vulkan, one row per "
               "traced kernel and one column per GPU; mean residency " + "; ".join(facts) + ".")
    save(fig, out, title, caption, used, drawn_by)
    return title, caption, used


def block_rows(blocks):
    """Each block's row: SM rank * slots + its slot among the blocks resident on that SM at once."""
    order = np.lexsort((blocks[:, 1], blocks[:, 0]))
    rows = np.zeros(len(blocks), dtype=np.int64)
    sms = np.unique(blocks[:, 0])
    rank = {sm: i for i, sm in enumerate(sms)}
    slots_of = {}
    busy, current = [], None
    for i in order:
        sm, start, end = blocks[i]
        if sm != current:
            busy, current = [], sm
        s = 0
        while s < len(busy) and busy[s] > start:
            s += 1
        if s == len(busy):
            busy.append(0)
        busy[s] = end
        rows[i] = s
        slots_of[sm] = len(busy)
    slots = max(slots_of.values()) if slots_of else 1
    for i in range(len(blocks)):
        rows[i] += rank[blocks[i, 0]] * slots
    return rows, max(1, len(sms) * slots), len(sms)


def trace_figure(src, out, drawn_by):
    """One trace file: per traced API, the blocks on their SMs over time and the residency."""
    doc = src.doc
    ls = [l for l in lanes(doc) if l.get("blocks")]
    s = doc.get("settings") or {}
    head = (f"cuvk trace {s.get('kernel', s.get('test', ''))}, n = {s.get('n', 0):,}, "
            f"block {s.get('block_size', 0)}")
    fig, axes = plt.subplots(2 * max(1, len(ls)), 1, figsize=(9.5, 3.6 * max(1, len(ls)) + 0.5),
                             gridspec_kw={"height_ratios": [3, 1] * max(1, len(ls))}, sharex=True,
                             squeeze=False, layout="constrained")
    axes = axes[:, 0]
    if not ls:
        no_data(axes[0], "no API traced")
        axes[1].set_visible(False)
    facts = []
    top = max([1.0] + [b[2] for l in ls for b in l["summary"].get("residency") or []])
    for k, lane in enumerate(ls):
        ax, rax = axes[2 * k], axes[2 * k + 1]
        st, summ = lane_style(lane), lane["summary"]
        blocks = np.asarray([[np.nan if v is None else v for v in b] for b in lane["blocks"]],
                            dtype=np.float64)
        blocks[:, 0] = np.where(np.isnan(blocks[:, 0]), -1, blocks[:, 0])  # no SM ids: one SM row
        rows, total, n_sms = block_rows(blocks)
        step = max(1, -(-len(blocks) // MAX_SEGMENTS))
        seg = np.stack([np.stack([blocks[::step, 1] / 1e3, rows[::step]], 1),
                        np.stack([np.maximum(blocks[::step, 2], blocks[::step, 1] + 1) / 1e3, rows[::step]], 1)], 1)
        ax.add_collection(LineCollection(seg, colors=st["color"], linewidths=max(0.2, min(3.0, 250 / total))))
        ax.set_ylim(total, -1)
        ax.set_yticks([])
        ax.set_ylabel(f"{n_sms} SMs" if summ.get("sm_known") else "SM unknown")
        ax.autoscale(axis="x")
        unit = "SM" if summ.get("sm_known") else "GPU"
        ax.set_title(f"{st['label']} ({lane.get('binding')}): {summ.get('blocks', 0):,} blocks, "
                     f"{summ.get('launch_rate_blocks_per_us', 0):.0f} blocks/µs, resident per {unit} "
                     f"mean {summ.get('resident_per_sm_mean', 0):.2f} max {summ.get('resident_per_sm_max', 0):g}"
                     + (f"; 1 block in {step} drawn" if step > 1 else ""), fontsize=8.5)
        xs, ys = residency_steps(lane)
        rax.plot(xs, ys, color=st["color"], lw=1.2)
        rax.set_ylim(0, top * 1.08)
        rax.set_ylabel(f"resident/{unit}")
        rax.grid(True, alpha=0.3)
        facts.append(f"{st['label']} {summ.get('resident_per_sm_mean', 0):.2f}")
    axes[-1].set_xlabel("time since the first block started (µs)")
    gpu = short_gpu(src.gpu)
    title = f"{head}, {gpu}: each block on its SM's row; blocks resident per SM"
    fig.suptitle(title, fontsize=10)
    caption = (f"Every block of `{s.get('kernel', '')}` (n = {s.get('n', 0):,}, block {s.get('block_size', 0)}) "
               f"on the {gpu} as a line from its start to its end on its SM's row, with the blocks "
               f"resident per SM under it; mean residency " + ", ".join(facts) + ".")
    save(fig, out, title, caption, [src], drawn_by)
    return title, caption, [src]
