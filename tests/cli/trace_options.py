#!/usr/bin/env python3
"""`cuvk trace` through the runner (issue 19), on the first Vulkan device (lavapipe in CI):

1. its options are run's: every option of `cuvk trace` but the test, --output and --plot is an
   option of `cuvk run` with the same value type and meaning (only the stated default differs where
   trace takes the first value: --layouts, --variants, the sweep axes; run's meaning may go on
   where trace's ends: --n takes a list in run alone), from `cuvk help --markdown`;
2. it rejects what run rejects, with the same one `error:` line and exit code;
3. its point comes from run's plan: a traced `read_offset --offsets 7` runs at offset 7 (the
   kernel's output verified against offset 7's reference, the launch's parameter block and the
   document record 7), with the validation layer on.
Usage: trace_options.py CUVK"""
import json
import os
import re
import subprocess
import sys
import tempfile

CUVK = sys.argv[1]
TRACE_ONLY = {"-h,--help", "test", "--output", "--plot"}


def fail(what):
    print("trace_options: " + what)
    sys.exit(1)


def option_tables():
    """{command: {option: (value, meaning)}} from the generated reference."""
    text = subprocess.run([CUVK, "help", "--markdown"], check=True, capture_output=True,
                          text=True).stdout
    tables, command = {}, None
    for line in text.splitlines():
        m = re.match(r"## `cuvk (\w+)`", line)
        if m:
            command = m.group(1)
            tables[command] = {}
            continue
        cells = [c.strip() for c in line.split(" | ")]
        if command and line.startswith("| `") and len(cells) == 5:
            tables[command][cells[0].strip("|` ")] = (cells[1], cells[4].rstrip(" |"))
    return tables


def without_default(meaning):
    return re.sub(r" ?\(default[^)]*\)", "", meaning)


def check_options():
    tables = option_tables()
    run, trace = tables["run"], tables["trace"]
    shared = [o for o in trace if o not in TRACE_ONLY]
    if len(shared) < 15:
        fail("trace has only %d of run's options: %s" % (len(shared), shared))
    for opt in shared:
        if opt not in run:
            fail("trace's %s is not an option of run" % opt)
        if run[opt][0] != trace[opt][0]:
            fail("%s: value %s in run, %s in trace" % (opt, run[opt][0], trace[opt][0]))
        # The same meaning, or run's goes on where trace's ends: run takes more (--n: a list of
        # sizes, which trace refuses with one line).
        if not without_default(run[opt][1]).startswith(without_default(trace[opt][1])):
            fail("%s means '%s' in run, '%s' in trace" % (opt, run[opt][1], trace[opt][1]))


def result(args):
    p = subprocess.run([CUVK] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr


BAD = [["--block-size", "100"], ["--block-sizes", "64,100"], ["--reps", "0"], ["--warmup", "-1"],
       ["--vk-binding", "ssbo"], ["--api", "both"], ["--variants", "vec8"], ["--layouts", "xyz"],
       ["--strides", "0"], ["--offsets", "1,,2"], ["--target-ci", "0"], ["--max-time", "1000"],
       ["--settle-ms", "-1"], ["--l2", "hot"], ["--n", "0"], ["--seed", "-1"], ["--timeout", "0"],
       ["--n", "5G"]]


def check_rejections():
    for bad in BAD:
        run = result(["run", "--tests", "copy"] + bad)
        trace = result(["trace", "copy"] + bad)
        if run[0] != 2 or not run[1].startswith("error: "):
            fail("run %s: exit %d, %r: not a usage error" % (bad, run[0], run[1]))
        if trace != run:
            fail("trace %s: exit %d, %r; run: exit %d, %r" % (bad, trace[0], trace[1], *run))


def check_offset(tmp):
    out = os.path.join(tmp, "t.json")
    p = subprocess.run([CUVK, "trace", "read_offset", "--offsets", "7", "--api", "vulkan", "--n",
                        "4k", "--reps", "3", "--warmup", "1", "--max-time", "0.02", "--settle-ms",
                        "1", "--validation", "--output", out], capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0 or p.stderr:
        fail("traced read_offset --offsets 7: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    if not p.stdout.startswith("trace read_offset offset=7: n = 4096"):
        fail("traced read_offset --offsets 7 says: " + p.stdout.splitlines()[0])
    doc = json.load(open(out))
    if doc["settings"]["params"]["offset"] != 7:
        fail("the trace's settings record offset %s" % doc["settings"]["params"]["offset"])
    lane = [l for l in doc["lanes"] if l["api"] == "vulkan"][0]
    if lane["params"]["offset"] != 7 or not lane["verified"] or lane["trace_error"] is not None:
        fail("the traced launch: params %s, verified %s, records %s"
             % (lane["params"], lane["verified"], lane["trace_error"]))


check_options()
check_rejections()
with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
    check_offset(tmp)
print("trace_options: passed")
