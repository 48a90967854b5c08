#!/usr/bin/env python3
"""Runs every command the docs show (each line of each ```sh block of README.md and docs/*.md) on
this machine, normally lavapipe, so no command in the docs can rot. CI step "documentation
commands" (.ci/run); by hand: `python3 tests/doc_commands.py` from the repository root after a build.

How:
- The commands run in a scratch copy of the working tree (tracked and untracked files, not the
  ignored ones), so what they write (before.json, results/README.md, ...) changes nothing here;
  $OUT is that scratch folder too, so a GPU script's tarball lands where the docs' next command
  looks for it.
- build/cuvk there is a wrapper around the real binary that scales the measuring commands down
  (run, parity without --from, trace, explain): --n at most 64k, --reps 3, --warmup 1, --max-time 0.02,
  --settle-ms 1, --copy-mibs 1 and at most two --block-sizes, whatever the docs give. Everything
  else (the options, the files, the exit codes) is what the docs say.
- `bash .ci/setup.sh` and `ctest --test-dir build -LE long --output-on-failure` are not run
  again: step 1 of .ci/run runs the first and every test (a superset of the second), step 1b runs
  the second (under a user's environment).
- A command passes with exit 0 or 1 (1: a measured difference, e.g. a baseline verdict on noisy
  lavapipe timings), or 2 when its error is the documented "nothing to compare" on a machine
  without a GPU (`cuvk parity` and `cuvk explain` need CUDA, `cuvk p2p` two GPUs). Any other exit,
  a usage error included, fails.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

COVERED = {  # run verbatim by .ci/run step 1
    "bash .ci/setup.sh": "step 1 of .ci/run",
    "ctest --test-dir build -LE long --output-on-failure": "steps 1 and 1b of .ci/run",
    "ctest --test-dir build --output-on-failure": "step 1 of .ci/run",
}
SCALED = {"--n": "64k", "--reps": "3", "--warmup": "1", "--max-time": "0.02", "--settle-ms": "1"}
NOT_COMPARED = re.compile(
    r"cannot compare|could be compared|nothing to compare|unavailable|needs two GPUs")


def shim(real, args):
    """The wrapper's work: the real cuvk with the measuring options scaled down."""
    if not args or args[0] not in ("run", "parity", "trace", "explain") or "--from" in args:
        os.execv(real, [real] + args)
    out, i = [args[0]], 1
    while i < len(args):
        a, value = args[i], None
        if "=" in a and a.startswith("--"):
            a, value = a.split("=", 1)
        elif i + 1 < len(args) and a in list(SCALED) + ["--copy-mibs", "--block-sizes"]:
            value = args[i + 1]
            i += 1
        i += 1
        if a in SCALED:
            continue  # replaced below
        if a == "--copy-mibs":
            value = "1"
        if a == "--block-sizes":
            value = ",".join(value.split(",")[:2])
        out += [a] + ([value] if value is not None else [])
    for opt, v in SCALED.items():
        out += [opt, v]
    os.execv(real, [real] + out)


def commands(root):
    for name in ["README.md"] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
        path = os.path.join(root, name)
        with open(path) as f:
            text = f.read()
        for block in re.findall(r"^[ \t]*```sh\n(.*?)^[ \t]*```", text, re.M | re.S):
            line = ""
            for raw in block.split("\n"):
                line += raw
                if line.endswith("\\"):
                    line = line[:-1] + " "
                    continue
                cmd = re.sub(r"\s+#.*$", "", line).strip()
                line = ""
                if cmd and not cmd.startswith("#"):
                    yield os.path.relpath(path, root), cmd


def scratch_copy(root, dest):
    files = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src = os.path.join(root, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, f))
    os.makedirs(os.path.join(dest, "build"), exist_ok=True)
    wrapper = os.path.join(dest, "build", "cuvk")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec {sys.executable} {os.path.abspath(__file__)} --shim "
                f"{os.path.join(root, 'build', 'cuvk')} \"$@\"\n")
    os.chmod(wrapper, 0o755)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--shim":
        shim(sys.argv[2], sys.argv[3:])
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    failed, ran = [], 0
    with tempfile.TemporaryDirectory(prefix="cuvk-doc-") as scratch:
        scratch_copy(root, scratch)
        env = dict(os.environ, OUT=scratch, PATH=os.path.join(scratch, "build") + ":" + os.environ["PATH"])
        for where, cmd in commands(root):
            for covered, why in COVERED.items():
                if cmd.startswith(covered):
                    print(f"-- {where}: `{covered}`: run by {why}")
                    cmd = cmd[len(covered):].lstrip(" &")
            if not cmd:
                continue
            t0 = time.time()
            p = subprocess.run(["bash", "-c", cmd], cwd=scratch, env=env, capture_output=True,
                               text=True, timeout=600)
            ran += 1
            errors = [l for l in p.stderr.splitlines() if l.startswith("error:")]
            ok = p.returncode in (0, 1) or (p.returncode == 2 and errors and
                                             all(NOT_COMPARED.search(l) for l in errors))
            print(f"{'ok  ' if ok else 'FAIL'} {where}: `{cmd}`: exit {p.returncode}, "
                  f"{time.time() - t0:.1f} s{'; ' + errors[0] if errors else ''}")
            if not ok:
                failed.append(cmd)
                print(p.stdout[-2000:], p.stderr[-2000:], sep="\n")
    print(f"documentation commands: {ran} run, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
