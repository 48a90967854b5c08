#!/usr/bin/env python3
"""cuvk's one plotting path (matplotlib). cuvk embeds this file and results/plotting/ in its binary
and runs them; you normally do not call it yourself:

    cuvk report --index results     -> plot.py index MANIFEST   (every figure of the folder)
    cuvk trace copy --plot t.png    -> plot.py trace TRACE.json t.png
    cuvk p2p --plot p2p.png         -> plot.py p2p P2P.json p2p.png
    python3 results/plot.py check results   (no matplotlib needed; ctest `results.figures`)

Every figure carries, in its own metadata (PNG tEXt/iTXt, SVG dc:source), the sha256 and the path
of each file it was drawn from; `check` verifies them. See docs/PUBLISHING.md.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

INSTALL = "apt-get install python3-matplotlib"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("index", help="draw every figure of a results folder (input: cuvk's manifest)")
    p.add_argument("manifest")
    p = sub.add_parser("trace", help="draw one `cuvk trace` file")
    p.add_argument("trace")
    p.add_argument("out", help="the figure: .png, .svg or .pdf")
    p.add_argument("--name", help="the trace file's name in the figure's Source (default: its path)")
    p.add_argument("--drawn-by", default="cuvk", help="who drew it, for the metadata")
    p = sub.add_parser("p2p", help="draw one `cuvk p2p --format json` file")
    p.add_argument("p2p")
    p.add_argument("out", help="the figure: .png, .svg or .pdf")
    p.add_argument("--name", help="the file's name in the figure's Source (default: its path)")
    p.add_argument("--drawn-by", default="cuvk", help="who drew it, for the metadata")
    p = sub.add_parser("check", help="every figure drawn from the files it names (sha256)")
    p.add_argument("dir")
    sub.add_parser("probe", help="exit 0 when matplotlib can be imported")
    args = ap.parse_args()
    if args.cmd == "check":
        from plotting import check
        return check.main(args.dir)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"error: plotting needs matplotlib for this python3 ({sys.executable}); Debian: {INSTALL}",
              file=sys.stderr)
        return 3
    if args.cmd == "probe":
        return 0
    if args.cmd == "index":
        from plotting import index
        return index.main(args.manifest)
    if args.cmd == "p2p":
        from plotting import common, p2p_figures
        doc = common.read_json(args.p2p)
        if not common.schema_of(doc).startswith(p2p_figures.P2P_SCHEMA):
            print(f"error: {args.p2p}: not a cuvk p2p file (schema cuvk.p2p/1)", file=sys.stderr)
            return 2
        p2p_figures.p2p_figure(common.Source(args.p2p, args.name or args.p2p, doc), args.out,
                               args.drawn_by)
        return 0
    from plotting import common, trace_figures
    doc = common.read_json(args.trace)
    if not common.schema_of(doc).startswith(common.TRACE_SCHEMA):
        print(f"error: {args.trace}: not a cuvk trace file (schema cuvk.trace/1)", file=sys.stderr)
        return 2
    src = common.Source(args.trace, args.name or args.trace, doc)
    trace_figures.trace_figure(src, args.out, args.drawn_by)
    return 0


if __name__ == "__main__":
    sys.exit(main())
