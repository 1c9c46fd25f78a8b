#!/usr/bin/env python3
"""Render boards with rank and file coordinates, for the coordinate reader and its measurement.

Each board is drawn with `render_boards.py`'s boards, themes, highlights and piece sets, shown
from White's or Black's side, with its coordinates in one of the ways boards carry them:

  inner   small labels in the corner of the edge squares, in the opposite square colour
          (chess.com: ranks top left of the left file, files bottom right of the bottom rank;
          lichess: ranks top right of the right file, files bottom left), any corner, many fonts
          and sizes (0.11 to 0.3 of a square, at least 7 px), on highlighted squares too;
  outer   labels in a margin outside the board (books, ChessBase, many apps), on two or four
          sides, 0.15 to 0.6 squares from the edge, sometimes upper-case files, with or without
          a frame between board and labels; with `--narrow-share S`, that share of them in a
          frame 0.25-0.45 squares wide on all four sides where the picture ends, as python-chess's
          SVG boards draw them (labelled kind `narrow`; drawn from a random stream of their own, so
          the other boards stay as they were);
  none    no coordinates (then the position is game-like, for the piece-evidence fallback:
          the start position shuffled, or with `--positions real` a real one from
          fetch_assets.py's positions.txt).

A few boards (3%) are drawn with their files reversed (h to a under White's ranks), as some
mirrored diagrams are.

Fonts: Debian's DejaVu and Liberation families and the Computer Modern and STIX fonts that
matplotlib's wheel ships (read out of the wheel from PyPI, cached). `--fonts heldout` renders
only with fonts the training set never saw (HELDOUT_FONTS), to measure on unseen type.

Writes OUT/boards/NNNNNN.{png,jpg}, OUT/manifest.jsonl (image, corners, labels, flipped,
coords, files_reversed, and glyphs: [char, u, v] with the glyph's centre in squares from the
board's top-left corner as displayed, the format `img2fen dataset --labels` reads) and
OUT/labels.csv (file, fen_field1 from White, flipped, kind = the coordinate style; for
`img2fen eval`).

Usage: python3 -m img2fen_training.render.coords --out DIR --count N --seed S [--split train|heldout|all]
                                [--fonts train|heldout|all] [--positions shuffled|real] [--narrow-share S]
"""

import argparse
import glob
import random
import subprocess
import sys
import zipfile
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from img2fen_training.paths import ASSETS, WORK
from img2fen_training.render import boards as rb

MATPLOTLIB_WHEEL = "matplotlib==3.9.2"
WHEEL_FONTS = ["cmr10.ttf", "cmss10.ttf", "cmb10.ttf", "cmtt10.ttf", "STIXGeneral.ttf", "STIXGeneralBol.ttf",
               "STIXGeneralItalic.ttf"]
SYSTEM_FONTS = ["/usr/share/fonts/truetype/dejavu/*.ttf", "/usr/share/fonts/truetype/liberation/*.ttf"]
# Never used for training; `--fonts heldout` measures on them.
HELDOUT_FONTS = {"LiberationSansNarrow-Regular.ttf", "DejaVuSerifCondensed.ttf", "cmss10.ttf", "STIXGeneralBol.ttf",
                 "LiberationMono-Bold.ttf"}
SKIP_FONTS = {"DejaVuMathTeXGyre.ttf", "DejaVuSans-ExtraLight.ttf"}


def fetch_fonts(cache: Path, which: str):
    """Font paths: the system's DejaVu and Liberation, and matplotlib's wheel fonts extracted
    into the cache."""
    cache.mkdir(parents=True, exist_ok=True)
    wheels = sorted(cache.glob("matplotlib-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", MATPLOTLIB_WHEEL, "--no-deps", "-q", "-d", str(cache)],
                       check=True)
        wheels = sorted(cache.glob("matplotlib-*.whl"))
    fonts_dir = cache / "fonts"
    fonts_dir.mkdir(exist_ok=True)
    with zipfile.ZipFile(wheels[0]) as z:
        for n in z.namelist():
            name = n.rsplit("/", 1)[-1]
            if name in WHEEL_FONTS and not (fonts_dir / name).exists():
                (fonts_dir / name).write_bytes(z.read(n))
    paths = sorted(p for pat in SYSTEM_FONTS for p in glob.glob(pat)) + sorted(str(fonts_dir / f) for f in WHEEL_FONTS)
    paths = [p for p in paths if Path(p).name not in SKIP_FONTS]
    if which == "train":
        paths = [p for p in paths if Path(p).name not in HELDOUT_FONTS]
    elif which == "heldout":
        paths = [p for p in paths if Path(p).name in HELDOUT_FONTS]
    if not paths:
        sys.exit("render_coords: no fonts found (apt install fonts-dejavu-core fonts-liberation)")
    return paths


def text_centre(d, pos, text, font, anchor):
    x0, y0, x1, y1 = d.textbbox(pos, text, font=font, anchor=anchor)
    return (x0 + x1) / 2, (y0 + y1) / 2


def labels_for(flipped, files_reversed):
    files = "abcdefgh"[::-1] if flipped else "abcdefgh"
    if files_reversed:
        files = files[::-1]
    ranks = "12345678" if flipped else "87654321"
    return files, ranks


def draw_inner(rng, board, s, light, dark, files, ranks, fonts):
    """Labels in the corners of the edge squares; returns glyphs [char, u, v] in squares."""
    d = ImageDraw.Draw(board)
    # Labels under about 7 px are dots to a person too; draw none smaller.
    size = max(rng.uniform(0.11, 0.3), 7 / s)
    font = ImageFont.truetype(rng.choice(fonts), max(7, int(round(s * size))))
    pad = s * rng.uniform(0.02, 0.08)
    rank_col = 7 if rng.random() < 0.35 else 0  # lichess draws them in the right file
    rank_top = rng.random() < 0.85
    file_row = 0 if rng.random() < 0.05 else 7
    file_right = rng.random() < 0.6
    upper = rng.random() < 0.05
    opposite = rng.random() < 0.8
    fixed = rng.choice([(255, 255, 255), (30, 30, 30), (90, 90, 90), (200, 200, 200)])
    glyphs = []

    def put(text, r, c, right, top):
        col = (dark if (r + c) % 2 == 0 else light) if opposite else fixed
        x = c * s + (s - pad if right else pad)
        y = r * s + (pad if top else s - pad)
        anchor = ("r" if right else "l") + ("t" if top else "b")
        if not top:
            anchor = anchor[0] + "d"  # descender line: letters sit on the square's edge
        d.text((x, y), text, fill=col, font=font, anchor=anchor)
        cx, cy = text_centre(d, (x, y), text, font, anchor)
        glyphs.append([text.lower(), cx / s, cy / s])

    for r in range(8):
        put(ranks[r], r, rank_col, rank_col == 7, rank_top)
    for c in range(8):
        put(files[c].upper() if upper else files[c], file_row, c, file_right, file_row == 0)
    return glyphs


def draw_outer(rng, img, d, ox, oy, s, files, ranks, fonts, bg, narrow=None):
    """Labels in the margin; returns glyphs [char, u, v] in squares from the board's corner. With
    `narrow` (the frame's width in squares), they stand in the middle of a frame that narrow on
    all four sides, at most 0.8 of it high."""
    n = 8 * s
    face, size = rng.choice(fonts), s * rng.uniform(0.2, 0.45)
    fc = tuple(255 - v for v in bg) if sum(bg) < 380 else tuple(rng.randint(0, 70) for _ in range(3))
    upper = rng.random() < 0.15
    dist = rng.uniform(0.2, 0.6)
    sides = rng.choices([("left", "bottom"), ("right", "bottom"), ("left", "bottom", "right", "top"), ("left", "top")],
                        weights=[60, 10, 20, 10])[0]
    if narrow:
        size, dist, sides = min(size, 0.8 * narrow * s), narrow / 2, ("left", "bottom", "right", "top")
    font = ImageFont.truetype(face, max(8, int(round(size))))
    glyphs = []
    for side in sides:
        for k in range(8):
            if side in ("left", "right"):
                text = ranks[k]
                x = ox - dist * s if side == "left" else ox + n + dist * s
                y = oy + k * s + s / 2
            else:
                text = files[k].upper() if upper else files[k]
                x = ox + k * s + s / 2
                y = oy + n + dist * s if side == "bottom" else oy - dist * s
            d.text((x, y), text, fill=fc, font=font, anchor="mm")
            cx, cy = text_centre(d, (x, y), text, font, "mm")
            glyphs.append([text.lower(), (cx - ox) / s, (cy - oy) / s])
    return glyphs


SETS, TEXTURES, FONTS, POSITIONS = {}, [], [], []


OPTIONS = {}


def init_worker(assets, split, cache, fonts, positions, narrow_share=0.0):
    OPTIONS.update(narrow_share=narrow_share)
    SETS.update(rb.load_sets(assets, split))
    if positions == "real":
        POSITIONS.extend(rb.load_positions(assets))
    TEXTURES.extend(rb.load_textures(assets))
    FONTS.extend(fetch_fonts(cache, fonts))


def render_one(args):
    idx, seed, out = args
    rng = random.Random(seed)
    pset = SETS[rng.choice(sorted(SETS))]
    s = int(round(rng.uniform(22, 80)))
    mode = rng.choices(["inner", "outer", "none"], weights=[45, 35, 20])[0]
    book = mode == "outer" and rng.random() < 0.6
    flipped = rng.random() < 0.5
    cells = rb.random_position(rng, dense_share=0.0 if mode == "none" else 0.3, flip=flipped,
                               positions=POSITIONS, real_share=1.0)
    files_reversed = mode != "none" and rng.random() < 0.03
    files, ranks = labels_for(flipped, files_reversed)
    board, light, dark, is_book = rb.draw_board(rng, s, TEXTURES, style="book" if book else "screen")
    if not is_book:
        rb.overlay_squares(rng, board, s, cells)
    glyphs = []
    if mode == "inner":
        glyphs = draw_inner(rng, board, s, light, dark, files, ranks, FONTS)
    if not is_book:
        rb.draw_dots(rng, board, s, cells)
    rb.paste_pieces(board, s, cells, pset, fill=rng.uniform(0.72, 0.95),
                    resample=rng.choice([Image.LANCZOS, Image.BILINEAR, Image.BICUBIC]),
                    jitter=lambda i: (rng.uniform(-0.02, 0.02) * s, rng.uniform(-0.03, 0.03) * s))

    n = 8 * s
    lo = 0.85 if mode == "outer" else 0.0
    m = [int(s * rng.uniform(lo, 1.3)) for _ in range(4)]  # left, top, right, bottom
    # Narrow frames come from a stream of their own, so that every other board stays the same.
    own = random.Random(seed ^ 0x6E61)
    narrow = own.uniform(0.25, 0.45) if mode == "outer" and own.random() < OPTIONS.get("narrow_share", 0.0) else None
    if narrow:
        m = [max(3, int(round(s * narrow)))] * 4
    if is_book:
        bg = (255, 255, 255) if rng.random() < 0.7 else (rng.randint(225, 250),) * 3
    else:
        bg = tuple(rng.randint(0, 255) for _ in range(3)) if rng.random() < 0.6 else (rng.randint(0, 255),) * 3
    img = Image.new("RGB", (n + m[0] + m[2], n + m[1] + m[3]), bg)
    img.paste(board, (m[0], m[1]))
    d = ImageDraw.Draw(img)
    if rng.random() < (0.6 if is_book else 0.2):
        fw = rng.randint(1, max(1, s // 10))
        fc = tuple(rng.randint(0, 90) for _ in range(3))
        d.rectangle([m[0] - fw, m[1] - fw, m[0] + n + fw - 1, m[1] + n + fw - 1], outline=fc, width=fw)
    if mode == "outer":
        glyphs = draw_outer(rng, img, d, m[0], m[1], s, files, ranks, FONTS, bg, narrow=m[0] / s if narrow else None)
    rb.draw_arrows(rng, img, s, m[0], m[1])
    corners = [[m[0], m[1]], [m[0] + n, m[1]], [m[0] + n, m[1] + n], [m[0], m[1] + n]]
    if is_book and rng.random() < 0.7:
        img = rb.print_effects(rng, img, halftone=rng.random() < 0.3)
    path, corners = rb.degrade_and_save(rng, img, corners, out, idx, resize=0.4, scale=(0.6, 1.3),
                                        filters=(Image.BILINEAR, Image.BICUBIC, Image.LANCZOS, Image.BOX),
                                        blur=0.1, blur_radius=(0.3, 0.9), noise_mix=(0.03, 0.1), jpeg=0.5,
                                        quality=(40, 95))
    labels = rb.display_labels(cells)
    return {"image": path, "corners": corners, "labels": labels, "flipped": int(flipped),
            "coords": "narrow" if narrow else mode,
            "files_reversed": int(files_reversed), "glyphs": [[g, round(u, 3), round(v, 3)] for g, u, v in glyphs]}


def placement_from_white(labels, flipped):
    """FEN field 1 of display labels (see `render_boards.display_labels`) of a board shown from
    Black's side when `flipped`."""
    letters = labels.replace("/", "")
    return rb.fen_placement(letters[::-1] if flipped else letters)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assets", type=Path, default=ASSETS)
    ap.add_argument("--cache", type=Path, default=WORK / "cache")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--split", choices=["train", "heldout", "all"], default="train")
    ap.add_argument("--fonts", choices=["train", "heldout", "all"], default="train")
    ap.add_argument("--positions", choices=["shuffled", "real"], default="shuffled",
                    help="game-like positions: the start position shuffled, or real ones (fetch_assets.py's positions.txt)")
    ap.add_argument("--narrow-share", type=float, default=0.0,
                    help="share of the boards with outside labels drawn in a narrow frame where the picture ends")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if a.positions == "real" and not rb.load_positions(a.assets):
        sys.exit(f"render_coords: no real positions in {a.assets / 'positions.txt'}; run fetch_assets.py")
    (a.out / "boards").mkdir(parents=True, exist_ok=True)
    fetch_fonts(a.cache, a.fonts)  # once here, so that workers do not race to extract
    jobs = [(i, a.seed * 1_000_003 + i, a.out) for i in range(a.count)]
    recs = []
    rb.write_jsonl(a.out / "manifest.jsonl", render_one, jobs, a.jobs, init_worker,
                   (a.assets, a.split, a.cache, a.fonts, a.positions, a.narrow_share), chunksize=16, keep=recs)
    with open(a.out / "labels.csv", "w") as f:
        f.write("file,fen_field1,flipped,kind\n")
        for r in recs:
            if r["files_reversed"]:
                continue  # their FEN depends on reading reversed files, measured separately
            f.write(f"{r['image']},{placement_from_white(r['labels'], r['flipped'])},{r['flipped']},{r['coords']}\n")
    print(f"{a.count} boards in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
