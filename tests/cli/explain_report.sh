#!/usr/bin/env bash
# explain_report.sh CUVK SOURCE_DIR: `cuvk explain` files read by `cuvk report` (issue 38). A
# saved explain file prints as explain printed it (table, md, json); two print as a JSON array;
# mixed with a run file, refused (exit 2); `report --index` lists each explained point with its
# first two findings under "Why".
set -euo pipefail
cuvk=$1 src=$2
ex=$src/results/h100/explain/update_xy_aos_scalar.json
fail() { echo "explain_report: FAILED: $*"; exit 1; }
ratio=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["cases"][0]["ratio"]["value"])' "$ex")
out=$("$cuvk" report "$ex" --format table)
grep -q "^update_xy aos scalar n=64M block 256 (descriptor): Vulkan/CUDA $ratio" <<<"$out" ||
  fail "table: $out"
grep -Eq "^1 +binding +share +100%" <<<"$out" || fail "table's first finding: $out"
md=$("$cuvk" report "$ex" --format md)  # whole, then matched: grep -q would close the pipe early
grep -Eq "^\| 1 \| binding +\| share +\| +100% \|" <<<"$md" || fail "md: $md"
n=$("$cuvk" report "$ex" "$src/results/h100/explain/stride_2.json" --format json |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d), d[0]["schema"])')
[ "$n" = "2 cuvk.explain/1" ] || fail "json array: $n"
set +e
msg=$("$cuvk" report "$ex" "$src/results/h100.json" 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "is not a cuvk explain file" <<<"$msg" || fail "mixed files: exit $rc: $msg"
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_explain_report.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$src/results/h100.json" "$ex" "$dir/"
"$cuvk" report --index "$dir" --no-plots >/dev/null
grep -q "^## Why: \`cuvk explain\`" "$dir/README.md" || fail "index: no Why section"
grep -Eq "^\| \[update_xy_aos_scalar.json\]\(update_xy_aos_scalar.json\) +\| update_xy aos scalar n=64M block 256 \(descriptor\) +\| +$ratio \| binding \(share 100%\) +\| launch rate \(evidence\)" \
  "$dir/README.md" || fail "index row: $(grep -A4 '## Why' "$dir/README.md")"
echo "explain_report: passed"
