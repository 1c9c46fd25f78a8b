#!/usr/bin/env python3
"""Render whole pictures with known boards: the localisation benchmark and the batch benchmark.

Kinds of picture (each with the exact outer corners and position of every board in it):
  screen  a screenshot: an app or web page (header, panels, text, buttons) with one board, or
          two side by side, square sizes 16-120 px, PNG or JPEG;
  book    a scanned book page: text, 2-6 diagrams in book style (typeset in a chess font, or
          hatched or grey dark squares under pasted pieces; frames, coordinates outside,
          captions), print and scan effects, a slight rotation;
  photo   a phone photo of a screen or a page: perspective, rotation up to 20 degrees, uneven
          light, vignetting, glare, defocus, sensor noise, phone JPEG;
  pdf     (only when asked for) a PDF viewer showing a page with one diagram in a thin frame,
          dark squares a faint anti-aliased hatch, coordinates outside, text around;
  none    no board at all: photos (the ones scikit-image ships, fetched from PyPI), text pages,
          web pages, spreadsheets and calendars (grids with text), photos of text pages.

Positions are game-like (85%: real positions from fetch_assets.py's positions.txt or the start
position shuffled) or dense random boards (15%, most of the grid's corners hidden), shown from
Black's side 30% of the time.

Writes OUT/images/NNNNN.{png,jpg} and OUT/scenes.jsonl, one line per picture:
  {"image": "images/00001.png", "kind": "book",
   "boards": [{"corners": [[x,y] x4: top-left, top-right, bottom-right, bottom-left],
               "placement": FEN field 1 as seen from White, "flipped": 0|1, "square_px": s}]}
which `img2fen eval-locate OUT/scenes.jsonl` measures, and OUT/labels.csv, the pictures with
one board in `img2fen eval`'s format (file, fen_field1, flipped, kind).

Usage: python3 -m img2fen_training.render.scenes --out DIR [--count 600] [--negatives 200] [--seed 1]
         [--kinds screen,book,photo] [--photo-size 2000x1500] [--assets work/assets]
"""

import argparse
import io
import math
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from img2fen_training.paths import ASSETS, WORK
from img2fen_training.render import boards as rb

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
SKIMAGE_WHEEL = "scikit-image==0.24.0"
# Checkerboards without pieces are boards of a kind: they are not negatives.
SKIMAGE_SKIP = {"chessboard_GRAY.png", "chessboard_RGB.png", "multipage.tif", "no_time_for_that_tiny.gif"}

SETS, TILES, TEXTURES, PHOTOS, POSITIONS = {}, {}, [], [], []


def fetch_photos(cache: Path):
    """The photos scikit-image ships, read out of its wheel from PyPI (cached)."""
    cache.mkdir(parents=True, exist_ok=True)
    wheels = list(cache.glob("scikit_image-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", SKIMAGE_WHEEL, "--no-deps", "-q", "-d", str(cache)], check=True)
        wheels = list(cache.glob("scikit_image-*.whl"))
    out = []
    with zipfile.ZipFile(wheels[0]) as z:
        for n in sorted(z.namelist()):
            name = n.rsplit("/", 1)[-1]
            if n.startswith("skimage/data/") and name.split(".")[-1] in ("png", "jpg") and name not in SKIMAGE_SKIP:
                out.append(Image.open(io.BytesIO(z.read(n))).convert("RGB"))
    return out


def init_worker(assets, cache):
    SETS.update(rb.load_sets(assets, "all"))
    TILES.update(rb.load_tiles(assets, "all"))
    POSITIONS.extend(rb.load_positions(assets))
    TEXTURES.extend(rb.load_textures(assets))
    PHOTOS.extend(fetch_photos(cache))


def words(rng, n):
    out = []
    for _ in range(n):
        if rng.random() < 0.12:
            k = rng.randint(1, 40)
            out.append(f"{k}.{rng.choice(['e4', 'Nf3', 'Bb5', 'O-O', 'Rxe8+', 'd5', 'Qh5', 'c4'])}")
        else:
            out.append("".join(rng.choice("etaoinshrdlucmfwypvbgk") for _ in range(rng.randint(1, 9))))
    return " ".join(out)


def text_block(d, rng, box, font, fill, line_h):
    x0, y0, x1, y1 = box
    y = y0
    while y + line_h <= y1:
        t = words(rng, 30)
        while font.getlength(t) > x1 - x0 and len(t) > 1:
            t = t[: int(len(t) * 0.9)]
        d.text((x0, y), t, font=font, fill=fill)
        y += line_h


def position(rng):
    """Display-order cells and whether Black is at the bottom. Mostly game-like positions, as
    people photograph them (real ones when fetch_assets.py's positions.txt is there), some dense
    random boards that hide most of the grid's corners; 30% shown from Black's side."""
    flipped = rng.random() < 0.3
    cells = rb.random_position(rng, dense_share=0.15, flip=flipped, positions=POSITIONS)
    return cells, flipped


def placement_from_white(cells, flipped):
    """FEN field 1 of display-order cells (piece codes) shown from Black's side when `flipped`."""
    return rb.fen_placement([rb.FEN_CHAR[c] if c else None for c in (cells[::-1] if flipped else cells)])


def screen_board(rng, s, book=False):
    """A board picture (8s x 8s) in screen or book style, with its labels."""
    cells, flipped = position(rng)
    label = {"placement": placement_from_white(cells, flipped), "flipped": int(flipped), "square_px": s}
    name = rng.choice(sorted(SETS))
    if book and name in TILES and rng.random() < rb.FONT_DIAGRAM_SHARE:
        # A diagram set in a chess font, as most books print them.
        return rb.typeset(rng, TILES[name], cells, s), label
    board, light, dark, _ = rb.draw_board(rng, s, TEXTURES, style="book" if book else "screen")
    pset = SETS[name]
    if not book:
        rb.overlay_squares(rng, board, s, cells)
        if rng.random() < 0.5:
            rb.draw_inner_coords(board, s, light, dark, flipped, rng.choice(rb.FONTS), rng.uniform(0.17, 0.3), rng.random() < 0.3)
        rb.draw_dots(rng, board, s, cells)
    rb.paste_pieces(board, s, cells, pset, fill=rng.uniform(0.75, 0.93))
    return board, label


def corners_at(x, y, n):
    return [[x, y], [x + n, y], [x + n, y + n], [x, y + n]]


def screen(rng):
    w, h = rng.choice([(1920, 1080), (1366, 768), (1280, 800), (2560, 1440), (1024, 768), (800, 600)])
    if rng.random() < 0.2:
        w, h = rng.randint(300, 900), rng.randint(300, 900)  # a cropped screenshot
    bg = tuple(rng.randint(0, 255) for _ in range(3)) if rng.random() < 0.5 else (rng.choice([20, 38, 240, 250, 255]),) * 3
    img = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(img)
    fg = (30, 30, 30) if sum(bg) > 380 else (210, 210, 210)
    font = ImageFont.truetype(SANS, rng.randint(12, 22))
    top = 0
    if h > 500 and rng.random() < 0.8:
        top = rng.randint(30, 70)
        d.rectangle([0, 0, w, top], fill=tuple(max(0, v - 25) for v in bg) if sum(bg) > 100 else (45, 45, 48))
        d.text((16, top // 3), words(rng, 8), font=font, fill=fg)
    two = rng.random() < 0.12 and w > 1.6 * h
    avail = min(h - top - 20, (w - 60) // (2 if two else 1) - 20)
    s = max(16, min(120, int(rng.uniform(0.45, 0.95) * avail / 8)))
    if 8 * s > avail:
        return None
    boards = []
    x = rng.randint(10, max(10, w - (2 if two else 1) * 8 * s - 10 - (20 if two else 0)))
    y = rng.randint(top + 5, max(top + 5, h - 8 * s - 5))
    for k in range(2 if two else 1):
        board, label = screen_board(rng, s)
        bx = x + k * (8 * s + rng.randint(20, 60))
        if bx + 8 * s > w:
            break
        img.paste(board, (bx, y))
        label["corners"] = corners_at(bx, y, 8 * s)
        boards.append(label)
    right = max(b["corners"][1][0] for b in boards) + 20
    if w - right > 150:
        text_block(d, rng, (right + 10, y, w - 20, min(h - 10, y + 8 * s)), font, fg, int(font.size * 1.7))
        if rng.random() < 0.5:
            by = rng.randint(y, max(y, y + 8 * s - 50))
            d.rectangle([right + 10, by, min(w - 20, right + 260), by + 44], fill=(98, 153, 36))
    if x > 150:
        text_block(d, rng, (15, y, x - 15, min(h - 10, y + 6 * s)), font, fg, int(font.size * 1.6))
    return img, boards


def pdf_viewer(rng):
    """A PDF viewer showing a page with one diagram in a thin ink frame whose dark squares are a
    faint hatch (grey lines on white, anti-aliased as a viewer renders them), coordinates outside
    and text around: the kind of board whose X-corners are too weak for the lattice. Not in the
    default kinds; `--kinds pdf` makes a set of them."""
    w, h = rng.choice([(869, 626), (1280, 800), (1366, 768), (1920, 1080)])
    chrome = rng.randint(30, 70)
    img = Image.new("RGB", (w, h), (chrome,) * 3)
    d = ImageDraw.Draw(img)
    top = rng.randint(40, 80)
    d.rectangle([0, 0, w, top], fill=(chrome + 15,) * 3)
    d.text((20, top // 3), words(rng, 6), font=ImageFont.truetype(SANS, 15), fill=(230, 230, 230))
    px0, px1 = rng.randint(0, w // 8), w - rng.randint(0, w // 8)
    d.rectangle([px0, top + 4, px1, h], fill=(255, 255, 255))
    s = rng.randint(18, 44)
    n = 8 * s
    room_x, room_y = px1 - px0 - n - 80, h - top - n - 70
    if room_x < 0 or room_y < 0:
        return None
    bx, by = px0 + 40 + rng.randint(0, room_x), top + 35 + rng.randint(0, room_y)
    board = rb.faint_hatch_squares(s, rng.randint(3, 6), rng.randint(150, 215))
    cells, flipped = position(rng)
    name = rng.choice(sorted(SETS))
    rb.paste_pieces(board, s, cells, SETS[name], fill=rng.uniform(0.75, 0.9))
    img.paste(board, (bx, by))
    t = rng.randint(1, 3)
    d.rectangle([bx - t, by - t, bx + n + t - 1, by + n + t - 1], outline=(0, 0, 0), width=t)
    font = ImageFont.truetype(SANS, max(9, int(s * rng.uniform(0.3, 0.45))))
    files, ranks = "abcdefgh", "87654321"
    if flipped:
        files, ranks = files[::-1], ranks[::-1]
    for i in range(8):
        d.text((bx + i * s + s / 2, by + n + t + 4), files[i], font=font, fill=(20, 20, 20), anchor="mt")
        d.text((bx - t - 6, by + i * s + s / 2), ranks[i], font=font, fill=(20, 20, 20), anchor="rm")
    tf = ImageFont.truetype(SANS, rng.randint(14, 28))
    text_block(d, rng, (px0 + 30, top + 8, px1 - 30, by - 8), tf, (20, 20, 20), int(tf.size * 1.5))
    text_block(d, rng, (px0 + 30, by + n + 2 * font.size + 10, px1 - 30, h - 5), tf, (20, 20, 20), int(tf.size * 1.5))
    label = {"placement": placement_from_white(cells, flipped), "flipped": int(flipped), "square_px": s,
             "corners": corners_at(bx, by, n)}
    return img, [label]


def book_page(rng, base_w=1240):
    """A scanned book page with 2-6 diagrams (A4 proportions)."""
    w = base_w
    h = int(w * 1.414)
    paper = (255, 255, 255) if rng.random() < 0.5 else (rng.randint(235, 252), rng.randint(230, 248), rng.randint(210, 240))
    img = Image.new("RGB", (w, h), paper)
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(SERIF, int(w / rng.uniform(55, 75)))
    line_h = int(font.size * 1.45)
    n = rng.choice([2, 2, 3, 4, 4, 6])
    cols = 1 if n <= 2 and rng.random() < 0.5 else 2
    rows = math.ceil(n / cols)
    margin = int(w * 0.08)
    cell_w = (w - 2 * margin) // cols
    cell_h = (h - 2 * margin) // rows
    s = int(min(cell_w * 0.8, cell_h * 0.7) / 8 * rng.uniform(0.7, 1.0))
    s = max(13, min(s, 60))
    boards = []
    for k in range(n):
        r, c = divmod(k, cols)
        board, label = screen_board(rng, s, book=True)
        n8 = 8 * s
        bx = margin + c * cell_w + (cell_w - n8) // 2
        by = margin + r * cell_h + int(cell_h * 0.08)
        img.paste(board, (bx, by))
        if rng.random() < 0.85:
            fw = rng.choice([1, 1, 2, 3, max(1, s // 8)])
            gap = rng.choice([0, 0, 2, 4])
            d.rectangle([bx - gap - fw, by - gap - fw, bx + n8 + gap + fw - 1, by + n8 + gap + fw - 1], outline=(0, 0, 0), width=fw)
        if rng.random() < 0.5:
            cf = ImageFont.truetype(SERIF, max(8, int(s * 0.35)))
            files = "abcdefgh"[::-1] if label["flipped"] else "abcdefgh"
            ranks = "12345678" if label["flipped"] else "87654321"
            for i in range(8):
                d.text((bx + i * s + s / 2, by + n8 + s * 0.45), files[i], fill=(0, 0, 0), font=cf, anchor="mm")
                d.text((bx - s * 0.45, by + i * s + s / 2), ranks[i], fill=(0, 0, 0), font=cf, anchor="mm")
        d.text((bx, by + n8 + s * 0.9), f"Diagram {k + 1}: " + words(rng, 4), fill=(0, 0, 0), font=font)
        label["corners"] = corners_at(bx, by, n8)
        boards.append(label)
        # Text under the diagram, in the rest of its cell.
        ty = by + n8 + int(s * 0.9) + line_h * 2
        text_block(d, rng, (margin + c * cell_w, ty, margin + (c + 1) * cell_w - 15, margin + (r + 1) * cell_h - 5), font, (20, 20, 20), line_h)
    img = rb.print_effects(rng, img, halftone=True) if rng.random() < 0.7 else img.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 0.8)))
    if rng.random() < 0.6:
        ang = rng.uniform(-2.0, 2.0)
        img, boards = rotate(img, boards, ang, paper)
    return img, boards


def rotate(img, boards, ang, fill):
    w, h = img.size
    out = img.rotate(ang, resample=Image.BICUBIC, fillcolor=fill)
    a = math.radians(ang)
    cx, cy = w / 2, h / 2

    def f(p):
        # PIL rotates counter-clockwise on screen for positive angles.
        x, y = p[0] - cx, p[1] - cy
        return [cx + x * math.cos(a) + y * math.sin(a), cy - x * math.sin(a) + y * math.cos(a)]

    for b in boards:
        b["corners"] = [f(p) for p in b["corners"]]
    return out, boards


def photo(rng, size):
    """A phone photo of a screen or a book page."""
    if rng.random() < 0.5:
        got = screen(rng)
        if got is None:
            return None
        src, boards = got
        screenish = True
    else:
        src, boards = book_page(rng, base_w=rng.choice([1000, 1240]))
        screenish = False
    W, H = size
    # Background: a desk or wall, a smooth gradient with texture.
    base = np.array([rng.randint(30, 200) for _ in range(3)], float)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    grad = (xx / W * rng.uniform(-60, 60) + yy / H * rng.uniform(-60, 60))[..., None]
    bg = np.clip(base + grad, 0, 255).astype(np.uint8)
    canvas = Image.fromarray(bg, "RGB")
    # Where the source lands: a rotated, tilted quad filling much of the frame.
    sw, sh = src.size
    scale = rng.uniform(0.55, 0.9) * min(W / sw, H / sh)
    ang = math.radians(rng.uniform(-20, 20))
    cx, cy = W / 2 + rng.uniform(-0.08, 0.08) * W, H / 2 + rng.uniform(-0.08, 0.08) * H
    pts = []
    for (x, y) in [(-sw / 2, -sh / 2), (sw / 2, -sh / 2), (sw / 2, sh / 2), (-sw / 2, sh / 2)]:
        x, y = x * scale, y * scale
        x, y = x * math.cos(ang) - y * math.sin(ang), x * math.sin(ang) + y * math.cos(ang)
        pts.append((x, y))
    # Perspective: pull one side in.
    k = rng.uniform(0.0, 0.18)
    side = rng.randrange(4)
    i, j = side, (side + 1) % 4
    for m in (i, j):
        pts[m] = (pts[m][0] * (1 - k), pts[m][1] * (1 - k))
    dst = [(cx + x, cy + y) for x, y in pts]
    src_q = [(0, 0), (sw, 0), (sw, sh), (0, sh)]
    Hm = rb.homography(src_q, dst)
    Hinv = np.linalg.inv(Hm)
    coeffs = (Hinv / Hinv[2, 2]).flatten()[:8]
    warped = src.transform((W, H), Image.PERSPECTIVE, tuple(coeffs), Image.BICUBIC)
    mask = Image.new("L", src.size, 255).transform((W, H), Image.PERSPECTIVE, tuple(coeffs), Image.BILINEAR)
    canvas.paste(warped, (0, 0), mask)
    for b in boards:
        b["corners"] = [rb.apply(Hm, p) for p in b["corners"]]
        b["square_px"] = round(b["square_px"] * scale, 1)
    img = rb.light_and_lens(rng, canvas, screenish, ang, lens=W / 2000)
    return img, boards


def negative(rng):
    """A picture without a board."""
    kind = rng.random()
    if kind < 0.35 and PHOTOS:
        p = rng.choice(PHOTOS)
        f = rng.uniform(0.6, 3.0)
        img = p.resize((max(64, int(p.width * f)), max(64, int(p.height * f))), Image.BICUBIC)
        if rng.random() < 0.3:
            img = img.rotate(rng.uniform(-20, 20), expand=True, fillcolor=(rng.randint(0, 255),) * 3)
        return img
    if kind < 0.55:
        w = 1240
        img = Image.new("RGB", (w, int(w * 1.414)), (255, 255, 255) if rng.random() < 0.6 else (245, 240, 225))
        d = ImageDraw.Draw(img)
        font = ImageFont.truetype(SERIF, rng.randint(16, 24))
        text_block(d, rng, (100, 100, w - 100, int(w * 1.414) - 100), font, (20, 20, 20), int(font.size * 1.45))
        return rb.print_effects(rng, img, halftone=True) if rng.random() < 0.5 else img
    if kind < 0.8:
        # A web page: header, cards, pictures, text, buttons.
        w, h = rng.choice([(1920, 1080), (1366, 768), (1280, 800)])
        bg = (rng.choice([255, 248, 30, 18]),) * 3
        img = Image.new("RGB", (w, h), bg)
        d = ImageDraw.Draw(img)
        fg = (30, 30, 30) if bg[0] > 128 else (220, 220, 220)
        font = ImageFont.truetype(SANS, rng.randint(13, 20))
        d.rectangle([0, 0, w, 60], fill=tuple(rng.randint(0, 255) for _ in range(3)))
        for _ in range(rng.randint(2, 6)):
            x, y = rng.randint(0, w - 300), rng.randint(70, h - 200)
            cw, ch = rng.randint(200, 500), rng.randint(150, 400)
            if PHOTOS and rng.random() < 0.6:
                p = rng.choice(PHOTOS).resize((cw, ch))
                img.paste(p, (x, y))
            else:
                d.rectangle([x, y, x + cw, y + ch], fill=tuple(min(255, v + 15) for v in bg), outline=(200, 200, 200))
                text_block(d, rng, (x + 10, y + 10, x + cw - 10, y + ch - 10), font, fg, int(font.size * 1.6))
        return img
    # A spreadsheet or a calendar: a grid with text in it.
    w, h = rng.choice([(1280, 800), (1920, 1080), (900, 900)])
    img = Image.new("RGB", (w, h), (255, 255, 255))
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(SANS, rng.randint(11, 16))
    cw, ch = rng.randint(40, 160), rng.randint(20, 110)
    shade = rng.random() < 0.5
    for r, y in enumerate(range(40, h, ch)):
        for _c, x in enumerate(range(40, w, cw)):
            if shade and r % 2:  # zebra rows, as tables and spreadsheets stripe them
                d.rectangle([x, y, x + cw, y + ch], fill=(235, 238, 242))
            d.rectangle([x, y, x + cw, y + ch], outline=(190, 190, 190))
            if rng.random() < 0.6:
                d.text((x + 4, y + 3), words(rng, 1)[:8] if rng.random() < 0.5 else str(rng.randint(1, 31)), font=font, fill=(40, 40, 40))
    return img


def render(args):
    idx, seed, kind, out, photo_size = args
    rng = random.Random(seed)
    for _ in range(20):
        if kind == "screen":
            got = screen(rng)
        elif kind == "book":
            got = book_page(rng, base_w=rng.choice([1000, 1240, 1654]))
        elif kind == "photo":
            got = photo(rng, photo_size)
        elif kind == "pdf":
            got = pdf_viewer(rng)
        else:
            got = (negative(rng), [])
        if got is not None:
            break
    img, boards = got
    name = f"images/{idx:05d}"
    if kind == "photo" or (kind != "none" and rng.random() < 0.35) or (kind == "none" and rng.random() < 0.5):
        name += ".jpg"
        img.save(out / name, quality=rng.randint(75, 92) if kind == "photo" else rng.randint(40, 95))
    else:
        name += ".png"
        img.save(out / name, compress_level=1)
    for b in boards:
        b["corners"] = [[round(x, 2), round(y, 2)] for x, y in b["corners"]]
    return {"image": name, "kind": kind, "width": img.width, "height": img.height, "boards": boards}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assets", type=Path, default=ASSETS)
    ap.add_argument("--cache", type=Path, default=WORK / "cache")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=600, help="pictures with boards")
    ap.add_argument("--negatives", type=int, default=200, help="pictures without a board")
    ap.add_argument("--kinds", default="screen,book,photo")
    ap.add_argument("--photo-size", default="2000x1500")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    kinds = a.kinds.split(",")
    size = tuple(int(v) for v in a.photo_size.split("x"))
    (a.out / "images").mkdir(parents=True, exist_ok=True)
    fetch_photos(a.cache)  # once, before the workers
    jobs = [(i, a.seed * 1_000_003 + i, kinds[i % len(kinds)], a.out, size) for i in range(a.count)]
    jobs += [(a.count + i, a.seed * 1_000_003 + a.count + i, "none", a.out, size) for i in range(a.negatives)]
    recs = []
    rb.write_jsonl(a.out / "scenes.jsonl", render, jobs, a.jobs, init_worker, (a.assets, a.cache), chunksize=4, keep=recs)
    # The pictures with one board, in `img2fen eval`'s format, to measure reading (not finding).
    with open(a.out / "labels.csv", "w") as f:
        f.write("file,fen_field1,flipped,kind\n")
        for r in recs:
            if len(r["boards"]) == 1:
                b = r["boards"][0]
                f.write(f"{r['image']},{b['placement']},{b['flipped']},{r['kind']}\n")
    print(f"{len(jobs)} pictures in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
