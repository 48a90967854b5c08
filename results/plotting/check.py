"""Checks that every published figure was drawn from the files it names (python3 only, no
matplotlib): ctest `results.figures` runs `plot.py check results`.

1. Every figure (*.png, *.svg) anywhere in the folder names its sources in its own metadata (the
   `Source` text: one `<sha256>  <path>` line per file), and each named file exists with that hash.
2. plots/figures.json lists exactly the figures in plots/, with the same sources as their metadata.
3. README.md shows every figure of plots/ and its caption names every source file.
"""

import hashlib
import json
import os
import re
import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_text(path):
    """The PNG's text chunks (tEXt, zTXt, iTXt) as a dict."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("not a PNG file")
    out, pos = {}, len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            out[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _lang, _, rest = rest.partition(b"\0")
            _translated, _, text = rest.partition(b"\0")
            out[key.decode("latin-1")] = (zlib.decompress(text) if compressed else text).decode("utf-8")
        elif kind == b"IEND":
            break
    return out


def svg_source(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    m = re.search(r"<dc:source>(.*?)</dc:source>", text, re.S)
    return m.group(1) if m else None


def figure_sources(path):
    """[(sha256, relative path)] from the figure's metadata; None when it names no source."""
    text = png_text(path).get("Source") if path.endswith(".png") else svg_source(path)
    if not text:
        return None
    out = []
    for line in text.strip().splitlines():
        m = re.fullmatch(r"([0-9a-f]{64})  (\S.*)", line.strip())
        if not m:
            raise ValueError(f"malformed Source line {line!r}")
        out.append((m.group(1), m.group(2)))
    return out or None


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def figures_in(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith((".png", ".svg")):
                found.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return found


def check_sources(root, figures, problems):
    hashes, checked = {}, {}
    for fig in figures:
        try:
            sources = figure_sources(os.path.join(root, fig))
        except (OSError, ValueError, zlib.error) as e:
            problems.append(f"{fig}: unreadable metadata ({e})")
            continue
        if not sources:
            problems.append(f"{fig}: names no source file (no Source in its metadata): not drawn "
                            f"by `cuvk report --index`")
            continue
        checked[fig] = sources
        for digest, rel in sources:
            path = os.path.join(root, rel)
            if rel not in hashes:
                hashes[rel] = sha256_of(path) if os.path.isfile(path) else None
            if hashes[rel] is None:
                problems.append(f"{fig}: drawn from {rel}, which is not in {root}")
            elif hashes[rel] != digest:
                problems.append(f"{fig}: drawn from {rel} with sha256 {digest[:12]}..., but {rel} now "
                                f"has {hashes[rel][:12]}...: the figure is stale (run `cuvk report "
                                f"--index {root}`)")
    return checked, hashes


def check_manifest(root, checked, problems):
    path = os.path.join(root, "plots", "figures.json")
    in_plots = {f for f in checked if f.startswith("plots/") and f.count("/") == 1}
    if not os.path.exists(path):
        if in_plots:
            problems.append("plots/figures.json is missing")
        return []
    try:
        with open(path, encoding="utf-8") as f:
            listed = json.load(f)["figures"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        problems.append(f"plots/figures.json: unreadable ({e})")
        return []
    names = set()
    for fig in listed:
        names.add(fig.get("file"))
        want = [(s.get("sha256"), s.get("file")) for s in fig.get("sources") or []]
        if fig.get("file") not in checked:
            problems.append(f"plots/figures.json lists {fig.get('file')}, which has no checked figure")
        elif sorted(want) != sorted(checked[fig["file"]]):
            problems.append(f"plots/figures.json: {fig['file']}'s sources differ from its metadata")
    for f in sorted(in_plots - names):
        problems.append(f"{f} is not in plots/figures.json")
    return listed


def check_readme(root, listed, problems):
    path = os.path.join(root, "README.md")
    if not listed or not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for fig in listed:
        m = re.search(r"!\[[^\]]*\]\(" + re.escape(fig["file"]) + r"\)\n\n(.*?)(\n\n|$)", text, re.S)
        if not m:
            problems.append(f"README.md does not show {fig['file']} (with its caption under it)")
            continue
        for s in fig.get("sources") or []:
            if s.get("file") not in m.group(1):
                problems.append(f"README.md: the caption of {fig['file']} does not name {s.get('file')}")


def main(root):
    root = root.rstrip("/") or "/"
    problems = []
    figures = figures_in(root)
    checked, hashes = check_sources(root, figures, problems)
    listed = check_manifest(root, checked, problems)
    check_readme(root, listed, problems)
    for p in problems:
        print("error: " + p)
    if problems:
        return 1
    print(f"checked {len(figures)} figures in {root}: each drawn from the files it names "
          f"({len(hashes)} files, sha256)")
    return 0
