"""Every figure of a results folder, from the files in it (`cuvk report --index DIR` runs this).

Input: a JSON manifest written by cuvk:
    {"dir": DIR, "drawn_by": "cuvk <revision>", "tolerance": 0.03,
     "runs": [{"file": "h100.json", "parity": <the "parity" object of cuvk.parity/1>}, ...]}
`runs` are the run files cuvk indexes (DIR/*.json); the folder's subfolders are searched here for
block-size sweeps, copy-engine size sweeps, runs with several sizes (--n lists) and `cuvk trace` files of `copy` (*.json, *.json.gz).
Output: DIR/plots/ holds exactly the figures drawn now and figures.json, their list (file, title,
one-sentence caption, sources with sha256 and cuvk revision), which cuvk turns into README.md.
"""

import json
import os
import shutil
import sys

from .common import RUN_SCHEMA, TRACE_SCHEMA, Source, figure_record, gpu_order, read_json, schema_of
from .finding_figures import (block_size_figure, copy_engine_figure, is_block_sweep, is_engine_sweep)
from .run_figures import layouts_figure, parity_figure, sweeps_figure
from .size_figures import is_size_sweep, size_curve_figure
from .trace_figures import lanes as trace_lanes, residency_figure, trace_figure

FIGURES_SCHEMA = "cuvk.figures/1"
MAX_SCAN_BYTES = 256 << 20


def scan(root):
    """(run Sources, trace Sources) of every cuvk run or trace file under root, plots/ excluded."""
    runs, traces = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and
                             not (dirpath == root and d.startswith("plots")))
        for name in sorted(filenames):
            if not (name.endswith(".json") or name.endswith(".json.gz")) or name.startswith("."):
                continue
            path = os.path.join(dirpath, name)
            if os.path.getsize(path) > MAX_SCAN_BYTES:
                continue
            doc = read_json(path)
            schema = schema_of(doc)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if schema.startswith(RUN_SCHEMA):
                runs.append(Source(path, rel, doc))
            elif schema.startswith(TRACE_SCHEMA):
                traces.append(Source(path, rel, doc))
    return runs, traces


def usable(test, src):
    """test(src), False (with a note) when the file does not have the fields it needs: a file from
    another cuvk version, or a hand-edited one, leaves its figure out instead of failing them all."""
    try:
        return bool(test(src))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        print(f"left out of the figures: {src.rel} ({type(e).__name__}: {e})")
        return False


def trace_ok(src):
    """A trace whose lanes that traced have [sm, start, end] blocks and [t0, t1, per_sm] bins."""
    for lane in trace_lanes(src.doc):
        for b in lane.get("blocks") or []:
            if len(b) != 3 or not all(v is None or isinstance(v, (int, float)) for v in b):
                raise ValueError("a block is not [sm, start_ns, end_ns]")
        for b in lane["summary"].get("residency") or []:
            if len(b) != 3 or not all(isinstance(v, (int, float)) for v in b):
                raise ValueError("a residency bin is not [t0_ns, t1_ns, per_sm]")
        float(lane["summary"].get("resident_per_sm_mean") or 0)
    return True


def trace_name(rel):
    stem = rel[:-len(".json.gz")] if rel.endswith(".json.gz") else os.path.splitext(rel)[0]
    return "trace." + stem.replace("/", ".").replace(".traces.", ".") + ".png"


def draw_all(manifest, out_dir):
    root = manifest["dir"]
    drawn_by = manifest.get("drawn_by") or "cuvk"
    tol = float(manifest.get("tolerance") or 0.03)
    runs, traces = scan(root)
    by_rel = {s.rel: s for s in runs}
    indexed = []  # (Source, parity) of the runs cuvk indexes, in its order
    for r in manifest.get("runs") or []:
        src = by_rel.get(r["file"])
        if src is not None:
            indexed.append((src, r.get("parity") or {}))
    size_sweeps = [s for s in runs if usable(is_size_sweep, s)]
    block_sweeps = [s for s in runs if usable(is_block_sweep, s)]
    engine_sweeps = [s for s in runs if usable(is_engine_sweep, s)]
    traces = [t for t in traces if usable(trace_ok, t)]
    gpus = gpu_order([s.gpu for s, _ in indexed] + [s.gpu for s in block_sweeps + engine_sweeps + traces])
    primary = {}
    for src, parity in sorted(indexed, key=lambda t: t[0].rel):
        primary.setdefault(src.gpu, (src, parity))
    run_gpus = [g for g in gpus if g in primary]

    figures = []

    def draw(name, fn, *args):
        got = fn(*args, os.path.join(out_dir, name), drawn_by) if fn is not None else None
        if got:
            title, caption, sources = got
            figures.append(figure_record(name, title, caption, sources))
            print(f"drew plots/{name}")

    if run_gpus:
        draw("parity.png", parity_figure,
             [(g, primary[g][0], dict(primary[g][1], tolerance=tol)) for g in run_gpus])
    draw("block_size.png", lambda out, by: block_size_figure(block_sweeps, gpus, out, by, tol))
    draw("copy_engine.png", copy_engine_figure, engine_sweeps, gpus,
         {g: primary[g][0] for g in run_gpus})
    # FINDINGS #1 is about `copy`: its traces (every block size, grid-stride) make the residency
    # figure and one figure each; other traces stay as published data (cuvk trace --plot draws any).
    copy_traces = [t for t in traces if (t.doc.get("settings") or {}).get("test") == "copy"]
    draw("residency.png", residency_figure, copy_traces, gpus)
    for t in copy_traces:
        if {l.get("api") for l in trace_lanes(t.doc)} >= {"cuda", "vulkan"}:
            draw(trace_name(t.rel), trace_figure, t)
    for s in size_sweeps:  # issue 33: every run with several sizes, one figure each
        stem = s.rel[:-len(".json.gz")] if s.rel.endswith(".json.gz") else s.rel[:-len(".json")]
        draw("sizes." + stem.replace("/", ".") + ".png", size_curve_figure, s)
    if run_gpus:
        cols = [(g, primary[g][0]) for g in run_gpus]
        draw("offsets.png", lambda out, by: sweeps_figure(cols, out, by, "offsets"))
        draw("stride.png", lambda out, by: sweeps_figure(cols, out, by, "stride"))
        draw("layouts.png", layouts_figure, cols)
    return figures


def replace_plots(root, new_dir, figures, drawn_by):
    """DIR/plots/ becomes exactly the new figures and figures.json (other files there are kept)."""
    plots = os.path.join(root, "plots")
    os.makedirs(plots, exist_ok=True)
    with open(os.path.join(new_dir, "figures.json"), "w", encoding="utf-8") as f:
        json.dump({"schema": FIGURES_SCHEMA, "drawn_by": drawn_by, "figures": figures}, f, indent=1,
                  ensure_ascii=False, sort_keys=True)
        f.write("\n")
    for name in sorted(os.listdir(plots)):
        if name.endswith((".png", ".svg")) or name == "figures.json":
            os.remove(os.path.join(plots, name))
    for name in sorted(os.listdir(new_dir)):
        os.replace(os.path.join(new_dir, name), os.path.join(plots, name))


def main(manifest_path):
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    root = manifest["dir"]
    new_dir = os.path.join(root, ".plots.new")
    shutil.rmtree(new_dir, ignore_errors=True)
    os.makedirs(new_dir)
    try:
        figures = draw_all(manifest, new_dir)
        replace_plots(root, new_dir, figures, manifest.get("drawn_by") or "cuvk")
    finally:
        shutil.rmtree(new_dir, ignore_errors=True)
    print(f"{len(figures)} figures in {os.path.join(root, 'plots')}", file=sys.stderr)
    return 0
