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
# Issue 49, item 9: a hand-edited explain file is refused with one line naming the field (exit 2),
# a newer schema named as such, and text from the file printed with control characters escaped.
bad() {  # bad NAME PYTHON-EDIT EXPECTED-LINE: the edited file refused with that one line
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"))' \
    "$ex" "$2" "$dir/$1.json"
  set +e
  msg=$("$cuvk" report "$dir/$1.json" 2>&1)
  rc=$?
  set -e
  [ $rc -eq 2 ] && [ "$msg" = "error: '$dir/$1.json': $3" ] || fail "$1: exit $rc: $msg"
}
bad count 'd["same_points"] = -1' "same_points: expected an integer from 0 to 4294967295, found -1"
bad share 'd["cases"][0]["findings"][0]["share"] = 1e308' \
  "cases[0].findings[0].share: expected a fraction from 0 to 1, found 1e+308"
bad verdict 'd["cases"][0]["verdict"] = "BOGUS"' \
  "cases[0].verdict: unknown verdict 'BOGUS' (expected SAME, VULKAN FASTER, VULKAN SLOWER or UNCERTAIN)"
bad newer 'd["schema"] = "cuvk.explain/2"' \
  "written by a newer cuvk (schema 'cuvk.explain/2'; this cuvk reads up to \"cuvk.explain/1\"): upgrade cuvk to read it"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["run"]="x\x1b[2J\x07"; d["cases"][0]["not_run"]=["y\x1b]0;t\x07"]; json.dump(d, open(sys.argv[2], "w"))' \
  "$ex" "$dir/hostile.json"
out=$("$cuvk" report "$dir/hostile.json")
if printf '%s' "$out" | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]'; then fail "raw control characters printed"; fi
grep -qF 'x\x1b[2J\x07' <<<"$out" && grep -qF 'not run: y\x1b]0;t\x07' <<<"$out" || fail "hostile text: $out"
echo "explain_report: passed"
