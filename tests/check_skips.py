#!/usr/bin/env python3
"""check_skips.py JUNIT_XML WHERE [ALLOWED]: fails (exit 1) when a test skipped that
tests/allowed_skips.txt does not allow at WHERE (cpu, gpu, asan), or when a test failed or did not
run. ctest reports a skip as a pass (exit 0); this makes skips visible and bounded. JUNIT_XML is
ctest's `--output-junit` file. Prints every skip with its reason and a one-line tally."""
import os
import re
import sys
import xml.etree.ElementTree as ET


def allowed_skips(path, where):
    rules = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                sys.exit(f"check_skips: {path}: '{line}': expected WHERE TEST REASON")
            if parts[0] not in ("cpu", "gpu", "asan"):
                sys.exit(f"check_skips: {path}: unknown place '{parts[0]}'")
            if parts[0] == where:
                rules.append((re.compile(parts[1]), parts[2]))
    return rules


def skip_reason(case):
    out = case.findtext("system-out") or ""
    m = re.search(r"Skipped\n(.*)", out) or re.search(r"^skipped: (.*)$", out, re.M)
    return m.group(1).strip() if m else "(no reason printed)"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    junit, where = sys.argv[1], sys.argv[2]
    allowed_path = sys.argv[3] if len(sys.argv) == 4 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "allowed_skips.txt")
    rules = allowed_skips(allowed_path, where)
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    if not cases:
        sys.exit(f"check_skips: {junit} lists no test")
    bad, ok_skips, failed = [], 0, []
    for case in cases:
        name, status = case.get("name"), case.get("status")
        if case.find("failure") is not None or status == "fail":
            failed.append(name)
        if status not in ("notrun", "disabled") and case.find("skipped") is None:
            continue
        reason = skip_reason(case)
        rule = next((why for rx, why in rules if rx.fullmatch(name)), None)
        if rule is None:
            bad.append(name)
            print(f"check_skips: NOT ALLOWED at {where}: {name}: {reason}")
        else:
            ok_skips += 1
            print(f"check_skips: allowed skip: {name}: {reason} ({rule})")
    for name in failed:
        print(f"check_skips: FAILED: {name}")
    print(f"check_skips: {len(cases)} tests, {ok_skips} allowed skips, {len(bad)} not allowed, "
          f"{len(failed)} failed ({where}, {os.path.basename(allowed_path)})")
    return 1 if bad or failed else 0


if __name__ == "__main__":
    sys.exit(main())
