#!/usr/bin/env python3
"""Render the screenshots committed in testdata/ and their expected FENs (testdata/expected.csv).
Two pictures, LaTeX-typeset book diagrams, need pdflatex (python3 -m img2fen_training.render.latex says which
Debian packages).

Each is a realistic screen: a board inside an app or web page with a header, a move list, text
and other coloured areas, in the themes and piece sets people use. Pieces come from the sets
that python3 -m img2fen_training.assets extracts.

testdata/learn/ holds two screens of a piece set the shipped model never trained on, for the
learned-set tests (tests/learn.rs); they are not in expected.csv. testdata/to_move/ holds three
screens whose side to move the picture shows, with their own expected.csv (tests/end_to_end.rs).

Usage: python3 -m img2fen_training.render.testdata [--assets work/assets] [--out testdata]
"""

import argparse
import random
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from img2fen_training.paths import ASSETS, ROOT, WORK
from img2fen_training.render import boards as rb

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def cells_from_fen(placement: str, flipped: bool):
    cells = [("w" if ch.isupper() else "b") + ch.upper() if ch else None for ch in rb.fen_cells(placement)]
    return cells[::-1] if flipped else cells


def board_image(pset, placement, s, light, dark, flipped, coords=True, highlight=(), arrow=None):
    cells = cells_from_fen(placement, flipped)
    board = rb.flat_board(s, light, dark)
    if highlight:
        over = Image.new("RGBA", board.size, (0, 0, 0, 0))
        od = ImageDraw.Draw(over)
        for i in highlight:
            od.rectangle(rb.square_box(i, s), fill=(155, 199, 0, 105))
        board = Image.alpha_composite(board.convert("RGBA"), over).convert("RGB")
    if coords:
        rb.draw_inner_coords(board, s, light, dark, flipped, BOLD, 0.2)
    rb.paste_pieces(board, s, cells, pset, fill=0.9)
    if arrow:
        rb.draw_arrow(board, s, 0, 0, arrow[0], arrow[1], (255, 170, 0), 200)
    return board


def page(size, bg):
    return Image.new("RGB", size, bg)


def text_lines(d, x, y, lines, font, fill, step):
    for i, t in enumerate(lines):
        d.text((x, y + i * step), t, font=font, fill=fill)


MOVES = ["1. e4 e5", "2. Nf3 Nc6", "3. Bc4 Bc5", "4. c3 Nf6", "5. d4 exd4", "6. cxd4 Bb4+",
         "7. Bd2 Bxd2+", "8. Nbxd2 d5", "9. exd5 Nxd5", "10. Qb3 Nce7", "11. O-O O-O"]

CASES = [
    # file, placement (from White), flipped, piece set, square px
    ("lichess_page_1920x1080.png", "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1", False, "lichess-cburnett", 96),
    ("black_side_blue.png", "r1bqkb1r/pp1ppppp/2n2n2/2p5/4P3/2N2N2/PPPP1PPP/R1BQKB1R", True, "lichess-merida", 52),
    ("small_board_article.png", "6k1/5ppp/8/8/8/8/5PPP/3R2K1", False, "chessboardjs-wikipedia", 20),
    ("green_arrows.jpg", "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R", False, "lichess-alpha", 64),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assets", type=Path, default=ASSETS)
    ap.add_argument("--out", type=Path, default=ROOT / "testdata")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    sets = rb.load_sets(a.assets, "all")
    font = ImageFont.truetype(FONT, 22)
    bold = ImageFont.truetype(BOLD, 28)
    rows = []

    # 1. A full 1920x1080 analysis page: dark UI, header, move list, a green button, brown board.
    f, pl, fl, st, s = CASES[0]
    img = page((1920, 1080), (22, 21, 18))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, 1920, 60], fill=(38, 36, 33))
    d.text((30, 14), "lichess.org   PLAY   PUZZLES   LEARN   WATCH   COMMUNITY   TOOLS", font=font, fill=(190, 190, 190))
    board = board_image(sets[st], pl, s, (240, 217, 181), (181, 136, 99), fl, highlight=(29, 45))
    img.paste(board, (420, 120))
    d.rectangle([1240, 120, 1700, 888], fill=(38, 36, 33))
    text_lines(d, 1265, 140, MOVES, font, (200, 200, 200), 38)
    d.rectangle([1240, 900, 1700, 980], fill=(98, 153, 36))
    d.text((1330, 922), "Play with the computer", font=font, fill=(255, 255, 255))
    d.rectangle([60, 120, 380, 520], fill=(48, 46, 43))
    text_lines(d, 80, 140, ["Opening:", "Italian Game", "Giuoco Piano", "", "Blitz 5+3", "Rated"], font, (170, 170, 170), 36)
    img.save(a.out / f)
    rows.append((f, pl, int(fl)))

    # 2. Shown from Black's side, blue theme, with coordinates, in a light app window.
    f, pl, fl, st, s = CASES[1]
    img = page((760, 560), (245, 245, 245))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, 760, 40], fill=(60, 70, 90))
    d.text((12, 8), "Analysis board", font=font, fill=(255, 255, 255))
    board = board_image(sets[st], pl, s, (222, 227, 230), (140, 162, 173), fl)
    img.paste(board, (24, 64))
    text_lines(d, 470, 70, ["Sicilian Defence", "Black to play", "", "1. e4 c5", "2. Nf3 Nc6", "3. Nc3 Nf6"], font, (40, 40, 40), 34)
    img.save(a.out / f)
    rows.append((f, pl, int(fl)))

    # 3. A 160 px board inside an article page with text around it.
    f, pl, fl, st, s = CASES[2]
    img = page((900, 600), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.text((40, 30), "Back-rank mate", font=bold, fill=(20, 20, 20))
    body = ["White to move wins at once: the black king has no", "escape square behind its own pawns.",
            "", "The rook goes to the eighth rank and it is mate.", "Always give your king a flight square."]
    text_lines(d, 40, 90, body, font, (50, 50, 50), 32)
    board = board_image(sets[st], pl, s, (238, 238, 210), (118, 150, 86), fl, coords=False)
    img.paste(board, (600, 300))
    d.text((600, 470), "Diagram 1", font=font, fill=(90, 90, 90))
    img.save(a.out / f)
    rows.append((f, pl, int(fl)))

    # 4. chess.com-like green board with an arrow, saved as JPEG.
    f, pl, fl, st, s = CASES[3]
    img = page((1000, 620), (49, 46, 43))
    board = board_image(sets[st], pl, s, (238, 238, 210), (118, 150, 86), fl, highlight=(36, 51), arrow=(52, 36))
    img.paste(board, (40, 54))
    d = ImageDraw.Draw(img)
    text_lines(d, 600, 60, ["Sicilian, Najdorf", "5. Nc3 a6", "", "Best move: Nc3"], font, (220, 220, 220), 36)
    img.save(a.out / f, quality=80)
    rows.append((f, pl, int(fl)))

    # 5. The same picture as a phone stores it: pixels turned sideways, with EXIF orientation 6
    # ("rotate 90 degrees clockwise to display").
    stored = img.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6
    stored.save(a.out / "green_arrows_exif_rotated.jpg", quality=80, exif=exif.tobytes())
    rows.append(("green_arrows_exif_rotated.jpg", pl, int(fl)))

    phone_cases(img, a.out)
    rows += coordinate_cases(sets, a.out, font)
    rows.append(textured_case(sets, a.assets, a.out, font))
    rows.append(wood_grain_case(sets, a.assets, a.out, font))
    rows.append(latex_case(a.out))
    rows.append(fax_scan_case(a.out))
    rows.append(python_chess_case(a.out))
    rows.append(thumbnail_case(sets, a.out, font))
    rows += ui_cases(a.out)
    rows += formats(sets, a.out)
    bad_inputs(a.out / "bad", a.out / "formats" / "rgb.png")
    learn_cases(sets, a.out / "learn")
    to_move_cases(a.out / "to_move")
    orientation_case(sets, a.out / "orientation", font)

    with open(a.out / "expected.csv", "w") as fh:
        fh.write("file,fen_field1,flipped,kind\n")
        for r in rows:
            fh.write(f"{r[0]},{r[1]},{r[2]},{r[3] if len(r) > 3 else 'screenshot'}\n")
    print(f"wrote {len(rows)} pictures to {a.out}")


def orientation_case(sets, out, font):
    """A sparse ending without coordinates (testdata/orientation/): every square reads surely,
    but the pieces say little of which side is at the bottom, so the board warns that its side
    at the bottom is uncertain and `--strict` exits 3 for it (tests/cli.rs)."""
    out.mkdir(parents=True, exist_ok=True)
    img = page((640, 480), (250, 250, 250))
    board = board_image(sets["chessboardjs-wikipedia"], "8/8/8/6pK/8/8/3b1QN1/7k", 48, (240, 217, 181), (181, 136, 99),
                        False, coords=False)
    img.paste(board, (24, 32))
    d = ImageDraw.Draw(img)
    text_lines(d, 440, 40, ["Study 12", "Win."], font, (40, 40, 40), 34)
    img.save(out / "sparse_ending.png")


def phone_cases(img, out):
    """The green-arrows screenshot as phones store photos (testdata/phone/): HEIC and AVIF, each
    as it is and stored sideways with the turn to upright in the container (the encoders turn
    EXIF orientation 6 into an `irot` box). Needs the "phone" extra (pillow-heif). Not in
    expected.csv, since they need the codec libraries: tests/phone.rs expects green_arrows.jpg's
    position."""
    import pillow_heif
    pillow_heif.register_heif_opener()
    d = out / "phone"
    d.mkdir(parents=True, exist_ok=True)
    stored = img.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6
    for ext in ("heic", "avif"):
        img.save(d / f"green_arrows.{ext}", quality=90)
        stored.save(d / f"green_arrows_turned.{ext}", quality=90, exif=exif.tobytes())


def coordinate_cases(sets, out, font):
    """Boards whose orientation only the coordinates tell: the pieces point the other way."""
    rows = []
    # 6. A promotion race shown from Black's side, lichess style: ranks at the top right of the
    # right file, small. Each side's pawn and king stand deep in the other's half, so the pieces
    # (and the prior for White) say White is at the bottom.
    pl = "8/P1K5/8/8/8/8/5kp1/8"
    s = 56
    cells = cells_from_fen(pl, True)
    light, dark = (240, 217, 181), (181, 136, 99)
    board = rb.flat_board(s, light, dark)
    rb.draw_inner_coords(board, s, light, dark, True, BOLD, 0.16, right_ranks=True)
    rb.paste_pieces(board, s, cells, sets["lichess-cburnett"], fill=0.9)
    img = page((900, 540), (22, 21, 18))
    img.paste(board, (30, 44))
    d = ImageDraw.Draw(img)
    text_lines(d, 520, 60, ["Endgame study", "Black to move", "", "1... g1=Q 2. a8=Q"], font, (200, 200, 200), 36)
    img.save(out / "race_black_side_coords.png")
    rows.append(("race_black_side_coords.png", pl, 1, "coordinates"))

    # 7. A book diagram from Black's side with its coordinates in the margin (serif), grey dark
    # squares, a frame, a caption: the same misleading race.
    pl = "1K6/1P6/8/8/8/8/6p1/6k1"
    s = 40
    cells = cells_from_fen(pl, True)
    board = rb.flat_board(s, (255, 255, 255), (185, 185, 185))
    rb.paste_pieces(board, s, cells, sets["scid-merida"], fill=0.88)
    img = page((520, 520), (255, 255, 255))
    ox, oy, n = 60, 40, 8 * s
    img.paste(board, (ox, oy))
    d = ImageDraw.Draw(img)
    d.rectangle([ox - 2, oy - 2, ox + n + 1, oy + n + 1], outline=(0, 0, 0), width=2)
    serif = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", 15)
    for k in range(8):
        d.text((ox + k * s + s / 2, oy + n + 16), "hgfedcba"[k], fill=(0, 0, 0), font=serif, anchor="mm")
        d.text((ox - 16, oy + k * s + s / 2), "12345678"[k], fill=(0, 0, 0), font=serif, anchor="mm")
    d.text((ox, oy + n + 40), "Diagram 12: Black to play and draw", fill=(0, 0, 0), font=serif)
    img.save(out / "book_black_side_coords.png")
    rows.append(("book_black_side_coords.png", pl, 1, "coordinates"))

    # 8. A PDF viewer showing a book page: the diagram's dark squares are a hatch so faint that
    # the board is found by its thin frame, not by its X-corners; coordinates in the margin.
    pl = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R"
    s = 34
    img = page((869, 626), (52, 52, 52))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, 869, 56], fill=(66, 66, 66))
    d.text((90, 18), "06. Open Games - chess course.pdf", fill=(230, 230, 230), font=font)
    d.rectangle([16, 64, 830, 626], fill=(255, 255, 255))
    board = rb.faint_hatch_squares(s, 5, 200)
    rb.paste_pieces(board, s, cells_from_fen(pl, False), sets["scid-merida"], fill=0.86)
    ox, oy, n = 80, 214, 8 * s
    img.paste(board, (ox, oy))
    d.rectangle([ox - 2, oy - 2, ox + n + 1, oy + n + 1], outline=(0, 0, 0), width=2)
    small = ImageFont.truetype(FONT, 15)
    for k in range(8):
        d.text((ox + k * s + s / 2, oy - 14), "abcdefgh"[k], fill=(0, 0, 0), font=small, anchor="mm")
        d.text((ox + k * s + s / 2, oy + n + 14), "abcdefgh"[k], fill=(0, 0, 0), font=small, anchor="mm")
        d.text((ox - 16, oy + k * s + s / 2), "87654321"[k], fill=(0, 0, 0), font=small, anchor="mm")
    big = ImageFont.truetype(FONT, 30)
    text_lines(d, 56, 70, ["1. e2-e4 e7-e5", "2. Ng1-f3 Nb8-c6", "3. Bf1-c4 Ng8-f6"], big, (0, 0, 0), 36)
    text_lines(d, 56, oy + n + 40, ["Now White has a) Nc3, b) d3 followed by c3,", "c) Ng5, trying for the Fried Liver Attack."],
               ImageFont.truetype(FONT, 24), (0, 0, 0), 32)
    img.save(out / "pdf_viewer_faint_hatch.png")
    rows.append(("pdf_viewer_faint_hatch.png", pl, 0, "screenshot"))
    return rows


FORMATS_FEN = "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1"
OTHER_FEN = "8/5k2/8/8/3K4/8/8/8"


def textured_case(sets, assets, out, font):
    """A board in a textured theme (eboard's Vision: a cube pattern inside every square, which
    breaks the lattice of square corners), coordinates inside its edge squares, on a dark page:
    found as a square region off the page's plain ground."""
    f, placement, s = "textured_cubes_dark_page.png", "2r2rk1/pp1qbppp/2n1pn2/3p4/3P1B2/2PBPN2/PP1N1PPP/R2Q1RK1", 56
    light, dark = (Image.open(assets / "textures" / f"eboard-vision_{shade}.png").convert("RGB") for shade in ("light", "dark"))
    board = Image.new("RGB", (8 * s, 8 * s))
    for r in range(8):
        for c in range(8):
            tex = light if (r + c) % 2 == 0 else dark
            side = min(tex.size)
            board.paste(tex.crop((0, 0, side, side)).resize((s, s), Image.BILINEAR), (c * s, r * s))
    mean = lambda tex: tex.resize((1, 1), Image.BOX).getpixel((0, 0))
    rb.draw_inner_coords(board, s, mean(light), mean(dark), False, BOLD, 0.2)
    rb.paste_pieces(board, s, cells_from_fen(placement, False), sets["lichess-merida"], fill=0.9)
    img = page((1000, 560), (30, 30, 34))
    img.paste(board, (36, 36))
    d = ImageDraw.Draw(img)
    text_lines(d, 540, 44, ["Queen's Gambit Declined", "London System", "", "9. Qe2 Rac8", "10. e4 dxe4"], font, (210, 210, 215), 36)
    img.save(out / f)
    return f, placement, 0


def wood_grain_case(sets, assets, out, font):
    """A board on one wooden surface whose grain runs through the squares, the dark squares the
    same wood stained (as lichess's and chess.com's wood themes draw it), in a texture the
    piece model never trained on (pychess's cherry, one of render.boards' HELDOUT_TEXTURES), with
    coordinates inside its edge squares."""
    f, placement, s = "wood_grain_board.jpg", "r2qr1k1/1b1nbppp/p2p1n2/1p2p3/3PP3/2P2N1P/PPBN1PP1/R1BQR1K1", 60
    tex = Image.open(assets / "textures" / "pychess-cherry_light.png").convert("RGB")
    surface = np.asarray(rb.texture_field(random.Random(3), tex, 8 * s, 4 * s)).astype(np.float32)
    dark_squares = rb.dark_square_mask(s)
    stained = np.where(dark_squares[..., None], surface * np.array([0.55, 0.45, 0.38], np.float32), surface * 1.08)
    board = Image.fromarray(np.clip(stained, 0, 255).astype(np.uint8), "RGB")
    light, dark = rb.square_colours(board, dark_squares)
    rb.draw_inner_coords(board, s, light, dark, False, BOLD, 0.2)
    rb.paste_pieces(board, s, cells_from_fen(placement, False), sets["lichess-cburnett"], fill=0.9)
    img = page((1100, 600), (38, 36, 33))
    img.paste(board, (40, 60))
    d = ImageDraw.Draw(img)
    text_lines(d, 600, 70, ["Ruy Lopez, Closed", "Breyer Variation", "", "12. Nbd2 Bf8", "13. a4 c5"], font, (200, 200, 200), 36)
    img.save(out / f, quality=88)
    return f, placement, 0


def latex_case(out):
    """A book diagram typeset by LaTeX (chessboard package, skak font) from Black's side, with
    coordinates outside, printed and scanned (render_latex.py). Needs pdflatex and pdftoppm."""
    from img2fen_training.render import latex as rl
    f, placement = "latex_scan_black_side.png", "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R"
    keys = [f"setfen={placement}", "boardfontsize=16pt", "boardfontfamily=skak", "label=false", "labelleft=true",
            "labelbottom=true", r"labelfont=\rmfamily", "labelfontsize=9pt", "border=true", "borderwidth=0.8pt",
            "showmover=false", "inverse"]
    img, _ = rl.book_scan(keys, r"\rmfamily", ("9.Qd2 O-O 10.O-O-O d5 11.exd5 Nxd5 Black gives a pawn for the attack.",
                                               "Diagram 14"), 24, seed=14)
    img.save(out / f)
    return f, placement, 1, "book"


def fax_scan_case(out):
    """A book diagram typeset by LaTeX (hatched dark squares, no coordinates) scanned to one bit
    a pixel by error diffusion, as a fax or a bilevel book scan dithers its greys: every pixel
    black or white. Needs pdflatex and pdftoppm."""
    from img2fen_training.render import latex as rl
    f, placement = "dithered_fax_scan.png", "r2q1rk1/pp1nbppp/2p1pn2/3p1b2/2PP4/1QN1PN2/PP2BPPP/R1B2RK1"
    keys = [f"setfen={placement}", "boardfontsize=14pt", "boardfontfamily=skak", "label=false", "border=true",
            "borderwidth=0.6pt", "showmover=false"]
    img, _ = rl.book_scan(keys, None, ("8.Be2 Bd6 9.O-O O-O 10.Qb3 Nbd7 White presses on b7.", "Diagram 31"),
                          22, seed=31)
    img.convert("L").convert("1").save(out / f, optimize=True)
    return f, placement, 0, "book"


def formats(sets, out):
    """One small screenshot in every format and pixel layout img2fen decodes (testdata/formats/)."""
    d = out / "formats"
    d.mkdir(parents=True, exist_ok=True)

    def shot(placement, alpha=False):
        board = board_image(sets["lichess-cburnett"], placement, 28, (240, 217, 181), (181, 136, 99), False)
        img = Image.new("RGBA" if alpha else "RGB", (264, 256), (0, 0, 0, 0) if alpha else (48, 46, 43))
        img.paste(board, (20, 16))
        return img

    img, other = shot(FORMATS_FEN), shot(OTHER_FEN)
    clear = shot(FORMATS_FEN, alpha=True)
    files = []

    def save(name, im, **kw):
        im.save(d / name, **kw)
        files.append(f"formats/{name}")

    save("rgb.png", img)
    save("rgba_transparent.png", clear)
    save("grey_alpha.png", clear.convert("LA"))
    grey = img.convert("L")
    save("grey16.png", Image.frombytes("I;16", grey.size, bytes(b for v in grey.tobytes() for b in (v, v))))
    save("progressive.jpg", img, quality=85, progressive=True)
    save("cmyk.jpg", img.convert("CMYK"), quality=90)
    save("lossy.webp", img, quality=85)
    save("animated.gif", img.convert("P", palette=Image.Palette.ADAPTIVE), save_all=True,
         append_images=[other.convert("P", palette=Image.Palette.ADAPTIVE)], duration=500, loop=0)
    save("grey.bmp", grey)
    save("lzw.tiff", img, compression="tiff_lzw")
    return [(f, FORMATS_FEN, 0, "format") for f in files]


def thumbnail_case(sets, out, font):
    """A game list's thumbnail: the board drawn at 64 px squares, shrunk to 11 px squares as a
    browser shrinks it, beside the game's line, saved as a JPEG of quality 60. Read by the
    small-board model (squares under 16 px)."""
    name, pl = "game_list_thumbnail.jpg", "2r2rk1/pp1qbppp/2n1pn2/3p4/3P1B2/2PBPN2/PP1N1PPP/R2Q1RK1"
    board = board_image(sets["lichess-merida"], pl, 64, (238, 238, 210), (118, 150, 86), False, highlight=(20, 29))
    board = board.resize((88, 88), Image.BILINEAR)
    img = page((520, 128), (246, 246, 246))
    img.paste(board, (16, 20))
    d = ImageDraw.Draw(img)
    d.text((124, 30), "Rapid  15+10  1-0", font=font, fill=(90, 90, 90))
    d.text((124, 64), "Queen's Gambit Declined, 12 moves", font=font, fill=(40, 40, 40))
    img.save(out / name, quality=60)
    return name, pl, 0


def python_chess_case(out):
    """A python-chess SVG board (chess.svg.board, rasterised by resvg) from Black's side, saved as
    the picture itself, as notebooks and scripts save them: its coordinates stand on a dark frame
    a third of a square wide, so narrow that the label patches beside the board reach past the
    picture's edge. A pawn endgame whose pawns and king stand where White's would, so the pieces
    say White is at the bottom."""
    import chess
    import chess.svg

    from img2fen_training.assets import svg_image

    name, pl = "python_chess_svg_black_side.png", "8/8/4k3/8/8/8/PP6/1K6"
    svg = chess.svg.board(chess.BaseBoard(pl), flipped=True, size=360)
    svg_image(svg.encode(), width=360).convert("RGB").save(out / name)
    return name, pl, 1, "coordinates"


def ui_cases(out):
    """Two real board UIs as headless Chromium shows them (render_ui.py; needs npm and chromium):
    lichess's chessground from Black's side with its coordinates inside the edge squares, a last
    move, an arrow and a ring round a piece; and cm-chessboard's green theme with the staunty
    pieces, the coordinates in a frame, White at the bottom, two arrows."""
    from img2fen_training.render import ui

    common = {"turn": "white", "check": False, "title": "Analysis board", "text": "14. Rd1 Qe7 15. Ne4 Nxe4 16. Bxe4 Rad8"}
    cases = [
        ("chessground_black_side.png", "r1bqk2r/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP3PPP/R1BQKB1R", (860, 590),
         {"lib": "cg", "orientation": "black", "coords": True, "inside": True, "colours": None, "size": 448,
          "lastMove": ["c2", "c4"], "shapes": [{"orig": "f3", "dest": "e5", "brush": "green"}, {"orig": "d4", "brush": "red"}],
          "page": "#262421", "ink": "#bababa", "bar": "#3a3a3a"}),
        ("cm_chessboard_frame.png", "2rq1rk1/pb2bppp/1p2pn2/8/2PP4/P1NB1N2/5PPP/R2Q1RK1", (720, 460),
         {"lib": "cm", "orientation": "white", "coords": True, "theme": "green", "pieces": "staunty", "border": "frame",
          "size": 320, "lastMove": None, "shapes": [{"orig": "d3", "dest": "h7"}, {"orig": "d8", "dest": "d4"}],
          "page": "#ffffff", "ink": "#333333", "bar": "#d9d9d9"}),
    ]
    ui.screenshots([({**common, **spec, "fen": fen}, out / name, window) for name, fen, window, spec in cases],
                   WORK / "ui")
    return [(name, fen, int(spec["orientation"] == "black")) for name, fen, window, spec in cases]


def to_move_cases(out):
    """Screenshots whose side to move the picture shows (testdata/to_move/, with expected.csv:
    file, the whole FEN `--to-move auto --en-passant auto` must give, and what decides it):
    chessground after a two-square pawn advance beside an enemy pawn (en passant), cm-chessboard
    after a checking move with its faint squares, and chessground with a glowing king in check
    and no move shown."""
    from img2fen_training.render import ui

    out.mkdir(parents=True, exist_ok=True)
    common = {"title": "Analysis board", "text": "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6", "page": "#ffffff",
              "ink": "#333333", "bar": "#d9d9d9", "shapes": [], "selected": None, "last_move_tint": None}
    mate = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR"
    cases = [
        ("chessground_en_passant.png", "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR", "w - d6", "last_move",
         {"lib": "cg", "orientation": "white", "coords": True, "inside": True, "colours": None, "size": 400,
          "lastMove": ["d7", "d5"], "turn": "white", "check": False}),
        ("cm_chessboard_check.png", mate, "b - -", "last_move",
         {"lib": "cm", "orientation": "black", "coords": True, "theme": "blue", "pieces": "standard",
          "border": "thin", "size": 360, "lastMove": ["h5", "f7"], "turn": "black", "check": True}),
        ("chessground_check_glow.png", mate, "b - -", "check",
         {"lib": "cg", "orientation": "white", "coords": False, "inside": True, "colours": ui.CG_THEMES["green"], "size": 384,
          "lastMove": None, "turn": "black", "check": True}),
    ]
    ui.screenshots([({**common, **spec, "fen": fen}, out / name, (spec["size"] + 420, spec["size"] + 140))
                    for name, fen, _, _, spec in cases], WORK / "ui")
    with open(out / "expected.csv", "w") as fh:
        fh.write("file,fen,source\n")
        for name, fen, rest, source, _ in cases:
            fh.write(f"{name},{fen} {rest} 0 1,{source}\n")


def bad_inputs(d, good):
    """Files that must each give a one-line error naming them (testdata/bad/). The cases git
    cannot hold (an empty folder, an unreadable file, a zero-byte file, a dangling link) are
    made by the tests themselves."""
    import struct
    import zlib

    d.mkdir(parents=True, exist_ok=True)
    data = good.read_bytes()
    (d / "truncated.png").write_bytes(data[: len(data) * 2 // 5])
    broken = bytearray(data)
    broken[20:28] = b"\xff" * 8  # IHDR's width and height bytes: its CRC no longer matches
    (d / "bad_crc.png").write_bytes(bytes(broken))
    (d / "not_an_image.png").write_text("These are the notes for chapter 3, not a picture.\n")

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    # A decompression bomb: 60000 x 60000 pixels (3.6 GB as RGB) claimed by a 100-byte file.
    ihdr = struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b"")
    (d / "bomb_60000x60000.png").write_bytes(bomb)
    Image.new("RGB", (12, 9), (200, 200, 200)).save(d / "tiny_12x9.png")


if __name__ == "__main__":
    main()


LEARN_SET = "pychess-skulls"  # a set the shipped piece model was not trained on (models/piece_sets.txt)
LEARN_GAME = "r2q1rk1/pp1nbppp/2p1pn2/3p1b2/2PP4/1QN1PN2/PP2BPPP/R1B2RK1"


def learn_cases(sets, out, set_name=LEARN_SET):
    """testdata/learn/: two screens of one piece set the shipped model never trained on, for
    `img2fen learn-set`: the starting position (learned from) and a middlegame (read with the set)."""
    out.mkdir(parents=True, exist_ok=True)
    font = ImageFont.truetype(FONT, 20)
    rows = []
    for name, placement, title in (("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "New game"),
                                    ("game", LEARN_GAME, "Queen's Gambit Declined, move 9")):
        img = page((640, 480), (236, 233, 226))
        d = ImageDraw.Draw(img)
        d.rectangle([0, 0, 640, 34], fill=(70, 62, 52))
        d.text((12, 6), title, font=font, fill=(255, 255, 255))
        board = board_image(sets[set_name], placement, 48, (232, 220, 196), (163, 129, 96), False, coords=False)
        img.paste(board, (24, 66))
        text_lines(d, 430, 80, ["White", "to move", "", "Clock 5:00"], font, (40, 40, 40), 30)
        f = f"{set_name}_{name}.png"
        img.save(out / f)
        rows.append((f, placement, 0))
    return rows
