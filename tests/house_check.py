#!/usr/bin/env python3
"""The house rules of cuvk, checked on every test run (ctest `house.rules`):

1. no source file in host/, cuda/ or vulkan/ over 700 lines;
2. no function there over 100 lines (signature to closing brace);
3. exactly one host file names a concrete backend (host/factory/backends.cpp);
4. a backend includes only the contract's host headers: backend.h, params.h, error.h, timestamps.h.

Rules 3 and 4 are also enforced by the build (include paths are per target); this test names the
offender instead of a compiler error. Usage: house_check.py [REPO_ROOT]
"""
import os
import re
import sys

MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 100
SOURCE_DIRS = ("host", "cuda", "vulkan")
EXTENSIONS = (".cpp", ".h", ".cu", ".cuh")
FACTORY = "host/factory/backends.cpp"
CONTRACT_HEADERS = {"backend.h", "params.h", "error.h", "timestamps.h"}


def strip_comments_and_strings(text):
    """Blanks out comments, string and char literals, keeping line breaks."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" ")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(path, text):
    """(name, first line, length) of every function body longer than MAX_FUNCTION_LINES."""
    code = strip_comments_and_strings(text)
    # Preprocessor lines (with their continuations) are no part of any declaration's head.
    code = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", code, flags=re.M)
    found, stack, head, line = [], [], [], 1
    for c in code:
        if c == "{":
            h = " ".join("".join(head).split())
            kind = "block"
            outer = stack[-1][0] if stack else "scope"
            if outer in ("scope", "class"):
                if re.match(r"^(namespace\b|extern\b)", h) or not h:
                    kind = "scope"
                elif re.search(r"\b(class|struct|union|enum)\b", h) and "(" not in h:
                    kind = "class"
                elif "(" in h and not re.search(r"=\s*$", h) and "=" not in h.split("(")[0]:
                    kind = "function"
            stack.append((kind, line, h))
            head = []
        elif c == "}":
            if stack:
                kind, start, h = stack.pop()
                if kind == "function" and line - start + 1 > MAX_FUNCTION_LINES:
                    name = h.split("(")[0].split()[-1] if h.split("(")[0].split() else h
                    found.append((name, start, line - start + 1))
            head = []
        elif c == ";":
            head = []
        else:
            head.append(c)
        if c == "\n":
            line += 1
    return found


def includes(text):
    return re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', text, re.M)


def main(root):
    problems = []
    backend_headers = set()
    for d in ("cuda", "vulkan"):
        for f in os.listdir(os.path.join(root, d)):
            if f.endswith((".h", ".cuh")):
                backend_headers.add(f)
    host_headers = set()
    for dirpath, _, files in os.walk(os.path.join(root, "host")):
        host_headers.update(f for f in files if f.endswith(".h"))
    checked = 0
    for d in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if not f.endswith(EXTENSIONS):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                checked += 1
                lines = text.count("\n")
                if lines > MAX_FILE_LINES:
                    problems.append(f"{rel}: {lines} lines (at most {MAX_FILE_LINES})")
                for name, start, length in long_functions(path, text):
                    problems.append(f"{rel}:{start}: function {name} is {length} lines "
                                    f"(at most {MAX_FUNCTION_LINES})")
                inc = [os.path.basename(i) for i in includes(text)]
                if d == "host" and rel != FACTORY:
                    for i in inc:
                        if i in backend_headers:
                            problems.append(f"{rel}: includes backend header {i} "
                                            f"(only {FACTORY} may)")
                if d in ("cuda", "vulkan"):
                    for i in inc:
                        if i in host_headers and i not in CONTRACT_HEADERS:
                            problems.append(f"{rel}: includes host header {i} (a backend sees "
                                            f"only {', '.join(sorted(CONTRACT_HEADERS))})")
    for p in problems:
        print(p)
    print(f"house rules: {checked} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
