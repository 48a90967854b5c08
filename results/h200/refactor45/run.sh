# Issue 45 (design step 4) refactor check: main before the step (a9136a2) and after it, back to
# back on one GPU, each against the published file, then new against previous; every output hash
# compared; pairs (run-time modules, multi-step sequences), chains per submission mode, counters
# and traces on both binaries.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oiE 'h[0-9]{3}' | tr A-Z a-z)
W=/tmp/res/$gpu/refactor45; mkdir -p $W build
# Both binaries (stripped) in one xz stream: the working tree that travels is limited to 64 MiB.
python3 -c "import lzma,tarfile; tarfile.open(fileobj=lzma.open('.dev/bins.tar.xz')).extractall('build')"; chmod +x build/cuvk build/cuvk_before
build/cuvk_before --version; build/cuvk --version
timeout 100 build/cuvk_before run --baseline results/$gpu.json --format json --output $W/before.json > $W/before.txt 2>&1; echo "before rc=$?"
timeout 100 build/cuvk run --baseline $W/before.json --format json --output $W/after.json > $W/after.txt 2>&1; echo "after rc=$?"
timeout 100 build/cuvk run --baseline results/$gpu.json --format json --output $W/after2.json > $W/after2.txt 2>&1; echo "after2 rc=$?"
grep -E "^Verdicts|^Baseline" $W/before.txt $W/after.txt $W/after2.txt
python3 - $W/before.json $W/after.json <<'PY'
import json, sys
a, b = (json.load(open(p))["results"] for p in sys.argv[1:3])
key = lambda r: (r["test"], r.get("layout"), r["variant"], json.dumps(r.get("params"), sort_keys=True), r["api"], r["binding"], r.get("submission"), r["geometry"]["block_size"] if isinstance(r.get("geometry"), dict) else 0)
ha = {key(r): (r.get("output_xxh3_64"), r.get("status"), r.get("check")) for r in a}
hb = {key(r): (r.get("output_xxh3_64"), r.get("status"), r.get("check")) for r in b}
same = sum(1 for k in ha if hb.get(k) == ha[k])
print(f"default suite: {same} of {len(ha)} rows equal in hash, status and check ({len(hb)} rows after); differing: {[k for k in ha if hb.get(k) != ha[k]][:5]}")
PY
for b in cuvk_before cuvk; do
  mkdir -p $W/$b
  timeout 150 build/$b run --pair examples/saxpy/saxpy.toml --pair examples/scan/scan.toml --pair examples/jacobi/jacobi.toml --pair examples/xy_update/xy_update.toml --format json --output $W/$b/pairs.json > $W/$b/pairs.txt 2>&1; echo "$b pairs rc=$?"
  timeout 120 build/$b run --pair examples/saxpy/saxpy.toml --pair examples/copy_small_blocks/copy_small_blocks.toml --tests copy --variants scalar --counters --format json --output $W/$b/counters.json > $W/$b/counters.txt 2>&1; echo "$b counters rc=$?"
  python3 -c "import json,sys; r=json.load(open('$W/$b/counters.json'))['results']; print('$b counters:', [(x['test'], x['api'], x['status'], x.get('check'), bool(x.get('counters'))) for x in r])"
  timeout 120 build/$b trace copy --variants scalar --output $W/$b/trace.json > $W/$b/trace.txt 2>&1; echo "$b trace rc=$?"
  rm -f $W/$b/trace.json
  grep -E "^Verdicts|verified|FAIL" $W/$b/pairs.txt | head -3
done
python3 - $W/cuvk_before/pairs.json $W/cuvk/pairs.json <<'PY'
import json, sys
a, b = (json.load(open(p))["results"] for p in sys.argv[1:3])
key = lambda r: (r["test"], r["variant"], r["api"], r["binding"], r.get("submission"), json.dumps([r.get("geometry"), r.get("params"), r.get("lane"), r.get("chain")], sort_keys=True))
ha = {key(r): (r.get("output_xxh3_64"), r.get("status"), r.get("check")) for r in a}
hb = {key(r): (r.get("output_xxh3_64"), r.get("status"), r.get("check")) for r in b}
same = sum(1 for k in ha if hb.get(k) == ha[k])
print(f"pairs: {same} of {len(ha)} rows equal (hash, status, check; {len(hb)} after); differing: {[(k, ha[k], hb.get(k)) for k in ha if hb.get(k) != ha[k]][:3]}")
PY
for b in cuvk_before cuvk; do grep -ciE "error|fail" $W/$b/trace.txt; head -c 700 $W/$b/trace.txt; echo; done
cd /tmp/res && tar czf $OUT/refactor45.tgz . && ls -la $OUT
