#!/usr/bin/env python3
"""The README's test command (`bash .ci/setup.sh && ctest --test-dir build`) passes on a fresh
machine only if .ci/setup.sh installs what the tests need. Checks, from the sources:

1. every tool the tests use is installed by .ci/setup.sh's `packages=(...)` list: python3 where a
   test runs a Python script, python3-matplotlib where a test script runs `cuvk report --index`
   (it draws figures), bsdutils where a test script runs `script`; and the libraries the build
   finds: libfmt-dev for CMake's find_package(fmt), spirv-headers for spirv/unified1/spirv.hpp;
2. .ci/run installs nothing before its first ctest but build aids (ccache): CI then tests the same
   environment as the README's command, so a missing package fails CI, not a user's first run.

Usage: setup_packages.py REPO_ROOT. Exit 0 when all hold, 1 with one line per problem.
"""
import glob
import os
import re
import sys

BUILD_AIDS = {"ccache"}  # may be installed by .ci/run before the tests: they only speed builds


def setup_packages(root):
    with open(os.path.join(root, ".ci", "setup.sh")) as f:
        return set(re.search(r"^packages=\((.*?)\)", f.read(), re.M | re.S).group(1).split())


def needed(root):
    """{package: why} for what the test sources use."""
    need = {}
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        top = f.read()
    if re.search(r"find_package\(fmt\b", top):
        need["libfmt-dev"] = "CMakeLists.txt finds libfmt (find_package(fmt))"
    if "spirv/unified1/spirv.hpp" in top:
        need["spirv-headers"] = "CMakeLists.txt finds the SPIR-V headers (spirv/unified1/spirv.hpp)"
    tests = os.path.join(root, "tests")
    with open(os.path.join(tests, "CMakeLists.txt")) as f:
        cmake = f.read()
    if re.search(r"Python3_EXECUTABLE|python3 ", cmake):
        need["python3"] = "tests/CMakeLists.txt runs Python scripts"
    for path in sorted(glob.glob(os.path.join(tests, "*.sh"))):
        with open(path) as f:
            text = "\n".join(l for l in f.read().split("\n") if not l.lstrip().startswith("#"))
        name = os.path.relpath(path, root)
        if re.search(r"report --index", text) and "python3-matplotlib" not in need:
            need["python3-matplotlib"] = f"{name} runs `cuvk report --index` (figures)"
        if re.search(r"(^|[;&|(\s])script -", text) and "bsdutils" not in need:
            need["bsdutils"] = f"{name} runs `script`"
        if re.search(r"(^|[;&|(\s])python3 ", text) and "python3" not in need:
            need["python3"] = f"{name} runs python3"
    return need


def installed_before_first_ctest(root):
    with open(os.path.join(root, ".ci", "run")) as f:
        text = f.read()
    head = text.split("\nCUVK_REQUIRE_VALIDATION=1 ctest", 1)[0]
    found = set()
    for line in head.split("\n"):
        m = re.match(r"\s*ci_need\s+([^#]*)", line)
        if m:
            found.update(m.group(1).split())
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    have = setup_packages(root)
    problems = [f".ci/setup.sh does not install {p}, which the tests need: {why}"
                for p, why in sorted(needed(root).items()) if p not in have]
    for p in sorted(installed_before_first_ctest(root) - have - BUILD_AIDS):
        problems.append(f".ci/run installs {p} before its tests: the README's test command "
                        "would not (add it to .ci/setup.sh's packages)")
    for p in problems:
        print("setup_packages: " + p)
    if not problems:
        print(f"setup_packages: .ci/setup.sh's {len(have)} packages cover the tests' needs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
