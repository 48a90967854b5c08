#!/usr/bin/env python3
"""Charts of one cuvk run (a `cuvk run --format json` file, schema cuvk.results/1) as PNG files.

    python3 results/plot.py results/h100.json            # -> results/plots/h100.*.png
    python3 results/plot.py RUN.json --out DIR --tolerance 3

Writes, for the run file STEM.json:
  STEM.offsets.png  read_offset / write_offset: useful GB/s vs offset, both APIs
  STEM.stride.png   stride: useful and moved GB/s vs stride, both APIs
  STEM.layouts.png  read_x / update_xy: AoS vs SoA median time per API
  STEM.parity.png   Vulkan/CUDA median time ratio per point with its 95% interval and verdict
A chart whose rows are missing (an API unavailable, a test not run) is drawn with what is there,
or skipped with a message when nothing is. Needs python3 and matplotlib only; it is not part of
the build or the tests. `cuvk report --index DIR` embeds DIR/plots/STEM.*.png under run STEM.
"""

import argparse
import json
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
except ImportError:
    sys.exit("error: plot.py needs matplotlib (Debian: apt-get install python3-matplotlib)")

SCHEMA_PREFIX = "cuvk.results/"
SCHEMA_VERSION = 1
STYLE = {
    "cuda": {"color": "#4c9a2a", "marker": "o", "label": "CUDA"},
    "vulkan": {"color": "#b3262d", "marker": "s", "label": "Vulkan"},
}
# Vulkan's buffer-device-address rows (binding "bda") next to its descriptor rows.
BDA_STYLE = {"color": "#e07b39", "marker": "^", "label": "Vulkan bda"}
VERDICT_COLOR = {
    "SAME": "#4c9a2a",
    "VULKAN FASTER": "#1f5fbf",
    "VULKAN SLOWER": "#b3262d",
    "UNCERTAIN": "#8c8c8c",
}
DPI = 130


def fail(msg):
    sys.exit("error: " + msg)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot open: {e.strerror}")
    except (ValueError, UnicodeDecodeError) as e:
        fail(f"{path}: not valid JSON: {e}")
    if not isinstance(doc, dict):
        fail(f"{path}: not a cuvk results file (the top level is not an object)")
    schema = doc.get("schema")
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_PREFIX):
        fail(f"{path}: foreign schema {schema!r} (expected 'cuvk.results/{SCHEMA_VERSION}')")
    version = schema[len(SCHEMA_PREFIX):]
    if not version.isdigit() or int(version) > SCHEMA_VERSION:
        fail(f"{path}: schema {schema!r} is newer than this script reads (cuvk.results/{SCHEMA_VERSION})")
    if not isinstance(doc.get("results"), list):
        fail(f"{path}: no 'results' array")
    return doc


def ok_rows(doc):
    return [r for r in doc["results"] if isinstance(r, dict) and r.get("status") == "ok"]


def describe(doc):
    """Second title line: GPU, drivers, size and cache mode."""
    dev = doc.get("devices", {})
    cuda, vk = dev.get("cuda"), dev.get("vulkan")
    gpu = (cuda or vk or {}).get("name", "unknown GPU")
    parts = []
    if cuda:
        ver = cuda.get("properties", {}).get("cuda_driver_version")
        parts.append(f"CUDA {ver}" if ver else cuda.get("driver", "CUDA"))
    else:
        parts.append("CUDA unavailable")
    parts.append(f"Vulkan {vk.get('driver', '?')}" if vk else "Vulkan unavailable")
    s = doc.get("settings", {})
    size = f"n={s['n']:,}" if isinstance(s.get("n"), int) else ""
    l2 = f"L2 {s['l2']}" if s.get("l2") else ""
    return f"{gpu} ({', '.join(p for p in (size, l2) if p)})\n" + ", ".join(parts)


def title(fig, what, doc):
    fig.suptitle(what + "\n" + describe(doc), fontsize=9.5)


def save(fig, out):
    fig.savefig(out, dpi=DPI)  # figures use the constrained layout: title, legends and labels fit
    plt.close(fig)


def binding(r):
    return r.get("binding") or ("pointer" if r.get("api") == "cuda" else "descriptor")


def style(key):
    """Colour and marker of a (api, variant, block, binding) series."""
    if key[0] == "vulkan" and key[3] == "bda":
        return BDA_STYLE
    return STYLE.get(key[0], {"color": "black", "marker": "x", "label": key[0]})


def series(rows, test, x_key):
    """{(api, variant, block, binding): sorted [(x, row)]} for one sweep test."""
    out = {}
    for r in rows:
        if r.get("test") != test:
            continue
        p = r.get("params", {})
        key = (r.get("api"), r.get("variant"), p.get("block_size"), binding(r))
        out.setdefault(key, []).append((p.get(x_key), r))
    for v in out.values():
        v.sort(key=lambda t: t[0])
    return out


def series_label(key, keys):
    api, variant, block, mode = key
    label = style(key)["label"]
    if api == "vulkan" and mode != "bda" and len({k[3] for k in keys if k[0] == "vulkan"}) > 1:
        label += f" {mode}"
    if len({k[1] for k in keys}) > 1:
        label += f" {variant}"
    if len({k[2] for k in keys}) > 1:
        label += f" block {block}"
    return label


def gbps_err(r, field):
    """GB/s error bars from the median's interval: bytes/time, so the bounds swap."""
    g, t, ci = r[field], r["time_ms"]["median"], r.get("ci") or {}
    lo, hi = ci.get("low_ms", t), ci.get("high_ms", t)
    return (g - g * t / hi if hi > 0 else 0.0, (g * t / lo - g) if lo > 0 else 0.0)


def missing_note(ax, doc, rows_present_apis, top=False):
    """Say on the chart which API has no rows, so an absent line is not mistaken for zero."""
    dev = doc.get("devices", {})
    notes = []
    for api in ("cuda", "vulkan"):
        if api not in rows_present_apis:
            why = dev.get(f"{api}_unavailable_reason") or "no rows in this run"
            notes.append(f"{STYLE[api]['label']}: not measured ({why})")
    if notes:
        ax.text(0.01, 0.86 if top else 0.01, "\n".join(notes), transform=ax.transAxes, fontsize=7,
                color="#555555", va="top" if top else "bottom", ha="left", wrap=True)


def plot_sweep_axes(ax, rows, test, x_key, fields, ylabel):
    data = series(rows, test, x_key)
    for key, pts in sorted(data.items(), key=lambda kv: str(kv[0])):
        st = style(key)
        for field, dashes in fields:
            xs = [x for x, _ in pts]
            ys = [r[field] for _, r in pts]
            errs = list(zip(*[gbps_err(r, field) for _, r in pts]))
            label = series_label(key, data.keys()) + ("" if len(fields) == 1 else f" ({field.split('_')[1]})")
            ax.errorbar(xs, ys, yerr=errs, color=st["color"], marker=st["marker"], markersize=4,
                        linestyle=dashes, capsize=2, linewidth=1.3, label=label)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.set_ylim(bottom=0)
    return {k[0] for k in data}


def plot_offsets(doc, rows, out):
    tests = [t for t in ("read_offset", "write_offset") if any(r["test"] == t for r in rows)]
    if not tests:
        return None, "no read_offset or write_offset rows"
    fig, axes = plt.subplots(1, len(tests), figsize=(6.2 * len(tests), 4.6), squeeze=False, layout="constrained")
    for ax, test in zip(axes[0], tests):
        apis = plot_sweep_axes(ax, rows, test, "offset", [("gbps_useful", "-")],
                               "useful bandwidth (GB/s, 1e9 B/s)")
        kind = "b[i] = a[i + offset]" if test == "read_offset" else "b[i + offset] = a[i]"
        ax.set_title(f"{test}: {kind}", fontsize=10)
        ax.set_xlabel("offset (elements of 4 bytes)")
        ax.legend(fontsize=8, loc="lower right")
        missing_note(ax, doc, apis)
    title(fig, "Misaligned access: bandwidth vs offset (median, 95% CI)", doc)
    save(fig, out)
    return out, None


def plot_stride(doc, rows, out):
    if not any(r["test"] == "stride" for r in rows):
        return None, "no stride rows"
    fig, ax = plt.subplots(figsize=(8.5, 5.2), layout="constrained")
    apis = plot_sweep_axes(ax, rows, "stride", "stride", [("gbps_moved", "-"), ("gbps_useful", "--")],
                           "bandwidth (GB/s, 1e9 B/s)")
    ax.set_xscale("log", base=2)
    strides = sorted({r["params"]["stride"] for r in rows if r["test"] == "stride"})
    ax.set_xticks(strides)
    ax.set_xticklabels([str(s) for s in strides])
    ax.set_xlabel("stride (elements of 4 bytes), b[i] = a[i * stride]")
    ax.legend(fontsize=8, loc="best", title="solid: moved (32 B sectors), dashed: useful",
              title_fontsize=8)
    missing_note(ax, doc, apis)
    title(fig, "Strided reads: moved and useful bandwidth vs stride (median, 95% CI)", doc)
    save(fig, out)
    return out, None


def plot_layouts(doc, rows, out):
    tests = [t for t in ("read_x", "update_xy") if any(r["test"] == t for r in rows)]
    if not tests:
        return None, "no read_x or update_xy rows"
    # A block-size sweep or several binding modes make many groups: widen rather than squeeze.
    most = max(len({(r["api"], r["variant"], r["params"]["block_size"], binding(r)) for r in rows
                    if r["test"] == t}) for t in tests)
    width = max(5.6, 1.1 * most + 1.5)
    fig, axes = plt.subplots(1, len(tests), figsize=(width * len(tests), 4.6), squeeze=False,
                             layout="constrained")
    width = 0.38
    present = set()
    for ax, test in zip(axes[0], tests):
        groups = []  # (api, variant, block, binding)
        for r in rows:
            if r["test"] == test:
                key = (r["api"], r["variant"], r["params"]["block_size"], binding(r))
                if key not in groups:
                    groups.append(key)
        groups.sort(key=lambda k: (k[0] != "cuda", k[3], str(k[1]), k[2]))  # API, mode, then sizes
        for gi, key in enumerate(groups):
            present.add(key[0])
            cells = {}
            for r in rows:
                if r["test"] == test and (r["api"], r["variant"], r["params"]["block_size"], binding(r)) == key:
                    cells[r["layout"]] = r
            for li, (layout, hatch) in enumerate((("aos", "//"), ("soa", ""))):
                r = cells.get(layout)
                if not r:
                    continue
                t, ci = r["time_ms"]["median"], r.get("ci") or {}
                err = [[t - ci.get("low_ms", t)], [ci.get("high_ms", t) - t]]
                x = gi + (li - 0.5) * width
                ax.bar(x, t, width, yerr=err, capsize=3, color=style(key)["color"],
                       alpha=0.55 if layout == "aos" else 0.95, hatch=hatch, edgecolor="black",
                       linewidth=0.6)
                ax.text(x, t / 2, f"{t:.3g} ms", ha="center", va="center", fontsize=7,
                        bbox={"facecolor": "white", "alpha": 0.8, "linewidth": 0, "pad": 1})
            if "aos" in cells and "soa" in cells:
                ratio = cells["aos"]["time_ms"]["median"] / cells["soa"]["time_ms"]["median"]
                top = max((cells[l].get("ci") or {}).get("high_ms", cells[l]["time_ms"]["median"])
                          for l in ("aos", "soa"))
                ax.text(gi, top * 1.04, f"AoS/SoA {ratio:.2f}x", ha="center", va="bottom", fontsize=8,
                        weight="bold")
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([series_label(k, groups).replace(" block ", "\nblock ") for k in groups],
                           fontsize=8 if len(groups) > 4 else 10)
        ax.set_ylabel("median time (ms)")
        ax.set_title(test + (": out[i] = p[i].x" if test == "read_x" else ": x += 10, y += 20"), fontsize=10)
        ax.set_ylim(0, ax.get_ylim()[1] * 1.4)
        ax.grid(True, axis="y", alpha=0.3)
        legend = [Patch(facecolor="#bbbbbb", hatch="//", edgecolor="black", label="AoS (array of structs)"),
                  Patch(facecolor="#555555", edgecolor="black", label="SoA (struct of arrays)")]
        ax.legend(handles=legend, fontsize=8, loc="upper center", ncol=2)
        ax.set_xlim(-0.6, max(len(groups), 2) - 0.4)  # one API: keep the bars their usual width
        missing_note(ax, doc, present, top=True)
    title(fig, "Array of structs vs struct of arrays: median time per API (lower is better)", doc)
    save(fig, out)
    return out, None


def ratio_ci(num, den):
    """The same interval as host/compare.cpp: the medians' intervals combined in log space."""
    def gap(big, small):
        return math.inf if small <= 0 else max(0.0, math.log(big / small))
    r = num[0] / den[0]
    low = r * math.exp(-math.hypot(gap(num[0], num[1]), gap(den[2], den[0])))
    high = r * math.exp(math.hypot(gap(num[2], num[0]), gap(den[0], den[1])))
    return r, low, high


def verdict(low, high, tol):
    if low >= 1 - tol and high <= 1 + tol:
        return "SAME"
    if high < 1 - tol:
        return "VULKAN FASTER"
    if low > 1 + tol:
        return "VULKAN SLOWER"
    return "UNCERTAIN"


def point_name(r):
    p = r["params"]
    parts = [r["test"]]
    if r.get("layout"):
        parts.append(r["layout"])
    parts.append(r["variant"])
    if r["test"].endswith("offset"):
        parts.append(f"offset={p['offset']}")
    elif r["test"] == "stride":
        parts.append(f"stride={p['stride']}")
    return " ".join(parts)


def plot_parity(doc, rows, out, tol):
    def key(r):
        p = r["params"]
        return (r["test"], r.get("layout"), r["variant"], p["n"], p["offset"], p["stride"], p["block_size"])

    cuda = {key(r): r for r in rows if r["api"] == "cuda"}
    points = []
    blocks = {r["params"]["block_size"] for r in rows}
    modes = {binding(r) for r in rows if r["api"] == "vulkan"}
    for r in rows:
        if r["api"] != "vulkan" or key(r) not in cuda:
            continue
        c = cuda[key(r)]
        med = lambda x: (x["time_ms"]["median"], x["ci"]["low_ms"], x["ci"]["high_ms"])
        ratio, low, high = ratio_ci(med(r), med(c))
        name = point_name(r) + (f" b{r['params']['block_size']}" if len(blocks) > 1 else "")
        name += f" [{binding(r)}]" if len(modes) > 1 else ""
        points.append((name, ratio, low, high, verdict(low, high, tol)))
    if not points:
        why = doc.get("devices", {}).get("cuda_unavailable_reason") or "no point has both APIs"
        return None, f"no point has both CUDA and Vulkan rows ({why})"
    fig, ax = plt.subplots(figsize=(8.5, 2.0 + 0.27 * len(points)), layout="constrained")
    ys = list(range(len(points)))[::-1]
    ax.axvspan(1 - tol, 1 + tol, color="#4c9a2a", alpha=0.12, label=f"SAME band 1 ± {tol * 100:g}%")
    ax.axvline(1.0, color="black", linewidth=0.8)
    seen = set()
    for y, (name, ratio, low, high, v) in zip(ys, points):
        hi = high if math.isfinite(high) else ratio * 2
        ax.errorbar([ratio], [y], xerr=[[ratio - low], [hi - ratio]], fmt="o", color=VERDICT_COLOR[v],
                    capsize=3, markersize=4, label=v if v not in seen else None)
        seen.add(v)
    ax.set_yticks(ys)
    ax.set_yticklabels([p[0] for p in points], fontsize=8)
    ax.set_xlabel("Vulkan / CUDA median GPU time (> 1: Vulkan slower), 95% CI")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    counts = {}
    for p in points:
        counts[p[4]] = counts.get(p[4], 0) + 1
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    title(fig, f"CUDA vs Vulkan parity per point: {summary}", doc)
    save(fig, out)
    return out, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="a cuvk run JSON file (cuvk run --format json --output FILE)")
    ap.add_argument("--out", help="output folder (default: plots/ next to the run file)")
    ap.add_argument("--tolerance", type=float, default=3.0, help="SAME band in percent (default 3)")
    args = ap.parse_args()
    doc = load(args.run)
    rows = ok_rows(doc)
    out_dir = args.out or os.path.join(os.path.dirname(os.path.abspath(args.run)), "plots")
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.run))[0]
    charts = [
        ("offsets", lambda p: plot_offsets(doc, rows, p)),
        ("stride", lambda p: plot_stride(doc, rows, p)),
        ("layouts", lambda p: plot_layouts(doc, rows, p)),
        ("parity", lambda p: plot_parity(doc, rows, p, args.tolerance / 100.0)),
    ]
    for name, draw in charts:
        path = os.path.join(out_dir, f"{stem}.{name}.png")
        written, skipped = draw(path)
        if written:
            print(f"wrote {written}")
        else:
            print(f"skipped {name}: {skipped}", file=sys.stderr)


if __name__ == "__main__":
    main()
