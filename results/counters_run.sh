#!/usr/bin/env bash
# Hardware counters (issue 21, docs/COUNTERS.md): what `--counters` costs, and the checks of this
# session's changes, from one GPU in one device call (about 40 s; under 90 s). Run from the
# repository root with build/ (cuvk) and .gl/ carried; builds nothing. Writes $OUT/counters/<gpu>/:
#   suite.json/.txt            the default suite, no counters (the wall-time reference)
#   suite_counters.json/.txt   the same binary, same GPU, with --counters (the cost)
#   why_blocks.json/.txt       copy scalar and grid-stride, block 128/256, both bindings, with
#                              --counters: warps resident of compute shaders (the default set)
#   why_blocks_all_warps.*     the same with CUVK_COUNTERS_WARPS=1 (warps of every shader type
#                              from a second configuration: the check of the default's warps)
#   summary.txt                the lines to read (also printed last): see the "== summary" step
# Earlier recordings (the why_* experiments of FINDINGS section 5, ncu cross-checks) stay in
# results/h100/counters/ and results/h200/counters/.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
B=${CUVK_BUILD:-build}
cuvk=./$B/cuvk
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oiE 'h[0-9]{3}' | tr A-Z a-z)
gpu=${gpu:-gpu}
R=${OUT:-$(mktemp -d)}/counters/$gpu
mkdir -p "$R"
step() { echo "== $* ($(date +%T))"; }
timed() {  # timed NAME ARGS...: cuvk run ARGS, JSON + console
  local name=$1; shift
  timeout 80 $cuvk run "$@" --format json --output "$R/$name.json" > "$R/$name.txt" 2>&1
  echo "$name rc=$?"
}

step gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee "$R/nvidia-smi.csv"
grep -i profiling /proc/driver/nvidia/params | tee "$R/params.txt"

step "default suite without and with counters (the cost)"
timed suite
timed suite_counters --counters

step "warps resident: compute shaders (default) and every shader type (CUVK_COUNTERS_WARPS=1)"
timed why_blocks --counters --tests copy --variants scalar,grid --block-sizes 32,128,256,1024 \
  --vk-binding all
CUVK_COUNTERS_WARPS=1 timed why_blocks_all_warps --counters --tests copy --variants scalar,grid \
  --block-sizes 32,128,256,1024 --vk-binding all

step summary
python3 - "$R" <<'PY' | tee "$R/summary.txt"
import json, os, sys
R = sys.argv[1]
def load(name):
    p = os.path.join(R, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
base, cnt = load("suite"), load("suite_counters")
if not base or not cnt:
    print("COST: a suite did not write its JSON (see suite*.txt)")
    sys.exit(0)
w0, w1 = base["provenance"]["wall_s"], cnt["provenance"]["wall_s"]
cost = cnt["settings"]["counters"].get("cost_s", {})
print("COST: default suite %.1f s without, %.1f s with --counters: %.2fx (limit 2x)" % (w0, w1, w1 / w0))
total = cost.get("total") or cnt["provenance"]["phase_s"].get("counters", 0)
print("COST: phase counters %.2f s; by step: %s" % (total, "; ".join(
    "%s %.2f s" % kv for kv in cost.get("steps", {}).items())))
# Rows: every row measured on both APIs, with counters where the GPU has them.
rows = cnt["results"]
ok = [r for r in rows if r["status"] == "ok"]
def unavailable(r, part):
    return ((r.get("counters") or {}).get(part) or {}).get("unavailable")
no_pm = [r for r in ok if unavailable(r, "sampled")]
no_k = [r for r in ok if r["api"] == "cuda" and r["test"] != "copy_engine" and unavailable(r, "kernel")]
print("ROWS: %d of %d ok; PM-sampled unavailable on %d, CUDA range profiler unavailable on %d" % (
    len(ok), len(rows), len(no_pm), len(no_k)))
for r in (no_pm + no_k)[:4]:
    print("  %s %s %s: %s / %s" % (r["test"], r["variant"], r["api"], unavailable(r, "sampled"),
                                   unavailable(r, "kernel")))
busy = [r["counters"]["sampled"]["busy_samples"] for r in ok if not unavailable(r, "sampled")]
if busy:
    print("SAMPLES: busy samples per row min %d, median %d (>= 100 required)" % (
        min(busy), sorted(busy)[len(busy) // 2]))
# The counters are taken after each row's timed repetitions; the range profiler now stays enabled
# into the next CUDA row's repetitions (one switch per CUDA row): the medians must not move.
def key(r):
    return (r["test"], r["layout"], r["variant"], json.dumps(r["params"], sort_keys=True), r["api"],
            r["binding"], r.get("queue_family"))
med = {key(r): r["time_ms"]["median"] for r in base["results"] if r["status"] == "ok"}
for api in ("cuda", "vulkan"):
    d = [100 * (r["time_ms"]["median"] / med[key(r)] - 1) for r in ok
         if r["api"] == api and key(r) in med]
    if d:
        print("MEDIANS %s: with/without counters, %d rows: worst %+.2f%%, mean %+.2f%%" % (
            api, len(d), max(d, key=abs), sum(d) / len(d)))
a, b = load("why_blocks"), load("why_blocks_all_warps")
if a:
    for m in a["settings"]["counters"].get("pm_metrics", []):
        if m["key"] == "warps_per_sm":
            print("WARPS metric: %s, scale %s (pm_calibrations)" % (m["metric"], m.get("scale", 1)))
if a and b:
    ratios = []
    other = {key(r): r for r in b["results"]}
    for r in a["results"]:
        s = (r.get("counters") or {}).get("sampled") or {}
        t = ((other.get(key(r)) or {}).get("counters") or {}).get("sampled") or {}
        if "warps_per_sm" in s and "warps_per_sm" in t:
            bs = r["geometry"]["block_size"]
            cw, aw = s["warps_per_sm"] or 0, t["warps_per_sm"] or 0
            if aw:
                ratios.append(cw / aw)
            print("WARPS %s %s b%d %s %s: compute %.1f, all shaders %.1f (%.3f), CTAs %.2f x %d warps = %.1f" % (
                r["test"], r["variant"], bs, r["api"], r["binding"], cw, aw, cw / aw if aw else 0,
                s["ctas_per_sm"] or 0, bs // 32, (s["ctas_per_sm"] or 0) * (bs // 32)))
    if ratios:
        print("WARPS compute / all shaders over %d rows: %.3f to %.3f (the default's check: 1 +- 0.05)" % (
            len(ratios), min(ratios), max(ratios)))
PY
ls -la "$R"
