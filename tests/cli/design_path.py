#!/usr/bin/env python3
"""Issue 32: docs/DESIGN.md's "The path of one `cuvk run`" names real functions.

Usage: design_path.py REPO_ROOT

Each line `- path/to/file.cpp: function_name — what it does` of that section must name a file of
the repository that holds a definition of the function (a free function by its name, a member as
`Class::method`): the name followed by `(`, preceded on its line by a return type (or nothing, for
a constructor written `Class::Class(`), and the first `{` after it comes before any `;`, within a
few lines. The section's count line ("today: N files, M functions") must agree with its lines.

And host/cli stays the command line alone (issue 32's thin CLI): its files hold fewer than
MAX_CLI_LINES lines together, and none calls what runs a command (CLI_WORK: opening devices,
loading pairs, the early inputs, the suite), which is host/app's.
Prints "design path: N steps in M files, all found; host/cli: L lines", else each line that fails,
and exits 1.
"""

import re
import sys
from pathlib import Path

SECTION = "## The path of one `cuvk run`"
STEP = re.compile(r"^- (\S+): (\S+) — \S")
COUNT = re.compile(r"^today: (\d+) files, (\d+) functions\b")
# What may stand before a definition's name on its line: a return type with its qualifiers,
# templates, pointers and references, attributes ([[nodiscard]]), or nothing (a constructor).
PREFIX = re.compile(r"^[\w:<>,*&\s\[\]]*$")
NOT_A_TYPE = {"return", "else", "throw", "case", "new", "delete", "co_return", "goto", "do"}
BRACE_LINES = 8  # the `{` of a definition: within this many lines of its name
CLI_DIR = "host/cli"
MAX_CLI_LINES = 2500
CLI_WORK = ("make_backend", "open_backends", "prepare_pairs", "load_pairs", "start_first_inputs",
            "run_suite", "execute_run", "Run")


def section_lines(design):
    text = design.read_text(encoding="utf-8")
    if SECTION not in text:
        return None
    body = text.split(SECTION, 1)[1]
    return body.split("\n## ", 1)[0].splitlines()


def strip_comments(source):
    source = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), source, flags=re.S)
    return "\n".join(line.split("//", 1)[0] for line in source.splitlines())


def defines(source, name):
    """Whether `source` holds a definition of `name` (`f` or `Class::f`)."""
    *owner, last = name.split("::")
    qualified = "::".join(re.escape(p) for p in owner + [last])
    # An unqualified name is a free function: not a member written `X::name(`.
    scope = r"(?<![\w:])" if not owner else r"(?<![\w:])(?:\w+::)*"
    pattern = re.compile(scope + qualified + r"\s*\(")
    for m in pattern.finditer(source):
        line_start = source.rfind("\n", 0, m.start()) + 1
        prefix = source[line_start : m.start()]
        if not PREFIX.match(prefix):
            continue  # an assignment, an argument, a member access: a call
        words = prefix.split()
        if words and words[0] in NOT_A_TYPE:
            continue
        if not words and not owner:
            continue  # a call on a line of its own; a constructor needs its Class::
        if not words and owner and owner[-1] != last:
            continue  # `Class::method(` alone on its line: a call, not a constructor
        rest = source[m.end() :]
        brace, semi = rest.find("{"), rest.find(";")
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration or a call
        if rest[:brace].count("\n") > BRACE_LINES:
            continue
        return True
    return False


def thin_cli(root):
    """What is wrong with host/cli as the command line alone; its line count."""
    problems, total = [], 0
    for file in sorted((root / CLI_DIR).iterdir()):
        if not file.is_file():
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        total += len(text.splitlines())
        code = strip_comments(text)
        for name in CLI_WORK:
            if re.search(r"(?<![\w:.>])" + name + r"\s*\(", code):
                problems.append(f"{CLI_DIR}/{file.name} calls {name}: "
                                "a command's work is host/app's")
    if total >= MAX_CLI_LINES:
        problems.append(f"{CLI_DIR} has {total} lines; the command line alone stays under "
                        f"{MAX_CLI_LINES}")
    return problems, total


def main(argv):
    if len(argv) != 2:
        print("usage: design_path.py REPO_ROOT", file=sys.stderr)
        return 2
    root = Path(argv[1])
    lines = section_lines(root / "docs" / "DESIGN.md")
    if lines is None:
        print(f"design path: docs/DESIGN.md has no section '{SECTION}'")
        return 1
    steps, counts, problems = [], [], []
    for line in lines:
        if m := STEP.match(line):
            steps.append((m.group(1), m.group(2)))
        elif line.startswith("- "):
            problems.append(f"not of the form '- path: function — what': {line}")
        elif m := COUNT.match(line):
            counts.append((int(m.group(1)), int(m.group(2))))
    if not steps:
        problems.append("the section lists no steps")
    cache = {}
    for path, name in steps:
        file = root / path
        if not file.is_file():
            problems.append(f"{path}: {name}: no such file")
            continue
        if path not in cache:
            cache[path] = strip_comments(file.read_text(encoding="utf-8", errors="replace"))
        if not defines(cache[path], name):
            problems.append(f"{path}: {name}: no definition of {name} in {path}")
    files = len({path for path, _ in steps})
    if len(counts) != 1:
        problems.append("want one line 'today: N files, M functions' in the section")
    elif counts[0] != (files, len(steps)):
        problems.append(f"the count line says {counts[0][0]} files, {counts[0][1]} functions; "
                        f"the lines are {files} files, {len(steps)} functions")
    cli_problems, cli_lines = thin_cli(root)
    problems += cli_problems
    for p in problems:
        print(f"design path: {p}")
    if problems:
        return 1
    print(f"design path: {len(steps)} steps in {files} files, all found; "
          f"{CLI_DIR}: {cli_lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
