#!/usr/bin/env python3
"""Render chess boards with exact labels, as screens show them.

Each board gets a piece set, a colour theme or texture, a position (dense random, a real one from
fetch_assets.py's positions.txt, or the start position shuffled), and the things screens add:
coordinates inside the edge squares or in a margin, last-move and check highlights, a selected
square, legal-move dots, arrows, circles round squares, drop shadows, UI around the board,
resampling and JPEG noise.
With --photo-share, a share of the boards is photographed as a phone photographs a screen or a
page (perspective, uneven light, glare, moire, blur, sensor noise). With --tone-share, a share of
the screen boards draws its pieces in other tones: white pieces without a dark outline, black
pieces in grey. With --small-share, a share of the boards is shown small, its squares 8-16 px
(a diagram in a page scan, a board in a screenshot of a whole site).

Writes OUT/boards/NNNNNN.{png,jpg} and OUT/manifest.jsonl with, per board, the image, its four
outer corners (top-left, top-right, bottom-right, bottom-left, pixels) and the 64 labels in
display order, the format `img2fen dataset` reads; also its piece set, square size and the
effects it got (`effects`: "white tone L" and "black tone L" when its pieces were toned; "print",
then "threshold T" when binarised, "threshold None" when no threshold kept every piece readable
and the scan stayed grey). Also OUT/labels.csv for `img2fen
eval`: each board's position as displayed (`flipped` 0: boards shown from Black's side are
labelled as they are seen, so count "exact ignoring orientation"), and as kind its set's style
(flat, book, 3d) for the held-out sets, `seen` for the others; and OUT/labels-by-set.csv, the
same with the piece set's name as kind.

Usage: python3 -m img2fen_training.render.boards --assets work/assets --out DIR --count N --seed S
                                [--split train|heldout|all]
"""

import argparse
import json
import math
import random
import sys
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from img2fen_training.paths import ASSETS

PIECES = ["wK", "wQ", "wR", "wB", "wN", "wP", "bK", "bQ", "bR", "bB", "bN", "bP"]
FEN_CHAR = {"wK": "K", "wQ": "Q", "wR": "R", "wB": "B", "wN": "N", "wP": "P",
            "bK": "k", "bQ": "q", "bR": "r", "bB": "b", "bN": "n", "bP": "p"}

# Design families held out of training to measure generalisation, with their style (after the
# proposal in shared/training-assets/families_split.json, restricted to the sets fetch_assets.py
# extracts). The target for unseen designs is set for the flat and book styles.
FLAT, BOOK, RENDER = "flat", "book", "3d"
HELDOUT = {
    "lichess-tatiana": FLAT, "lichess-california": FLAT, "lichess-maestro": FLAT, "lichess-pirouetti": FLAT,
    "lichess-governor": FLAT, "lichess-companion": FLAT, "scid-good_companion": FLAT, "chessboardjs-uscf": FLAT,
    "lichess-kosal": FLAT, "pychess-kosal": FLAT, "pychess-chessmonk": FLAT, "gnome-fancy": FLAT,
    "scid-kingdom": FLAT,
    "lichess-riohacha": RENDER, "eboard-staunton": RENDER, "eboard-plastic": RENDER, "eboard-whitney": RENDER,
    "knights-knights": RENDER,
    # Chess fonts, book diagrams' own type, with eboard's raster render of one, and a text font's
    # Unicode chess glyphs.
    "font-condal": BOOK, "font-kingdom": BOOK, "font-line": BOOK, "font-motif": BOOK,
    "tex-skaknew-diagram": BOOK, "tex-skaknew-diagramt": BOOK, "eboard-kingdom": BOOK, "unicode-symbola": BOOK,
}

# Flat themes of popular sites and apps (light, dark).
THEMES = [
    ((240, 217, 181), (181, 136, 99)),   # lichess brown
    ((222, 227, 230), (140, 162, 173)),  # lichess blue
    ((255, 255, 221), (134, 166, 102)),  # lichess green
    ((238, 238, 210), (118, 150, 86)),   # chess.com green
    ((237, 214, 176), (184, 135, 98)),   # chess.com brown
    ((234, 233, 210), (75, 115, 153)),   # chess.com blue
    ((220, 220, 220), (171, 171, 171)),  # grey
    ((240, 241, 240), (196, 216, 228)),  # light blue
    ((232, 235, 239), (125, 135, 150)),  # slate
    ((255, 255, 255), (200, 200, 200)),  # very light
    ((242, 220, 200), (196, 124, 100)),  # coral-ish
    ((229, 211, 180), (131, 96, 64)),    # dark wood
    ((239, 239, 239), (142, 134, 179)),  # purple
    ((206, 210, 180), (83, 117, 82)),    # dark green
]

FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
]


def load_sets(assets: Path, split: str):
    sets = {}
    for d in sorted((assets / "sets").iterdir()):
        held = d.name in HELDOUT
        if (split == "train" and held) or (split == "heldout" and not held):
            continue
        sets[d.name] = {c: Image.open(d / f"{c}.png").convert("RGBA") for c in PIECES}
    return sets


def load_tiles(assets: Path, split: str):
    """The whole-square glyph tiles of the chess-font sets (fetch_assets.py), by set name."""
    out = {}
    for d in sorted((assets / "sets").glob("*/tiles")):
        held = d.parent.name in HELDOUT
        if (split == "train" and held) or (split == "heldout" and not held):
            continue
        out[d.parent.name] = {p.stem: Image.open(p).convert("L") for p in d.glob("*.png")}
    return out


FONT_DIAGRAM_SHARE = 0.85  # of boards drawn with a chess-font set: typeset from its own tiles


def typeset(rng, tiles, cells, s):
    """A diagram set in a chess font: every square is the font's glyph for that piece on that
    square colour (dark squares hatched, with the piece cut out of the hatching), as books print
    them. Returns an 8s x 8s RGB board."""
    resample = rng.choice([Image.LANCZOS, Image.BILINEAR, Image.BICUBIC, Image.BOX])
    board = Image.new("L", (8 * s, 8 * s), 255)
    cache = {}
    for i, code in enumerate(cells):
        r, c = divmod(i, 8)
        key = ("dark_" if (r + c) % 2 else "light_") + (code or "empty")
        if key not in cache:
            cache[key] = tiles[key].resize((s, s), resample)
        board.paste(cache[key], (c * s, r * s))
    return board.convert("RGB")


# Board textures held out of training (woods, marbles and stones of each source), to measure
# textured boards on designs the model has not seen: `--textures heldout`.
HELDOUT_TEXTURES = {"pychess-cherry", "pychess-marble", "pychess-sandlewood", "pychess-slate",
                    "scid-MapleWalnut", "scid-F8GreenMarble", "eboard-ebony", "eboard-wcn"}


def load_textures(assets: Path, split: str = "all"):
    """The (light, dark) square textures fetch_assets.py wrote: `train` leaves out
    HELDOUT_TEXTURES, `heldout` takes only them, `all` every one."""
    out = []
    for light in sorted((assets / "textures").glob("*_light.png")):
        name = light.name[: -len("_light.png")]
        held = name in HELDOUT_TEXTURES
        if (split == "train" and held) or (split == "heldout" and not held):
            continue
        dark = light.with_name(light.name.replace("_light", "_dark"))
        if dark.exists():
            out.append((Image.open(light).convert("RGB"), Image.open(dark).convert("RGB")))
    return out


def dark_square_mask(s):
    """An 8s x 8s boolean array, True on the dark squares (a8, top left, light)."""
    n = 8 * s
    return np.add.outer(np.arange(n) // s, np.arange(n) // s) % 2 == 1


def square_colours(board, dark):
    """The mean (light, dark) square colours of an RGB board, `dark` its dark_square_mask."""
    a = np.asarray(board).astype(np.float32)
    return tuple(tuple(int(v) for v in a[m].mean(axis=0)) for m in (~dark, dark))


def texture_field(rng, tex, n, period):
    """An n x n picture of `tex` repeated every `period` pixels, each repeat mirrored from its
    neighbour so that the grain runs on without seams, as one wooden board's surface."""
    t = tex.resize((max(2, period), max(2, period)), Image.BICUBIC)
    row = Image.new("RGB", (2 * t.width, t.height))
    row.paste(t, (0, 0))
    row.paste(t.transpose(Image.FLIP_LEFT_RIGHT), (t.width, 0))
    tile = Image.new("RGB", (row.width, 2 * row.height))
    tile.paste(row, (0, 0))
    tile.paste(row.transpose(Image.FLIP_TOP_BOTTOM), (0, row.height))
    field = Image.new("RGB", (n + tile.width, n + tile.height))
    for y in range(0, field.height, tile.height):
        for x in range(0, field.width, tile.width):
            field.paste(tile, (x, y))
    x0, y0 = rng.randrange(tile.width), rng.randrange(tile.height)
    return field.crop((x0, y0, x0 + n, y0 + n))


def textured_board(rng, s, textures):
    """An 8s x 8s board of a wood, marble or stone texture, its mean light and dark colours and
    the way it was drawn (`tiles`, `grain` or `stained`).
    Three ways boards wear a texture: each square its own piece of the tile, cut at any scale and
    turned (eboard, pychess); one surface across the board whose grain runs through the squares,
    light and dark squares cut from their own textures at the same place (lichess's and
    chess.com's wood boards); or one texture stained darker for the dark squares. Then the whole
    board's colour is shifted: lighter or darker, greyer or warmer."""
    n = 8 * s
    tl, td = rng.choice(textures)
    if rng.random() < 0.5:
        tl, td = tl.transpose(Image.ROTATE_90), td.transpose(Image.ROTATE_90)
    u = rng.random()
    mode = "tiles" if u < 0.35 else "grain" if u < 0.7 else "stained"
    checker = dark_square_mask(s)
    if mode == "tiles":
        board = Image.new("RGB", (n, n))
        for r in range(8):
            for c in range(8):
                t = tl if (r + c) % 2 == 0 else td
                cw = max(4, int(min(t.size) * rng.uniform(0.35, 1.0)))
                x0, y0 = rng.randint(0, t.width - cw), rng.randint(0, t.height - cw)
                tile = t.crop((x0, y0, x0 + cw, y0 + cw))
                if rng.random() < 0.5:
                    tile = tile.transpose(rng.choice([Image.FLIP_LEFT_RIGHT, Image.FLIP_TOP_BOTTOM, Image.ROTATE_180]))
                board.paste(tile.resize((s, s), Image.BILINEAR), (c * s, r * s))
        a = np.asarray(board).astype(np.float32)
    else:
        period = max(8, int(s * rng.uniform(1.0, 8.0)))
        light = np.asarray(texture_field(rng, tl, n, period)).astype(np.float32)
        if mode == "grain":
            dark = np.asarray(texture_field(rng, td, n, period)).astype(np.float32)
        else:
            stain = np.array([rng.uniform(0.35, 0.7), rng.uniform(0.3, 0.6), rng.uniform(0.25, 0.55)], np.float32)
            dark = light * stain
        a = np.where(checker[..., None], dark, light)
    # The board's colour: brightness, contrast, saturation (greyed woods as an LCD shows them).
    a = a * rng.uniform(0.75, 1.15) + rng.uniform(-20, 20)
    grey = a.mean(axis=2, keepdims=True)
    a = grey + (a - grey) * rng.uniform(0.3, 1.3)
    board = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB")
    light, dark = square_colours(board, checker)
    return board, light, dark, mode


def fen_cells(placement: str):
    """FEN field 1 as 64 display-order squares seen from White's side: FEN letters, None for
    an empty square."""
    out = []
    for ch in placement.replace("/", ""):
        out.extend([None] * int(ch) if ch.isdigit() else [ch])
    return out


def fen_placement(letters):
    """64 squares from a8 to h1 (FEN letters; None or "." for an empty square) as FEN field 1."""
    rows = []
    for r in range(8):
        row, empty = "", 0
        for ch in letters[r * 8:(r + 1) * 8]:
            if ch and ch != ".":
                row += (str(empty) if empty else "") + ch
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def load_positions(assets: Path):
    """Real positions (fetch_assets.py's positions.txt) as 64 display-order cells from White's
    side; empty when the file is missing."""
    path = assets / "positions.txt"
    if not path.exists():
        return []
    inv = {v: k for k, v in FEN_CHAR.items()}
    return [[inv[ch] if ch else None for ch in fen_cells(line.split("\t")[0])] for line in path.read_text().splitlines()]


REAL_SHARE = 0.6  # of game-like boards, when real positions are given: a real one


def random_position(rng: random.Random, dense_share=0.45, flip=None, positions=None, real_share=REAL_SHARE):
    """64 display-order cells: None or a piece code. `dense_share` of them are dense random
    boards, the rest game-like, shown from Black's side half the time (or when `flip` says so;
    the random draw is made either way, so that a seed gives the same boards). Game-like boards
    are real positions (`real_share` of them, when `positions` are given) or the start position
    shuffled by random moves and captures."""
    if rng.random() < dense_share:
        # Dense random boards: every class often, on both square colours.
        p = rng.uniform(0.1, 0.65)
        return [rng.choice(PIECES) if rng.random() < p else None for _ in range(64)]
    if positions and rng.random() < real_share:
        cells = list(rng.choice(positions))
    else:
        cells = shuffled_start(rng)
    shown_from_black = rng.random() < 0.5
    if shown_from_black if flip is None else flip:
        cells = cells[::-1]
    return cells


def shuffled_start(rng):
    """The start position after random moves and captures, pawns kept off the back ranks."""
    cells = [None] * 64
    back = ["R", "N", "B", "Q", "K", "B", "N", "R"]
    for f in range(8):
        cells[f] = "b" + back[f]
        cells[8 + f] = "bP"
        cells[48 + f] = "wP"
        cells[56 + f] = "w" + back[f]
    for _ in range(rng.randint(0, 45)):
        src = rng.choice([i for i, c in enumerate(cells) if c])
        if cells[src][1] == "K" and rng.random() < 0.7:
            continue
        if rng.random() < 0.35 and cells[src][1] != "K":
            cells[src] = None  # a capture
            continue
        dst = rng.randrange(64)
        if cells[dst] and cells[dst][1] == "K":
            continue
        if cells[src][1] == "P" and dst // 8 in (0, 7):
            continue
        cells[dst], cells[src] = cells[src], None
    return cells


def blend(base, over, a):
    return tuple(int(round(b * (1 - a) + o * a)) for b, o in zip(base, over))


def theme_colours(rng):
    r = rng.random()
    if r < 0.6:
        light, dark = rng.choice(THEMES)
        j = lambda c: tuple(max(0, min(255, v + rng.randint(-12, 12))) for v in c)
        return j(light), j(dark)
    # Random hue pair with a readable contrast.
    import colorsys
    h = rng.random()
    s = rng.uniform(0.0, 0.6)
    l1 = rng.uniform(0.72, 0.97)
    l2 = rng.uniform(0.35, l1 - 0.12)
    c1 = colorsys.hls_to_rgb(h, l1, s * rng.uniform(0.3, 1.0))
    c2 = colorsys.hls_to_rgb((h + rng.uniform(-0.08, 0.08)) % 1.0, l2, s)
    return tuple(int(v * 255) for v in c1), tuple(int(v * 255) for v in c2)


BOOK_SHARE = 0.3  # share of boards drawn in book style (see draw_board)


def draw_board(rng, s, textures, style=None):
    """Board background (8s x 8s RGB), the (light, dark) colours for coordinates, and whether it
    is a book diagram (which then gets print effects). `style` "book" or "screen" forces one."""
    n = 8 * s
    kind = rng.random()
    if style == "book":
        kind = 0.15
    elif style == "screen" and 0.15 <= kind < 0.15 + BOOK_SHARE:
        kind = 0.0 if rng.random() < 0.3 else 0.99
    if kind < 0.15 and textures:
        tl, td = rng.choice(textures)
        board = Image.new("RGB", (n, n))
        for r in range(8):
            for c in range(8):
                t = tl if (r + c) % 2 == 0 else td
                cw = min(t.width, t.height)
                x0 = rng.randint(0, t.width - cw) if t.width > cw else 0
                y0 = rng.randint(0, t.height - cw) if t.height > cw else 0
                tile = t.crop((x0, y0, x0 + cw, y0 + cw)).resize((s, s), Image.BILINEAR)
                board.paste(tile, (c * s, r * s))
        light = tl.resize((1, 1), Image.BOX).getpixel((0, 0))
        dark = td.resize((1, 1), Image.BOX).getpixel((0, 0))
        return board, light, dark, False
    if kind < 0.15 + BOOK_SHARE:
        # Book style: white paper, grey or hatched dark squares.
        light = (255, 255, 255) if rng.random() < 0.7 else (rng.randint(225, 250),) * 3
        board = Image.new("RGB", (n, n), light)
        d = ImageDraw.Draw(board)
        grey = rng.randint(140, 215)
        hatched = rng.random() < 0.5
        step = max(2, int(s * rng.uniform(0.08, 0.16)))
        width = max(1, int(step * rng.uniform(0.25, 0.5)))
        for r in range(8):
            for c in range(8):
                if (r + c) % 2 == 1:
                    x0, y0 = c * s, r * s
                    if hatched:
                        for k in range(-s, s, step):
                            d.line([(x0 + k, y0 + s), (x0 + k + s, y0)], fill=(0, 0, 0), width=width)
                    else:
                        d.rectangle([x0, y0, x0 + s - 1, y0 + s - 1], fill=(grey,) * 3)
        if hatched:
            # Clip hatching spill outside dark squares by repainting light squares.
            for r in range(8):
                for c in range(8):
                    if (r + c) % 2 == 0:
                        d.rectangle([c * s, r * s, c * s + s - 1, r * s + s - 1], fill=light)
        return board, light, (grey,) * 3 if not hatched else (90, 90, 90), True
    light, dark = theme_colours(rng)
    return flat_board(s, light, dark), light, dark, False


def flat_board(s, light, dark):
    """An 8s x 8s board of two flat colours, a8 (top left) light."""
    board = Image.new("RGB", (8 * s, 8 * s), light)
    d = ImageDraw.Draw(board)
    for r in range(8):
        for c in range(8):
            if (r + c) % 2 == 1:
                d.rectangle([c * s, r * s, c * s + s - 1, r * s + s - 1], fill=dark)
    return board


def piece_correlation(a, b, x, y, s):
    """How alike two grey pictures (uint8 arrays) are in the middle of the square (x, y, s), both
    blurred by a sixteenth of a square: their correlation, 0 where `b` is flat there, None where
    `a` is (nothing to compare)."""
    blur = ImageFilter.GaussianBlur(max(0.5, s / 16))
    k = max(1, s // 12)
    box = (slice(y + k, y + s - k), slice(x + k, x + s - k))
    a = np.asarray(Image.fromarray(a[box]).filter(blur), float).ravel()
    b = np.asarray(Image.fromarray(b[box]).filter(blur), float).ravel()
    if a.std() < 1:
        return None
    return 0.0 if b.std() < 1 else float(np.corrcoef(a, b)[0, 1])


def pieces_survive(before, after, pieces, least=0.8):
    """Whether thresholding the grey `before` into `after` (uint8 arrays) left every piece
    readable: in the middle of each occupied square ((x, y, s) in `pieces`) `after` must
    correlate with `before` by at least `least` (`piece_correlation`). A white piece whose thin
    outline fell above the threshold, or a black piece on a grey square that went black, gives
    next to 0; a piece that keeps its outline but loses its hatching or some shading, 0.85 or
    more."""
    return all((c := piece_correlation(before, after, x, y, s)) is None or c >= least for x, y, s in pieces)


def nearest_level(t, step, keeps):
    """The threshold nearest `t`, by steps of `step` within 100-170, at which `keeps(level)`
    holds (a picture binarised there keeps what it must); None when none does."""
    for v in sorted(range(100 + (t - 100) % step, 171, step), key=lambda v: abs(v - t)):
        if keeps(v):
            return v
    return None


def readable_threshold(before, t, pieces):
    """The threshold nearest `t`, by steps of 15 within 100-170, at which the grey `before` (a
    uint8 array) keeps every piece of `pieces` ((x, y, s) of each occupied square) readable
    (`pieces_survive`); None when none does."""
    return nearest_level(t, 15, lambda v: pieces_survive(before, np.where(before > v, 255, 0).astype(np.uint8), pieces))


def print_effects(rng, img, halftone=False, pieces=None, notes=None):
    """Printed and scanned: ink spread (blur), tinted paper, binarisation or a grey scan.
    With `halftone`, binarisation dithers grey (as print screens grey into dots) instead of
    thresholding it, so that grey squares stay visible. With `pieces` ((x, y, s) of each
    occupied square), a threshold that would wipe a piece out is moved, by steps of 15 within
    100-170, to the nearest level that keeps every piece (`pieces_survive`), and the scan stays
    grey when none does (above 170 small white pieces fill in and read as black): a picture
    whose pieces are gone cannot be read, by a person or by the model, and its labels would
    teach the model to guess. What was done is appended to `notes` when given ("print",
    "threshold T" or "threshold None")."""
    notes = [] if notes is None else notes
    img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    g = img.convert("L")
    notes.append("print")
    if rng.random() < 0.35:
        if halftone:
            g = g.convert("1", dither=Image.Dither.FLOYDSTEINBERG).convert("L")
        else:
            t = rng.randint(100, 170)
            if pieces:
                t = readable_threshold(np.asarray(g), t, pieces)
            notes.append(f"threshold {t}")
            if t is not None:
                g = g.point(lambda v: 255 if v > t else 0)
        g = g.filter(ImageFilter.GaussianBlur(rng.uniform(0.0, 0.6)))
    paper = (rng.randint(225, 255), rng.randint(220, 250), rng.randint(200, 240))
    ink = (rng.randint(0, 50),) * 3
    lo, hi = Image.new("RGB", img.size, ink), Image.new("RGB", img.size, paper)
    return Image.composite(hi, lo, g)


def square_box(i, s):
    r, c = divmod(i, 8)
    return c * s, r * s, c * s + s, r * s + s


def overlay_squares(rng, board, s, cells):
    """Last move, check, selection highlights."""
    over = Image.new("RGBA", board.size, (0, 0, 0, 0))
    d = ImageDraw.Draw(over)
    if rng.random() < 0.5:
        col = rng.choice([(155, 199, 0), (255, 255, 51), (246, 246, 105), (170, 162, 58), (100, 160, 255), (255, 170, 0)])
        a = int(255 * rng.uniform(0.3, 0.75))
        for i in rng.sample(range(64), 2):
            d.rectangle(square_box(i, s), fill=col + (a,))
    if rng.random() < 0.1:
        i = rng.randrange(64)
        x0, y0, x1, y1 = square_box(i, s)
        d.rectangle([x0, y0, x1 - 1, y1 - 1], outline=(20, 85, 30, 200), width=max(1, s // 16))
    if rng.random() < 0.12:
        kings = [i for i, c in enumerate(cells) if c and c[1] == "K"] or [rng.randrange(64)]
        i = rng.choice(kings)
        x0, y0, x1, y1 = square_box(i, s)
        for k in range(s // 2, 0, -1):
            a = int(200 * (1 - k / (s / 2)) ** 0.7)
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            d.ellipse([cx - k, cy - k, cx + k, cy + k], fill=(255, 0, 0, a))
    board.paste(Image.alpha_composite(board.convert("RGBA"), over).convert("RGB"))


def draw_dots(rng, board, s, cells):
    if rng.random() > 0.15:
        return
    over = Image.new("RGBA", board.size, (0, 0, 0, 0))
    d = ImageDraw.Draw(over)
    col = rng.choice([(20, 85, 30), (0, 0, 0), (60, 60, 60)])
    a = int(255 * rng.uniform(0.15, 0.45))
    for i in rng.sample(range(64), rng.randint(2, 10)):
        x0, y0, x1, y1 = square_box(i, s)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if cells[i]:
            w = max(2, s // 12)
            d.ellipse([x0 + 1, y0 + 1, x1 - 2, y1 - 2], outline=col + (a,), width=w)
        else:
            rad = s * rng.uniform(0.1, 0.18)
            d.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], fill=col + (a,))
    board.paste(Image.alpha_composite(board.convert("RGBA"), over).convert("RGB"))


def draw_arrow(img, s, ox, oy, i, j, col, alpha, width_frac=0.17):
    """An arrow from the centre of display square i to that of j (board at ox, oy)."""
    over = Image.new("RGBA", img.size, (0, 0, 0, 0))
    d = ImageDraw.Draw(over)
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = square_box(i, s), square_box(j, s)
    p = (ox + (ax0 + ax1) / 2, oy + (ay0 + ay1) / 2)
    q = (ox + (bx0 + bx1) / 2, oy + (by0 + by1) / 2)
    w = max(2, int(s * width_frac))
    ang = math.atan2(q[1] - p[1], q[0] - p[0])
    head = w * 2.2
    back = (q[0] - head * math.cos(ang), q[1] - head * math.sin(ang))
    d.line([p, back], fill=col + (alpha,), width=w)
    left = (back[0] + head * 0.6 * math.sin(ang), back[1] - head * 0.6 * math.cos(ang))
    right = (back[0] - head * 0.6 * math.sin(ang), back[1] + head * 0.6 * math.cos(ang))
    d.polygon([q, left, right], fill=col + (alpha,))
    img.paste(Image.alpha_composite(img.convert("RGBA"), over).convert("RGB"))


def draw_arrows(rng, img, s, ox, oy):
    if rng.random() > 0.18:
        return
    for _ in range(rng.randint(1, 3)):
        col = rng.choice([(21, 120, 27), (136, 32, 32), (0, 48, 136), (230, 143, 0), (255, 170, 0)])
        i, j = rng.sample(range(64), 2)
        draw_arrow(img, s, ox, oy, i, j, col, int(255 * rng.uniform(0.45, 0.85)), rng.uniform(0.12, 0.22))


def draw_book_arrows(rng, img, s, ox, oy):
    """One to three arrows as books print them (LaTeX chessboard's straightmove, a word
    processor's line tool): a thin opaque line in black or dark grey, 0.03-0.09 of a square wide,
    from one square's centre to another's, crossing the pieces between, with a solid head
    0.2-0.4 of a square long, or now and then none."""
    d = ImageDraw.Draw(img)
    for _ in range(rng.randint(1, 3)):
        i, j = rng.sample(range(64), 2)
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = square_box(i, s), square_box(j, s)
        p = (ox + (ax0 + ax1) / 2, oy + (ay0 + ay1) / 2)
        q = (ox + (bx0 + bx1) / 2, oy + (by0 + by1) / 2)
        col = (rng.randint(0, 90),) * 3
        w = max(1, round(s * rng.uniform(0.03, 0.09)))
        ang = math.atan2(q[1] - p[1], q[0] - p[0])
        head = s * rng.uniform(0.2, 0.4) if rng.random() < 0.9 else 0.0
        back = (q[0] - head * 0.8 * math.cos(ang), q[1] - head * 0.8 * math.sin(ang))
        d.line([p, back], fill=col, width=w)
        if head:
            base = (q[0] - head * math.cos(ang), q[1] - head * math.sin(ang))
            half = head * rng.uniform(0.3, 0.45)
            left = (base[0] + half * math.sin(ang), base[1] - half * math.cos(ang))
            right = (base[0] - half * math.sin(ang), base[1] + half * math.cos(ang))
            d.polygon([q, left, back, right], fill=col)


MARK_COLOURS = [(21, 120, 27), (136, 32, 32), (0, 48, 136), (230, 143, 0), (128, 128, 128)]


def draw_marks(rng, img, s, ox, oy):
    """Circles round squares and arrows to a neighbouring square, as analysis boards draw them
    (lichess's and cm-chessboard's rings; an arrow one square long is mostly head). On an empty
    square a ring or a head is not a piece: screenshots of such boards in headless Chromium
    (python3 -m img2fen_training.render.ui) read them as pawns."""
    if rng.random() < 0.25:
        over = Image.new("RGBA", img.size, (0, 0, 0, 0))
        d = ImageDraw.Draw(over)
        for _ in range(rng.randint(1, 3)):
            x0, y0, x1, y1 = square_box(rng.randrange(64), s)
            cx, cy, rad = ox + (x0 + x1) / 2, oy + (y0 + y1) / 2, s * rng.uniform(0.38, 0.48)
            alpha = int(255 * rng.uniform(0.5, 0.9))
            d.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], outline=rng.choice(MARK_COLOURS) + (alpha,),
                      width=max(1, int(s * rng.uniform(0.05, 0.1))))
        img.paste(Image.alpha_composite(img.convert("RGBA"), over).convert("RGB"))
    if rng.random() < 0.12:
        i = rng.randrange(64)
        r, c = divmod(i, 8)
        j = rng.choice([(r + dr) * 8 + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                        if (dr or dc) and 0 <= r + dr < 8 and 0 <= c + dc < 8])
        draw_arrow(img, s, ox, oy, i, j, rng.choice(MARK_COLOURS), int(255 * rng.uniform(0.45, 0.85)),
                   rng.uniform(0.12, 0.22))


def draw_inner_coords(board, s, light, dark, flipped, font_path, size_frac=0.22, right_ranks=False):
    """Rank digits in the first (or last) file and file letters in the bottom rank, drawn inside
    the squares in the opposite square colour, as lichess and chess.com do."""
    d = ImageDraw.Draw(board)
    font = ImageFont.truetype(font_path, max(6, int(s * size_frac)))
    files = "abcdefgh"[::-1] if flipped else "abcdefgh"
    ranks = "12345678" if flipped else "87654321"
    pad = max(1, int(s * 0.05))
    for r in range(8):
        c = 7 if right_ranks else 0
        col = dark if (r + c) % 2 == 0 else light
        x0, y0 = c * s, r * s
        pos = (x0 + s - pad, y0 + pad) if right_ranks else (x0 + pad, y0 + pad)
        d.text(pos, ranks[r], fill=col, font=font, anchor="rt" if right_ranks else "lt")
    for c in range(8):
        r = 7
        col = dark if (r + c) % 2 == 0 else light
        x0, y0 = c * s, r * s
        d.text((x0 + s - pad, y0 + s - pad), files[c], fill=col, font=font, anchor="rb")


def restyle_tones(rng, pset, colours="both"):
    """The set's pieces in other tones, as designs differ in them: white pieces without a dark
    outline, their darkest stroke lifted to a light grey (as lichess pirouetti and many 3D
    renders draw them), and black pieces in a mid grey instead of black. Each toned colour's
    channels are mapped from v to L + (255 - L) v / 255. With `colours` "both", each colour is
    toned half the time, at least one of them; "white" tones the white pieces only. Returns a
    new set and notes what was done."""
    white = colours == "white" or rng.random() < 0.5
    black = colours == "both" and (rng.random() < 0.5 if white else True)
    levels = {}
    if white:
        levels["w"] = rng.uniform(120, 215)
    if black:
        levels["b"] = rng.uniform(50, 130)
    out = dict(pset)
    for code, im in pset.items():
        if code[0] in levels:
            lo = levels[code[0]]
            a = np.asarray(im).astype(np.float32)
            a[..., :3] = lo + (255 - lo) * a[..., :3] / 255
            out[code] = Image.fromarray(np.clip(a, 0, 255).round().astype(np.uint8), "RGBA")
    notes = [f"{'white' if c == 'w' else 'black'} tone {lo:.0f}" for c, lo in levels.items()]
    return out, notes


def paste_pieces(board, s, cells, pset, fill=0.9, resample=Image.LANCZOS, jitter=None, shadow=False):
    """Pastes the pieces, all at one scale (the set's tallest piece fills `fill` of a square),
    centred on a common baseline. `jitter(i)` may return a small (dx, dy) offset per square."""
    tallest = max(im.height for im in pset.values())
    widest = max(im.width for im in pset.values())
    scale = min(fill * s / tallest, 0.98 * s / widest)
    cache = {}
    baseline = (s + tallest * scale) / 2
    for i, code in enumerate(cells):
        if not code:
            continue
        if code not in cache:
            im = pset[code]
            cache[code] = im.resize((max(1, round(im.width * scale)), max(1, round(im.height * scale))), resample)
        im = cache[code]
        x0, y0, _, _ = square_box(i, s)
        dx, dy = jitter(i) if jitter else (0.0, 0.0)
        x = int(round(x0 + (s - im.width) / 2 + dx))
        y = int(round(y0 + baseline - im.height + dy))
        if shadow:
            sh = Image.new("RGBA", im.size, (0, 0, 0, 0))
            sh.putalpha(im.getchannel("A").point(lambda a: a // 3))
            board.paste(sh, (x + max(1, s // 20), y + max(1, s // 20)), sh)
        board.paste(im, (x, y), im)


def degrade_and_save(rng, img, corners, out, idx, resize=0.5, scale=(0.55, 1.4),
                     filters=(Image.NEAREST, Image.BILINEAR, Image.BICUBIC, Image.LANCZOS, Image.BOX),
                     blur=0.12, blur_radius=(0.3, 1.1), noise=0.1, noise_mix=(0.03, 0.12), jpeg=0.6,
                     quality=(30, 95)):
    """Resampling, blur, noise and JPEG, each with its chance; saves OUT/boards/NNNNNN.{jpg,png}
    and returns its relative path and the board corners in the saved picture."""
    if rng.random() < resize:
        f = rng.uniform(*scale)
        nw, nh = max(16, round(img.width * f)), max(16, round(img.height * f))
        fx, fy = nw / img.width, nh / img.height
        img = img.resize((nw, nh), rng.choice(list(filters)))
        corners = [[x * fx, y * fy] for x, y in corners]
    if rng.random() < blur:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(*blur_radius)))
    if rng.random() < noise:
        sigma = rng.uniform(4, 20)
        # Gaussian grain around mid grey, as PIL's effect_noise makes it, but from a generator
        # seeded by this board's own random stream: effect_noise's is unseeded, so the same seed
        # gave a different picture on every run.
        g = np.random.default_rng(int(sigma * 1e12))
        grain = np.clip(128 + g.normal(0.0, sigma, (img.height, img.width)), 0, 255).astype(np.uint8)
        img = Image.blend(img, Image.fromarray(grain).convert("RGB"), rng.uniform(*noise_mix))
    path = f"boards/{idx:06d}"
    if rng.random() < jpeg:
        path += ".jpg"
        img.save(out / path, quality=rng.randint(*quality))
    else:
        path += ".png"
        img.save(out / path, compress_level=1)
    return path, corners


def homography(src, dst):
    """H with dst ~ H src (4 point pairs)."""
    A, bvec = [], []
    for (x, y), (u, v) in zip(src, dst):
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        bvec.append(u)
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        bvec.append(v)
    h = np.linalg.solve(np.array(A, float), np.array(bvec, float))
    return np.append(h, 1.0).reshape(3, 3)


def apply(H, p):
    v = H @ np.array([p[0], p[1], 1.0])
    return [float(v[0] / v[2]), float(v[1] / v[2])]


def light_and_lens(rng, img, screenish, ang, lens):
    """What a phone camera adds to a picture of a screen or a page (RGB): uneven light and
    vignetting, a colour cast, glare (30%), the moire of a screen's pixel grid (screens, 30%; its
    stripes turned by 3 `ang`), defocus and motion blur (`lens` pixels at most), sensor noise.
    make_scenes.py's photos get the same."""
    W, H = img.size
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = np.asarray(img).astype(np.float32)
    r = np.sqrt(((xx - W / 2) / (W / 2)) ** 2 + ((yy - H / 2) / (H / 2)) ** 2)
    light = (1 - rng.uniform(0.1, 0.45) * np.clip(r, 0, 1.4) ** 2) * (1 + (xx / W - 0.5) * rng.uniform(-0.35, 0.35))
    a *= light[..., None]
    a *= np.array([rng.uniform(0.85, 1.1) for _ in range(3)], np.float32)
    if rng.random() < 0.3:
        gx, gy, gr = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0.05, 0.2) * W
        a += (rng.uniform(40, 110) * np.exp(-(((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gr * gr))))[..., None]
    if screenish and rng.random() < 0.3:
        per = rng.uniform(3, 9)
        a *= (1 + 0.06 * np.sin(2 * math.pi * (xx * math.cos(ang * 3) + yy * math.sin(ang * 3)) / per))[..., None]
    a = np.clip(a, 0, 255).astype(np.uint8)
    img = Image.fromarray(a, "RGB")
    blur = rng.uniform(0.0, 2.0) * lens
    if rng.random() < 0.15:
        img = img.filter(ImageFilter.BoxBlur(rng.uniform(1, 3) * lens))  # motion-ish blur
    if blur > 0.3:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 8), (H, W, 1)).astype(np.float32)
    return Image.fromarray(np.clip(np.asarray(img).astype(np.float32) + noise, 0, 255).astype(np.uint8), "RGB")


def photo_look(rng, img, corners, s, screenish):
    """The picture as a phone photographs it: turned up to 6 degrees and tilted in perspective
    (each corner moved up to 5% of the picture's size) onto a desk of one colour, then
    `light_and_lens` with blur up to a fifteenth of a square. Returns the photo and the board's
    corners in it."""
    W, H = img.size
    ang = math.radians(rng.uniform(-6, 6))
    c, sn = math.cos(ang), math.sin(ang)
    src = [(0, 0), (W, 0), (W, H), (0, H)]
    dst = []
    for x, y in src:
        x, y = x - W / 2, y - H / 2
        dst.append((x * c - y * sn + rng.uniform(-0.05, 0.05) * W, x * sn + y * c + rng.uniform(-0.05, 0.05) * H))
    x0, y0 = min(p[0] for p in dst), min(p[1] for p in dst)
    dst = [(x - x0, y - y0) for x, y in dst]
    size = (math.ceil(max(p[0] for p in dst)), math.ceil(max(p[1] for p in dst)))
    Hm = homography(src, dst)
    inv = np.linalg.inv(Hm)
    desk = tuple(rng.randint(30, 200) for _ in range(3))
    photo = img.transform(size, Image.PERSPECTIVE, tuple((inv / inv[2, 2]).flatten()[:8]), Image.BICUBIC, fillcolor=desk)
    return light_and_lens(rng, photo, screenish, ang, lens=s / 30), [apply(Hm, p) for p in corners]


def faint_hatch_squares(s, spacing, ink, k=3):
    """An empty board of 8s x 8s pixels (RGB) whose light squares are white and whose dark
    squares carry thin diagonal lines of grey `ink`, `spacing` pixels apart: drawn `k` times
    larger and reduced, so the hatch anti-aliases into grey as a PDF viewer renders it."""
    n = 8 * s * k
    ys, xs = np.mgrid[0:n, 0:n]
    dark = ((xs // (s * k) + ys // (s * k)) % 2 == 1) & ((xs + ys) % (spacing * k) < k)
    squares = np.where(dark, ink, 255).astype(np.uint8)
    return Image.fromarray(squares).resize((8 * s, 8 * s), Image.LANCZOS).convert("RGB")


def display_labels(cells):
    """The 64 display-order cells as `img2fen dataset` labels: FEN letters, `.` for empty, `/`
    between rows."""
    return "/".join("".join(FEN_CHAR[c] if c else "." for c in cells[r * 8:(r + 1) * 8]) for r in range(8))


SETS, TILES, TEXTURES, POSITIONS = {}, {}, [], []
OPTIONS = {}


def init_worker(assets, split, only=None, font_share=None, photo_share=0.0, tone_share=0.0, tone_colours="both",
                small_share=0.0, texture_share=0.0, texture_split="all", book_arrow_share=0.0):
    SETS.update({k: v for k, v in load_sets(assets, split).items() if only is None or k in only})
    POSITIONS.extend(load_positions(assets))
    TILES.update(load_tiles(assets, split))
    TEXTURES.extend(load_textures(assets, texture_split))
    OPTIONS.update(font_share=font_share, photo_share=photo_share, tone_share=tone_share, tone_colours=tone_colours,
                   small_share=small_share, texture_share=texture_share, book_arrow_share=book_arrow_share)


def pick_set(rng, names):
    """A piece set for one board: uniform over the sets, or, with a font share, the chess-font
    sets get that share of the boards between them."""
    share = OPTIONS.get("font_share")
    fonts = [n for n in names if n in TILES]
    others = [n for n in names if n not in TILES]
    if share is None or not fonts or not others:
        return rng.choice(names)
    return rng.choice(fonts if rng.random() < share else others)


def render_one(args):
    idx, seed, out = args
    effects = []
    sets, textures = SETS, TEXTURES
    rng = random.Random(seed)
    name = pick_set(rng, sorted(sets))
    pset = sets[name]
    s = int(round(math.exp(rng.uniform(math.log(18), math.log(100)))))
    cells = random_position(rng, positions=POSITIONS)
    font = TILES.get(name)
    if font and rng.random() < FONT_DIAGRAM_SHARE:
        board, book = typeset(rng, font, cells, s), True
        flipped = rng.random() < 0.3
    else:
        board, light, dark, book = draw_board(rng, s, textures)
        # From a stream of its own, so that the other boards stay as they were (the main stream
        # drew the board above all the same, so this board is that one, textured).
        tex_rng = random.Random(seed ^ 0x7E47_0BE5)
        if tex_rng.random() < OPTIONS.get("texture_share", 0.0) and TEXTURES:
            board, light, dark, mode = textured_board(tex_rng, s, TEXTURES)
            book = False
            effects.append(f"textured {mode}")
        overlay_squares(rng, board, s, cells)
        flipped = rng.random() < 0.3
        if rng.random() < 0.5:
            draw_inner_coords(board, s, light, dark, flipped, rng.choice(FONTS), rng.uniform(0.17, 0.3), rng.random() < 0.3)
        draw_dots(rng, board, s, cells)
        # From a stream of its own, so that the other boards stay as they were.
        tone_rng = random.Random(seed ^ 0x70_4E5)
        if tone_rng.random() < OPTIONS.get("tone_share", 0.0):
            pset, notes = restyle_tones(tone_rng, pset, OPTIONS.get("tone_colours", "both"))
            effects.extend(notes)
        paste_pieces(board, s, cells, pset, fill=rng.uniform(0.72, 0.95),
                     resample=rng.choice([Image.LANCZOS, Image.BILINEAR, Image.BICUBIC]),
                     jitter=lambda i: (rng.uniform(-0.02, 0.02) * s, rng.uniform(-0.03, 0.03) * s),
                     shadow=rng.random() < 0.1)

    # Page around the board: margin, frame, outside coordinates.
    n = 8 * s
    m = [int(s * rng.uniform(0.0, 1.2)) for _ in range(4)]  # left, top, right, bottom
    bg = tuple(rng.randint(0, 255) for _ in range(3)) if rng.random() < 0.6 else (rng.randint(0, 255),) * 3
    img = Image.new("RGB", (n + m[0] + m[2], n + m[1] + m[3]), bg)
    img.paste(board, (m[0], m[1]))
    d = ImageDraw.Draw(img)
    if rng.random() < 0.3:
        fw = rng.randint(1, max(1, s // 8))
        fc = tuple(rng.randint(0, 90) for _ in range(3))
        d.rectangle([m[0] - fw, m[1] - fw, m[0] + n + fw - 1, m[1] + n + fw - 1], outline=fc, width=fw)
    if min(m[0], m[3]) > s * 0.35 and rng.random() < 0.6:
        font = ImageFont.truetype(rng.choice(FONTS), max(7, int(s * rng.uniform(0.25, 0.4))))
        fc = tuple(255 - v for v in bg) if sum(bg) < 380 else (30, 30, 30)
        files = "abcdefgh"[::-1] if flipped else "abcdefgh"
        ranks = "12345678" if flipped else "87654321"
        for k in range(8):
            d.text((m[0] + k * s + s / 2, m[1] + n + m[3] / 2), files[k], fill=fc, font=font, anchor="mm")
            d.text((m[0] / 2, m[1] + k * s + s / 2), ranks[k], fill=fc, font=font, anchor="mm")
    draw_arrows(rng, img, s, m[0], m[1])
    # From a stream of its own, so that boards without them stay as they were.
    arrow_rng = random.Random(seed ^ 0xA77_0E5)
    if book and arrow_rng.random() < OPTIONS.get("book_arrow_share", 0.0):
        draw_book_arrows(arrow_rng, img, s, m[0], m[1])
        effects.append("book arrows")
    if not book:
        # From a stream of its own, so that boards without marks stay as they were.
        draw_marks(random.Random(seed ^ 0xC12C1E5), img, s, m[0], m[1])
    corners = [[m[0], m[1]], [m[0] + n, m[1]], [m[0] + n, m[1] + n], [m[0], m[1] + n]]

    if book and rng.random() < 0.7:
        occupied = [(m[0] + (i % 8) * s, m[1] + (i // 8) * s, s) for i, c in enumerate(cells) if c]
        img = print_effects(rng, img, pieces=occupied, notes=effects)
    # Photographed: from a stream of its own, so that the same boards are drawn with or without.
    photo_rng = random.Random(seed ^ 0x5EED_F070)
    if photo_rng.random() < OPTIONS.get("photo_share", 0.0):
        img, corners = photo_look(photo_rng, img, corners, s, screenish=not book)
    # Shown small: squares of 8-16 px, as a diagram in a page scan or a board in a screenshot of
    # a whole site; from a stream of its own, so that the other boards stay as they were.
    small_rng = random.Random(seed ^ 0x5A_11)
    resize = 0.5
    if small_rng.random() < OPTIONS.get("small_share", 0.0):
        f = small_rng.uniform(8, 16) / s
        img = img.resize((max(16, round(img.width * f)), max(16, round(img.height * f))),
                         small_rng.choice([Image.BOX, Image.BILINEAR, Image.BICUBIC, Image.LANCZOS]))
        corners = [[x * f, y * f] for x, y in corners]
        effects.append(f"small {s * f:.1f} px")
        resize = 0.0
    path, corners = degrade_and_save(rng, img, corners, out, idx, resize=resize)
    labels = display_labels(cells)
    return {"image": path, "corners": corners, "labels": labels, "set": name, "square_px": s, "effects": effects}


def write_jsonl(path, worker, jobs, processes, initializer, initargs, chunksize, keep=None):
    """Runs `worker` over `jobs` in a process pool and writes its records, in job order, as
    JSON Lines to `path` (and appends them to `keep` when given)."""
    with Pool(processes, initializer=initializer, initargs=initargs) as pool, open(path, "w") as f:
        for rec in pool.imap(worker, jobs, chunksize=chunksize):
            f.write(json.dumps(rec) + "\n")
            if keep is not None:
                keep.append(rec)


def write_labels_csv(path, records, kind=lambda rec: HELDOUT.get(rec["set"], "seen")):
    """`img2fen eval`'s labels for the rendered boards: file, FEN field 1 as displayed, flipped
    0, kind (by default the held-out set's style, or `seen`)."""
    with open(path, "w") as f:
        f.write("file,fen_field1,flipped,kind\n")
        for rec in records:
            placement = fen_placement(rec["labels"].replace("/", ""))
            f.write(f"{rec['image']},{placement},0,{kind(rec)}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assets", type=Path, default=ASSETS)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--split", choices=["train", "heldout", "all"], default="train")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", type=Path,
                    help="draw only the sets this file lists, one name a line (a model's own set list)")
    ap.add_argument("--font-share", type=float,
                    help="share of boards drawn with a chess-font set (default: every set the same)")
    ap.add_argument("--photo-share", type=float, default=0.0,
                    help="share of boards photographed: perspective, light, glare, moire, blur, noise")
    ap.add_argument("--tone-share", type=float, default=0.0,
                    help="share of screen boards whose pieces are drawn in other tones: white pieces "
                         "without a dark outline, black pieces in grey")
    ap.add_argument("--small-share", type=float, default=0.0,
                    help="share of boards shown small, their squares 8-16 px")
    ap.add_argument("--tone-colours", choices=["both", "white"], default="both",
                    help="which pieces --tone-share restyles: both colours, or the white pieces only")
    ap.add_argument("--texture-share", type=float, default=0.0,
                    help="share of boards (besides the 15%% that draw_board textures its own way) drawn "
                         "on a wood, marble or stone texture in one of textured_board's three ways")
    ap.add_argument("--textures", choices=["train", "heldout", "all"], default="all",
                    help="which board textures: without HELDOUT_TEXTURES, only them, or all (default: all, "
                         "whatever the split, as boards were rendered before textures were held out)")
    ap.add_argument("--book-arrow-share", type=float, default=0.0,
                    help="share of book diagrams with thin black arrows drawn across them, as books print them")
    a = ap.parse_args()
    only = set(a.only.read_text().split()) if a.only else None
    nsets = len([k for k in load_sets(a.assets, a.split) if only is None or k in only])
    (a.out / "boards").mkdir(parents=True, exist_ok=True)
    jobs = [(i, a.seed * 1_000_003 + i, a.out) for i in range(a.count)]
    records = []
    options = (a.assets, a.split, only, a.font_share, a.photo_share, a.tone_share, a.tone_colours, a.small_share,
               a.texture_share, a.textures, a.book_arrow_share)
    write_jsonl(a.out / "manifest.jsonl", render_one, jobs, a.jobs, init_worker, options, chunksize=16, keep=records)
    write_labels_csv(a.out / "labels.csv", records)
    # The same with the piece set as kind: `img2fen eval` then gives a table row per set.
    write_labels_csv(a.out / "labels-by-set.csv", records, kind=lambda rec: rec["set"])
    print(f"{a.count} boards from {nsets} sets in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
