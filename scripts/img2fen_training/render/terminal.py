#!/usr/bin/env python3
"""Text boards in a terminal: positions printed by the real things, drawn in real terminal fonts
(issue 34).

The text of each board is what a program prints, not an imitation of it:
- `pychess-str`: python-chess's `str(board)` (letters, `.` for an empty square);
- `pychess-unicode`: python-chess's `board.unicode(...)` with its options: Unicode chess
  symbols, empty squares as its default `⭘`, `·` or `.`, with or without borders and
  coordinates, from either side; `invert_color` only where coordinates are printed (without
  them a board printed with inverted symbols from Black's side is the colour-swapped board from
  White's, and no reader can tell the two apart);
- `stockfish`: the `d` command of Debian's Stockfish (`apt-get download stockfish`), run on the
  position: letters in a box of `+---+` and `|`, empty squares blank, coordinates below and right.
Around the board: a shell prompt and the command, or the interpreter's `>>>` lines, and other
output (the engine's banner, its `Fen:` and `Key:` lines, log lines), so that letters that are
piece letters stand outside boards too.

Fonts: Debian's monospace font packages (`apt-get download`, unpacked into
work/assets/terminal/); a glyph the font lacks (most lack the chess symbols) is drawn from a
fallback font as a terminal does (DejaVu Sans, Noto Sans Symbols2, Symbola, FreeSerif), centred
in its cell. `HELDOUT_FONTS` are kept out of `--fonts train`. Colours: terminal schemes, dark
and light. Sizes 11-28 px, line spacing 1.0-1.35, then scaling and JPEG.

Output: OUT/NNNNNN.png|jpg, OUT/labels.csv (`img2fen eval`'s columns: the position as seen from
White, flipped when Black is at the bottom, kind = the text's source) and OUT/glyphs.jsonl, one
picture a line: `{"image", "placement", "flipped", "source", "font", "glyphs": [[char, x, y],
...]}` with the centre of every printed character's cell in pixels of the saved picture (spaces
left out), which `img2fen dataset --text` labels the glyphs it finds with.

    python3 -m img2fen_training.render.terminal --out work/term-train --count 3000 --fonts train
    python3 -m img2fen_training.render.terminal --out work/term-heldout --count 400 --fonts heldout --seed 7
    python3 -m img2fen_training.render.terminal --testdata testdata/terminal
"""
import argparse
import io
import json
import random
import subprocess
import sys
from multiprocessing import Pool
from pathlib import Path

import chess
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from img2fen_training.paths import ASSETS

FONT_DIR = ASSETS / "terminal"
PACKAGES = ["stockfish", "fonts-dejavu-core", "fonts-liberation", "fonts-freefont-ttf", "fonts-hack", "fonts-firacode",
            "fonts-jetbrains-mono", "fonts-inconsolata", "fonts-noto-mono", "fonts-anonymous-pro",
            "fonts-fantasque-sans", "fonts-mononoki", "fonts-agave", "fonts-3270", "fonts-courier-prime",
            "fonts-croscore", "fonts-league-mono", "fonts-monoid", "fonts-noto-core", "fonts-symbola"]
# Monospace fonts: name -> path under the unpacked packages.
MONO = {
    "dejavu-sans-mono": "usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "dejavu-sans-mono-bold": "usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "liberation-mono": "usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
    "free-mono": "usr/share/fonts/truetype/freefont/FreeMono.ttf",
    "free-mono-bold": "usr/share/fonts/truetype/freefont/FreeMonoBold.ttf",
    "hack": "usr/share/fonts/truetype/hack/Hack-Regular.ttf",
    "fira-code": "usr/share/fonts/truetype/firacode/FiraCode-Regular.ttf",
    "jetbrains-mono": "usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf",
    "inconsolata": "usr/share/fonts/truetype/inconsolata/Inconsolata.otf",
    "noto-mono": "usr/share/fonts/truetype/noto/NotoMono-Regular.ttf",
    "anonymous-pro": "usr/share/fonts/truetype/anonymous-pro/Anonymous Pro.ttf",
    "fantasque-sans-mono": "usr/share/fonts/truetype/fantasque-sans/Normal/TTF/FantasqueSansMono-Regular.ttf",
    "mononoki": "usr/share/fonts/truetype/mononoki/mononoki-Regular.ttf",
    "agave": "usr/share/fonts/truetype/agave/agave-r-autohinted.ttf",
    "ibm-3270": "usr/share/fonts/truetype/3270/3270-Regular.ttf",
    "courier-prime": "usr/share/fonts/opentype/courier-prime/Courier Prime.otf",
    "cousine": "usr/share/fonts/truetype/croscore/Cousine-Regular.ttf",
    "league-mono": "usr/share/fonts/opentype/league-mono/LeagueMono-Regular.otf",
    "monoid": "usr/share/fonts/truetype/monoid/Monoid-Regular.ttf",
}
HELDOUT_FONTS = {"jetbrains-mono", "mononoki", "courier-prime", "monoid"}
# Where a terminal finds the glyphs its font lacks, in the order it tries them.
FALLBACK = {
    "dejavu-sans": "usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "noto-symbols2": "usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
    "symbola": "usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
    "free-serif": "usr/share/fonts/truetype/freefont/FreeSerif.ttf",
}
STOCKFISH = "usr/games/stockfish"
# (background, foreground, accent for prompts) of common terminal schemes.
SCHEMES = [
    ((0, 0, 0), (204, 204, 204), (78, 154, 6)),  # xterm / Tango dark
    ((48, 10, 36), (255, 255, 255), (138, 226, 52)),  # Ubuntu
    ((0, 43, 54), (131, 148, 150), (133, 153, 0)),  # Solarized dark
    ((253, 246, 227), (101, 123, 131), (38, 139, 210)),  # Solarized light
    ((40, 42, 54), (248, 248, 242), (80, 250, 123)),  # Dracula
    ((39, 40, 34), (248, 248, 242), (166, 226, 46)),  # Monokai
    ((40, 40, 40), (235, 219, 178), (184, 187, 38)),  # Gruvbox dark
    ((251, 241, 199), (60, 56, 54), (121, 116, 14)),  # Gruvbox light
    ((40, 44, 52), (171, 178, 191), (152, 195, 121)),  # One Dark
    ((255, 255, 255), (0, 0, 0), (0, 0, 205)),  # xterm light
    ((30, 30, 46), (205, 214, 244), (166, 227, 161)),  # Catppuccin
    ((12, 12, 12), (0, 255, 0), (0, 200, 0)),  # green phosphor
    ((1, 36, 86), (238, 238, 236), (252, 233, 79)),  # PowerShell blue
    ((46, 52, 64), (216, 222, 233), (163, 190, 140)),  # Nord
    ((245, 245, 245), (56, 58, 66), (80, 161, 79)),  # One Light
    ((29, 31, 33), (197, 200, 198), (181, 189, 104)),  # Tomorrow Night
]
SOURCES = ["pychess-str", "pychess-unicode", "stockfish"]
SOURCE_SHARE = [0.3, 0.5, 0.2]
PROSE = ["Loading opening book... done", "info depth 18 seldepth 24 score cp 31 nodes 812344 nps 1203000",
         "Traceback (most recent call last):", "bestmove e2e4 ponder e7e5", "# the position after the game",
         "Your move (e.g. e2e4):", "White to play and win.", "readyok", "uciok", "id name Stockfish 15.1",
         "Checkers:", "move 23: Nf3 Nc6 Bb5 a6", "Game over: checkmate", "Thinking...", "print(board)",
         "Press q to quit, f to flip the board", "score: +0.45 (depth 20)", "hint: knight to f3"]


def unpack_fonts(root: Path = FONT_DIR) -> Path:
    """Downloads the font packages and Stockfish with `apt-get download` and unpacks them into
    root/x (once); returns root/x."""
    x = root / "x"
    if (x / STOCKFISH).exists() and all((x / p).exists() for p in MONO.values()):
        return x
    dl = root / "download"
    dl.mkdir(parents=True, exist_ok=True)
    missing = [p for p in PACKAGES if not list(dl.glob(f"{p}_*.deb"))]
    if missing:
        subprocess.run(["apt-get", "download", *missing], cwd=dl, check=True, stdout=subprocess.DEVNULL)
    for d in sorted(dl.glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(d.resolve()), str(x.resolve())], check=True)
    return x


def random_board(rng: random.Random, positions):
    """A position: one of `positions` (FEN field 1) when given and drawn, else the start position
    after 0-90 random legal plies (a game that ended early is kept as it stands)."""
    if positions and rng.random() < 0.5:
        return chess.Board(rng.choice(positions) + " w - - 0 1")
    board = chess.Board()
    for _ in range(rng.randint(0, 90)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def stockfish_board(x: Path, board: chess.Board) -> str:
    """The board part of Stockfish's `d` output for `board`."""
    out = subprocess.run([str(x / STOCKFISH)], input=f"position fen {board.fen()}\nd\nquit\n", capture_output=True,
                         text=True, check=True).stdout
    lines = out.splitlines()
    start = next(i for i, s in enumerate(lines) if s.startswith(" +---"))
    # The board, its file letters, a blank line and the Fen, Key and Checkers lines.
    return "\n".join(lines[start:start + 22])


def board_text(rng: random.Random, x: Path, board: chess.Board, source: str):
    """(text, flipped, the command or prompt lines before it) for one source."""
    if source == "pychess-str":
        return str(board), False, [">>> print(board)"] if rng.random() < 0.6 else []
    if source == "stockfish":
        return stockfish_board(x, board), False, ["position fen " + board.fen(), "d"]
    flipped = rng.random() < 0.4
    borders = rng.random() < 0.4
    empty = rng.choice(["⭘", "⭘", "·", "."])
    invert = borders and rng.random() < 0.4
    text = board.unicode(invert_color=invert, borders=borders, empty_square=empty,
                         orientation=chess.BLACK if flipped else chess.WHITE)
    opts = []
    if invert:
        opts.append("invert_color=True")
    if borders:
        opts.append("borders=True")
    if empty != "⭘":
        opts.append(f"empty_square={empty!r}")
    if flipped:
        opts.append("orientation=chess.BLACK")
    return text, flipped, [f">>> print(board.unicode({', '.join(opts)}))"] if rng.random() < 0.6 else []


class Fonts:
    """A monospace font and its fallbacks at one size, with which of them has each glyph."""

    def __init__(self, x: Path, name: str, size: int):
        self.size = size
        self.main = ImageFont.truetype(str(x / MONO[name]), size)
        self.cmaps = [TTFont(str(x / MONO[name]), lazy=True, fontNumber=0).getBestCmap()]
        self.fonts = [self.main]
        for path in FALLBACK.values():
            self.fonts.append(ImageFont.truetype(str(x / path), size))
            self.cmaps.append(TTFont(str(x / path), lazy=True).getBestCmap())
        self.advance = self.main.getlength("M")
        ascent, descent = self.main.getmetrics()
        self.ascent, self.height = ascent, ascent + descent

    def font_for(self, ch: str):
        for f, cmap in zip(self.fonts, self.cmaps):
            if ord(ch) in cmap:
                return f
        return self.main


def draw_text(img, fonts: Fonts, lines, origin, line_px, colours):
    """Draws `lines` ([(text, colour index)]) on the character grid from `origin`; returns the
    centre of every non-space character's cell: [char, x, y]."""
    d = ImageDraw.Draw(img)
    ox, oy = origin
    glyphs = []
    for row, (text, colour) in enumerate(lines):
        top = oy + row * line_px
        baseline = top + (line_px - fonts.height) / 2 + fonts.ascent
        for col, ch in enumerate(text):
            if ch == " ":
                continue
            cx = ox + (col + 0.5) * fonts.advance
            f = fonts.font_for(ch)
            if f is fonts.main:
                d.text((ox + col * fonts.advance, baseline), ch, font=f, fill=colours[colour], anchor="ls")
            else:
                # A terminal draws a fallback glyph centred on its cell, on the same baseline.
                d.text((cx, baseline), ch, font=f, fill=colours[colour], anchor="ms")
            glyphs.append([ch, cx, top + line_px / 2])
    return glyphs


def render_one(job):
    i, seed, out, x, names, positions = job
    rng = random.Random(seed * 1_000_003 + i)
    board = random_board(rng, positions)
    source = rng.choices(SOURCES, SOURCE_SHARE)[0]
    text, flipped, before = board_text(rng, x, board, source)
    name = rng.choice(names)
    fonts = Fonts(x, name, rng.randint(11, 28))
    line_px = round(fonts.height * rng.uniform(1.0, 1.35))
    bg, fg, accent = rng.choice(SCHEMES)
    dim = tuple(round(0.6 * f + 0.4 * b) for f, b in zip(fg, bg))
    colours = [fg, accent, dim]
    lines = []
    if before:
        prompt = rng.choice(["$ ", "user@host:~$ ", "% ", ">>> "]) if source == "stockfish" else ""
        lines += [(prompt + b if k == 0 else b, 1 if k == 0 else 0) for k, b in enumerate(before)]
    for _ in range(rng.randint(0, 3)):
        lines.insert(0, (rng.choice(PROSE), rng.choice([0, 2])))
    indent = " " * rng.choice([0, 0, 0, 1, 2, 4])
    lines += [(indent + s, 0) for s in text.splitlines()]
    for _ in range(rng.randint(0, 3)):
        lines.append((rng.choice(PROSE), rng.choice([0, 2])))
    cols = max(len(s) for s, _ in lines) + rng.randint(0, 30)
    pad = rng.randint(2, 24)
    w = round(cols * fonts.advance) + 2 * pad
    h = len(lines) * line_px + 2 * pad + rng.randint(0, 6) * line_px
    img = Image.new("RGB", (w, h), bg)
    glyphs = draw_text(img, fonts, lines, (pad, pad), line_px, colours)
    # A window's title bar, now and then.
    if rng.random() < 0.3:
        bar = rng.randint(22, 36)
        framed = Image.new("RGB", (w, h + bar), rng.choice([(53, 53, 53), (222, 222, 222), (44, 44, 44)]))
        framed.paste(img, (0, bar))
        img = framed
        glyphs = [[c, gx, gy + bar] for c, gx, gy in glyphs]
    # Scaling (a screenshot on a HiDPI screen, a thumbnail), blur and JPEG.
    scale = rng.choice([1.0, 1.0, rng.uniform(0.7, 1.6)])
    if scale != 1.0:
        img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))), Image.BILINEAR)
        glyphs = [[c, gx * scale, gy * scale] for c, gx, gy in glyphs]
    if rng.random() < 0.15:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.8)))
    ext = "jpg" if rng.random() < 0.3 else "png"
    path = out / f"{i:06d}.{ext}"
    if ext == "jpg":
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=rng.randint(60, 95))
        path.write_bytes(buf.getvalue())
    else:
        img.save(path)
    return {"image": path.name, "placement": board.board_fen(), "flipped": int(flipped), "source": source,
            "font": name, "glyphs": [[c, round(gx, 2), round(gy, 2)] for c, gx, gy in glyphs]}


def screenshot(x: Path, font: str, size: int, spacing: float, scheme, lines, pad=16):
    """A terminal window's text area holding `lines` ([(text, colour index)]), in `font`."""
    fonts = Fonts(x, font, size)
    line_px = round(fonts.height * spacing)
    bg, fg, accent = scheme
    w = round(max(len(s) for s, _ in lines) * fonts.advance) + 2 * pad
    img = Image.new("RGB", (w, len(lines) * line_px + 2 * pad), bg)
    draw_text(img, fonts, lines, (pad, pad), line_px, [fg, accent, tuple((f + b) // 2 for f, b in zip(fg, bg))])
    return img


def testdata_cases(out: Path):
    """The project's own test pictures of text boards (tests/textboard.rs), with expected.csv:
    a python-chess Unicode board printed from Black's side with its coordinates, on a dark
    terminal; Stockfish's `d` on a light one; `str(board)` in a small font with prose around it."""
    x = unpack_fonts()
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    board = chess.Board("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5")
    text = board.unicode(borders=True, orientation=chess.BLACK)
    lines = [(">>> print(board.unicode(borders=True, orientation=chess.BLACK))", 1)] + [(t, 0) for t in text.splitlines()]
    screenshot(x, "dejavu-sans-mono", 18, 1.15, SCHEMES[1], lines + [(">>> ", 1)]).save(out / "unicode_black_side.png")
    rows.append(("unicode_black_side.png", board.board_fen(), 1))

    board = chess.Board("r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 4 8")
    lines = [("$ stockfish", 1), ("position fen " + board.fen(), 0), ("d", 0)]
    lines += [(t, 0) for t in stockfish_board(x, board).splitlines()]
    screenshot(x, "liberation-mono", 15, 1.0, SCHEMES[9], lines).save(out / "stockfish_light.png")
    rows.append(("stockfish_light.png", board.board_fen(), 0))

    board = chess.Board("6k1/pp3ppp/4p3/3pP3/1b1P4/2r2N2/P4PPP/3R2K1 b - - 0 24")
    lines = [("# after 23...Rc3, Black threatens Rc1", 2), (">>> print(board)", 1)] + [(t, 0) for t in str(board).splitlines()]
    lines += [(">>> board.is_check()", 1), ("False", 0)]
    img = screenshot(x, "hack", 13, 1.2, SCHEMES[2], lines)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    (out / "python_chess_str.jpg").write_bytes(buf.getvalue())
    rows.append(("python_chess_str.jpg", board.board_fen(), 0))
    with open(out / "expected.csv", "w") as f:
        f.write("file,fen_field1,flipped,kind\n")
        f.writelines(f"{name},{placement},{flipped},text\n" for name, placement, flipped in rows)
    print(f"wrote {len(rows)} text boards to {out}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--testdata", type=Path, help="write the project's test pictures of text boards here instead")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fonts", choices=["train", "heldout", "all"], default="train")
    ap.add_argument("--processes", type=int, default=None)
    a = ap.parse_args()
    if a.testdata:
        return testdata_cases(a.testdata)
    if not a.out:
        ap.error("--out or --testdata is needed")
    x = unpack_fonts()
    names = sorted(n for n in MONO if {"train": n not in HELDOUT_FONTS, "heldout": n in HELDOUT_FONTS,
                                       "all": True}[a.fonts])
    positions_file = ASSETS / "positions.txt"
    positions = [s.split("\t")[0] for s in positions_file.read_text().splitlines()] if positions_file.exists() else []
    a.out.mkdir(parents=True, exist_ok=True)
    jobs = [(i, a.seed, a.out, x, names, positions) for i in range(a.count)]
    with Pool(a.processes) as pool, open(a.out / "glyphs.jsonl", "w") as g, open(a.out / "labels.csv", "w") as lab:
        lab.write("file,fen_field1,flipped,kind\n")
        for rec in pool.imap(render_one, jobs, chunksize=8):
            g.write(json.dumps(rec, ensure_ascii=False) + "\n")
            lab.write(f"{rec['image']},{rec['placement']},{rec['flipped']},{rec['source']}\n")
    print(f"{a.count} terminal boards in {a.out} ({', '.join(names)})", file=sys.stderr)


if __name__ == "__main__":
    main()
