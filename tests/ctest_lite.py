#!/usr/bin/env python3
"""ctest_lite.py BUILD_DIR JUNIT_XML [-j N] [-R REGEX]: runs the tests a CMake build tree
registered (its CTestTestfile.cmake files: add_test, set_tests_properties, include, subdirs), as
ctest does, where ctest is not installed (the lent GPU machine: tests/gpu.sh). Honours
WORKING_DIRECTORY, TIMEOUT, ENVIRONMENT, ENVIRONMENT_MODIFICATION, SKIP_RETURN_CODE, SKIP_REGULAR_EXPRESSION,
PASS_REGULAR_EXPRESSION and WILL_FAIL; prints one line per test and writes a JUnit file shaped
like ctest's --output-junit (status run / fail / notrun, a <skipped/> element), which
tests/check_skips.py reads. Exit 1 when any test failed."""
import argparse
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor

TOKEN = re.compile(r'\[(=*)\[(.*?)\]\1\]|"((?:\\.|[^"\\])*)"|([^\s()"]+)', re.S)


def unquote(s):
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), s)


def commands(text):
    """(name, [args]) for each top-level command call in a CMake script."""
    pos = 0
    call = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*\(')
    while True:
        m = call.search(text, pos)
        if not m:
            return
        args, i, depth = [], m.end(), 1
        while depth:
            t = TOKEN.match(text, i)
            ws = re.match(r'\s+|#[^\n]*', text[i:])
            if ws and ws.end():
                i += ws.end()
            elif text[i] == "(":
                depth += 1; i += 1
            elif text[i] == ")":
                depth -= 1; i += 1
            elif t:
                args.append(t.group(2) if t.group(2) is not None
                            else unquote(t.group(3)) if t.group(3) is not None else t.group(4))
                i = t.end()
            else:
                i += 1
        yield m.group(1).lower(), args
        pos = i


def collect(path, tests, order):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    here = os.path.dirname(path)
    for name, args in commands(text):
        if name == "include" and args:
            collect(args[0], tests, order)
        elif name == "subdirs":
            for d in args:
                sub = os.path.join(here, d, "CTestTestfile.cmake")
                if os.path.exists(sub):
                    collect(sub, tests, order)
        elif name == "add_test" and len(args) >= 2:
            tests[args[0]] = {"cmd": args[1:], "props": {}, "dir": here}
            order.append(args[0])
        elif name == "set_tests_properties" and "PROPERTIES" in args:
            k = args.index("PROPERTIES")
            props = dict(zip(args[k + 1::2], args[k + 2::2]))
            for t in args[:k]:
                if t in tests:
                    tests[t]["props"].update(props)


def run_one(name, t):
    p = t["props"]
    env = dict(os.environ)
    for kv in filter(None, p.get("ENVIRONMENT", "").split(";")):
        k, _, v = kv.partition("=")
        env[k] = v
    for mod in filter(None, p.get("ENVIRONMENT_MODIFICATION", "").split(";")):
        k, _, rest = mod.partition("=")
        op, _, v = rest.partition(":")
        if op == "set":
            env[k] = v
        elif op in ("unset", "reset"):
            env.pop(k, None)
        elif op in ("string_append", "path_list_append"):
            sep = os.pathsep if op.startswith("path") and env.get(k) else ""
            env[k] = env.get(k, "") + sep + v
        elif op in ("string_prepend", "path_list_prepend"):
            sep = os.pathsep if op.startswith("path") and env.get(k) else ""
            env[k] = v + sep + env.get(k, "")
    timeout = float(p.get("TIMEOUT", "1500"))
    start = time.time()
    try:
        r = subprocess.run(t["cmd"], cwd=p.get("WORKING_DIRECTORY", t["dir"]), env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        out, code = r.stdout.decode("utf-8", "replace"), r.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace") + f"\n*** Timeout after {timeout} s\n"
        code = None
    except OSError as e:
        out, code = f"*** cannot run: {e}\n", None
    took = time.time() - start
    status = "fail"
    if code is not None:
        skip_rx = p.get("SKIP_REGULAR_EXPRESSION")
        if "SKIP_RETURN_CODE" in p and code == int(p["SKIP_RETURN_CODE"]):
            status = "notrun"
        elif skip_rx and any(re.search(rx, out) for rx in skip_rx.split(";")):
            status = "notrun"
        elif "PASS_REGULAR_EXPRESSION" in p:
            status = "run" if any(re.search(rx, out) for rx in p["PASS_REGULAR_EXPRESSION"].split(";")) else "fail"
        else:
            ok = code == 0
            if p.get("WILL_FAIL", "").upper() in ("1", "ON", "TRUE", "YES"):
                ok = not ok
            status = "run" if ok else "fail"
    return name, status, code, took, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build"), ap.add_argument("junit")
    ap.add_argument("-j", type=int, default=1), ap.add_argument("-R", default=None)
    a = ap.parse_args()
    tests, order = {}, []
    collect(os.path.join(os.path.abspath(a.build), "CTestTestfile.cmake"), tests, order)
    if a.R:
        order = [n for n in order if re.search(a.R, n)]
    root = ET.Element("testsuite", name="ctest_lite", tests=str(len(order)))
    failed = 0
    with ThreadPoolExecutor(max_workers=a.j) as pool:
        results = pool.map(lambda n: run_one(n, tests[n]), order)
        for k, (name, status, code, took, out) in enumerate(results, 1):
            word = {"run": "Passed", "fail": "***Failed", "notrun": "***Skipped"}[status]
            print(f"{k:3}/{len(order)} {name} {'.' * max(3, 70 - len(name))} {word} "
                  f"{took:.2f} sec (exit {code})", flush=True)
            case = ET.SubElement(root, "testcase", name=name, classname=name,
                                 time=f"{took:.3f}", status=status)
            if status == "fail":
                failed += 1
                ET.SubElement(case, "failure", message=f"exit {code}")
                print(out[-4000:])
            elif status == "notrun":
                ET.SubElement(case, "skipped", message="skipped")
            ET.SubElement(case, "system-out").text = out[-20000:]
    ET.ElementTree(root).write(a.junit, encoding="utf-8", xml_declaration=True)
    print(f"ctest_lite: {len(order) - failed} of {len(order)} tests passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
