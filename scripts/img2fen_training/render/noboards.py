#!/usr/bin/env python3
"""The no-board set: pictures that hold grids and checkered patterns but no chess board, for
measuring that the board finder invents none (issue 31).

Kinds (the `kind` column of `img2fen eval-locate`):
- `checker`: checkered grids of every size but 8x8 (6x6, 7x7, 8x6, 9x9, 8x10, 10x10, 12x12,
  16x16, ...), plain or as draughts boards with discs, upright, turned or in perspective;
- `floor`: tiled floors and gingham tablecloths, large checkered surfaces in perspective;
- `lines`: go (19x19, 13x13, 9x9 with stones), shogi (9x9) and xiangqi (9x10) boards, drawn as
  lines;
- `grid`: sudoku and crossword grids, calendars and spreadsheets;
- `code`: QR-like codes and pixel art.
Each picture stands alone or inside a page of text, at sizes from 300 to 2400 pixels, and about
a third are saved as JPEG at a random quality.

    python3 -m img2fen_training.render.noboards --out work/noboards --count 320
    img2fen eval-locate work/noboards/scenes.jsonl --misses
"""
import argparse
import json
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CHECKER_SIZES = [(6, 6), (7, 7), (8, 6), (6, 8), (8, 7), (9, 9), (8, 10), (10, 8), (10, 10), (12, 12), (16, 16),
                 (9, 8), (8, 9), (11, 11), (14, 14), (5, 5), (4, 8)]
PALETTES = [((240, 217, 181), (181, 136, 99)), ((255, 255, 255), (0, 0, 0)), ((238, 238, 210), (118, 150, 86)),
            ((222, 227, 230), (140, 162, 173)), ((250, 250, 250), (200, 30, 30)), ((230, 230, 230), (60, 60, 60))]


def font(size):
    try:
        return ImageFont.truetype(SANS, size)
    except OSError:
        return ImageFont.load_default()


def checker(rng, cols, rows, sq, discs):
    """A checkered grid of cols x rows squares of `sq` pixels, with draughts discs when asked."""
    light, dark = rng.choice(PALETTES)
    img = Image.new("RGB", (cols * sq, rows * sq), light)
    d = ImageDraw.Draw(img)
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2:
                d.rectangle([c * sq, r * sq, (c + 1) * sq - 1, (r + 1) * sq - 1], fill=dark)
                if discs and (r < rows // 2 - 1 or r > rows // 2) and rng.random() < 0.8:
                    colour = (250, 250, 245) if r > rows // 2 else (25, 25, 25)
                    m = sq // 8
                    d.ellipse([c * sq + m, r * sq + m, (c + 1) * sq - m, (r + 1) * sq - m], fill=colour,
                              outline=(120, 120, 120))
    return img


def perspective(rng, img, strength):
    """`img` seen at an angle: its far side shrunk by `strength`, on a plain ground."""
    w, h = img.size
    s = strength * w / 2
    ground = tuple(rng.randint(60, 200) for _ in range(3))
    # Corners of the source rectangle in the output, top side shrunk.
    quad = [(s, 0), (w - s, 0), (w, h), (0, h)]
    coeffs = find_coeffs(quad, [(0, 0), (w, 0), (w, h), (0, h)])
    out = img.transform((w, h), Image.PERSPECTIVE, coeffs, Image.BICUBIC, fillcolor=ground)
    return out


def find_coeffs(dst, src):
    """Perspective coefficients mapping output points `dst` to input points `src`."""
    import numpy as np
    rows = []
    for (x, y), (u, v) in zip(dst, src):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    a = np.array(rows, float)
    b = np.array([c for p in src for c in p], float)
    return np.linalg.solve(a, b).tolist()


def lines_board(rng, cols, rows, sq, stones):
    """A board drawn as lines (go, shogi, xiangqi): cols x rows intersections or cells."""
    bg = rng.choice([(220, 179, 92), (240, 210, 150), (255, 255, 255), (235, 200, 120)])
    pad = sq
    img = Image.new("RGB", ((cols - 1) * sq + 2 * pad, (rows - 1) * sq + 2 * pad), bg)
    d = ImageDraw.Draw(img)
    for c in range(cols):
        d.line([pad + c * sq, pad, pad + c * sq, pad + (rows - 1) * sq], fill=(20, 20, 20), width=max(1, sq // 20))
    for r in range(rows):
        d.line([pad, pad + r * sq, pad + (cols - 1) * sq, pad + r * sq], fill=(20, 20, 20), width=max(1, sq // 20))
    for _ in range(stones):
        c, r = rng.randrange(cols), rng.randrange(rows)
        colour = rng.choice([(15, 15, 15), (245, 245, 245)])
        x, y, m = pad + c * sq, pad + r * sq, sq * 0.45
        d.ellipse([x - m, y - m, x + m, y + m], fill=colour, outline=(90, 90, 90))
    return img


def sudoku(rng, n, sq):
    """A sudoku (n = 9) or crossword (n = 13, 15) grid with digits or black cells."""
    img = Image.new("RGB", (n * sq + 2, n * sq + 2), (255, 255, 255))
    d = ImageDraw.Draw(img)
    f = font(max(8, int(sq * 0.6)))
    crossword = n != 9
    for r in range(n):
        for c in range(n):
            box = [c * sq, r * sq, (c + 1) * sq, (r + 1) * sq]
            if crossword and rng.random() < 0.18:
                d.rectangle(box, fill=(0, 0, 0))
            else:
                d.rectangle(box, outline=(0, 0, 0), width=1)
                if not crossword and rng.random() < 0.4:
                    d.text((c * sq + sq * 0.3, r * sq + sq * 0.15), str(rng.randint(1, 9)), font=f, fill=(0, 0, 0))
    if not crossword:
        for k in range(0, n + 1, 3):
            d.line([k * sq, 0, k * sq, n * sq], fill=(0, 0, 0), width=3)
            d.line([0, k * sq, n * sq, k * sq], fill=(0, 0, 0), width=3)
    return img


def calendar(rng, sq):
    """A month: 7 columns, 5 or 6 weeks, some days shaded."""
    weeks = rng.choice([5, 6])
    img = Image.new("RGB", (7 * sq, (weeks + 1) * sq), (255, 255, 255))
    d = ImageDraw.Draw(img)
    f = font(max(8, sq // 4))
    day = 1 - rng.randrange(7)
    for r in range(1, weeks + 1):
        for c in range(7):
            box = [c * sq, r * sq, (c + 1) * sq, (r + 1) * sq]
            fill = (225, 230, 240) if (c >= 5 or rng.random() < 0.1) else (255, 255, 255)
            d.rectangle(box, fill=fill, outline=(150, 150, 150))
            if 1 <= day <= 31:
                d.text((box[0] + 4, box[1] + 3), str(day), font=f, fill=(30, 30, 30))
            day += 1
    return img


def code(rng, n, sq):
    """A QR-like code (finder squares and random modules) or pixel art of n x n blocks."""
    img = Image.new("RGB", (n * sq, n * sq), (255, 255, 255))
    d = ImageDraw.Draw(img)
    qr = rng.random() < 0.5
    colours = [(0, 0, 0)] if qr else [tuple(rng.randint(0, 255) for _ in range(3)) for _ in range(4)]
    for r in range(n):
        for c in range(n):
            if rng.random() < 0.5:
                d.rectangle([c * sq, r * sq, (c + 1) * sq - 1, (r + 1) * sq - 1], fill=rng.choice(colours))
    if qr:
        for x, y in [(0, 0), (n - 7, 0), (0, n - 7)]:
            d.rectangle([x * sq, y * sq, (x + 7) * sq - 1, (y + 7) * sq - 1], fill=(0, 0, 0))
            d.rectangle([(x + 1) * sq, (y + 1) * sq, (x + 6) * sq - 1, (y + 6) * sq - 1], fill=(255, 255, 255))
            d.rectangle([(x + 2) * sq, (y + 2) * sq, (x + 5) * sq - 1, (y + 5) * sq - 1], fill=(0, 0, 0))
    return img


def on_page(rng, pattern):
    """The pattern alone on a margin, or inside a page of text."""
    w, h = pattern.size
    if rng.random() < 0.5:
        m = rng.randint(0, max(1, w // 6))
        page = Image.new("RGB", (w + 2 * m, h + 2 * m), (255, 255, 255) if rng.random() < 0.7 else (240, 236, 225))
        page.paste(pattern, (m, m))
        return page
    pw = max(w + 200, rng.choice([1000, 1240, 1400]))
    ph = h + rng.randint(300, 900)
    page = Image.new("RGB", (pw, ph), (255, 255, 255))
    d = ImageDraw.Draw(page)
    f = font(rng.randint(14, 22))
    words = "the of and to in a is that for it as was with be by on not he this are or his from at which".split()
    y = 40
    top = rng.randint(60, ph - h - 60)
    while y < ph - 30:
        if top - 30 < y < top + h + 30:
            y = top + h + 40
            continue
        d.text((60, y), " ".join(rng.choice(words) for _ in range(rng.randint(8, 14))), font=f, fill=(20, 20, 20))
        y += int(f.size * 1.5)
    page.paste(pattern, ((pw - w) // 2, top))
    return page


def make(rng, kind):
    """One picture of `kind`, before sizing."""
    if kind == "checker":
        cols, rows = rng.choice(CHECKER_SIZES)
        img = checker(rng, cols, rows, rng.randint(12, 80), discs=rng.random() < 0.4 and cols >= 8)
        r = rng.random()
        if r < 0.2:
            img = img.rotate(rng.uniform(-25, 25), expand=True, fillcolor=(255, 255, 255), resample=Image.BICUBIC)
        elif r < 0.35:
            img = perspective(rng, img, rng.uniform(0.1, 0.35))
        return on_page(rng, img)
    if kind == "floor":
        n = rng.randint(12, 24)
        sq = rng.randint(20, 60)
        img = checker(rng, n, n, sq, discs=False)
        if rng.random() < 0.5:  # gingham: stripes crossing, the crossings darkest
            light, dark = rng.choice(PALETTES)
            img = Image.new("RGB", (n * sq, n * sq), (255, 255, 255))
            d = ImageDraw.Draw(img)
            mid = tuple((a + b) // 2 for a, b in zip(light, dark))
            for k in range(n):
                if k % 2:
                    d.rectangle([k * sq, 0, (k + 1) * sq - 1, n * sq], fill=mid)
                    d.rectangle([0, k * sq, n * sq, (k + 1) * sq - 1], fill=mid)
            for r in range(1, n, 2):
                for c in range(1, n, 2):
                    d.rectangle([c * sq, r * sq, (c + 1) * sq - 1, (r + 1) * sq - 1], fill=dark)
        img = perspective(rng, img, rng.uniform(0.2, 0.45))
        return img.rotate(rng.uniform(-15, 15), expand=False, resample=Image.BICUBIC)
    if kind == "lines":
        which = rng.choice(["go19", "go13", "go9", "shogi", "xiangqi"])
        sq = rng.randint(16, 60)
        if which.startswith("go"):
            n = int(which[2:])
            img = lines_board(rng, n, n, sq, stones=rng.randint(0, n * n // 3))
        elif which == "shogi":
            img = lines_board(rng, 10, 10, sq, stones=0)
        else:
            img = lines_board(rng, 9, 10, sq, stones=rng.randint(0, 32))
        return on_page(rng, img)
    if kind == "grid":
        r = rng.random()
        if r < 0.35:
            img = sudoku(rng, 9, rng.randint(20, 70))
        elif r < 0.6:
            img = sudoku(rng, rng.choice([13, 15]), rng.randint(16, 50))
        else:
            img = calendar(rng, rng.randint(40, 140))
        return on_page(rng, img)
    n = rng.choice([21, 25, 29, 16, 24, 32])
    return on_page(rng, code(rng, n, rng.randint(6, 30)))


KINDS = ["checker", "checker", "floor", "lines", "grid", "code"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=320)
    ap.add_argument("--seed", type=int, default=31)
    a = ap.parse_args()
    (a.out / "images").mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(a.count):
        rng = random.Random(a.seed * 1_000_003 + i)
        kind = KINDS[i % len(KINDS)]
        img = make(rng, kind)
        side = rng.choice([300, 500, 800, 1200, 1600, 2400])
        f = side / max(img.size)
        img = img.resize((max(64, round(img.width * f)), max(64, round(img.height * f))), Image.LANCZOS)
        jpeg = rng.random() < 0.35
        name = f"images/{i:05d}.{'jpg' if jpeg else 'png'}"
        if jpeg:
            img.save(a.out / name, quality=rng.randint(30, 95))
        else:
            img.save(a.out / name)
        lines.append(json.dumps({"image": name, "kind": kind, "width": img.width, "height": img.height, "boards": []}))
    (a.out / "scenes.jsonl").write_text("".join(line + "\n" for line in lines))
    print(f"{a.count} pictures without a chess board in {a.out}")


if __name__ == "__main__":
    main()
