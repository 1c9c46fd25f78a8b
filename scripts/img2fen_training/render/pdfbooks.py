#!/usr/bin/env python3
"""Chess books as PDF files, with the exact position of every diagram on every page, for
img2fen's PDF input.

Each PDF has 3-6 pages of one kind:
- `latex-columns`: book pages set in two columns (LaTeX `article`, `twocolumn`), 0-2 diagrams a
  column between paragraphs, board fonts of 10-16 pt (the chessboard package, skak or SkakNew
  fonts, hatched, grey or light squares, with or without coordinates and frames, some from
  Black's side, those with coordinates: `latex.diagram_keys`); some pages hold text only. Diagrams read left column
  first, each column from the top.
- `latex-single`: one-column pages with one or two diagrams of 14-30 pt.
- `latex-table`: puzzle pages, 2x2 or 2x3 diagrams of 10-14 pt in a table, read row by row.
- `scan-jpeg`: `latex-columns` or `latex-single` pages rasterised at 150-300 dpi, printed and
  scanned (`latex.scan`), each page one JPEG picture in the PDF.
- `scan-ccitt`: the same, binarised, each page one CCITT G4 picture (as fax and archive
  scanners write them).
- `svg`: python-chess SVG boards (some with coordinates, some of those from Black's side, 240-480 px)
  converted to PDF with cairosvg, a board a page.
- `font-pages` (only with `--kinds`): pages set as a word processor sets them, diagrams typed as
  lines of a TrueType diagram font (Debian's pychess and tagua-data fonts, Marroquin and Alpha
  layouts) with border glyphs, some with rank and file labels, embedded by reportlab.

Every LaTeX-set PDF is checked to have exactly the pages planned (a column that overflowed
would move diagrams to another page); a PDF that does not is set again with less text.

Writes OUT/pdfs/NNNN.pdf and OUT/labels.jsonl, a line per PDF:
`{"pdf": "pdfs/0000.pdf", "kind": "latex-columns", "pages": [{"page": 1, "boards": [PLACEMENT, ...]}, ...]}`,
where each PLACEMENT is FEN field 1 as seen from White, in reading order. `eval.pdf` measures
img2fen on them.

Needs pdflatex, pdfinfo and pdftoppm (see `latex.py`), cairosvg and, for `font-pages`, reportlab
and the fonts `python3 -m img2fen_training.assets` fetches (the "pdf" extra).

Usage: python3 -m img2fen_training.render.pdfbooks --out DIR --count N [--seed S] [--jobs 2] [--kinds K,...]
       python3 -m img2fen_training.render.pdfbooks --testdata --out testdata   (needs pypdf)
"""

import argparse
import io
import json
import random
import subprocess
import sys
import tempfile
import zlib
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image

from img2fen_training import paths
from img2fen_training.render import boards as rb
from img2fen_training.render import latex

KINDS = ["latex-columns", "latex-single", "latex-table", "scan-jpeg", "scan-ccitt", "svg"]
# Made only when asked (--kinds), so that the default sets stay as they were measured.
EXTRA_KINDS = ["font-pages"]
PREAMBLE = ("\\documentclass[{cls}]{{article}}\n\\usepackage[a4paper,margin=1.8cm]{{geometry}}\n"
            "\\usepackage[LSBC1,LSBC2,LSBC3,LSBC4,OT1]{{fontenc}}\n\\usepackage{{xcolor}}\n"
            "\\usepackage{{chessboard}}\n\\setlength{{\\parindent}}{{0pt}}\n")


def placement(rng, positions):
    cells = rb.random_position(rng, flip=False, positions=positions)
    return rb.fen_placement([rb.FEN_CHAR[c] if c else None for c in cells])


def paragraph(rng, words):
    return f"{latex.prose(rng, words)} {latex.move_text(rng, rng.randint(1, 5))}\\par\\medskip\n"


def keys_for(rng, fen, sizes, look):
    """`latex.diagram_keys`'s keys and its marker page's keys, shown from Black's side only with
    coordinates: a book says so (a board without them, from Black's side, is a puzzle no reader
    can orient). Returns (keys, marker keys, inverse)."""
    keys, marker, _, _, inverse, labelled = latex.diagram_keys(rng, fen, sizes, look)
    if inverse and not labelled:
        keys.remove("inverse")
        marker.remove("inverse")
        inverse = False
    return keys, marker, inverse


class Page:
    """A page's LaTeX source, the same page with its boards painted red (the marker page, which
    tells where each board was set), and its boards in reading order: field 1 as seen from White
    and whether each is shown from Black's side."""

    def __init__(self):
        self.tex, self.marker, self.boards, self.inverse = "", "", [], []

    def add(self, tex, marker=None):
        self.tex += tex
        self.marker += tex if marker is None else marker

    def chessboard(self, rng, fen, sizes, look, wrap):
        """A diagram of `fen`, its `\\chessboard` inside `wrap` (a format string with one {})."""
        keys, marker, inverse = keys_for(rng, fen, sizes, look)
        self.add(wrap.format(f"\\chessboard[{', '.join(keys)}]"), wrap.format(f"\\chessboard[{', '.join(marker)}]"))
        self.boards.append(fen)
        self.inverse.append(inverse)


CENTRED = "\\begin{{center}}\n{}\n\\end{{center}}\n"


def columns_page(rng, positions, look, words):
    """A two-column page: each column 0-2 diagrams between paragraphs."""
    page = Page()
    text_only = rng.random() < 0.2
    for col in range(2):
        n = 0 if text_only else rng.choice([0, 1, 1, 2])
        page.add(paragraph(rng, rng.randint(words // 2, words)))
        for _ in range(n):
            page.chessboard(rng, placement(rng, positions), (10, 16), look, CENTRED)
            page.add(paragraph(rng, rng.randint(words // 3, words // 2 + 1)))
        page.add("\\newpage\n" if col == 0 else "\\clearpage\n")
    return page


def single_page(rng, positions, look, words):
    page = Page()
    n = rng.choice([1, 1, 2])
    sizes = (14, 22) if n == 2 else (14, 30)
    page.add(paragraph(rng, rng.randint(words // 2, words)))
    for _ in range(n):
        page.chessboard(rng, placement(rng, positions), sizes, look, CENTRED)
        page.add(paragraph(rng, rng.randint(words // 3, words // 2 + 1)))
    page.add("\\clearpage\n")
    return page


def table_page(rng, positions, look, words):
    rows = rng.choice([2, 3])
    size = rng.randint(10, 14)
    page = Page()
    page.add(paragraph(rng, rng.randint(10, 30)) + "\\begin{center}\n\\begin{tabular}{cc}\n")
    for _ in range(rows):
        for i in range(2):
            fen = placement(rng, positions)
            page.add("\\begin{minipage}[t]{0.45\\textwidth}\\centering")
            page.chessboard(rng, fen, (size, size), look, "{}")
            mover = rng.choice(["White to move", "Black to move", "Mate in 2"])
            page.add(f"\\par{{\\small {len(page.boards)}. {mover}}}\\end{{minipage}}" + (" & " if i == 0 else ""))
        page.add(" \\\\[2ex]\n")
    page.add("\\end{tabular}\n\\end{center}\n\\clearpage\n")
    return page


def typeset(tex_pages, tmp, two_columns):
    """Sets the pages with pdflatex in `tmp`; returns the PDF's path and its page count."""
    cls = "twocolumn" if two_columns else "onecolumn"
    (tmp / "b.tex").write_text(PREAMBLE.format(cls=cls) + "\\pagestyle{plain}\n\\begin{document}\n"
                               + "".join(tex_pages) + "\\end{document}\n")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "b.tex"], cwd=tmp,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"pdflatex failed:\n{run.stdout[-3000:]}")
    info = subprocess.run(["pdfinfo", "b.pdf"], cwd=tmp, capture_output=True, text=True).stdout
    pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    return tmp / "b.pdf", pages


def grey_look(look):
    """Whether a book's look (`latex.diagram_keys`) fills the dark squares flat grey."""
    return look[0] == "skaknew" and look[1] < 0.3


def latex_book(rng, positions, kind, n_pages, tmp, look=None, markers=False):
    """A LaTeX-set book of `kind` with `n_pages` pages: (pdf bytes, its `Page`s). With `markers`,
    the marker pages are set too, as tmp/markers.pdf."""
    look = look or (rng.choice(["skak", "skaknew"]), rng.random())
    make = {"latex-columns": columns_page, "latex-single": single_page, "latex-table": table_page}[kind]
    two_columns = kind == "latex-columns"
    for words in (60, 40, 25, 12):  # less text when a column overflowed
        pages = [make(rng, positions, look, words) for _ in range(n_pages)]
        pdf, count = typeset([p.tex for p in pages], tmp, two_columns)
        if count == n_pages:
            data = pdf.read_bytes()
            if markers:
                marked, count = typeset([p.marker for p in pages], tmp, two_columns)
                if count != n_pages:
                    raise RuntimeError(f"{kind}: the marker pages came out as {count} pages, not {n_pages}")
                marked.rename(tmp / "markers.pdf")
            return data, pages
    raise RuntimeError(f"{kind}: pages kept overflowing")


def occupied_squares(page, marker, two_columns):
    """(x, y, s) of every occupied square of `page`'s boards on a picture of it, from its
    rasterised marker page (`latex.board_boxes`, put in the page's reading order)."""
    boxes = latex.board_boxes(marker)
    if len(boxes) != len(page.boards):
        raise RuntimeError(f"a marker page shows {len(boxes)} boards, its page {len(page.boards)}")
    if two_columns:
        boxes.sort(key=lambda q: (q[0] > marker.width / 2, q[1]))
    else:
        boxes.sort(key=lambda q: q[1])
    out = []
    for (l, t, r, _), fen, inverse in zip(boxes, page.boards, page.inverse):
        s = (r - l) / 8
        cells = rb.fen_cells(fen)
        shown = cells[::-1] if inverse else cells
        out += [(int(l + (i % 8) * s), int(t + (i // 8) * s), int(s)) for i, c in enumerate(shown) if c]
    return out


def bilevel(scan, clean, cut, pieces):
    """A grey `scan` of a page made bilevel as a scanner does: thresholded at `cut`, or at the
    level nearest it (by steps of 10 within 100-170) where every piece of `pieces` ((x, y, s) of
    each occupied square) stays as readable as on the grey scan, compared with the `clean` page
    (`rb.piece_correlation`, allowing 0.05 less, and never asking more than 0.8); dithered
    (Floyd-Steinberg) when no level does. A low threshold fills white pieces' outlines in, a high
    one closes the white rim round a black piece on a hatched square."""
    g, c = np.asarray(scan), np.asarray(clean)
    bars = [(x, y, s, min(0.8, b) - 0.05) for x, y, s in pieces if (b := rb.piece_correlation(c, g, x, y, s)) is not None]
    cut_at = lambda t: np.where(g > t, 255, 0).astype(np.uint8)
    t = rb.nearest_level(cut, 10, lambda t: all(rb.piece_correlation(c, cut_at(t), x, y, s) >= bar for x, y, s, bar in bars))
    return scan.convert("1") if t is None else Image.fromarray(cut_at(t)).convert("1", dither=Image.NONE)


# The resolution scanned pages are printed at: their ink spreads by a pixel of it (`latex.scan`),
# the same width on paper whatever the scan's resolution.
PRINT_DPI = 600


def scanned_book(rng, positions, ccitt, n_pages, tmp):
    """LaTeX pages rasterised, printed and scanned, each page one picture in a PDF. Pages are
    printed at PRINT_DPI, so that the ink spreads as far on paper at every scan resolution, and
    a bilevel scan keeps every piece as readable as the grey scan does (`bilevel`), as a book
    scanned to be read is. Returns the PDF and its `Page`s."""
    kind = rng.choice(["latex-columns", "latex-single"])
    look = (rng.choice(["skak", "skaknew"]), rng.random())
    # Grey squares are printed as halftone dots, as in latex.render_page, and a bilevel scan of
    # them is dithered: flat grey does not survive printing otherwise.
    grey = grey_look(look)
    pdf_bytes, pages = latex_book(rng, positions, kind, n_pages, tmp, look, markers=True)
    (tmp / "src.pdf").write_bytes(pdf_bytes)
    dpi = rng.choice([150, 200, 240, 300])
    ss = PRINT_DPI / dpi
    pictures = []
    for p in range(1, n_pages + 1):
        # Printed at PRINT_DPI (ink spread, blur, tint, noise), then scanned at `dpi`.
        img = latex.rasterise(tmp / "src.pdf", p, PRINT_DPI, tmp / f"p{p}").convert("RGB")
        marker = latex.rasterise(tmp / "markers.pdf", p, PRINT_DPI, tmp / f"m{p}")
        pieces = occupied_squares(pages[p - 1], marker, kind == "latex-columns")
        clean = img.convert("L")
        img, _ = latex.scan(rng, img, [], ss, halftone=grey or rng.random() < 0.3, pieces=pieces)
        clean = clean.resize(img.size, Image.BOX)
        img = img.convert("L")
        if ccitt and grey:
            img = img.convert("1")  # Floyd-Steinberg
        elif ccitt:
            img = bilevel(img, clean, rng.randint(110, 150), [(int(x / ss), int(y / ss), int(s / ss)) for x, y, s in pieces])
        pictures.append(img)
    out = io.BytesIO()
    extra = {} if ccitt else {"quality": 85}
    pictures[0].save(out, "PDF", resolution=float(dpi), save_all=True, append_images=pictures[1:], **extra)
    return out.getvalue(), pages


def svg_book(rng, positions, n_pages, tmp):
    import cairosvg
    import chess
    import chess.svg

    files, boards = [], []
    for p in range(n_pages):
        fen = placement(rng, positions)
        coordinates = rng.random() < 0.7
        svg = chess.svg.board(chess.BaseBoard(fen), flipped=coordinates and rng.random() < 0.4,
                              coordinates=coordinates, size=rng.randint(240, 480))
        path = tmp / f"s{p}.pdf"
        cairosvg.svg2pdf(bytestring=svg.encode(), write_to=str(path))
        files.append(str(path))
        boards.append([fen])
    subprocess.run(["pdfunite", *files, str(tmp / "svg.pdf")], check=True)
    return (tmp / "svg.pdf").read_bytes(), boards


def diagram_fonts(assets):
    """The TrueType diagram fonts assets.py unpacks from Debian's pychess and tagua-data, each with
    its layout (`assets.MARROQUIN` or `assets.ALPHA`) and whether it has border glyphs. cheq and
    usual are left out (their character maps are truncated), tagua's Mayan (its map sends the
    space to a border glyph) and both Lucenas (their space is half a square wide, and reportlab
    sets their `*`, the full empty square, as that space)."""
    from img2fen_training.assets import ALPHA, MARROQUIN
    share = assets / "unpacked/deb/usr/share"
    fonts = [(p, MARROQUIN, True) for p in sorted((share / "pychess/pieces/ttf").glob("*.ttf"))
             if p.stem not in ("cheq", "usual", "lucena")]
    tagua = share / "tagua/themes/pieces"
    fonts += [(tagua / "BerlinTTF/Berlin.ttf", ALPHA, False)]
    missing = [str(f) for f, _, _ in fonts if not f.exists()]
    if missing:
        raise FileNotFoundError(f"diagram fonts missing (run python3 -m img2fen_training.assets): {missing}")
    return fonts


def font_rows(fen, enc, flipped, border):
    """The lines of glyphs a word processor's diagram in a font of layout `enc` is typed as."""
    import chess
    board = chess.BaseBoard(fen)
    rows = []
    for r in range(8):
        line = ""
        for c in range(8):
            sq = chess.square(7 - c, r) if flipped else chess.square(c, 7 - r)
            shade = "dark" if (r + c) % 2 else "light"
            piece = board.piece_at(sq)
            if piece is None:
                line += "+" if shade == "dark" else " "
            else:
                white, black = enc[shade]
                line += (white if piece.color else black)["PNBRQK".index(piece.symbol().upper())]
        rows.append(f"${line}%" if border else line)
    return ['!""""""""#', *rows, "/(((((((()"] if border else rows


def font_book(rng, positions, n_pages, tmp, fonts):
    """Pages set in a word processor's way: paragraphs of Times and 1-2 diagrams a page, typed in a
    TrueType diagram font (one font a book, embedded by reportlab), 14-26 pt, with border glyphs
    where the font has them; half with rank and file labels in Helvetica beside, and of those
    two in five from Black's side. Diagrams read top to bottom, a row of two left to right."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    path, enc, border = rng.choice(fonts)
    name = f"Diagram-{path.stem}"
    pdfmetrics.registerFont(TTFont(name, str(path)))
    size = rng.randint(14, 26)
    labelled = rng.random() < 0.5
    pdf = tmp / "font.pdf"
    c = canvas.Canvas(str(pdf), pagesize=A4)
    width, height = A4
    boards = []
    for _ in range(n_pages):
        y = height - 72
        page = []

        def text(y, words):
            c.setFont("Times-Roman", 11)
            for line in simpleSplit(f"{latex.prose(rng, words)} {latex.move_text(rng, rng.randint(1, 4))}",
                                    "Times-Roman", 11, width - 144):
                c.drawString(72, y, line)
                y -= 14
            return y - 10

        y = text(y, rng.randint(20, 50))
        n = rng.choice([1, 1, 2])
        side_by_side = n == 2 and rng.random() < 0.4
        lines = 10 if border else 8
        s = min(size, 22) if n == 2 else size
        for k in range(n):
            fen = placement(rng, positions)
            flipped = labelled and rng.random() < 0.4
            page.append(fen)
            x = 72 + (40 if not side_by_side else (0 if k == 0 else (width - 144) / 2 + 20)) + rng.randint(0, 40)
            top = y
            rows = font_rows(fen, enc, flipped, border)
            for i, row in enumerate(rows):
                c.setFont(name, s)
                c.drawString(x, top - (i + 1) * s, row)
            x0 = x + (s if border else 0)
            first = top - (s if border else 0)  # the top of the board's first rank
            if labelled:
                c.setFont("Helvetica", s * 0.45)
                for i in range(8):
                    rank = i + 1 if flipped else 8 - i
                    c.drawString(x - s * 0.5, first - (i + 0.7) * s, str(rank))
                    file = "hgfedcba"[i] if flipped else "abcdefgh"[i]
                    c.drawString(x0 + (i + 0.38) * s, top - lines * s - s * 0.55, file)
            if not side_by_side or k == 1:
                y = top - lines * s - (s if labelled else 0) - 18
                if k < n - 1 or rng.random() < 0.7:
                    y = text(y, rng.randint(15, 40))
        c.showPage()
        boards.append(page)
    c.save()
    return pdf.read_bytes(), boards


def pdf_file(objects, root=1):
    """A PDF file from its objects' bodies (object n is objects[n - 1]), with a correct xref."""
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root {root} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def pages_pdf(pages):
    """A PDF of `pages`, each (content stream, what follows /MediaBox in its page dictionary)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (3 + 2 * i) for i in range(len(pages))),
                                                              len(pages))]
    for i, (content, media) in enumerate(pages):
        packed = zlib.compress(content, 9)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox " + media + b" /Contents %d 0 R >>" % (4 + 2 * i))
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream")
    return pdf_file(objects)


def testdata(out, assets):
    """The PDFs the tests read: testdata/pdf/book.pdf (two pages set in two columns, three
    diagrams, one from Black's side), testdata/pdf/scan.pdf (a page scanned to a CCITT G4
    picture), testdata/pdf/diagram_font.pdf (`font_testdata`) and testdata/pdf/side_by_side.pdf
    (`side_by_side_testdata`) with their positions in
    testdata/pdf/expected.json, and broken PDFs in
    testdata/bad/ (each must be one error naming it, and the rest of a batch read)."""
    import pypdf

    rng = random.Random(2026_12_03)
    (out / "pdf").mkdir(parents=True, exist_ok=True)
    expected = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        look = ("skak", 0.9)
        pages = []
        for fens in (["r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R",
                      "6k1/5ppp/8/8/8/8/5PPP/3R2K1"], ["8/P1K5/8/8/8/8/5kp1/8"]):
            tex = ""
            for col in range(2):
                tex += paragraph(rng, 70 if col == 0 else 20)
                for fen in fens[col:col + 1]:
                    keys = latex.diagram_keys(rng, fen, (12, 14), look)[0]
                    if fen.startswith("6k1"):
                        keys.append("inverse")
                    tex += f"\\begin{{center}}\n\\chessboard[{', '.join(keys)}]\n\\end{{center}}\n"
                    tex += paragraph(rng, 30)
                tex += "\\newpage\n" if col == 0 else "\\clearpage\n"
            pages.append((tex, fens))
        pdf, count = typeset([t for t, _ in pages], tmp, two_columns=True)
        assert count == 2, count
        book = pdf.read_bytes()
        (out / "pdf/book.pdf").write_bytes(book)
        expected["book.pdf"] = [{"page": p + 1, "boards": f} for p, (_, f) in enumerate(pages)]
        fen = "2rq1rk1/pb2bppp/1p2pn2/8/2PP4/P1NB1N2/5PPP/R2Q1RK1"
        tex = paragraph(rng, 40)
        keys = keys_for(rng, fen, (20, 20), ("skak", 0.9))[0]
        tex += CENTRED.format(f"\\chessboard[{', '.join(keys)}]") + paragraph(rng, 30)
        pdf, _ = typeset([tex], tmp, two_columns=False)
        img = latex.rasterise(pdf, 1, 400, tmp / "scan").convert("L")
        img = img.resize((img.width // 2, img.height // 2), Image.BOX)
        img = img.point(lambda v: 255 if v > 140 else 0).convert("1", dither=Image.NONE)
        img.save(out / "pdf/scan.pdf", "PDF", resolution=200.0)
        expected["scan.pdf"] = [{"page": 1, "boards": [fen]}]
    expected["diagram_font.pdf"] = [{"page": 1, "boards": font_testdata(out / "pdf/diagram_font.pdf", assets)}]
    expected["side_by_side.pdf"] = [{"page": 1, "boards": side_by_side_testdata(out / "pdf/side_by_side.pdf", assets)}]
    (out / "pdf/expected.json").write_text(json.dumps(expected, indent=1) + "\n")

    bad = out / "bad"
    bad.mkdir(parents=True, exist_ok=True)
    (bad / "truncated.pdf").write_bytes(book[: len(book) * 2 // 5])
    # `startxref` pointing 7 bytes past its cross-reference stream: readers rebuild it.
    at = book.rindex(b"startxref") + len(b"startxref")
    end = book.index(b"%%EOF", at)
    (bad / "bad_xref.pdf").write_bytes(book[:at] + b"\n%d\n" % (int(book[at:end]) + 7) + book[end:])
    # A page whose content nests 200,000 saved graphics states, and one whose dictionary holds an
    # array nested 10,000 deep.
    (bad / "deep_nesting.pdf").write_bytes(pages_pdf([
        (b"q " * 200_000 + b"0 0 m 10 10 l S " + b"Q " * 200_000, b"[0 0 595 842]"),
        (b"0 0 m 10 10 l S", b"[0 0 595 842] /Nest " + b"[" * 10_000 + b"]" * 10_000)]))
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(book))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="AES-128")
    encrypted = io.BytesIO()
    writer.write(encrypted)
    (bad / "encrypted.pdf").write_bytes(encrypted.getvalue())
    (bad / "no_pages.pdf").write_bytes(pdf_file([b"<< /Type /Catalog /Pages 2 0 R >>",
                                                 b"<< /Type /Pages /Kids [] /Count 0 >>"]))
    (bad / "huge_page.pdf").write_bytes(pages_pdf([(b"0 0 m 100 100 l S", b"[0 0 10000000 10000000]")]))


def font_testdata(path, assets):
    """testdata/pdf/diagram_font.pdf: a page set as a word processor sets it, with two diagrams
    typed in TrueType diagram fonts: Chess Merida (Marroquin layout) framed, labelled and from
    Black's side, then Berlin (Alpha layout) without frame or labels and without knights, whose
    glyphs Marroquin's layout reads otherwise (its black bishop `n` is Marroquin's white knight):
    the picture must choose. Returns the two positions as seen from White."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    fonts = {f.stem: (f, enc, border) for f, enc, border in diagram_fonts(assets)}
    boards = [("merida", "r4rk1/1pp2ppp/p1n5/4N3/2B5/8/PP3PPP/R4RK1", True),
              ("Berlin", "8/2b2k2/4p3/8/3P4/2B5/5K2/8", False)]
    c = canvas.Canvas(str(path), pagesize=A4, invariant=True)
    c.setFont("Times-Roman", 11)
    c.drawString(72, 780, "Diagram 12. Black to move: the knight on e5 is strong.")
    top = 750
    for stem, fen, flipped in boards:
        font, enc, border = fonts[stem]
        pdfmetrics.registerFont(TTFont(f"Diagram-{stem}", str(font)))
        s, x = 20, 110
        rows = font_rows(fen, enc, flipped, border)
        c.setFont(f"Diagram-{stem}", s)
        for i, row in enumerate(rows):
            c.drawString(x, top - (i + 1) * s, row)
        if flipped:
            c.setFont("Helvetica", 9)
            for i in range(8):
                c.drawString(x - 10, top - s - (i + 0.7) * s, str(i + 1))
                c.drawString(x + s + (i + 0.38) * s, top - 10 * s - 11, "hgfedcba"[i])
        top -= len(rows) * s + 60
        c.setFont("Times-Roman", 11)
        c.drawString(72, top + 30, "Diagram 13. White to move and draw.")
    c.showPage()
    c.save()
    return [fen for _, fen, _ in boards]


def side_by_side_testdata(path, assets):
    """testdata/pdf/side_by_side.pdf: a word processor's row of two framed Merida diagrams, both
    labelled a square and a half out as `font_book` labels them, the right one from Black's side:
    its rank labels stand between the two, nearer the left diagram's border than its own, and read
    for the left one they say the opposite of its own labels. Returns the two positions as seen
    from White."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    fonts = {f.stem: (f, enc, border) for f, enc, border in diagram_fonts(assets)}
    font, enc, border = fonts["merida"]
    pdfmetrics.registerFont(TTFont("Diagram-merida", str(font)))
    boards = [("r3k3/7p/6p1/5p2/5r2/2NP4/PPP2PPP/R5K1", False), ("8/7Q/8/3b2K1/5N2/8/8/8", True)]
    width, _ = A4
    c = canvas.Canvas(str(path), pagesize=A4, invariant=True)
    c.setFont("Times-Roman", 11)
    c.drawString(72, 780, "Diagrams 7 and 8. Left: White to move. Right: seen from Black's side.")
    s, top = 22, 750
    for k, (fen, flipped) in enumerate(boards):
        x = 72 + (33 if k == 0 else (width - 144) / 2 + 28)
        rows = font_rows(fen, enc, flipped, border)
        c.setFont("Diagram-merida", s)
        for i, row in enumerate(rows):
            c.drawString(x, top - (i + 1) * s, row)
        c.setFont("Helvetica", s * 0.45)
        for i in range(8):
            c.drawString(x - s * 0.5, top - s - (i + 0.7) * s, str(i + 1 if flipped else 8 - i))
            c.drawString(x + s + (i + 0.38) * s, top - 10 * s - s * 0.55, ("hgfedcba" if flipped else "abcdefgh")[i])
    c.setFont("Times-Roman", 11)
    c.drawString(72, top - 11 * s - 30, "In both the knight decides.")
    c.showPage()
    c.save()
    return [fen for fen, _ in boards]


def make_book(args):
    idx, seed, out, assets, kinds = args
    rng = random.Random(seed)
    positions = rb.load_positions(assets)
    kind = kinds[idx % len(kinds)]
    n_pages = rng.randint(3, 6)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if kind.startswith("latex"):
            data, pages = latex_book(rng, positions, kind, n_pages, tmp)
            boards = [p.boards for p in pages]
        elif kind.startswith("scan"):
            data, pages = scanned_book(rng, positions, kind == "scan-ccitt", n_pages, tmp)
            boards = [p.boards for p in pages]
        elif kind == "font-pages":
            data, boards = font_book(rng, positions, n_pages, tmp, diagram_fonts(assets))
        else:
            data, boards = svg_book(rng, positions, n_pages, tmp)
    name = f"pdfs/{idx:04d}.pdf"
    (out / name).write_bytes(data)
    return {"pdf": name, "kind": kind, "pages": [{"page": p + 1, "boards": b} for p, b in enumerate(boards)]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assets", type=Path, default=paths.ASSETS,
                    help="fetch_assets.py's folder, for its real positions (dense random boards without it)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=60, help="PDFs, the kinds in turn")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--kinds", default=",".join(KINDS),
                    help=f"the kinds in turn, comma-separated, of {', '.join(KINDS + EXTRA_KINDS)}")
    ap.add_argument("--testdata", action="store_true",
                    help="write the tests' PDFs instead: OUT/pdf/ and the broken ones in OUT/bad/ (OUT: testdata)")
    a = ap.parse_args()
    if a.testdata:
        testdata(a.out, a.assets)
        return
    (a.out / "pdfs").mkdir(parents=True, exist_ok=True)
    kinds = a.kinds.split(",")
    unknown = [k for k in kinds if k not in KINDS + EXTRA_KINDS]
    if unknown:
        sys.exit(f"pdfbooks: unknown kinds {unknown}")
    jobs = [(i, a.seed * 1_000_003 + i, a.out, a.assets, kinds) for i in range(a.count)]
    with Pool(a.jobs) as pool, open(a.out / "labels.jsonl", "w") as labels:
        for rec in pool.imap(make_book, jobs):
            labels.write(json.dumps(rec) + "\n")
    print(f"{a.count} PDF books in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
