#!/usr/bin/env python3
"""The house rules of cuvk, checked on every test run (ctest `house.rules`):

1. no source file in host/, cuda/ or vulkan/ over 500 lines;
2. no function there over 80 lines (signature to closing brace), measured by the brace matcher
   below in every file (a file it cannot measure, its braces unbalanced once comments, strings
   and preprocessor lines are out, is a problem too: no file goes unmeasured, as vulkan/ did
   under pmccabe, which skips any file with `namespace a::b {`);
3. exactly one host file names a concrete backend (host/factory/backends.cpp);
4. a backend includes only the contract's host headers: backend.h, capabilities.h, params.h,
   error.h, timestamps.h, numbers.h;
5. no function or constructor in host/core over 6 parameters (issue 45: the runner's state lives
   in objects, Suite and LaneRun, not in long parameter lists); lambdas are not counted;
6. "built-in or pair?" is asked only where a kernel model is made or answers for itself
   (KIND_QUESTIONS, issue 45): the output checkers (host/core/runner/check/), the plan (plan.cpp,
   catalogue.h and catalogue.cpp) and the pair loader (host/app/pair_tests.cpp); the runner asks
   the checker (output_checker.h) instead;
7. no `+ std::to_string(` in host/ (issue 45: a string is built by one fmt::format, "{}" for an
   integer, "{:f}" where std::to_string's fixed form of a double was printed);
8. host/core is three floors (issue 45): host/core/model includes no header of host/core/node or
   host/core/runner, host/core/node none of host/core/runner (CORE_FLOORS).

Rules 3, 4 and 8 are also enforced by the build (include paths are per target); this test names the
offender instead of a compiler error. Usage: house_check.py [REPO_ROOT]
"""
import contextlib
import io
import os
import re
import sys
import tempfile

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
MAX_PARAMETERS = 6
PARAMETER_DIRS = ("host/core",)
KIND_QUESTIONS = ("has_cpu_reference", "profiled_first", "own_size", "declared_contents")
KIND_ANSWERERS = ("host/core/runner/check/", "host/core/model/plan.cpp",
                  "host/core/model/catalogue.h", "host/core/model/catalogue.cpp",
                  "host/app/pair_tests.cpp")
SOURCE_DIRS = ("host", "cuda", "vulkan")
EXTENSIONS = (".cpp", ".h", ".cu", ".cuh")
FACTORY = "host/factory/backends.cpp"
# Rule 8: each floor of host/core and the floors it must not see (its headers are named by file).
CORE_FLOORS = {"host/core/model": ("host/core/node", "host/core/runner"),
               "host/core/node": ("host/core/runner",)}
CONTRACT_HEADERS = {"backend.h", "capabilities.h", "params.h", "error.h", "timestamps.h",
                    "numbers.h"}
# Rule 5: `+ std::to_string(` (across a line break too), outside comments and strings.
TO_STRING_CHAIN = re.compile(r"\+\s*std::to_string\s*\(")


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


class Unmeasurable(Exception):
    """A file whose braces do not balance: its functions cannot be measured."""


def parameter_count(head):
    """The parameters in a function head: top-level commas of its first parenthesised group (for a
    constructor, the group before its member initialisers), plus one; 0 for `()` or `(void)`."""
    start = head.find("(")
    depth, count, seen = 0, 0, []
    for c in head[start:]:
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            depth -= 1
            if depth == 0:
                break
        elif c == "," and depth == 1:
            count += 1
        if depth >= 1:
            seen.append(c)
    inner = "".join(seen)[1:].strip()
    return 0 if inner in ("", "void") else count + 1


def functions(text):
    """(name, first line, length, parameters) of every function body, from the first line of its
    signature to its closing brace. Raises Unmeasurable where the braces do not balance."""
    code = strip_comments_and_strings(text)
    # Preprocessor lines (with their continuations) are no part of any declaration's head; they
    # are blanked, keeping their line breaks.
    code = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*",
                  lambda m: "\n" * m.group(0).count("\n"), code, flags=re.M)
    found, stack, head, line, head_line = [], [], [], 1, None
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
            stack.append((kind, head_line or line, h))
            head, head_line = [], None
        elif c == "}":
            if not stack:
                raise Unmeasurable(f"line {line}: '}}' closes nothing")
            kind, start, h = stack.pop()
            if kind == "function":
                name = h.split("(")[0].split()[-1] if h.split("(")[0].split() else h
                found.append((name, start, line - start + 1, parameter_count(h)))
            head, head_line = [], None
        elif c == ";":
            head, head_line = [], None
        else:
            if head_line is None and not c.isspace():
                head_line = line
            head.append(c)
        if c == "\n":
            line += 1
    if stack:
        raise Unmeasurable(f"line {stack[-1][1]}: '{{' never closed")
    return found


def long_functions(path, text):
    """(name, first line, length) of every function longer than MAX_FUNCTION_LINES."""
    return [f[:3] for f in functions(text) if f[2] > MAX_FUNCTION_LINES]


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
    floor_headers = {}  # floor -> the headers in it
    for floor in {f for above in CORE_FLOORS.values() for f in above}:
        for dirpath, _, files in os.walk(os.path.join(root, floor)):
            floor_headers.setdefault(floor, set()).update(f for f in files if f.endswith(".h"))
    checked = measured_functions = 0
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
                try:
                    measured = functions(text)
                except Unmeasurable as e:
                    problems.append(f"{rel}: cannot measure its functions ({e})")
                    measured = []
                measured_functions += len(measured)
                wide = rel.startswith(tuple(d + "/" for d in PARAMETER_DIRS))
                for name, start, length, params in measured:
                    if length > MAX_FUNCTION_LINES:
                        problems.append(f"{rel}:{start}: function {name} is {length} lines "
                                        f"(at most {MAX_FUNCTION_LINES})")
                    if wide and params > MAX_PARAMETERS:
                        problems.append(f"{rel}:{start}: function {name} takes {params} "
                                        f"parameters (at most {MAX_PARAMETERS}: keep state in "
                                        f"an object)")
                if d == "host" and not rel.startswith(KIND_ANSWERERS):
                    code = strip_comments_and_strings(text)
                    for q in KIND_QUESTIONS:
                        for m in re.finditer(r"\b" + q + r"\s*\(", code):
                            line_no = code.count("\n", 0, m.start()) + 1
                            problems.append(f"{rel}:{line_no}: asks {q}() (only the output "
                                            f"checkers and the kernel model's makers may: ask "
                                            f"output_checker() instead)")
                chains = len(TO_STRING_CHAIN.findall(strip_comments_and_strings(text)))
                if d == "host" and chains > 0:
                    problems.append(f"{rel}: {chains} `+ std::to_string(` (build the string with "
                                    f"fmt::format)")
                inc = [os.path.basename(i) for i in includes(text)]
                if d == "host" and rel != FACTORY:
                    for i in inc:
                        if i in backend_headers:
                            problems.append(f"{rel}: includes backend header {i} "
                                            f"(only {FACTORY} may)")
                for floor, above in CORE_FLOORS.items():
                    if rel.startswith(floor + "/"):
                        for i in inc:
                            for a in above:
                                if i in floor_headers.get(a, ()):
                                    problems.append(f"{rel}: includes {i} of {a} ({floor} is "
                                                    f"below it)")
                if d in ("cuda", "vulkan"):
                    for i in inc:
                        if i in host_headers and i not in CONTRACT_HEADERS:
                            problems.append(f"{rel}: includes host header {i} (a backend sees "
                                            f"only {', '.join(sorted(CONTRACT_HEADERS))})")
    for p in problems:
        print(p)
    print(f"house rules: {checked} files checked, {measured_functions} functions measured, "
          f"{len(problems)} problems")
    return 1 if problems else 0


def self_test():
    """The check holds the limits to the line: a function one line too long in a `namespace a::b {`
    file (pmccabe's blind spot), a file one line too long and a file whose braces do not balance
    fail; a function and a file exactly at the limits pass. A host/core function of 7 parameters
    fails and one of 6 (beside a lambda of 7) passes; a plan's "built-in or pair?" question fails
    outside host/core/runner/check/ and passes in it; a `+ std::to_string(` split over lines fails."""
    def function(lines):  # `lines` lines, signature to closing brace
        body = "".join(f"  x += {i};\n" for i in range(lines - 3))
        return ("namespace cuvk::vk {\nint f(int x) {\n" + body + "  return x;\n}\n"
                "}  // namespace cuvk::vk\n")
    too_long, too_big = MAX_FUNCTION_LINES + 1, MAX_FILE_LINES + 1
    chain = 'std::string label(int n) {\n  return "n =" +\n         std::to_string(n);\n}\n'
    cases = [  # file, text, what the failure names (None: it must pass)
        ("vulkan/vk_long.cpp", function(too_long),
         f"vk_long.cpp:2: function f is {too_long} lines"),
        ("host/core/big.cpp", "int g();\n" * too_big, f"big.cpp: {too_big} lines"),
        ("host/core/odd.cpp", "#define OPEN {\nint h() {\n  return 0;\n", "odd.cpp: cannot measure"),
        ("vulkan/vk_edge.cpp", function(MAX_FUNCTION_LINES), None),
        ("host/core/edge.cpp", "int g();\n" * MAX_FILE_LINES, None),
        ("host/core/wide.cpp", "namespace cuvk {\nclass A {\n  A(int a, int b, int c, int d,\n"
         "    int e, int f, std::map<int, int> g) : x_(a) {}\n};\n}\n",
         "wide.cpp:3: function A takes 7 parameters"),
        ("host/core/six.cpp", "void f(int a, int b, int c, int d, int e, std::pair<int, int> g) "
         "{\n  auto l = [](int a, int b, int c, int d, int e, int f, int g) {};\n}\n", None),
        ("host/core/asks.cpp", "void f(const Plan& p) {\n  if (p.has_cpu_reference()) g();\n}\n",
         "asks.cpp:2: asks has_cpu_reference()"),
        ("host/core/runner/check/answers.cpp",
         "bool f(const Plan& p) {\n  return p.own_size().has_value();\n}\n", None),
        ("host/core/label.cpp", chain, "label.cpp: 1 `+ std::to_string(`"),
        ("host/core/model/up.cpp", '#include "runner_parts.h"\n',
         "up.cpp: includes runner_parts.h of host/core/runner"),
        ("host/core/runner/down.cpp", '#include "kernel_model.h"\n', None),
    ]
    failed = 0
    for rel, text, expected in cases:
        with tempfile.TemporaryDirectory() as root:
            for d in ("host/core/runner/check", "host/core/runner/internal", "host/core/model",
                      "cuda", "vulkan"):
                os.makedirs(os.path.join(root, d))
            for h in ("host/core/runner/internal/runner_parts.h", "host/core/model/kernel_model.h"):
                open(os.path.join(root, h), "w", encoding="utf-8").close()
            with open(os.path.join(root, rel), "w", encoding="utf-8") as fh:
                fh.write(text)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = main(root)
            if expected is None and rc != 0:
                print(f"self-test: {rel}: exactly at the limits, expected no problem, got rc {rc}:")
                print(out.getvalue())
                failed += 1
            elif expected is not None and (rc == 0 or expected not in out.getvalue()):
                print(f"self-test: {rel}: expected a failure naming '{expected}', got rc {rc}:")
                print(out.getvalue())
                failed += 1
    print(f"house rules self-test: {len(cases) - failed} of {len(cases)} cases as they must "
          f"(over the limits fail, at them pass)")
    return 1 if failed else 0

if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
