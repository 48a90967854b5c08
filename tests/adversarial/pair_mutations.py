#!/usr/bin/env python3
"""pair_mutations.py DIR: issue 37's sweep, pair declarations. Writes a valid declaration
(DIR/base.toml, over tests/pairs/axpy.cu and axpy.comp copied to DIR) and its mutations field by
field: each field missing, of each wrong TOML type, out of its range, a key unknown beside it, a
key for another init; whole tables missing or repeated; TOML syntax broken. Prints one case a
line, "CODE<US>REGEX<US>FILE" (US: the unit separator, 0x1f): the exit code docs/PAIRS.md gives (2 for every mistake, 0 for a
mutation that stays valid) and what the one error line must name (the file and the field)."""
import copy, os, sys

d = sys.argv[1]
BASE = {
    "": {"name": "axpy_sweep", "description": "the sweep's pair", "n": 1000, "useful_bytes": "12 * n",
         "timing_only": False},
    "cuda": {"source": "axpy.cu", "entry": "axpy", "options": ["-DSWEEP=1"]},
    "glsl": {"source": "axpy.comp", "entry": "main", "defines": ["SWEEP=1"]},
    "launch": {"threads": "n", "block_sizes": [32, 64], "shared_bytes": 0},
    "buffer": [
        {"name": "x", "type": "f32", "count": "n", "init": "random", "seed": 3, "min": -1.0, "max": 1.0},
        {"name": "y", "type": "f32", "count": "n", "init": "constant", "value": 1.0, "output": True,
         "ulp": 0, "nan_fraction": 0.0},
    ],
    "scalar": [{"name": "a", "type": "f32", "value": 2.0}, {"name": "n", "type": "u32", "value": "n"}],
}

def lit(v):
    if isinstance(v, bool): return "true" if v else "false"
    if isinstance(v, (int, float)): return repr(v)
    if isinstance(v, str): return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list): return "[" + ", ".join(lit(x) for x in v) + "]"
    if isinstance(v, dict): return "{ " + ", ".join(f"{k} = {lit(x)}" for k, x in v.items()) + " }"
    if isinstance(v, Raw): return v.text
    raise TypeError(v)

class Raw:  # text written as is (a float beyond double, an invalid literal)
    def __init__(self, text): self.text = text

def emit(doc):
    out = []
    for k, v in doc[""].items(): out.append(f"{k} = {lit(v)}")
    for t in ("cuda", "glsl", "launch"):
        if t in doc:
            out.append(f"\n[{t}]")
            for k, v in doc[t].items(): out.append(f"{k} = {lit(v)}")
    for t in ("buffer", "scalar"):
        for e in doc.get(t, []):
            out.append(f"\n[[{t}]]")
            for k, v in e.items(): out.append(f"{k} = {lit(v)}")
    return "\n".join(out) + "\n"

cases = []
def case(code, regex, doc=None, text=None):
    name = f"m{len(cases):04d}.toml"
    with open(os.path.join(d, name), "w") as f: f.write(text if text is not None else emit(doc))
    cases.append((code, regex, name))

case(0, "", BASE)
# field -> (required, kind, wrong-type values, out-of-range values)
STR_WRONG = [42, 1.5, True, ["x"], {"a": 1}]
INT_WRONG = [1.5, True, ["1"], {"a": 1}]
EXPR_WRONG = [1.5, True, ["n"], {"a": 1}, "n +", "m", "", "1 / 0", "n * n * n * n * n * n * n"]
BOOL_WRONG = ["true", 1, 0.0, ["x"]]
ARR_STR_WRONG = ["x", [1], [True], [["x"]]]
FIELDS = {
    ("", "name"): (True, STR_WRONG + ["", "a-b", "a b", "é"]),
    ("", "description"): (False, STR_WRONG),
    ("", "n"): (False, INT_WRONG + ["1000", 0, -1, 4294967296, Raw("1e400")]),
    ("", "useful_bytes"): (True, EXPR_WRONG + ["0 - 5"]),
    ("", "timing_only"): (False, BOOL_WRONG),
    ("cuda", "source"): (True, STR_WRONG + ["", "nope.cu", ".", "/dev/zero"]),
    ("cuda", "entry"): (True, STR_WRONG + [""]),
    ("cuda", "options"): (False, ARR_STR_WRONG),
    ("glsl", "source"): (True, STR_WRONG + ["", "nope.comp", ".", "/dev/zero"]),
    ("glsl", "entry"): (False, STR_WRONG + ["", "nosuch"]),
    ("glsl", "defines"): (False, ARR_STR_WRONG + [["A B"], ["=1"]]),
    ("launch", "threads"): (True, EXPR_WRONG + ["0", "-1", "n - n"]),
    ("launch", "block_sizes"): (False, ["256", 256, [0], [2048], [-32], [1.5], ["a"], []]),
    ("launch", "shared_bytes"): (False, EXPR_WRONG + ["-1", "4294967296"]),
}
for i in (0, 1):
    for k, (req, wrong) in {
        "name": (True, STR_WRONG + ["", "x"]),  # "x" twice: buffer names are unique
        "type": (True, STR_WRONG + ["f16", "F32", "", "float"]),
        "count": (True, EXPR_WRONG + ["0", "-1", "n - n"]),
    }.items():
        FIELDS[(f"buffer.{i}", k)] = (req, wrong if not (i == 0 and k == "name") else wrong[:-1] + ["y"])
FIELDS[("buffer.0", "init")] = (False, STR_WRONG + ["bogus", "", "Random"])
FIELDS[("buffer.0", "seed")] = (False, INT_WRONG + ["3", -1, 18446744073709551616])
FIELDS[("buffer.0", "min")] = (False, ["0", True, [0], 2.0, Raw("nan"), Raw("inf"), 1e39])
FIELDS[("buffer.0", "max")] = (False, ["1", True, [1], -2.0, Raw("nan"), Raw("-inf"), 1e39])
FIELDS[("buffer.1", "init")] = (False, STR_WRONG + ["bogus", "file"])
FIELDS[("buffer.1", "value")] = (True, ["1", True, [1], Raw("nan"), Raw("inf"), 1e39])
FIELDS[("buffer.1", "output")] = (False, BOOL_WRONG)
FIELDS[("buffer.1", "ulp")] = (False, INT_WRONG + ["1", -1])
FIELDS[("buffer.1", "abs")] = (False, ["1", True, [1], -1.0, Raw("nan"), Raw("inf"), {"a": 1}])
FIELDS[("buffer.1", "nan_fraction")] = (False, ["0", True, [0], -0.1, 1.5, Raw("nan")])
for i in (0, 1):
    FIELDS[(f"scalar.{i}", "name")] = (True, STR_WRONG + ["", "x"])  # "x" is a buffer's name
    FIELDS[(f"scalar.{i}", "type")] = (True, STR_WRONG + ["f16", "u8", "", "U32"])
FIELDS[("scalar.0", "value")] = (True, [True, [2], Raw("nan"), Raw("inf"), 1e39, "m"])
FIELDS[("scalar.1", "value")] = (True, [1.5, True, [1], "m", "-1", "4294967296", "n +"])

# A removal that leaves the declaration valid (the field has a default; init's is random): exit 0. Removing
# buffer[1].output leaves no output (refused); its ulp/abs/nan_fraction then belong to no output.
STAYS_VALID_WITHOUT = {("", "description"), ("", "n"), ("", "timing_only"), ("cuda", "options"),
                       ("glsl", "entry"), ("glsl", "defines"), ("launch", "block_sizes"),
                       ("launch", "shared_bytes"), ("buffer.0", "init"), ("buffer.0", "seed"), ("buffer.0", "min"),
                       ("buffer.0", "max"), ("buffer.1", "ulp"), ("buffer.1", "abs"),
                       ("buffer.1", "nan_fraction")}
# Wrong values that are valid after all (docs/PAIRS.md): an integer where a number may be, a
# decimal string where an expression may be.

def table(doc, path):
    if path == "": return doc[""]
    if "." in path:
        t, i = path.split("."); return doc[t][int(i)]
    return doc[path]

def rx(path, key):
    shown = path.replace(".0", r"\[0\]").replace(".1", r"\[1\]")
    return rf"m[0-9]+\.toml.*({shown + chr(46) if shown else ''}{key}|{key})"

# abs is judged on a declaration with abs instead of ulp (one of them at most)
BASE_ABS = copy.deepcopy(BASE)
del BASE_ABS["buffer"][1]["ulp"]
BASE_ABS["buffer"][1]["abs"] = 0.0
# values TOML itself cannot hold: the reader's error names the file and the line
UNREADABLE = ("é", 18446744073709551616)

for (path, key), (req, wrong) in FIELDS.items():
    base_doc = BASE_ABS if key == "abs" else BASE
    doc = copy.deepcopy(base_doc)
    del table(doc, path)[key]
    if (path, key) in STAYS_VALID_WITHOUT:
        case(0, "", doc)
    elif (path, key) == ("buffer.1", "output"):
        case(2, r"m[0-9]+\.toml.*(output|ulp|abs|nan_fraction)", doc)
    elif (path, key) == ("buffer.1", "init"):
        case(2, r"m[0-9]+\.toml.*(value|init)", doc)  # value = 1.0 without init = "constant"
    else:
        case(2, rx(path, key), doc)
    for v in wrong:
        doc = copy.deepcopy(base_doc)
        table(doc, path)[key] = v
        unreadable = isinstance(v, Raw) and v.text == "1e400" or any(v == u and type(v) is type(u) for u in UNREADABLE)
        case(2, r"m[0-9]+\.toml:[0-9]+" if unreadable else rx(path, key), doc)
    doc = copy.deepcopy(base_doc)
    table(doc, path)["colour"] = 1
    case(2, r"m[0-9]+\.toml.*colour.*unknown key|unknown key.*colour", doc)
# keys for another init or type
for key, v in (("value", 1.0), ("file", "x.npy"), ("bytes", 4), ("partial", True)):
    doc = copy.deepcopy(BASE); doc["buffer"][0][key] = v
    case(2, rf"m[0-9]+\.toml.*{key}", doc)
for key, v in (("seed", 1), ("min", 0.0), ("max", 1.0), ("file", "y.raw"), ("bytes", 4)):
    doc = copy.deepcopy(BASE); doc["buffer"][1][key] = v
    case(2, rf"m[0-9]+\.toml.*{key}", doc)
# whole tables
for t in ("cuda", "glsl", "launch", "buffer"):
    doc = copy.deepcopy(BASE); del doc[t]
    case(2, rf"m[0-9]+\.toml.*{t}", doc)
doc = copy.deepcopy(BASE); del doc["scalar"]  # the shader's push constants then have no scalar
case(2, r"m[0-9]+\.toml", doc)
doc = copy.deepcopy(BASE); doc["launch"]["grid"] = ["n"]
case(2, r"m[0-9]+\.toml.*(grid|threads)", doc)
doc = copy.deepcopy(BASE); doc["glsl"]["spirv"] = "axpy.spv"
case(2, r"m[0-9]+\.toml.*(spirv|source)", doc)
doc = copy.deepcopy(BASE); doc["buffer"][1]["output"] = False
case(2, r"m[0-9]+\.toml.*(output|timing_only|ulp|abs|nan_fraction)", doc)
doc = copy.deepcopy(BASE); doc["buffer"] = doc["buffer"] * 17
case(2, r"m[0-9]+\.toml", doc)
doc = copy.deepcopy(BASE); doc["scalar"] = doc["scalar"] + [{"name": "b", "type": "u32", "value": 1}]
case(2, r"m[0-9]+\.toml", doc)
# TOML syntax
base = emit(BASE)
for bad in ('name = "unterminated\n', "name = \n", "[cuda\n", "= 1\n", "name = \"a\"\nname = \"b\"\n",
            "\x00\n", "n = 0x\n", "[[buffer]\n", "useful_bytes = '''\n", "\xff\xfe\n"):
    case(2, r"m[0-9]+\.toml", text=bad + base)
case(2, r"m[0-9]+\.toml", text="")
case(2, r"m[0-9]+\.toml", text="# only a comment\n")
case(2, r"m[0-9]+\.toml", text=base.replace("[cuda]", "[cuda]\n[cuda]"))
for code, regex, name in cases:
    print(f"{code}\x1f{regex}\x1f{name}")
