#!/usr/bin/env python3
"""img2fen on labelled PDF books (`render.pdfbooks`'s labels.jsonl): diagrams read exactly,
pages whose boards come in the right reading order, and pages a second.

img2fen reads every PDF in one run (JSON records, a record per page). Per page, each labelled
diagram is matched to the board read that differs from it on the fewest squares (each board
used once). A diagram is exact when its board has field 1 as labelled; a board with no label
is an invented one. A page's order is right when it has as many boards as labels and the
matched boards come in the labels' order. A board read exactly but the wrong way up counts
in "exact, either way up" only. Prints a table by kind and writes OUT/results.json
and OUT/misses.txt.

    python3 -m img2fen_training.eval.pdf work/pdfbooks/labels.jsonl --out work/pdf-eval \\
        [--img2fen target/release/img2fen] [--backend tract] [-j 2] [-- EXTRA IMG2FEN ARGS...]
"""
import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from img2fen_training.paths import ROOT


def squares(placement):
    out = []
    for row in placement.split("/"):
        for ch in row:
            out.extend("." * int(ch) if ch.isdigit() else ch)
    return out


def differ(a, b):
    sa, sb = squares(a), squares(b)
    return sum(x != y for x, y in zip(sa, sb)) if len(sa) == len(sb) == 64 else 64


def turned(placement):
    """The placement of the board turned half round (as read from the wrong side)."""
    sq = squares(placement)[::-1]
    rows = ["".join(sq[r * 8:(r + 1) * 8]) for r in range(8)]
    out = []
    for row in rows:
        text, empty = "", 0
        for ch in row:
            if ch == ".":
                empty += 1
            else:
                text += (str(empty) if empty else "") + ch
                empty = 0
        out.append(text + (str(empty) if empty else ""))
    return "/".join(out)


def match(labels, read):
    """Each label's board index in `read` (or None), greedily by fewest differing squares."""
    pairs = sorted((min(differ(l, r), differ(turned(l), r)), i, j) for i, l in enumerate(labels)
                   for j, r in enumerate(read))
    taken_l, taken_r, out = set(), set(), [None] * len(labels)
    for _, i, j in pairs:
        if i not in taken_l and j not in taken_r:
            out[i] = j
            taken_l.add(i)
            taken_r.add(j)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--img2fen", default=str(ROOT / "target/release/img2fen"))
    ap.add_argument("--backend", default="tract")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    # Everything after `--` goes to img2fen as it is (argparse would give a second positional
    # list only the arguments before its options).
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    a = ap.parse_args(argv)
    a.extra = extra
    a.out.mkdir(parents=True, exist_ok=True)
    books = [json.loads(line) for line in a.labels.read_text().splitlines() if line.strip()]
    root = a.labels.parent
    records = a.out / "records.jsonl"
    start = time.perf_counter()
    subprocess.run([a.img2fen, "--backend", a.backend, "--format", "json", "--progress", "never", "-q",
                    "-j", str(a.jobs), "-o", str(records), "--force", *a.extra,
                    *[str(root / b["pdf"]) for b in books]])
    seconds = time.perf_counter() - start
    got = {}
    for line in records.read_text().splitlines():
        r = json.loads(line)
        got[(r["file"], r.get("page"))] = r
    stats = defaultdict(lambda: defaultdict(int))
    misses = []
    for book in books:
        path = str(root / book["pdf"])
        for page in book["pages"]:
            s = stats[book["kind"]]
            s["pages"] += 1
            r = got.get((path, page["page"]))
            labels = page["boards"]
            s["diagrams"] += len(labels)
            if r is None or r.get("error"):
                s["failed pages"] += 1
                s["missed"] += len(labels)
                misses.append(f"{path}#page={page['page']}: {r and r.get('error') or 'no record'}")
                continue
            read = [b["placement"] for b in r["boards"]]
            m = match(labels, read)
            for i, j in enumerate(m):
                if j is None:
                    s["missed"] += 1
                    misses.append(f"{path}#page={page['page']}: diagram {i + 1} not found")
                elif read[j] == labels[i]:
                    s["exact"] += 1
                    s["exact turned"] += 1
                elif read[j] == turned(labels[i]):
                    s["exact turned"] += 1
                    misses.append(f"{path}#page={page['page']}: diagram {i + 1} read the wrong way up")
                else:
                    misses.append(f"{path}#page={page['page']}: diagram {i + 1} read {read[j]}, "
                                  f"is {labels[i]} ({differ(read[j], labels[i])} squares)")
            s["invented"] += len(read) - sum(j is not None for j in m)
            in_order = len(read) == len(labels) and all(j == i for i, j in enumerate(m))
            s["order right"] += in_order
            if not in_order and len(read) == len(labels):
                misses.append(f"{path}#page={page['page']}: boards out of order {m}")
    total = defaultdict(int)
    print("| kind | pages | diagrams | exact | exact, either way up | found | invented | order right | failed pages |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in sorted(stats):
        s = stats[kind]
        for k, v in s.items():
            total[k] += v
    for kind, s in sorted(stats.items()) + [("all", total)]:
        d = max(s["diagrams"], 1)
        print(f"| {kind} | {s['pages']} | {s['diagrams']} | {s['exact']} ({100 * s['exact'] / d:.1f}%) | "
              f"{s['exact turned']} ({100 * s['exact turned'] / d:.1f}%) | "
              f"{s['diagrams'] - s['missed']} | {s['invented']} | {s['order right']} "
              f"({100 * s['order right'] / max(s['pages'], 1):.1f}%) | {s['failed pages']} |")
    print(f"{total['pages']} pages in {seconds:.1f} s ({total['pages'] / seconds:.1f} pages/s, -j {a.jobs})")
    (a.out / "misses.txt").write_text("\n".join(misses) + "\n")
    (a.out / "results.json").write_text(json.dumps({"kinds": stats, "all": total, "seconds": seconds}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
