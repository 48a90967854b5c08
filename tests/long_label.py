#!/usr/bin/env python3
"""Issue 49, item 5: the README's test command is one a newcomer can wait for. The long
adversarial sweeps (over a minute each on 2 cores, ten times that on a loaded machine) carry the
ctest label `long`; the README's and docs/TESTING.md's test commands leave them out (`-LE long`);
CI's first ctest (.ci/run step 1) still runs everything, and the ASan steps keep their selection.
Checks, from the build's test list and the sources:

1. every test named adversarial.sweep* has the label `long`, and no other test has it;
2. README.md's test command (its ```sh block) and docs/TESTING.md's run `ctest ... -LE long`;
3. .ci/run's step-1 ctest has no selection (no -L, -LE, -R, -E): CI runs the long tests;
4. tests/doc_commands.py counts the README's test command as run by CI (its COVERED table).

Usage: long_label.py BUILD_DIR REPO_ROOT. Exit 0 when all hold, 1 with one line per problem.
"""
import os
import re
import sys

LONG = re.compile(r"^adversarial\.sweep")
README_TEST = "ctest --test-dir build -LE long --output-on-failure"


def labels(build):
    """{test: {label}} from the build's CTestTestfile.cmake files (read as tests/ctest_lite.py
    reads them, so that no ctest is needed)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import ctest_lite
    tests, order = {}, []
    ctest_lite.collect(os.path.join(os.path.abspath(build), "CTestTestfile.cmake"), tests, order)
    return {n: set(filter(None, t["props"].get("LABELS", "").split(";"))) for n, t in tests.items()}


def read(root, name):
    with open(os.path.join(root, name)) as f:
        return f.read()


def problems(build, root):
    found = labels(build)
    if not any(LONG.match(n) for n in found):
        yield "no adversarial.sweep* test registered: the build's test list is not the suite's"
    for name, ls in sorted(found.items()):
        if LONG.match(name) and "long" not in ls:
            yield f"{name}: a long sweep without the label `long` (labels: {sorted(ls)})"
        if not LONG.match(name) and "long" in ls:
            yield f"{name}: labelled `long` but not a sweep: add it to tests/long_label.py's LONG"
    sh = "\n".join(re.findall(r"^```sh\n(.*?)^```", read(root, "README.md"), re.M | re.S))
    if README_TEST not in sh:
        yield f"README.md: its test command is not `{README_TEST}`"
    if "-LE long" not in read(root, "docs/TESTING.md"):
        yield "docs/TESTING.md: its test command does not leave out the label `long` (-LE long)"
    step1 = re.search(r"^CUVK_REQUIRE_VALIDATION=1 ctest --test-dir build (.*)$",
                      read(root, ".ci/run"), re.M)
    if not step1:
        yield ".ci/run: no step-1 ctest (`CUVK_REQUIRE_VALIDATION=1 ctest --test-dir build ...`)"
    elif re.search(r"(^|\s)(-L|-LE|-R|-E)(\s|$)", step1.group(1)):
        yield f".ci/run: step 1 must run every test, long ones included: `{step1.group(0)}`"
    if f'"{README_TEST}"' not in read(root, "tests/doc_commands.py"):
        yield f"tests/doc_commands.py: COVERED lacks the README's test command `{README_TEST}`"


def main():
    if len(sys.argv) != 3:
        print("usage: long_label.py BUILD_DIR REPO_ROOT", file=sys.stderr)
        return 2
    bad = list(problems(sys.argv[1], sys.argv[2]))
    for p in bad:
        print(p)
    print("long label: " + ("ok" if not bad else f"{len(bad)} problems"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
