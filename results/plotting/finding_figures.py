"""Figures of FINDINGS.md's key measurements, from whatever run and trace files the results folder
holds (its subfolders included), one panel per GPU:

  block_size   copy scalar's Vulkan/CUDA ratio against the block size (runs with >= 2 block sizes)
  copy_engine  driver copy GB/s against the copy size, CUDA and each Vulkan queue family
  residency    workgroups resident per SM over time, CUDA and Vulkan, from `cuvk trace` files

A GPU with no such data gets a panel saying so, naming the run that would provide it.
"""

import textwrap

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, NullLocator

from .common import (API_STYLE, binding, bottom_legend, fig_width, median_ci, no_data, ok_rows,
                     ratio_ci, save, short_gpu)

N_COLORS = ["#1f5fbf", "#b3262d", "#3b7d00", "#7a3fb0", "#c77800", "#444444"]
FAMILY_COLORS = ["#b3262d", "#7a3fb0", "#e07b39", "#1f5fbf", "#c77800", "#8c564b", "#555555"]
FAMILY_MARKERS = ["s", "D", "v", "^", "P", "X", "*"]
MISSING_SWEEP = "results/figures_run.sh: cuvk run --tests copy\n--block-sizes 64,128,256,512,1024 --vk-binding descriptor,bda"
MISSING_ENGINE = "results/figures_run.sh: cuvk run --tests copy_engine\n--copy-mibs 1,4,16,64,256,1024"
MISSING_TRACE = "results/figures_run.sh: cuvk trace copy\n[--block-size 128 | --variants grid] --output F.json"


def by_gpu(sources, gpus):
    return {g: [s for s in sources if s.gpu == g] for g in gpus}


def block_ratios(src, variant):
    """{(n, binding): sorted [(block, ratio, low, high)]} of copy VARIANT in one run file."""
    cuda, vk = {}, {}
    for r in ok_rows(src.doc):
        if r.get("test") != "copy" or r.get("variant") != variant:
            continue
        p = r["params"]
        k = (p["n"], p["block_size"])
        if r["api"] == "cuda":
            cuda[k] = r
        elif r["api"] == "vulkan":
            vk.setdefault((p["n"], binding(r)), {})[p["block_size"]] = r
    out = {}
    for (n, mode), rows in vk.items():
        pts = [(b,) + ratio_ci(median_ci(r), median_ci(cuda[(n, b)]))
               for b, r in rows.items() if (n, b) in cuda]
        if len(pts) >= 2:
            out[(n, mode)] = sorted(pts)
    return out


def is_block_sweep(src):
    block_ratios(src, "vec4")  # both variants readable (a KeyError leaves the file out)
    return bool(block_ratios(src, "scalar"))


def files_title(gpu, sources):
    return short_gpu(gpu) + "\n" + textwrap.fill(", ".join(s.rel for s in sources), 64)


def n_label(n):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10)):
        if n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def newest_first(sources):
    return sorted(sources, key=lambda s: ((s.doc.get("provenance") or {}).get("date_utc") or "", s.rel),
                  reverse=True)


def gpu_sweeps(sources):
    """{(variant, n, binding): (points, Source)} of one GPU: each series from the file that sweeps
    the most block sizes, ties to the newest (a fresh full sweep replaces an older one; a newer run
    of two block sizes, such as the counters' experiments, does not cut a full sweep short)."""
    out = {}
    for src in newest_first(sources):
        for variant in ("scalar", "vec4"):
            for (n, mode), pts in block_ratios(src, variant).items():
                key = (variant, n, mode)
                if key not in out or len(pts) > len(out[key][0]):
                    out[key] = (pts, src)
    return out


def sweep_fact(gpu, series, tol):
    """'1.184 at block 128 on the H100 (descriptor, n = 256M), Vulkan faster ... at block 1024'."""
    scalar = {k: v for k, v in series.items() if k[0] == "scalar"}
    if not scalar:
        return None
    (_, n, mode), (pts, _) = max(scalar.items(), key=lambda kv: max(p[1] for p in kv[1][0]))
    top = max(pts, key=lambda p: p[1])
    fact = f"{top[1]:.3f} at block {top[0]} on the {short_gpu(gpu)} ({mode}, n = {n_label(n)})"
    faster = sorted(set.intersection(*[{b for b, _, _, high in pts if high < 1 - tol}
                                       for pts, _ in scalar.values()]))
    if faster:
        fact += f", Vulkan faster by more than {tol * 100:g}% at block {', '.join(map(str, faster))}"
    return fact


def block_size_figure(sweeps, gpus, out, drawn_by, tol):
    """sweeps: Sources holding copy scalar at >= 2 block sizes on both APIs."""
    if not sweeps:
        return None
    groups = by_gpu(sweeps, gpus)
    fig, axes = plt.subplots(1, len(gpus), figsize=(fig_width(5.2, len(gpus)), 4.2), squeeze=False, sharey=True,
                             layout="constrained")
    ns = sorted({k[0] for s in sweeps for k in block_ratios(s, "scalar")})
    facts, used = [], []
    lo, hi = 0.9, 1.1
    for ax, gpu in zip(axes[0], gpus):
        series = gpu_sweeps(groups[gpu])
        if not series:
            no_data(ax, f"{short_gpu(gpu)}: no block-size sweep published\n({MISSING_SWEEP})")
            continue
        ax.axhspan(1 - tol, 1 + tol, color="#3b7d00", alpha=0.10, lw=0)
        ax.axhline(1.0, color="black", lw=0.7)
        mine = []
        for (variant, n, mode), (pts, src) in sorted(series.items()):
            mine += [src] if src not in mine else []
            color = "#777777" if variant == "vec4" else N_COLORS[ns.index(n) % len(N_COLORS)]
            err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=err, color=color,
                        alpha=0.45 if variant == "vec4" else 1.0, lw=1.3, ms=4, capsize=2,
                        marker="o" if mode == "descriptor" else "^", ls="-" if mode == "descriptor" else "--")
            lo, hi = min(lo, min(p[2] for p in pts)), max(hi, max(p[3] for p in pts))
        used += sorted(mine, key=lambda s: s.rel)
        fact = sweep_fact(gpu, series, tol)
        facts += [fact] if fact else []
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator([32, 64, 128, 256, 512, 1024]))
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(48, 1400)
        ax.set_xlabel("block size (threads per block / workgroup)")
        ax.set_title(files_title(gpu, sorted(mine, key=lambda s: s.rel)), fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("Vulkan / CUDA median GPU time (log)")
    for ax in axes[0]:
        ax.set_yscale("log")
        ax.set_ylim(lo / 1.01, hi * 1.01)
        ticks = [t for t in (0.9, 0.925, 0.95, 0.975, 1.0, 1.025, 1.05, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5)
                 if lo / 1.01 <= t <= hi * 1.01]
        ax.yaxis.set_major_locator(FixedLocator(ticks))
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_locator(NullLocator())
    handles = [Line2D([], [], color=N_COLORS[i % len(N_COLORS)], lw=2, label=f"copy scalar, n = {n_label(n)}")
               for i, n in enumerate(ns)]
    handles += [Line2D([], [], color="#777777", alpha=0.6, lw=2, label="copy vec4 (control)"),
                Line2D([], [], color="black", marker="o", ls="-", label="descriptor sets"),
                Line2D([], [], color="black", marker="^", ls="--", label="buffer device address")]
    bottom_legend(fig, handles, 6)
    title = "The scalar gap depends on the block size: copy, Vulkan/CUDA against block size (95% CI)"
    fig.suptitle(title, fontsize=10)
    caption = ("The Vulkan/CUDA time ratio of the one-float-per-thread `copy scalar` against the "
               "block size, per problem size and binding, with the 16-byte `copy vec4` as control: "
               "largest " + "; ".join(facts) + ".")
    save(fig, out, title, caption, used, drawn_by)
    return title, caption, used


def engine_rows(src):
    """[(api, family, flags, mib, gbps, row)] of the driver-copy rows with a size axis."""
    out = []
    for r in ok_rows(src.doc):
        engine = r.get("test") == "copy_engine" or (r.get("test") == "copy" and r.get("variant") == "engine")
        mib = (r.get("params") or {}).get("copy_mib")
        if engine and mib:
            out.append((r["api"], r.get("queue_family"), r.get("queue_flags") or "", mib,
                        r["gbps_useful"], r))
    return out


def is_engine_sweep(src):
    rows = engine_rows(src)
    for r in rows:
        float(r[4]), int(r[1] or 0)  # GB/s and queue family readable
    return len({e[3] for e in rows}) >= 2


def pick_per_gpu(sources, gpus, score):
    """Per GPU the source with the highest score, ties to the newest run date, then name."""
    best = {}
    for s in sources:
        key = (score(s), (s.doc.get("provenance") or {}).get("date_utc") or "", s.rel)
        if s.gpu not in best or key > best[s.gpu][0]:
            best[s.gpu] = (key, s)
    return {g: best[g][1] for g in gpus if g in best}


def shader_copy(ref):
    """(MiB, GB/s) of the Vulkan `copy vec4` shader in a run file: the copy an application can
    use instead of vkCmdCopyBuffer; None when the run has none."""
    for r in ok_rows(ref.doc) if ref else []:
        if r.get("test") == "copy" and r.get("variant") == "vec4" and r.get("api") == "vulkan":
            return r["params"]["n"] * 4 / (1 << 20), r["gbps_useful"]
    return None


def copy_engine_figure(sweeps, gpus, refs, out, drawn_by):
    """refs: {gpu: the GPU's indexed run}, whose `copy vec4` shader is marked for comparison."""
    if not sweeps:
        return None
    chosen = pick_per_gpu(sweeps, gpus, lambda s: len({e[3] for e in engine_rows(s)}))
    used = []
    fig, axes = plt.subplots(1, len(gpus), figsize=(fig_width(5.4, len(gpus)), 4.4), squeeze=False, sharey=True,
                             layout="constrained")
    facts, legend = [], {}
    for ax, gpu in zip(axes[0], gpus):
        src = chosen.get(gpu)
        if not src:
            no_data(ax, f"{short_gpu(gpu)}: no copy-engine size sweep published\n({MISSING_ENGINE})")
            continue
        lines = {}
        for api, fam, flags, mib, gbps, r in engine_rows(src):
            key = ("cuda", -1, "") if api == "cuda" else ("vulkan", fam if fam is not None else 0, flags)
            lines.setdefault(key, []).append((mib, gbps, r))
        last = {}
        for key in sorted(lines):
            pts = sorted(lines[key], key=lambda p: p[0])
            if key[0] == "cuda":
                st = dict(color=API_STYLE["cuda"]["color"], marker="o", lw=2.2,
                          label="CUDA cudaMemcpyAsync")
            else:
                flags = key[2].replace("|sparse", "").replace("|", ", ")
                st = dict(color=FAMILY_COLORS[key[1] % len(FAMILY_COLORS)], lw=1.3,
                          marker=FAMILY_MARKERS[key[1] % len(FAMILY_MARKERS)], mfc="none",
                          label=f"Vulkan family {key[1]} ({flags})")
                if "l2_not_flushed" in (pts[-1][2].get("flags") or []):
                    st["ls"] = "--"
                    st["label"] += ", L2 not flushed"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ms=5, **st)
            last[key] = pts[-1]
        used.append(src)
        shader = shader_copy(refs.get(gpu))
        if shader:
            used.append(refs[gpu])
            ax.plot([shader[0]], [shader[1]], ls="none", marker="*", ms=11, color="black",
                    label="Vulkan copy shader (copy vec4, a run of the suite)")
            ax.annotate(f"{shader[1]:.0f} GB/s ({refs[gpu].rel})", shader, textcoords="offset points",
                        xytext=(0, 9), ha="center", fontsize=7, color="black")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(FixedLocator(sorted({e[3] for e in engine_rows(src)})))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_major_locator(FixedLocator([50, 100, 200, 300, 500, 1000, 2000, 3000, 5000, 8000]))
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("copy size (MiB)")
        ax.grid(True, alpha=0.3)
        for h, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, h)
        ax.set_title(f"{short_gpu(gpu)} ({src.rel})", fontsize=9)
        vk = [v for k, v in last.items() if k[0] == "vulkan"]
        if ("cuda", -1, "") in last and vk:
            c = last[("cuda", -1, "")]
            facts.append(f"{c[1]:.0f} GB/s on CUDA against {min(v[1] for v in vk):.0f}–"
                         f"{max(v[1] for v in vk):.0f} GB/s on Vulkan's families on the "
                         f"{short_gpu(gpu)} at {c[0]:g} MiB")
    axes[0][0].set_ylabel("GB/s (1e9 B/s, log)")
    axes[0][0].set_ylim(100, max([1000] + [e[4] for s in used for e in engine_rows(s)]) * 1.9)
    bottom_legend(fig, [h for h in legend.values()], 3, rows=2)
    title = "Driver copy engines: cudaMemcpyAsync vs vkCmdCopyBuffer per queue family, by size"
    fig.suptitle(title, fontsize=10)
    caption = ("Device-to-device copy bandwidth of the drivers' copy paths against the copy size, "
               "CUDA and every Vulkan queue family, on a log scale, with a Vulkan copy shader "
               "for comparison (star): " + "; ".join(facts) + ".")
    save(fig, out, title, caption, used, drawn_by)
    return title, caption, used
