#!/usr/bin/env python3
"""Regenerates (or, with --check, verifies) everything in the docs that is read from the code or
from results files, so the docs cannot drift:

1. docs/REFERENCE.md: the text between the `<!-- begin: cuvk help --markdown -->` and
   `<!-- end: cuvk help --markdown -->` lines is the output of `cuvk help --markdown`; --check also
   runs `cuvk COMMAND --help` for every command and fails on an option the reference lacks.
2. In README.md and docs/*.md:
   - `<!-- output: ARGS | lines SPEC -->` before a fenced block: the block is the output of
     `build/cuvk ARGS` (run from the repository root), lines SPEC ("1-8,12,-2": 1-based, negative
     from the end), with `...` where lines are left out. Regenerated.
   - `<!-- excerpt: FILE | lines SPEC -->` before a fenced block: lines SPEC of FILE (a captured
     run), as for output. Regenerated. A SPEC item may also be /REGEX/: the first line matching.
   - `<!-- excerpt: FILE -->` before a fenced block: every block line but `...` is a line of FILE,
     in order. Checked only.
   - `<!-- begin: packages of .ci/setup.sh -->` ... `<!-- end: packages -->`: the Debian packages
     that .ci/setup.sh installs (its `packages=(...)` list), as code spans. Regenerated.
   - `VALUE<!-- FILE: EXPR FORMAT -->`: VALUE is EXPR read from the JSON file FILE, printed with
     FORMAT (printf style: %.4f, %d). EXPR is a path, or two joined by / * - +. A path is dotted
     keys; `name[key=value,...]` picks the first element of the list `name` whose fields match
     (`null` for a missing value, dotted keys reach inside: `params.offset=4`). Regenerated.

Usage (from the repository root, after building build/cuvk):
    python3 docs/regenerate.py              # rewrite the generated parts in place
    python3 docs/regenerate.py --check      # change nothing; list every difference; exit 1 if any
    python3 docs/regenerate.py --recapture  # first run the captured runs of CAPTURES again (on
                                            # this machine: lavapipe, ~20 s), then rewrite
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

# The captured runs the docs quote (results/lavapipe/): file -> the cuvk arguments that made it.
CAPTURES = {
    "results/lavapipe/lavapipe_run.txt":
        ["run", "--columns", "test,layout,variant,point,api,median_ms,useful_GB/s,status"],
    "results/lavapipe/lavapipe_trace.txt": ["trace", "copy"],
}
BEGIN = "<!-- begin: cuvk help --markdown -->"
END = "<!-- end: cuvk help --markdown -->"
VALUE = re.compile(r"([-+]?\d[\d.,]*)<!-- (results/\S+): (.+?) (%[-+ #0]*\d*(?:\.\d+)?[dfge]) -->")
BLOCK = re.compile(r"^<!-- (output|excerpt): (.+?) -->\n```[^\n]*\n(.*?)^```$", re.M | re.S)


def run_cuvk(cuvk, args):
    p = subprocess.run([cuvk] + args, capture_output=True, text=True)
    if p.returncode >= 2 or not p.stdout:
        raise SystemExit(f"error: `cuvk {' '.join(args)}` exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def select_lines(text, spec):
    lines = [l.rstrip() for l in text.rstrip("\n").split("\n")]
    keep = []
    for part in spec.split(","):
        part = part.strip()
        if part.startswith("/") and part.endswith("/"):  # the first line matching the regex
            found = [n for n, l in enumerate(lines, 1) if re.search(part[1:-1], l)]
            if not found:
                raise SystemExit(f"error: no line matches {part} (line spec '{spec}')")
            keep.append(found[0])
            continue
        m = re.fullmatch(r"(-?\d+)(?:-(-?\d+))?", part)
        if not m:
            raise SystemExit(f"error: bad line spec '{part}' in '{spec}'")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        lo, hi = [v if v > 0 else len(lines) + 1 + v for v in (lo, hi)]
        keep.extend(range(lo, hi + 1))
    out, last = [], 0
    for n in keep:
        if last and n != last + 1:
            out.append("...")
        out.append(lines[n - 1])
        last = n
    return "\n".join(out) + "\n"


def pick(node, segment):
    m = re.fullmatch(r"([^\[]+)(?:\[(.*)\])?", segment)
    node = node[m.group(1)]
    if m.group(2) is None:
        return node
    wanted = [kv.split("=", 1) for kv in m.group(2).split(",")]
    for item in node:
        if all(same(get(item, k), v) for k, v in wanted):
            return item
    raise KeyError(f"no element of {m.group(1)} with {m.group(2)}")


def get(node, dotted):
    for k in dotted.split("."):
        node = node.get(k) if isinstance(node, dict) else None
    return node


def same(x, v):
    if x is None:
        return v == "null"
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        try:
            return float(v) == x
        except ValueError:
            return False
    return str(x) == v


def path_value(doc, path):
    if re.fullmatch(r"-?\d+(\.\d+)?", path):
        return float(path)
    node = doc
    for segment in re.findall(r"(?:[^.\[]|\[[^\]]*\])+", path):
        node = pick(node, segment)
    return node


def evaluate(root, file, expr):
    with open(os.path.join(root, file)) as f:
        doc = json.load(f)
    parts = expr.split(" ")
    value = path_value(doc, parts[0])
    for op, operand in zip(parts[1::2], parts[2::2]):
        b = path_value(doc, operand)
        value = {"/": lambda: value / b, "*": lambda: value * b, "-": lambda: value - b,
                 "+": lambda: value + b}[op]()
    return value


def render(value, form):
    return form % (round(value) if form.endswith("d") else value)


def fix_values(root, text, problems, where):
    markers = len(re.findall(r"<!-- results/", text))
    if markers != len(VALUE.findall(text)):
        problems.append(f"{where}: {markers - len(VALUE.findall(text))} `<!-- results/... -->` "
                        "markers without a number right before them, or with a bad format")
    def one(m):
        want = render(evaluate(root, m.group(2), m.group(3)), m.group(4))
        if want != m.group(1):
            problems.append(f"{where}: {m.group(1)} should be {want} ({m.group(2)}: {m.group(3)})")
        return want + m.group(0)[len(m.group(1)):]
    return VALUE.sub(one, text)


def fix_blocks(root, cuvk, text, problems, where):
    def one(m):
        kind, arg, body = m.group(1), m.group(2), m.group(3)
        if kind == "excerpt" and " | lines " in arg:  # regenerated from the file
            file, _, spec = arg.partition(" | lines ")
            with open(os.path.join(root, file)) as f:
                want = select_lines(f.read(), spec)
            if want != body:
                problems.append(f"{where}: lines {spec} of {file} differ from its block")
            return m.group(0)[: m.start(3) - m.start(0)] + want + "```"
        if kind == "excerpt":
            with open(os.path.join(root, arg)) as f:
                lines = [l.rstrip() for l in f.read().split("\n")]
            i = 0
            for line in body.rstrip("\n").split("\n"):
                if line.strip() == "...":
                    continue
                while i < len(lines) and lines[i] != line.rstrip():
                    i += 1
                if i == len(lines):
                    problems.append(f"{where}: not in {arg} (or out of order): {line.rstrip()}")
                    break
                i += 1
            return m.group(0)
        args, _, spec = arg.partition(" | lines ")
        want = select_lines(run_cuvk(cuvk, args.split()), spec or "1--1")
        if want != body:
            problems.append(f"{where}: the output of `cuvk {args}` differs from its block")
        return m.group(0)[: m.start(3) - m.start(0)] + want + "```"
    return BLOCK.sub(one, text)


PACKAGES = re.compile(r"(<!-- begin: packages of \.ci/setup\.sh -->\n)(.*?)(<!-- end: packages -->)", re.S)


def fix_packages(root, text, problems, where):
    with open(os.path.join(root, ".ci", "setup.sh")) as f:
        names = re.search(r"^packages=\((.*?)\)", f.read(), re.M | re.S).group(1).split()
    want = " ".join(f"`{n}`" for n in names) + "\n"

    def one(m):
        if m.group(2) != want:
            problems.append(f"{where}: the package list differs from .ci/setup.sh's")
        return m.group(1) + want + m.group(3)
    return PACKAGES.sub(one, text)


def fix_reference(cuvk, text, problems):
    if BEGIN not in text or END not in text:
        problems.append(f"docs/REFERENCE.md: no '{BEGIN}' ... '{END}' lines")
        return text
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + run_cuvk(cuvk, ["help", "--markdown"]) + END + tail
    if new != text:
        problems.append("docs/REFERENCE.md: differs from `cuvk help --markdown`")
    # Every option --help shows is in the reference, in its command's section.
    commands = re.findall(r"^  (\w+)  ", run_cuvk(cuvk, ["--help"]).split("Subcommands:")[-1], re.M)
    for command in commands:
        section = new.split(f"## `cuvk {command}`", 1)[-1].split("\n## ", 1)[0]
        for option in re.findall(r"^  (?:-\w,)?(--[\w-]+)", run_cuvk(cuvk, [command, "--help"]), re.M):
            if f"`{option}`" not in section and f",{option}`" not in section:
                problems.append(f"docs/REFERENCE.md: `cuvk {command} {option}` is not documented")
    return new


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 on a difference")
    ap.add_argument("--cuvk", default="build/cuvk", help="the cuvk binary (default build/cuvk)")
    ap.add_argument("--root", default=".", help="the repository root (default .)")
    ap.add_argument("--recapture", action="store_true", help="run the captured runs again first")
    a = ap.parse_args()
    cuvk = os.path.abspath(a.cuvk)
    os.chdir(a.root)
    problems = []
    if a.recapture and not a.check:
        for file, args in CAPTURES.items():
            with open(file, "w") as f:
                subprocess.run([cuvk] + args, stdout=f, stderr=subprocess.STDOUT, check=True)
            print(f"recaptured {file}: cuvk {' '.join(args)}")
    files = ["README.md"] + sorted(glob.glob("docs/*.md"))
    for name in files:
        with open(name) as f:
            text = f.read()
        new = fix_values(".", text, problems, name)
        new = fix_blocks(".", cuvk, new, problems, name)
        new = fix_packages(".", new, problems, name)
        if name == "docs/REFERENCE.md":
            new = fix_reference(cuvk, new, problems)
        if name == "README.md" and new.count("\n") > 200:
            problems.append(f"README.md: {new.count(chr(10))} lines, at most 200 (issue 26)")
        if new != text and not a.check:
            with open(name, "w") as f:
                f.write(new)
    for p in problems:
        print(("" if a.check else "regenerated: ") + p)
    if a.check and problems:
        print(f"{len(problems)} differences: run `python3 docs/regenerate.py` and commit the result")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
