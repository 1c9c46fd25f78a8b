#!/usr/bin/env python3
"""Typeset chess diagrams with LaTeX, as books set them, with exact labels and corners.

Many chess books are set in LaTeX with the `chessboard` package and the skak fonts (Debian's
texlive-games). This script typesets diagrams that way: a position from render_boards.py's mix
(real positions and dense random boards), in the skak or SkakNew font, dark squares hatched (the
font's own glyphs) or flat grey (the LSBC colour encodings), at board font sizes from 10 to 30 pt,
with or without a frame of some weight, coordinates outside (two or four sides, several label
fonts), the side-to-move mark, marked squares and arrows, shown from either side, between lines
of move text and a caption. pdflatex sets them; pdftoppm rasterises each page at a resolution
that gives squares of 20-90 px; then the page is cropped around the diagram and may be scanned:
a slight turn, ink spread, render_boards.py's print effects (blur, paper tint, binarisation or
halftone) and its resampling, noise and JPEG.

The corners are measured, not computed from TeX's dimensions: each diagram is typeset twice on
facing pages with the same keys, the second time with the board painted red over everything
(`markboard`) and the coordinates blue. The red square's edges are found to a fraction of a pixel
on the second page, and the crop is grown to keep the blue labels whole.

Writes OUT/boards/NNNNNN.{png,jpg}, OUT/manifest.jsonl (the format `img2fen dataset` reads, as
render_boards.py writes it; `set` is latex-skak or latex-skaknew), OUT/labels.csv (the format
`img2fen eval` reads; kind latex-hatched, latex-grey or latex-light; a last column says whether
coordinates are drawn: outside or none) and OUT/scenes.jsonl (the format `img2fen eval-locate`
reads: the corners of each picture's one board).

With --pages, it sets whole book pages instead: 2-6 diagrams of one look (board fonts of 10-16
pt) in two columns between paragraphs and captions, at 100-300 dpi, scanned or not as above
(grey pages always dithered), and writes only
OUT/scenes.jsonl with the corners of every board on the page, for `img2fen eval-locate`.

Needs pdflatex and pdftoppm: apt-get install texlive-latex-base texlive-latex-recommended
texlive-latex-extra texlive-games texlive-pictures poppler-utils

Usage: python3 -m img2fen_training.render.latex --out DIR --count N [--seed S] [--jobs 2] [--pages]
"""

import argparse
import math
import random
import shutil
import subprocess
import sys
import tempfile
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from img2fen_training import paths
from img2fen_training.render import boards as rb

BATCH = 25  # diagrams per pdflatex run
WORDS = ("the white king rook bishop knight queen pawn black move wins draws after threat with "
         "attack defence endgame position square file rank and but now because diagram game "
         "strong weak plan idea sacrifice exchange").split()
LABEL_FONTS = [r"\sffamily", r"\rmfamily", r"\bfseries\sffamily", r"\bfseries\rmfamily", r"\ttfamily",
               r"\itshape\rmfamily"]


def move_text(rng, n):
    """A line of game notation, as books print it between diagrams."""
    out, k = [], rng.randint(1, 40)
    for _ in range(n):
        piece = rng.choice(["", "", "N", "B", "R", "Q", "K"])
        sq = lambda: rng.choice("abcdefgh") + str(rng.randint(1, 8))
        out.append(f"{k}.{piece}{sq()} {rng.choice(['', 'N', 'B', 'R'])}{sq()}")
        k += 1
    return " ".join(out)


def prose(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def diagram_keys(rng, placement, sizes=(10, 30), look=None):
    """One diagram's look, drawn from `rng` (board font sizes within `sizes`; the font family and
    the dark squares' shade from `look` when given): its chessboard keys, its marker page's keys
    (`marker_keys`), the font family, the dark squares' style (hatched, grey or light), whether
    it is shown from Black's side and whether it carries coordinates."""
    family = rng.choice(["skak", "skaknew"])
    shade = rng.random()
    if look is not None:  # one book, one look: the (family, shade) drawn for its page
        family, shade = look
    size = rng.randint(*sizes)
    keys = [f"setfen={placement}", f"boardfontsize={size}pt", f"boardfontfamily={family}"]
    if family == "skaknew" and shade < 0.3:
        style = "grey"
        # In the colour encodings `whitefieldcolor` fills the squares the font draws dark:
        # swapped, a8 comes out light as it should.
        keys += [f"boardfontencoding=LSBC{rng.choice([2, 3, 4])}",
                 f"whitefieldcolor=black!{rng.randint(25, 55)}", "blackfieldcolor=white", "setfontcolors"]
    elif family == "skaknew" and shade < 0.4:
        style = "light"
        # Here `blackfieldcolor` is the colour of the hatching.
        keys += ["boardfontencoding=LSBC1", f"blackfieldcolor=black!{rng.randint(60, 100)}",
                 "whitefieldcolor=white", "setfontcolors"]
    else:
        style = "hatched"
    labelled = rng.random() < 0.65
    if labelled:
        label_font = rng.choice(LABEL_FONTS)
        # Label sizes as chessboard's own presets pair them with the board font (6/10, 8/15,
        # 10/20, 12/30 pt), a little either side.
        keys += ["label=false", "labelleft=true", "labelbottom=true", f"labelfont={label_font}",
                 f"labelfontsize={max(5, round(size * rng.uniform(0.35, 0.65)))}pt"]
        if rng.random() < 0.15:
            keys += ["labeltop=true", "labelright=true"]
    else:
        keys.append("label=false")
    if rng.random() < 0.75:
        # chessboard sets the coordinates at a fixed distance from the board, so a heavy frame
        # would cover them: with coordinates, a frame no heavier than a book would print.
        heaviest = 0.07 * size if labelled else 4.0
        keys += ["border=true", f"borderwidth={rng.uniform(0.3, max(0.4, heaviest)):.2f}pt"]
    else:
        keys.append("border=false")
    keys.append(f"showmover={'true' if rng.random() < 0.25 else 'false'}")
    if rng.random() < 0.15:
        squares = ",".join(rng.choice("abcdefgh") + str(rng.randint(1, 8)) for _ in range(rng.randint(1, 3)))
        keys += ["pgfstyle=border", f"color=black!{rng.randint(40, 100)}", f"markfields={{{squares}}}"]
    if rng.random() < 0.1:
        a, b = (rng.choice("abcdefgh") + str(rng.randint(1, 8)) for _ in range(2))
        if a != b:
            keys += ["pgfstyle=straightmove", "arrow=to", f"color=black!{rng.randint(50, 100)}",
                     f"markmoves={{{a}-{b}}}"]
    inverse = rng.random() < 0.25
    if inverse:
        keys.append("inverse")
    return keys, marker_keys(keys, label_font if labelled else None), family, style, inverse, labelled


def marker_keys(keys, label_font=None):
    """The marker page's keys: the diagram's own, with the board painted red on top and the
    coordinates (set in `label_font`, when drawn) blue."""
    marker = keys + ["pgfstyle=color", "color=red", "opacity=1", "markboard"]
    if label_font:
        marker.append(f"labelfont={{\\color{{blue}}{label_font}}}")
    return marker


def page(keys, text):
    """One diagram between lines of text; `text` is (before, caption)."""
    before, caption = text
    return (f"{before}\\par\\medskip\n\\begin{{center}}\n\\chessboard[{', '.join(keys)}]\n\\end{{center}}\n"
            f"{{\\small\\centering {caption}\\par}}\n\\newpage\n")


def edges(profile):
    """The two edges of a run of full coverage in a coverage profile (0-1 per pixel column or
    row), to a fraction of a pixel: a partly covered pixel beside the run adds its share."""
    full = np.flatnonzero(profile > 0.5)
    lo, hi = int(full[0]), int(full[-1])
    left = lo - (profile[lo - 1] if lo > 0 else 0.0)
    right = hi + 1 + (profile[hi + 1] if hi + 1 < len(profile) else 0.0)
    return float(left), float(right)


def red_square(img):
    """The left, top, right and bottom edges of the red board on a marker page."""
    a = np.asarray(img.convert("RGB"), dtype=np.float32)
    red = np.clip((a[..., 0] - a[..., 1]) / 255.0, 0, 1)
    rows = np.flatnonzero(red.max(axis=1) > 0.9)
    cols = np.flatnonzero(red.max(axis=0) > 0.9)
    mid_r = slice(rows[0] + 2, rows[-1] - 1)
    mid_c = slice(cols[0] + 2, cols[-1] - 1)
    left, right = edges(red[mid_r].mean(axis=0))
    top, bottom = edges(red[:, mid_c].mean(axis=1))
    return left, top, right, bottom


def keeping_labels(box, marker, pad):
    """A crop box (left, top, right, bottom) grown to hold the blue coordinates of a marker page
    whole, `pad` pixels round them, within the page."""
    a = np.asarray(marker.convert("RGB"), dtype=np.int16)
    ys, xs = np.nonzero(a[..., 2] - a[..., 0] > 60)
    if len(xs):
        box = [min(box[0], int(xs.min()) - pad), min(box[1], int(ys.min()) - pad),
               max(box[2], int(xs.max()) + 1 + pad), max(box[3], int(ys.max()) + 1 + pad)]
    return [max(0, box[0]), max(0, box[1]), min(marker.width, box[2]), min(marker.height, box[3])]


def rasterise(pdf, page_no, dpi, prefix, region=None):
    """One page at `dpi`, or the part of it in `region` (x, y, width, height in pixels at `dpi`)."""
    crop = [] if region is None else ["-x", str(region[0]), "-y", str(region[1]), "-W", str(region[2]),
                                      "-H", str(region[3])]
    subprocess.run(["pdftoppm", "-r", f"{dpi:.3f}", "-f", str(page_no), "-l", str(page_no), *crop, "-png",
                    "-singlefile", str(pdf), str(prefix)], check=True, capture_output=True)
    return Image.open(f"{prefix}.png").convert("RGB")


def turn(rng, img, corners, max_deg):
    """Turns the scan by a small angle about its centre, white paper filling the corners."""
    ang = rng.uniform(-max_deg, max_deg)
    w, h = img.size
    out = img.rotate(ang, resample=Image.BICUBIC, expand=True, fillcolor=(255, 255, 255))
    t = math.radians(ang)
    cx, cy, ox, oy = w / 2, h / 2, out.width / 2, out.height / 2
    # PIL turns anticlockwise on screen for a positive angle.
    rot = lambda x, y: (ox + (x - cx) * math.cos(t) + (y - cy) * math.sin(t),
                        oy - (x - cx) * math.sin(t) + (y - cy) * math.cos(t))
    return out, [list(rot(x, y)) for x, y in corners]


PREAMBLE = ("\\documentclass{{article}}\n\\usepackage[{paper}]{{geometry}}\n"
            "\\usepackage[LSBC1,LSBC2,LSBC3,LSBC4,OT1]{{fontenc}}\n\\usepackage{{xcolor}}\n"
            "\\usepackage{{chessboard}}\n\\pagestyle{{empty}}\n\\setlength{{\\parindent}}{{0pt}}\n")
DIAGRAM_PAPER = "paperwidth=14cm,paperheight=17cm,margin=0.8cm"  # one diagram a page
BOOK_PAPER = "a4paper,margin=1.5cm"  # render_page's book pages


def typeset(pages, tmp, paper=DIAGRAM_PAPER, name="diagrams"):
    """Sets `pages` (each picture's page, then its marker page) on `paper` (geometry's options)
    with pdflatex in folder `tmp`; returns the PDF's path. `name` says what failed."""
    (tmp / "d.tex").write_text(PREAMBLE.format(paper=paper) + "\\begin{document}\n" + "".join(pages)
                               + "\\end{document}\n")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "d.tex"], cwd=tmp,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"pdflatex failed on {name}:\n{run.stdout[-3000:]}")
    return tmp / "d.pdf"


def scan(rng, img, points, ss, halftone=False, pieces=None):
    """A printed page scanned: ink spread at the set size (a hairline of the font's hatching
    prints a pixel wider each side, so that binarisation keeps it as scans do), then
    render_boards.print_effects (blur, paper, binarisation, or halftone dots with `halftone`;
    a threshold that keeps `pieces` readable when given) and the scan shrunk `ss` times.
    Returns the picture and `points` carried along."""
    img = img.filter(ImageFilter.MinFilter(3))
    img = rb.print_effects(rng, img, halftone=halftone, pieces=pieces)
    img = img.resize((round(img.width / ss), round(img.height / ss)), Image.BOX)
    return img, [[x / ss, y / ss] for x, y in points]


def raster_diagram(pdf, k, s_want, tmp):
    """Diagram `k` of a typeset PDF at the resolution that gives squares of about `s_want`
    pixels, cut to the board and four squares round it: the picture, its marker page and the
    board's left, top, right and bottom edges in it."""
    l, t, r, b = red_square(rasterise(pdf, 2 * k + 2, 72.0, tmp / "probe"))
    f = s_want / ((r - l) / 8)  # pixels at the chosen resolution per pixel at 72 dpi
    dpi = 72.0 * f
    x0, y0 = max(0, int((l - (r - l) / 2) * f)), max(0, int((t - (r - l) / 2) * f))
    region = (x0, y0, int(2 * (r - l) * f), int(2 * (b - t) * f))
    img = rasterise(pdf, 2 * k + 1, dpi, tmp / "page", region)
    marker = rasterise(pdf, 2 * k + 2, dpi, tmp / "marker", region)
    return img, marker, red_square(marker)


def book_scan(keys, label_font, text, s, seed):
    """One diagram typeset with `keys` (coordinates in `label_font`, or None) between the lines
    of `text`, printed and scanned with squares of `s` pixels: the ink spread, blur, paper and
    binarisation of render_boards.print_effects, drawn from `seed`. Returns the picture, cut
    half a square round the board and its coordinates, and the board's corners in it."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pdf = typeset([page(keys, text), page(marker_keys(keys, label_font), text)], tmp)
        img, marker, (l, t, r, b) = raster_diagram(pdf, 0, 3 * s, tmp)
    box = [int(l - 1.5 * s), int(t - 1.5 * s), int(r + 1.5 * s) + 1, int(b + 1.5 * s) + 1]
    box = keeping_labels(box, marker, 6)
    return scan(rng, img.crop(box), [[x - box[0], y - box[1]] for x, y in ((l, t), (r, t), (r, b), (l, b))], 3)


def render_batch(args):
    first, seeds, out = args
    positions = rb.load_positions(ASSETS[0])
    recs, pages, plans = [], [], []
    for seed in seeds:
        rng = random.Random(seed)
        cells = rb.random_position(rng, flip=False, positions=positions)
        placement = rb.fen_placement([rb.FEN_CHAR[c] if c else None for c in cells])
        keys, marker_keys, family, style, inverse, labelled = diagram_keys(rng, placement)
        text = (" ".join([move_text(rng, rng.randint(2, 6)), prose(rng, rng.randint(5, 25))])
                if rng.random() < 0.7 else "",
                rng.choice([f"Diagram {rng.randint(1, 300)}", "White to move", "Black to move",
                            f"Position after {move_text(rng, 1)}", prose(rng, rng.randint(3, 8)), ""]))
        pages.append(page(keys, text))
        # The marker page: the same diagram and text, the board red and the coordinates blue.
        pages.append(page(marker_keys, text))
        plans.append((rng, cells, family, style, inverse, labelled))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pdf = typeset(pages, tmp, name=f"the batch from {first}")
        for k, (rng, cells, family, style, inverse, labelled) in enumerate(plans):
            s_want = math.exp(rng.uniform(math.log(20), math.log(90)))
            # A printed page is scanned at a resolution where the type and the hatching are
            # crisp, and binarised or dithered there; the scan may then be shrunk. Those are set
            # at three times the size.
            printed = rng.random() < 0.6
            ss = 3 if printed else 1
            s_want *= ss
            img, marker, (l, t, r, b) = raster_diagram(pdf, k, s_want, tmp)
            s = (r - l) / 8
            # Crop around the diagram: the coordinates, the frame and some of the text.
            m = [s * rng.uniform(0.05, 1.5) for _ in range(4)]
            if rng.random() < 0.3:
                m[1] += s * rng.uniform(0, 2.5)
                m[3] += s * rng.uniform(0, 2.5)
            box = [max(0, int(l - m[0])), max(0, int(t - m[1])), min(img.width, int(r + m[2]) + 1),
                   min(img.height, int(b + m[3]) + 1)]
            # Drawn coordinates stay whole in the crop: a cut-off label is no label.
            box = keeping_labels(box, marker, 2)
            img = img.crop(box)
            corners = [[l - box[0], t - box[1]], [r - box[0], t - box[1]], [r - box[0], b - box[1]],
                       [l - box[0], b - box[1]]]
            if rng.random() < 0.4:
                img, corners = turn(rng, img, corners, 2.0)
            if printed:
                # Print screens grey into dots: a binarised scan of a grey diagram keeps them
                # dotted (a threshold below the grey would black the squares and hide Black's
                # pieces on them, which no printed book shows).
                img, corners = scan(rng, img, corners, ss, halftone=style == "grey" or rng.random() < 0.3)
                s /= ss
            idx = first + k
            path, corners = rb.degrade_and_save(rng, img, corners, out, idx)
            shown = cells[::-1] if inverse else cells
            recs.append({"image": path, "corners": corners, "labels": rb.display_labels(shown),
                         "set": f"latex-{family}", "square_px": round(s), "style": style, "flipped": inverse,
                         "coords": "outside" if labelled else "none",
                         "fen": rb.fen_placement([rb.FEN_CHAR[c] if c else None for c in cells])})
    return recs


def board_boxes(marker):
    """The left, top, right and bottom edges of every red board on a marker page that holds
    several, in reading order: boards in a column of the page are told apart by the white between
    them, columns likewise."""
    a = np.asarray(marker.convert("RGB"), dtype=np.float32)
    red = (a[..., 0] - a[..., 1]) > 0.9 * 255

    def runs(flags):
        idx = np.flatnonzero(flags)
        if len(idx) == 0:
            return []
        cuts = np.flatnonzero(np.diff(idx) > 1)
        starts, ends = np.r_[idx[0], idx[cuts + 1]], np.r_[idx[cuts], idx[-1]]
        return [(int(s0), int(e0) + 1) for s0, e0 in zip(starts, ends)]

    boxes = []
    for x0, x1 in runs(red.any(axis=0)):
        for y0, y1 in runs(red[:, x0:x1].any(axis=1)):
            pad = 3
            cx0, cy0 = max(0, x0 - pad), max(0, y0 - pad)
            crop = marker.crop((cx0, cy0, x1 + pad, y1 + pad))
            l, t, r, b = red_square(crop)
            boxes.append((l + cx0, t + cy0, r + cx0, b + cy0))
    return sorted(boxes, key=lambda q: (round(q[1] / (q[3] - q[1])), q[0]))


def render_page(args):
    """One book page set by LaTeX with 2-6 diagrams in two columns, captions and text between
    them, perhaps printed and scanned: a scene for `img2fen eval-locate`."""
    idx, seed, out = args
    rng = random.Random(seed)
    positions = rb.load_positions(ASSETS[0])
    n = rng.randint(2, 6)
    sizes = (10, 16)
    look = (rng.choice(["skak", "skaknew"]), rng.random())
    grey = look[0] == "skaknew" and look[1] < 0.3
    body, marked = [], []
    for k in range(n):
        cells = rb.random_position(rng, flip=False, positions=positions)
        placement = rb.fen_placement([rb.FEN_CHAR[c] if c else None for c in cells])
        keys, marker, _, _, _, _ = diagram_keys(rng, placement, sizes, look)
        caption = rng.choice([f"Diagram {rng.randint(1, 300)}", "White to move", "Black to move", ""])
        cell = lambda ks, caption=caption: (f"\\begin{{minipage}}[t]{{0.48\\textwidth}}\\centering\n\\chessboard[{', '.join(ks)}]\n"
                           f"\\par{{\\small {caption}}}\n\\end{{minipage}}")
        sep = "\\hfill\n" if k % 2 == 0 else "\\par\\medskip\n"
        text = f"{prose(rng, rng.randint(10, 40))} {move_text(rng, rng.randint(2, 6))}\\par\\medskip\n" if (
            k % 2 == 1 and rng.random() < 0.6) else ""
        body.append(cell(keys) + sep + text)
        marked.append(cell(marker) + sep + text)
    intro = f"{prose(rng, rng.randint(20, 60))} {move_text(rng, 4)}\\par\\medskip\n"
    pages = [intro + "".join(body) + "\\newpage\n", intro + "".join(marked) + "\\newpage\n"]
    # Scanned at 100-300 dpi; a printed page is set at two or three times that, as the single
    # diagrams are, for the ink spread and the binarisation.
    printed = rng.random() < 0.6
    dpi = math.exp(rng.uniform(math.log(100), math.log(300)))
    ss = (3 if dpi <= 200 else 2) if printed else 1
    dpi *= ss
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pdf = typeset(pages, tmp, paper=BOOK_PAPER, name=f"page {idx}")
        img = rasterise(pdf, 1, dpi, tmp / "page")
        boxes = board_boxes(rasterise(pdf, 2, dpi, tmp / "marker"))
    # Every board's four corners in one list, carried through the turn, the scan and the save.
    flat = [p for l, t, r, b in boxes for p in ([l, t], [r, t], [r, b], [l, b])]
    if rng.random() < 0.5:
        img, flat = turn(rng, img, flat, 2.0)
    if printed:
        img, flat = scan(rng, img, flat, ss, halftone=grey or rng.random() < 0.3)
    path, flat = rb.degrade_and_save(rng, img, flat, out, idx)
    return {"image": path, "kind": "latex-page", "boards": [{"corners": flat[4 * k:4 * k + 4]} for k in range(len(boxes))]}


ASSETS = []


def init_worker(assets):
    ASSETS.append(assets)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assets", type=Path, default=paths.ASSETS,
                    help="fetch_assets.py's folder, for its real positions (dense random boards without it)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--pages", action="store_true",
                    help="set whole book pages of 2-6 diagrams instead, for the board finder: writes only "
                         "OUT/scenes.jsonl (the format `img2fen eval-locate` reads)")
    a = ap.parse_args()
    for tool in ("pdflatex", "pdftoppm"):
        if not shutil.which(tool):
            sys.exit(f"render_latex: {tool} is missing; apt-get install texlive-latex-base texlive-latex-recommended "
                     "texlive-latex-extra texlive-games texlive-pictures poppler-utils")
    (a.out / "boards").mkdir(parents=True, exist_ok=True)
    seeds = [a.seed * 1_000_003 + i for i in range(a.count)]
    if a.pages:
        with Pool(a.jobs, initializer=init_worker, initargs=(a.assets,)) as pool, \
                open(a.out / "scenes.jsonl", "w") as scenes:
            for rec in pool.imap(render_page, [(i, seeds[i], a.out) for i in range(a.count)]):
                scenes.write(rb.json.dumps(rec) + "\n")
        print(f"{a.count} LaTeX book pages in {a.out}", file=sys.stderr)
        return
    jobs = [(i, seeds[i:i + BATCH], a.out) for i in range(0, a.count, BATCH)]
    with Pool(a.jobs, initializer=init_worker, initargs=(a.assets,)) as pool, \
            open(a.out / "manifest.jsonl", "w") as man, open(a.out / "labels.csv", "w") as csv, \
            open(a.out / "scenes.jsonl", "w") as scenes:
        csv.write("file,fen_field1,flipped,kind,coords\n")
        for recs in pool.imap(render_batch, jobs):
            for rec in recs:
                fen, flipped, style, coords = rec.pop("fen"), rec.pop("flipped"), rec.pop("style"), rec.pop("coords")
                man.write(rb.json.dumps(rec) + "\n")
                csv.write(f"{rec['image']},{fen},{int(flipped)},latex-{style},{coords}\n")
                scenes.write(rb.json.dumps({"image": rec["image"], "kind": f"latex-{style}",
                                            "boards": [{"corners": rec["corners"]}]}) + "\n")
    print(f"{a.count} LaTeX diagrams in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
