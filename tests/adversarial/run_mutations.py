#!/usr/bin/env python3
"""run_mutations.py RUN.json DIR: issue 37's sweep, result files. Writes mutations of a saved run
(`cuvk run --format json`) into DIR, every field of the document and of its first row: removed,
of each wrong JSON type, out of range (negative, huge, NaN as text), and the document truncated,
not JSON, empty, nested too deep, duplicated keys. Prints "CODES<US>REGEX<US>FILE" a line (US:
0x1f): a structural field (schema, results, a row's test/variant/api/status/time_ms/samples...)
refused with exit 2 naming it; any other field either refused so (2) or ignored (0): never a crash,
an abort or a second error line."""
import copy, json, os, sys

src, d = sys.argv[1], sys.argv[2]
base = json.load(open(src))
cases = []

def put(doc, codes, regex, text=None):
    name = f"r{len(cases):04d}.json"
    with open(os.path.join(d, name), "w") as f:
        f.write(text if text is not None else json.dumps(doc))
    cases.append((codes, regex, name))

# Fields whose loss or damage the reader must refuse: what identifies and measures a row.
# (a row without binding is read as an older file's: descriptor)
ROW_MUST = {"test", "variant", "api", "status", "time_ms", "layout"}
def must(path):
    return (path in (["schema"], ["results"], ["results", 0]) or
            (len(path) == 3 and path[:2] == ["results", 0] and path[2] in ROW_MUST))

def leaves(x, path):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, path + [k])
        if path: yield path, x
    elif isinstance(x, list):
        if x: yield from leaves(x[0], path + [0])
        yield path, x
    else:
        yield path, x

def get_parent(doc, path):
    for p in path[:-1]: doc = doc[p]
    return doc

def wrong_values(v):
    if isinstance(v, bool): return ["true", 1, None]
    if isinstance(v, (int, float)): return ["1", None, True, [v], -1, 1e308, -1e308, 18446744073709551615]
    if isinstance(v, str): return [1, None, True, [v], "", "\u202e\u0007x"]
    if isinstance(v, list): return ["x", None, {}, [None]]
    if isinstance(v, dict): return ["x", None, [], 1]
    return ["x", 1]

seen = set()
for path, v in leaves(base, []):
    key = next((p for p in reversed(path) if isinstance(p, str)), "results")
    if tuple(path) in seen or not path: continue
    seen.add(tuple(path))
    regex = rf"r[0-9]+\.json.*{key}" if must(path) else r"r[0-9]+\.json"
    codes = "2" if must(path) else "0|2"
    doc = copy.deepcopy(base)
    parent = get_parent(doc, path)
    if isinstance(parent, dict):
        del parent[path[-1]]
        put(doc, codes, regex)
    for w in wrong_values(v):
        doc = copy.deepcopy(base)
        get_parent(doc, path)[path[-1]] = w
        put(doc, codes, regex)

text = json.dumps(base)
for bad in (text[: len(text) // 2], text[:-1], "", "null", "[]", "{}", "1", '"x"', "\x00" + text,
            text + "garbage", "[" * 100000 + "]" * 100000, text.replace("{", "{\"a\": 1, \"a\": 2, ", 1),
            text.replace('"schema"', '"schema": 0, "schema"', 1), text.replace(":", ": NaN, \"zz\":", 1)):
    put(None, "2", r"r[0-9]+\.json", text=bad)
put(None, "0|2", r"r[0-9]+\.json", text="\ufeff" + text)  # a byte-order mark: skipped or refused
for codes, regex, name in cases:
    print(f"{codes}\x1f{regex}\x1f{name}")
