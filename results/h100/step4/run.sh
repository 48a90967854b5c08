# Design step 4 (issue 45 point 4: host/core as three libraries) and this session's runner
# changes (issue 49: time budgets; issue 47: disagreement rows), back to back on one GPU: the
# binary before them (d1875c7, same code as 3b5f881) and after, each against the published file,
# then after against before; every output hash compared; pairs and chains; then a pair looped
# 10,000 times (jacobi with repeat = 10000) on the new binary, whose rows must keep --max-time.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oiE 'h[0-9]{3}' | tr A-Z a-z)
W=/tmp/res/$gpu/step4; mkdir -p $W build
python3 -c "import lzma,tarfile; tarfile.open(fileobj=lzma.open('.dev/bins.tar.xz')).extractall('build')"; chmod +x build/cuvk build/cuvk_before
build/cuvk_before --version; build/cuvk --version; build/cuvk devices | head -12
timeout 100 build/cuvk_before run --baseline results/$gpu.json --format json --output $W/before.json > $W/before.txt 2>&1; echo "before rc=$?"
timeout 100 build/cuvk run --baseline $W/before.json --format json --output $W/after.json > $W/after.txt 2>&1; echo "after rc=$?"
timeout 100 build/cuvk run --baseline results/$gpu.json --format json --output $W/after2.json > $W/after2.txt 2>&1; echo "after2 rc=$?"
grep -E "^Verdicts|^Baseline" $W/before.txt $W/after.txt $W/after2.txt
python3 - $W/before.json $W/after.json > $W/hashes.txt <<'PY'
import json, sys
a, b = (json.load(open(p))["results"] for p in sys.argv[1:3])
key = lambda r: (r["test"], r.get("layout"), r["variant"], json.dumps(r.get("params"), sort_keys=True), r["api"], r["binding"], r.get("submission"), r["geometry"]["block_size"] if isinstance(r.get("geometry"), dict) else 0)
ha = {key(r): (r.get("output_xxh3_64"), r.get("status"), r.get("check")) for r in a}
hb = {key(r): (r.get("output_xxh3_64"), r.get("status"), r.get("check")) for r in b}
same = sum(1 for k in ha if hb.get(k) == ha[k])
apis = sorted({r["api"] for r in a})
print(f"default suite: {same} of {len(ha)} rows equal in hash, status and check ({len(hb)} rows after; APIs {apis}); differing: {[k for k in ha if hb.get(k) != ha[k]][:5]}")
PY
cat $W/hashes.txt
for b in cuvk_before cuvk; do
  mkdir -p $W/$b
  timeout 150 build/$b run --pair examples/saxpy/saxpy.toml --pair examples/scan/scan.toml --pair examples/jacobi/jacobi.toml --pair examples/xy_update/xy_update.toml --format json --output $W/$b/pairs.json > $W/$b/pairs.txt 2>&1; echo "$b pairs rc=$?"
  grep -E "^Verdicts" $W/$b/pairs.txt | head -3
done
python3 - $W/cuvk_before/pairs.json $W/cuvk/pairs.json > $W/pairs_hashes.txt <<'PY'
import json, sys
a, b = (json.load(open(p))["results"] for p in sys.argv[1:3])
key = lambda r: (r["test"], r["variant"], r["api"], r["binding"], r.get("submission"), json.dumps([r.get("geometry"), r.get("params"), r.get("lane"), r.get("chain")], sort_keys=True))
ha = {key(r): (r.get("output_xxh3_64"), r.get("status"), r.get("check")) for r in a}
hb = {key(r): (r.get("output_xxh3_64"), r.get("status"), r.get("check")) for r in b}
same = sum(1 for k in ha if hb.get(k) == ha[k])
print(f"pairs: {same} of {len(ha)} rows equal (hash, status, check; {len(hb)} after); differing: {[(k, ha[k], hb.get(k)) for k in ha if hb.get(k) != ha[k]][:3]}")
PY
cat $W/pairs_hashes.txt
# The looped pair: jacobi's two sweeps 10,000 times (20,000 dispatches a repetition), compared
# across the APIs (no expected file at this repeat), at the default budget (--max-time 2 s).
mkdir -p $W/loop && cp examples/jacobi/* $W/loop/
sed -i 's/^repeat = 50/repeat = 10000/; s/^expected = .*//; s/^useful_bytes = .*/useful_bytes = "160000 * n"/' $W/loop/jacobi.toml
s=$(date +%s.%N)
timeout 300 build/cuvk run --pair $W/loop/jacobi.toml --format json --output $W/loop.json > $W/loop.txt 2>&1; echo "loop rc=$? wall $(python3 -c "print(round($(date +%s.%N)-$s,1))") s"
python3 - $W/loop.json > $W/loop_rows.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("max_time_s", d["settings"].get("max_time_s"))
for r in d["results"]:
    t = r.get("time_ms") or {}
    print(r["api"], r["binding"], r.get("submission"), r["status"], r.get("check"), "median_ms", t.get("median"), "samples", r.get("samples"), r.get("stop_reason"), r.get("flags"))
PY
cat $W/loop_rows.txt; tail -5 $W/loop.txt
rm -rf $W/loop
cd /tmp/res && tar czf $OUT/step4.tgz . && ls -la $OUT
