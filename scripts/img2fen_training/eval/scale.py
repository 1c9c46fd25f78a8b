#!/usr/bin/env python3
"""The scale sweep: every board of a labelled folder cropped tight and with margins, scaled from
small to large, read again (issue 31).

For each row of LABELS.csv (file, fen_field1, flipped, kind), img2fen reads the picture once; its
first board's corners give the board's box. Given a rendered scene set's scenes.jsonl instead
(render/scenes.py: every board of every picture, book pages with several diagrams too), each
board's true corners give its box. Each margin (a share of the board's side, taken from
the picture around the board and padded with white where the picture ends) and each scale
(capped at --max-side pixels) makes one picture in OUT/images. img2fen then reads them all, and
each is compared with the label: found (a board at all) and exact (field 1 as labelled, the
orientation right). Only boards read exactly at native size count (for a scene's board: its crop
with a 10% margin at 1x), and only at scales where a square stays at least 8 pixels. Prints a
table by margin and scale and one by kind, writes OUT/misses.txt, and OUT/results.json for
comparing runs.

    python3 -m img2fen_training.eval.scale ../shared/realdata-dev/labels.csv --out work/scale
    python3 -m img2fen_training.eval.scale work/scenes7/scenes.jsonl --per-kind 25 --out work/scale-scenes
"""
import argparse
import csv
import json
import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from PIL import Image, ImageOps

from img2fen_training.paths import ROOT

MARGINS = [0.0, 0.02, 0.05, 0.10]
SCALES = [0.25, 0.5, 1.0, 2.0, 3.0, 5.0]


def read(img2fen, paths, jobs):
    """img2fen's JSON record of each path, by path."""
    run = subprocess.run([img2fen, "--backend", "tract", "--format", "json", "--progress", "never", "-q",
                          "-j", str(jobs), *map(str, paths)], capture_output=True, text=True)
    return {r["file"]: r for r in map(json.loads, run.stdout.splitlines())}


def exact(record, fen, flipped):
    boards = record.get("boards") or []
    if not boards:
        return False, False
    b = boards[0]
    return True, b["placement"] == fen and (b["orientation"] == "black") == flipped


def found_boards(labels, img2fen, jobs):
    """The boards of a labelled folder that img2fen reads exactly, each with the corners it found."""
    rows = list(csv.DictReader(labels.open(newline="")))
    native = read(img2fen, [labels.parent / r["file"] for r in rows], jobs)
    boards = []
    for i, r in enumerate(rows):
        path = labels.parent / r["file"]
        rec = native.get(str(path), {})
        if exact(rec, r["fen_field1"], r["flipped"] == "1")[1]:
            boards.append({"index": i, "path": path, "source": r["file"], "corners": rec["boards"][0]["corners"],
                           "placement": r["fen_field1"], "flipped": r["flipped"] == "1", "kind": r["kind"]})
    return boards


def scene_boards(scenes, per_kind):
    """The boards of a rendered scene set, with their true corners: the first `per_kind` of each
    kind of picture (all with 0)."""
    boards = []
    for line in scenes.open():
        rec = json.loads(line)
        for j, b in enumerate(rec["boards"]):
            boards.append({"index": len(boards), "path": scenes.parent / rec["image"], "source": f"{rec['image']} board {j}",
                           "corners": b["corners"], "placement": b["placement"], "flipped": b["flipped"] == 1,
                           "kind": rec["kind"]})
    if per_kind:
        taken = defaultdict(int)
        kept = []
        for b in boards:
            if taken[b["kind"]] < per_kind:
                taken[b["kind"]] += 1
                kept.append(b)
        boards = kept
    return boards


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--img2fen", default=str(ROOT / "target/release/img2fen"))
    ap.add_argument("--max-side", type=int, default=5000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--per-kind", type=int, default=0, help="with scenes.jsonl: the first N boards of each kind")
    ap.add_argument("--keep", action="store_true", help="keep pictures already in OUT/images (a rerun with another binary)")
    a = ap.parse_args()
    images = a.out / "images"
    images.mkdir(parents=True, exist_ok=True)
    boards = scene_boards(a.labels, a.per_kind) if a.labels.suffix == ".jsonl" else found_boards(a.labels, a.img2fen, a.jobs)
    made = []  # (path, board, margin, scale)
    for b in boards:
        # Named by the board's place in its set, so that --keep finds the same pictures.
        i = b["index"]
        xs, ys = zip(*b["corners"])
        side = max(max(xs) - min(xs), max(ys) - min(ys))
        # The board's own side, for its squares' size (a board turned in a photo is smaller than
        # its box).
        c = b["corners"]
        board_side = sum(math.dist(c[k], c[(k + 1) % 4]) for k in range(4)) / 4
        im = ImageOps.exif_transpose(Image.open(b["path"])).convert("RGB")
        for margin in MARGINS:
            m = round(margin * side)
            box = (round(min(xs)) - m, round(min(ys)) - m, round(max(xs)) + m, round(max(ys)) + m)
            crop = Image.new("RGB", (box[2] - box[0], box[3] - box[1]), "white")
            crop.paste(im.crop((max(0, box[0]), max(0, box[1]), min(im.width, box[2]), min(im.height, box[3]))),
                       (max(0, -box[0]), max(0, -box[1])))
            for scale in SCALES:
                w, h = round(crop.width * scale), round(crop.height * scale)
                if max(w, h) > a.max_side or board_side * scale / 8 < 8:
                    continue
                name = images / f"{i:03d}_m{int(margin * 100):02d}_s{scale:g}.png"
                if not (a.keep and name.exists()):
                    crop.resize((w, h), Image.LANCZOS).save(name)
                made.append((name, b, margin, scale))
    if a.labels.suffix == ".jsonl":
        # A scene's board counts where its crop with a 10% margin reads exactly at 1x.
        native = read(a.img2fen, [m[0] for m in made if m[2:] == (0.10, 1.0)], a.jobs)
        kept = {id(m[1]) for m in made if m[2:] == (0.10, 1.0)
                and exact(native.get(str(m[0]), {}), m[1]["placement"], m[1]["flipped"])[1]}
        made = [m for m in made if id(m[1]) in kept]
    print(f"{len(made)} pictures from {len({id(m[1]) for m in made})} boards read exactly at native size",
          file=sys.stderr)
    got = read(a.img2fen, [m[0] for m in made], a.jobs)
    table = defaultdict(lambda: [0, 0, 0])
    misses = []
    for name, b, margin, scale in made:
        found, ok = exact(got.get(str(name), {}), b["placement"], b["flipped"])
        for key in [(margin, scale), ("all", "all"), ("kind", b["kind"])]:
            t = table[key]
            t[0] += 1
            t[1] += found
            t[2] += ok
        if not ok:
            err = got.get(str(name), {}).get("error") or "misread"
            misses.append(f"{name.name} ({b['source']}): {'found, ' if found else ''}{err}")
    print("| margin | scale | pictures | boards found | read exactly |")
    print("|---|---|---|---|---|")
    for (margin, scale), (n, found, ok) in sorted(table.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        if margin == "kind":
            continue
        label = (f"{int(margin * 100)}%", f"{scale:g}x") if margin != "all" else ("all", "all")
        print(f"| {label[0]} | {label[1]} | {n} | {found} ({100 * found / n:.1f}%) | {ok} ({100 * ok / n:.1f}%) |")
    print()
    print("| kind | pictures | boards found | read exactly |")
    print("|---|---|---|---|")
    for (_, kind), (n, found, ok) in sorted((k, v) for k, v in table.items() if k[0] == "kind"):
        print(f"| {kind} | {n} | {found} ({100 * found / n:.1f}%) | {ok} ({100 * ok / n:.1f}%) |")
    (a.out / "misses.txt").write_text("".join(m + "\n" for m in misses))
    (a.out / "results.json").write_text(json.dumps({f"{k[0]}:{k[1]}": v for k, v in table.items()}, indent=1))
    print(f"{len(misses)} misses listed in {a.out / 'misses.txt'}", file=sys.stderr)


if __name__ == "__main__":
    main()
