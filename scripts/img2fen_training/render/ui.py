#!/usr/bin/env python3
"""Screenshots of real board UIs, taken in headless Chromium, with exact labels.

Three JavaScript boards that sites embed are fetched from npm and shown as a web page shows
them: lichess's own `chessground` (its brown board and cburnett pieces, or a plain colour
pair of another lichess theme; coordinates inside the edge squares, ranks on the left or the
right file as lichess sets them, or in a margin), `cm-chessboard` (its seven themes, its
standard and staunty pieces, no border, a thin one, or a frame with the coordinates in it) and
`chessboard-element` (chessboard.js's board as a web component: its Wikipedia pieces on
square colours drawn at random, files in the bottom squares' right corners, ranks in the left
file's top corners). The coordinates are set in the library's own type or in a web font from
npm's @fontsource packages, lower or upper case, regular or bold, at 12-30% of a square;
`--fonts heldout` (the default) uses only fonts that `--fonts train` never does, and the
project's coordinate model never saw any of them. Each board gets a real
position (fetch_assets.py's positions.txt, or the start position) after one random legal
move, White or Black at the bottom, coordinates or none, that move highlighted (in one of four
tints), a check, a selected square, arrows and circles, and a page around it (a title bar, a
move list, text) at a square size of 24-90 px. Nothing here was trained on: it measures the
whole pipeline on what a user's screenshot holds.

Writes OUT/images/NNNNN.png and OUT/labels.csv (file, fen_field1 from White, flipped, kind,
to_move (w or b), evidence: what the picture shows of it, last_move, check or none),
which `img2fen eval OUT/labels.csv` reads (kind is the board library and its theme or pieces),
OUT/labels-by-coords.csv, the same rows with kind saying where the coordinates are (inside the
edge squares, in a margin or a frame, or none), OUT/labels-by-position.csv, with kind saying
whether coordinates are drawn and where the position comes from (a played game, a lesson, the
start position), OUT/manifest.jsonl (the squares' corners and each label's glyph and centre, as
render.coords writes them, for `img2fen dataset --labels`), and OUT/specs.jsonl with everything
each page was given. Chromium is driven by Playwright (PyPI) with Debian's chromium.

Usage: python3 -m img2fen_training.render.ui --out DIR [--count 120] [--seed 1] [--work work/ui]
       [--assets work/assets] [--fonts heldout|train]
Needs npm, Chromium (Debian: apt-get install chromium) and Playwright (pip install playwright==1.65.2).
"""

import argparse
import csv
import functools
import json
import random
import re
import shutil
import subprocess
import sys
import tarfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

from img2fen_training.paths import ASSETS, WORK

PACKAGES = {"cg": "chessground@9.2.1", "cm": "cm-chessboard@8.15.1", "ce": "chessboard-element@1.2.0"}
# Web fonts for the coordinates (npm's @fontsource, version 5.3.0), split so that a set rendered
# with one list never shows a face of the other.
FONTS = {"train": ["roboto", "open-sans", "lato", "montserrat", "source-sans-pro", "nunito", "raleway", "merriweather"],
         "heldout": ["inter", "noto-sans", "poppins", "ibm-plex-sans", "dm-sans", "roboto-mono", "playfair-display",
                     "oswald", "rubik", "lora"]}
CM_THEMES = ["default", "default-contrast", "green", "blue", "chess-club", "chessboard-js", "black-and-white"]
CM_PIECES = ["standard", "staunty"]
CM_BORDERS = ["none", "thin", "frame"]
# Light and dark squares of lichess board themes drawn as flat colours (brown is the package's own).
CG_THEMES = {"brown": None, "blue": ("#dee3e6", "#8ca2ad"), "green": ("#ffffdd", "#86a666"),
             "purple": ("#9f90b0", "#7d4a8d"), "ic": ("#ececec", "#c1c18e"), "grey": ("#c8c8c8", "#9a9a9a")}
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"

PAGE = """<!doctype html>
<html><head><meta charset="utf-8">
<link rel="stylesheet" href="cg/assets/chessground.base.css">
<link rel="stylesheet" href="cg/assets/chessground.brown.css">
<link rel="stylesheet" href="cg/assets/chessground.cburnett.css">
<link rel="stylesheet" href="cm/assets/chessboard.css">
<link rel="stylesheet" href="cm/assets/extensions/markers/markers.css">
<link rel="stylesheet" href="cm/assets/extensions/arrows/arrows.css">
<style>
 body { margin: 0; font-family: sans-serif; }
 header { height: 44px; display: flex; align-items: center; padding: 0 16px; font-size: 20px; }
 main { display: flex; gap: 24px; padding: 16px; }
 #board { flex: none; }
 aside { width: 260px; font-size: 14px; line-height: 1.6; }
 /* lichess's own look: ranks in the a-file's top corners, files in the first rank's bottom right */
 .inside coords.ranks { left: 3px; top: 0; height: 100%; }
 .inside coords.files { left: 0; bottom: 0; width: 100%; height: auto; text-align: right; }
 .inside coords coord { flex: 1 1 0; font-weight: bold; transform: none !important; }
 .inside coords.ranks coord { padding-top: 2px; }
 .inside coords.files coord { padding-right: 3px; }
 /* or in a margin round the board, as analysis pages and databases set them */
 .outside { margin: 4px 0 0 18px; }
 .outside coords.ranks { left: -16px; top: 0; height: 100%; width: 12px; }
 .outside coords.files { left: 0; bottom: -18px; width: 100%; text-align: center; }
 .outside coords coord { flex: 1 1 0; display: flex; align-items: center; justify-content: center; transform: none !important; }
 .outside coords { font-size: 12px; color: inherit !important; }
 .outside coords coord { color: inherit !important; }
</style></head>
<body><header id="title"></header><main><div id="board"></div><aside id="side"></aside></main>
<script type="module">
const p = JSON.parse(decodeURIComponent(location.hash.slice(1)));
document.body.style.background = p.page; document.body.style.color = p.ink;
document.getElementById("title").textContent = p.title;
document.getElementById("title").style.background = p.bar;
document.getElementById("side").textContent = p.text;
const el = document.getElementById("board");
const style = (css) => { const s = document.createElement("style"); s.textContent = css; document.head.appendChild(s); };
// The coordinates' type: a web font (its stylesheet), case, weight and size in pixels.
const look = p.coord_look;
if (look && look.css) {
  const l = document.createElement("link"); l.rel = "stylesheet"; l.href = look.css; document.head.appendChild(l);
  await new Promise((ok) => { l.onload = ok; l.onerror = ok; });
  await document.fonts.load(`${look.weight} 20px "${look.family}"`, "abcdefghABCDEFGH12345678");
}
const type = look ? `${look.family ? `font-family: "${look.family}" !important;` : ""}
  text-transform: ${look.upper ? "uppercase" : "none"} !important; font-weight: ${look.weight} !important;` : "";
if (p.lib === "cg") {
  const { Chessground } = await import("./cg/dist/chessground.js");
  el.className = "cg-wrap " + (p.inside ? "inside" : "outside");
  el.style.width = el.style.height = p.size + "px";
  if (p.colours) {
    const [l, d] = p.colours;
    const s = document.createElement("style");
    s.textContent = `cg-board { background-image: conic-gradient(${d} 90deg, ${l} 90deg 180deg, ${d} 180deg 270deg, ${l} 270deg) !important;
      background-size: 25% 25% !important; /* 2x2 squares a tile, the top left one light */ background-color: ${l} !important; }`;
    document.head.appendChild(s);
  }
  // Labels inside the squares in the colour of the other squares, as lichess draws them: file k
  // (k-th in the DOM) stands on a dark square when k is odd with White at the bottom (rank 1);
  // rank k on the a-file when k is odd, on the h-file when k is even.
  if (p.coords && p.inside) {
    const [onLight, onDark] = p.colours ? [p.colours[1], p.colours[0]] : ["rgba(72, 72, 72, 0.8)", "rgba(255, 255, 255, 0.8)"];
    const white = p.orientation === "white";
    const aFile = white !== !!p.ranks_right;
    const pair = (sel, oddDark) => `.inside coords.${sel} coord:nth-child(odd) { color: ${oddDark ? onDark : onLight} !important; }
      .inside coords.${sel} coord:nth-child(even) { color: ${oddDark ? onLight : onDark} !important; }`;
    style(pair("files", white) + pair("ranks", aFile));
  }
  if (look) style(`.cg-wrap coords coord { ${type} } .cg-wrap coords { font-size: ${look.px}px !important; }`);
  // lichess's own placement: ranks in the top right corners of the right file
  if (p.inside && p.ranks_right) style(`.inside coords.ranks { left: auto !important; right: 3px; text-align: right; }`);
  Chessground(el, { fen: p.fen, orientation: p.orientation, coordinates: p.coords, viewOnly: true,
    animation: { enabled: false }, lastMove: p.lastMove || undefined, turnColor: p.turn,
    selected: p.selected || undefined,
    check: p.check ? p.turn : false, drawable: { autoShapes: p.shapes } });
  if (p.last_move_tint) {
    const s = document.createElement("style");
    s.textContent = `cg-board square.last-move { background-color: ${p.last_move_tint} !important; }`;
    document.head.appendChild(s);
  }
} else if (p.lib === "ce") {
  await import("./ce/bundled/chessboard-element.bundled.js");
  const b = document.createElement("chess-board");
  b.style.width = p.size + "px";
  b.style.setProperty("--light-color", p.colours[0]); b.style.setProperty("--dark-color", p.colours[1]);
  if (!p.coords) b.setAttribute("hide-notation", "");
  b.orientation = p.orientation;
  el.appendChild(b);
  b.setPosition(p.fen, false);
  const part = (sq) => `chess-board::part(${sq})`;
  style(`chess-board::part(notation) { ${type} ${look ? `font-size: ${look.px}px;` : ""} }`);
  const tint = p.last_move_tint || "rgba(155, 199, 0, 0.41)";
  if (p.lastMove) style(`${p.lastMove.map(part).join(", ")} { box-shadow: inset 0 0 0 ${p.size}px ${tint}; }`);
  if (p.selected) style(`${part(p.selected)} { box-shadow: inset 0 0 3px 3px yellow; }`);
  if (p.check && p.check_square) style(`${part(p.check_square)} { background-image: radial-gradient(ellipse at center,
    red 0%, #e70000 25%, rgba(169, 0, 0, 0) 89%, rgba(158, 0, 0, 0) 100%); }`);
  await b.updateComplete;
} else {
  const { Chessboard, COLOR } = await import("./cm/src/Chessboard.js");
  const { Markers, MARKER_TYPE } = await import("./cm/src/extensions/markers/Markers.js");
  const { Arrows, ARROW_TYPE } = await import("./cm/src/extensions/arrows/Arrows.js");
  el.style.width = p.size + "px";
  const board = new Chessboard(el, { position: p.fen, assetsUrl: "./cm/assets/",
    orientation: p.orientation === "white" ? COLOR.white : COLOR.black,
    style: { cssClass: p.theme, showCoordinates: p.coords, borderType: p.border,
             pieces: { file: "pieces/" + p.pieces + ".svg" }, animationDuration: 0 },
    extensions: [{ class: Markers, props: { autoMarkers: null } }, { class: Arrows }] });
  await board.initialization;
  if (look) style(`.cm-chessboard .coordinates .coordinate { ${type} }`);
  for (const sq of p.lastMove || []) board.addMarker(MARKER_TYPE.square, sq);
  if (p.selected) board.addMarker(MARKER_TYPE.frame, p.selected);
  for (const s of p.shapes) s.dest ? board.addArrow(ARROW_TYPE.default, s.orig, s.dest) : board.addMarker(MARKER_TYPE.circle, s.orig);
}
document.body.setAttribute("data-ready", "1");
</script></body></html>
"""


def fetch(work: Path) -> Path:
    """npm-packs the board packages and the web fonts into WORK/npm and unpacks them under
    WORK/www (the fonts under WORK/www/fonts)."""
    npm, www = work / "npm", work / "www"
    npm.mkdir(parents=True, exist_ok=True)
    packages = {**PACKAGES, **{f"fonts/{f}": f"@fontsource/{f}@5.3.0" for f in FONTS["train"] + FONTS["heldout"]}}
    for name, spec in packages.items():
        if not (www / name).exists():
            out = subprocess.run(["npm", "pack", spec, "--pack-destination", str(npm)], capture_output=True, text=True, check=True)
            with tarfile.open(npm / out.stdout.strip().splitlines()[-1]) as tar:
                tar.extractall(npm / name, filter="data")
            shutil.copytree(npm / name / "package", www / name)
    (www / "index.html").write_text(PAGE)
    return www


def serve(root: Path):
    """A local web server for the page (Chromium loads ES modules over http only)."""
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def with_last_move(rng: random.Random, placement: str):
    """A position as a game reaches it: `placement` with a random side to move, then one random
    legal move played. Returns (placement after it, its side to move, the move's two squares,
    whether that side is in check); None when `placement` is no legal position for either side."""
    import chess

    for turn in rng.sample([chess.WHITE, chess.BLACK], 2):
        board = chess.Board(f"{placement} {'w' if turn else 'b'} - - 0 1")
        moves = list(board.legal_moves)
        if not board.is_valid() or not moves:
            continue
        move = rng.choice(moves)
        board.push(move)
        squares = [chess.square_name(move.from_square), chess.square_name(move.to_square)]
        return board.board_fen(), "white" if board.turn else "black", squares, board.is_check()
    return None


# How a last move is drawn: chessground's own tint (lichess), chess.com's yellow, a blue and a
# strong green as other sites set them. Selected squares get chessground's own selection tint.
LAST_MOVE_TINTS = {"lichess": None, "chesscom": "rgba(255, 255, 51, 0.5)", "blue": "rgba(60, 130, 220, 0.45)",
                   "green": "rgba(20, 150, 60, 0.5)"}


def font_faces(www: Path, which: str):
    """The web fonts of FONTS[which] as fetched under `www`: (family, stylesheet path by weight)."""
    faces = []
    for name in FONTS[which]:
        folder = www / "fonts" / name
        family = re.search(r"font-family: '([^']+)'", (folder / "index.css").read_text()).group(1)
        faces.append((family, {w: f"fonts/{name}/{w}.css" for w in (400, 700) if (folder / f"{w}.css").exists()}))
    return faces


def coord_look(rng: random.Random, faces, square: float):
    """How the coordinates are set: None for the library's own type (a third of boards), else a
    family (a web font of `faces`, or the library's), case, weight and size in pixels."""
    if rng.random() < 0.33:
        return None
    look = {"family": None, "css": None, "upper": rng.random() < 0.35, "weight": rng.choice([400, 700]),
            "px": max(7, round(square * rng.uniform(0.12, 0.3)))}
    if faces and rng.random() < 0.85:
        family, sheets = rng.choice(faces)
        weight = look["weight"] if look["weight"] in sheets else min(sheets)
        look.update(family=family, css=sheets[weight], weight=weight)
    return look


def random_colours(rng: random.Random):
    """A light and a dark square colour of one hue, as board themes pick them."""
    h, s = rng.uniform(0, 360), rng.uniform(5, 60)
    return f"hsl({h:.0f} {s:.0f}% {rng.uniform(78, 94):.0f}%)", f"hsl({h:.0f} {s:.0f}% {rng.uniform(35, 62):.0f}%)"


def coords_kind(spec) -> str:
    """Where the board's coordinates are: the kind column of labels-by-coords.csv."""
    if not spec["coords"]:
        return "no-coords"
    if spec["lib"] == "cg" and not spec["inside"]:
        return "coords-margin"
    if spec["lib"] == "cm" and spec["border"] == "frame":
        return "coords-frame"
    return "coords-inside"


def board_spec(rng: random.Random, positions, faces=()):
    placement, source = rng.choice(positions) if positions and rng.random() < 0.85 else (START, "start")
    played = with_last_move(rng, placement)
    if played is None:
        played, source = with_last_move(rng, START), "start"
    fen, turn, last, check = played
    every = [f + r for f in "abcdefgh" for r in "12345678"]
    shapes = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        a, b = rng.sample(every, 2)
        shapes.append({"orig": a, "dest": b, "brush": rng.choice(["green", "red", "blue", "yellow"])})
    if rng.random() < 0.3:
        shapes.append({"orig": rng.choice(every), "brush": rng.choice(["green", "red"])})
    shown = rng.random() < 0.6
    dark = rng.random() < 0.35
    spec = {
        "fen": fen, "source": source, "orientation": rng.choice(["white", "black"]), "coords": rng.random() < 0.7,
        "lastMove": last if shown else None, "tint": rng.choice(list(LAST_MOVE_TINTS)), "turn": turn,
        # A selected square: a piece of the side to move, as when a user has clicked it.
        "selected": rng.choice(every) if rng.random() < 0.15 else None,
        "check": check and rng.random() < 0.85, "shapes": shapes,
        "size": 8 * rng.randint(24, 90),
        "page": rng.choice(["#161512", "#262421", "#2b2b2b"]) if dark else rng.choice(["#ffffff", "#f7f6f5", "#eeeeee", "#fafaf0"]),
        "ink": "#bababa" if dark else "#333333", "bar": rng.choice(["#3a3a3a", "#629924", "#1b78d0", "#b0b0b0", "#d9d9d9"]),
        "title": rng.choice(["Analysis board", "Puzzle of the day", "Game 14: round 3", "Study: endgames", "Chess club"]),
        "text": " ".join(rng.choice(["1. e4 e5", "2. Nf3 Nc6", "3. Bb5 a6", "Black to move.", "White wins.", "14... Qd7", "Find the best move."]) for _ in range(12)),
    }
    spec["last_move_tint"] = LAST_MOVE_TINTS[spec["tint"]]
    # What the picture says of the side to move: the last move's squares, else a king in check
    # (which the position shows whether or not the UI makes it glow).
    spec["evidence"] = "last_move" if shown else ("check" if check else "none")
    import chess

    king = chess.BaseBoard(fen).king(chess.WHITE if turn == "white" else chess.BLACK)
    spec["check_square"] = chess.square_name(king) if king is not None else None
    spec["coord_look"] = coord_look(rng, faces, spec["size"] / 8) if spec["coords"] else None
    lib = rng.random()
    if lib < 0.4:
        spec["lib"] = "cg"
        theme = rng.choice(list(CG_THEMES))
        spec.update(colours=CG_THEMES[theme], inside=rng.random() < 0.7, ranks_right=rng.random() < 0.5,
                    kind=f"chessground-{theme}")
    elif lib < 0.6:
        spec.update(lib="ce", colours=random_colours(rng), kind="chessboard-element")
    else:
        spec["lib"] = "cm"
        spec.update(theme=rng.choice(CM_THEMES), pieces=rng.choice(CM_PIECES), border=rng.choice(CM_BORDERS))
        spec["kind"] = f"cm-chessboard-{spec['pieces']}"
    return spec


# Run in the page once it is drawn: the rectangle of the board's 64 squares and, for every
# coordinate label, its text and the centre of its ink (the text's box from the DOM, the ink
# within it from the font's metrics on a canvas), in page pixels.
GEOMETRY = """(lib) => {
  const canvas = document.createElement("canvas").getContext("2d");
  const ink = (el, box, text) => {
    const cs = getComputedStyle(el);
    canvas.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const shown = cs.textTransform === "uppercase" ? text.toUpperCase() : text;
    const m = canvas.measureText(shown);
    const baseline = box.top + (box.height - m.fontBoundingBoxAscent - m.fontBoundingBoxDescent) / 2 + m.fontBoundingBoxAscent;
    return [text.trim(), box.left + (m.actualBoundingBoxRight - m.actualBoundingBoxLeft) / 2,
            baseline - (m.actualBoundingBoxAscent - m.actualBoundingBoxDescent) / 2];
  };
  const textBox = (el) => { const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect(); };
  const union = (rs) => [Math.min(...rs.map((r) => r.left)), Math.min(...rs.map((r) => r.top)),
                         Math.max(...rs.map((r) => r.right)), Math.max(...rs.map((r) => r.bottom))];
  const shown = (el) => getComputedStyle(el).display !== "none" && getComputedStyle(el).visibility !== "hidden";
  let squares, labels = [];
  if (lib === "cg") {
    const b = document.querySelector("cg-board").getBoundingClientRect();
    squares = [b.left, b.top, b.right, b.bottom];
    for (const c of document.querySelectorAll("coords coord")) if (shown(c)) labels.push(ink(c, textBox(c), c.textContent));
  } else if (lib === "ce") {
    const root = document.querySelector("chess-board").shadowRoot;
    squares = union([...root.querySelectorAll("[part~=square]")].map((e) => e.getBoundingClientRect()));
    for (const n of root.querySelectorAll("[part~=notation]")) labels.push(ink(n, textBox(n), n.textContent));
  } else {
    squares = union([...document.querySelectorAll(".cm-chessboard .board .square")].map((e) => e.getBoundingClientRect()));
    for (const t of document.querySelectorAll(".cm-chessboard .coordinates .coordinate"))
      labels.push(ink(t, t.getBoundingClientRect(), t.textContent));
  }
  return { squares, labels };
}"""

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def screenshots(jobs, work: Path):
    """Takes each (spec, path, (width, height)) of `jobs` as a screenshot of the page, with the
    packages fetched into `work` and served locally while it runs, in one headless Chromium
    (Debian's, driven by Playwright from PyPI). Returns, per job, the geometry the page reports
    (GEOMETRY: the squares' rectangle and each label's centre, in pixels)."""
    from playwright.sync_api import sync_playwright

    server = serve(fetch(work))
    port = server.server_address[1]
    shapes, fetched = [], set()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
            for spec, path, (width, height) in jobs:
                page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1)
                page.goto(f"http://127.0.0.1:{port}/index.html#" + quote(json.dumps(spec)))
                page.wait_for_selector("body[data-ready]", timeout=30000)
                # cm-chessboard fetches its piece sprite after it reports ready: the first page of
                # each sprite waits for the network to go quiet; later pages find it cached.
                sprite = spec.get("pieces") if spec["lib"] == "cm" else None
                if sprite not in fetched:
                    page.wait_for_load_state("networkidle")
                    fetched.add(sprite)
                page.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")
                page.screenshot(path=str(path))
                shapes.append(page.evaluate(GEOMETRY, spec["lib"]))
                page.close()
            browser.close()
    finally:
        server.shutdown()
    return shapes


def displayed_rows(fen: str, flipped: bool) -> str:
    """The board as displayed, rows from the top joined by '/', '.' for an empty square."""
    import chess

    board = chess.BaseBoard(fen)
    rows = ["".join((board.piece_at(chess.square(f, r)) or ".").__str__() for f in range(8)) for r in range(7, -1, -1)]
    if flipped:
        rows = [row[::-1] for row in rows[::-1]]
    return "/".join(rows)


def manifest_line(name: str, spec, shape) -> dict:
    """A line of OUT/manifest.jsonl as render.coords writes it: the picture, the squares' four
    corners, the board as displayed, its orientation, where its coordinates are, and each
    label's glyph with its centre in squares from the board's top-left corner (what `img2fen
    dataset --labels` cuts label patches from)."""
    x0, y0, x1, y1 = shape["squares"]
    sq_w, sq_h = (x1 - x0) / 8, (y1 - y0) / 8
    glyphs = [[text.lower(), round((x - x0) / sq_w, 3), round((y - y0) / sq_h, 3)]
              for text, x, y in shape["labels"] if len(text) == 1]
    where = coords_kind(spec)
    return {"image": name, "corners": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
            "labels": displayed_rows(spec["fen"], spec["orientation"] == "black"),
            "flipped": int(spec["orientation"] == "black"),
            "coords": {"coords-inside": "inner", "no-coords": "none"}.get(where, "outer"), "files_reversed": 0,
            "glyphs": glyphs if spec["coords"] else []}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", type=Path, default=WORK / "ui")
    ap.add_argument("--assets", type=Path, default=ASSETS)
    ap.add_argument("--fonts", choices=sorted(FONTS), default="heldout",
                    help="the web fonts the coordinates may be set in (the library's own type too)")
    a = ap.parse_args()
    if not shutil.which("chromium"):
        sys.exit("render_ui: needs chromium (apt-get install chromium)")
    pos_file = a.assets / "positions.txt"
    # Each real position with where it comes from: a played game (pychess's mate_in_N files) or a
    # lesson (lichess studies: endings such as king, bishop and knight against king).
    rows = [l.split("\t") for l in pos_file.read_text().splitlines()] if pos_file.exists() else []
    positions = [(r[0], "game" if r[2].startswith("mate_in_") else "study") for r in rows]
    rng = random.Random(a.seed)
    faces = font_faces(fetch(a.work), a.fonts)
    (a.out / "images").mkdir(parents=True, exist_ok=True)
    jobs = []
    with (open(a.out / "labels.csv", "w", newline="") as f, open(a.out / "labels-by-coords.csv", "w", newline="") as g,
          open(a.out / "labels-by-position.csv", "w", newline="") as h, open(a.out / "specs.jsonl", "w") as specs):
        w, by_coords, by_position = csv.writer(f), csv.writer(g), csv.writer(h)
        for out in (w, by_coords, by_position):
            out.writerow(["file", "fen_field1", "flipped", "kind", "to_move", "evidence"])
        for i in range(a.count):
            spec = board_spec(rng, positions, faces)
            window = spec["size"] + 360 + rng.randint(0, 200), spec["size"] + 120 + rng.randint(0, 120)
            name = f"images/{i:05d}.png"
            jobs.append((spec, a.out / name, window))
            row = [name, spec["fen"], int(spec["orientation"] == "black"), spec["kind"], spec["turn"][0], spec["evidence"]]
            w.writerow(row)
            by_coords.writerow(row[:3] + [coords_kind(spec)] + row[4:])
            shown = "coordinates" if spec["coords"] else "no coordinates"
            by_position.writerow(row[:3] + [f"{shown}, {spec['source']}"] + row[4:])
            specs.write(json.dumps({"file": name, **spec}) + "\n")
    shapes = screenshots(jobs, a.work)
    with open(a.out / "manifest.jsonl", "w") as f:
        for (spec, path, _), shape in zip(jobs, shapes):
            f.write(json.dumps(manifest_line(str(path.relative_to(a.out)), spec, shape)) + "\n")
    print(f"render_ui: {a.count} screenshots in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
