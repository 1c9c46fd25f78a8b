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

Every LaTeX-set PDF is checked to have exactly the pages planned (a column that overflowed
would move diagrams to another page); a PDF that does not is set again with less text.

Writes OUT/pdfs/NNNN.pdf and OUT/labels.jsonl, a line per PDF:
`{"pdf": "pdfs/0000.pdf", "kind": "latex-columns", "pages": [{"page": 1, "boards": [PLACEMENT, ...]}, ...]}`,
where each PLACEMENT is FEN field 1 as seen from White, in reading order. `eval.pdf` measures
img2fen on them.

Needs pdflatex, pdfinfo and pdftoppm (see `latex.py`) and cairosvg (`pip install cairosvg`).

Usage: python3 -m img2fen_training.render.pdfbooks --out DIR --count N [--seed S] [--jobs 2]
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

from PIL import Image

from img2fen_training import paths
from img2fen_training.render import boards as rb
from img2fen_training.render import latex

KINDS = ["latex-columns", "latex-single", "latex-table", "scan-jpeg", "scan-ccitt", "svg"]
PREAMBLE = ("\\documentclass[{cls}]{{article}}\n\\usepackage[a4paper,margin=1.8cm]{{geometry}}\n"
            "\\usepackage[LSBC1,LSBC2,LSBC3,LSBC4,OT1]{{fontenc}}\n\\usepackage{{xcolor}}\n"
            "\\usepackage{{chessboard}}\n\\setlength{{\\parindent}}{{0pt}}\n")


def placement(rng, positions):
    cells = rb.random_position(rng, flip=False, positions=positions)
    return rb.fen_placement([rb.FEN_CHAR[c] if c else None for c in cells])


def paragraph(rng, words):
    return f"{latex.prose(rng, words)} {latex.move_text(rng, rng.randint(1, 5))}\\par\\medskip\n"


def keys_for(rng, fen, sizes, look):
    """`latex.diagram_keys`'s keys, shown from Black's side only with coordinates: a book says
    so (a board without them, from Black's side, is a puzzle no reader can orient)."""
    keys, _, _, _, inverse, labelled = latex.diagram_keys(rng, fen, sizes, look)
    if inverse and not labelled:
        keys.remove("inverse")
    return keys


def diagram(rng, fen, sizes, look):
    keys = keys_for(rng, fen, sizes, look)
    return f"\\begin{{center}}\n\\chessboard[{', '.join(keys)}]\n\\end{{center}}\n"


def columns_page(rng, positions, look, words):
    """A two-column page: each column 0-2 diagrams between paragraphs; returns (tex, boards)."""
    tex, boards = "", []
    text_only = rng.random() < 0.2
    for col in range(2):
        n = 0 if text_only else rng.choice([0, 1, 1, 2])
        tex += paragraph(rng, rng.randint(words // 2, words))
        for _ in range(n):
            fen = placement(rng, positions)
            boards.append(fen)
            tex += diagram(rng, fen, (10, 16), look)
            tex += paragraph(rng, rng.randint(words // 3, words // 2 + 1))
        tex += "\\newpage\n" if col == 0 else "\\clearpage\n"
    return tex, boards


def single_page(rng, positions, look, words):
    tex, boards = "", []
    n = rng.choice([1, 1, 2])
    sizes = (14, 22) if n == 2 else (14, 30)
    tex += paragraph(rng, rng.randint(words // 2, words))
    for _ in range(n):
        fen = placement(rng, positions)
        boards.append(fen)
        tex += diagram(rng, fen, sizes, look)
        tex += paragraph(rng, rng.randint(words // 3, words // 2 + 1))
    return tex + "\\clearpage\n", boards


def table_page(rng, positions, look, words):
    rows = rng.choice([2, 3])
    size = rng.randint(10, 14)
    tex = paragraph(rng, rng.randint(10, 30)) + "\\begin{center}\n\\begin{tabular}{cc}\n"
    boards = []
    for _ in range(rows):
        cells = []
        for _ in range(2):
            fen = placement(rng, positions)
            boards.append(fen)
            keys = keys_for(rng, fen, (size, size), look)
            cells.append(f"\\begin{{minipage}}[t]{{0.45\\textwidth}}\\centering\\chessboard[{', '.join(keys)}]"
                         f"\\par{{\\small {len(boards)}. {rng.choice(['White to move', 'Black to move', 'Mate in 2'])}}}"
                         f"\\end{{minipage}}")
        tex += " & ".join(cells) + " \\\\[2ex]\n"
    return tex + "\\end{tabular}\n\\end{center}\n\\clearpage\n", boards


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


def latex_book(rng, positions, kind, n_pages, tmp, look=None):
    """A LaTeX-set book of `kind` with `n_pages` pages: (pdf bytes, each page's boards)."""
    look = look or (rng.choice(["skak", "skaknew"]), rng.random())
    make = {"latex-columns": columns_page, "latex-single": single_page, "latex-table": table_page}[kind]
    for words in (60, 40, 25, 12):  # less text when a column overflowed
        pages = [make(rng, positions, look, words) for _ in range(n_pages)]
        pdf, count = typeset([t for t, _ in pages], tmp, two_columns=kind == "latex-columns")
        if count == n_pages:
            return pdf.read_bytes(), [b for _, b in pages]
    raise RuntimeError(f"{kind}: pages kept overflowing")


def scanned_book(rng, positions, ccitt, n_pages, tmp):
    """LaTeX pages rasterised, printed and scanned, each page one picture in a PDF."""
    kind = rng.choice(["latex-columns", "latex-single"])
    look = (rng.choice(["skak", "skaknew"]), rng.random())
    # Grey squares are printed as halftone dots, as in latex.render_page, and a bilevel scan of
    # them is dithered: flat grey does not survive printing otherwise.
    grey = grey_look(look)
    pdf_bytes, boards = latex_book(rng, positions, kind, n_pages, tmp, look)
    (tmp / "src.pdf").write_bytes(pdf_bytes)
    dpi = rng.choice([150, 200, 240, 300])
    pictures = []
    for p in range(1, n_pages + 1):
        # Printed at twice the scan's resolution, then scanned (ink spread, blur, tint, noise).
        img = latex.rasterise(tmp / "src.pdf", p, dpi * 2, tmp / f"p{p}").convert("RGB")
        img, _ = latex.scan(rng, img, [], 2, halftone=grey or rng.random() < 0.3)
        img = img.convert("L")
        if ccitt and grey:
            img = img.convert("1")  # Floyd-Steinberg
        elif ccitt:
            cut = rng.randint(110, 150)
            img = img.point(lambda v, cut=cut: 255 if v > cut else 0).convert("1", dither=Image.NONE)
        pictures.append(img)
    out = io.BytesIO()
    extra = {} if ccitt else {"quality": 85}
    pictures[0].save(out, "PDF", resolution=float(dpi), save_all=True, append_images=pictures[1:], **extra)
    return out.getvalue(), boards


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


def testdata(out):
    """The PDFs the tests read: testdata/pdf/book.pdf (two pages set in two columns, three
    diagrams, one from Black's side), testdata/pdf/scan.pdf (a page scanned to a CCITT G4
    picture) with their positions in testdata/pdf/expected.json, and broken PDFs in
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
        tex = paragraph(rng, 40) + diagram(rng, fen, (20, 20), ("skak", 0.9)) + paragraph(rng, 30)
        pdf, _ = typeset([tex], tmp, two_columns=False)
        img = latex.rasterise(pdf, 1, 400, tmp / "scan").convert("L")
        img = img.resize((img.width // 2, img.height // 2), Image.BOX)
        img = img.point(lambda v: 255 if v > 140 else 0).convert("1", dither=Image.NONE)
        img.save(out / "pdf/scan.pdf", "PDF", resolution=200.0)
        expected["scan.pdf"] = [{"page": 1, "boards": [fen]}]
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


def make_book(args):
    idx, seed, out, assets = args
    rng = random.Random(seed)
    positions = rb.load_positions(assets)
    kind = KINDS[idx % len(KINDS)]
    n_pages = rng.randint(3, 6)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if kind.startswith("latex"):
            data, boards = latex_book(rng, positions, kind, n_pages, tmp)
        elif kind.startswith("scan"):
            data, boards = scanned_book(rng, positions, kind == "scan-ccitt", n_pages, tmp)
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
    ap.add_argument("--testdata", action="store_true",
                    help="write the tests' PDFs instead: OUT/pdf/ and the broken ones in OUT/bad/ (OUT: testdata)")
    a = ap.parse_args()
    if a.testdata:
        testdata(a.out)
        return
    (a.out / "pdfs").mkdir(parents=True, exist_ok=True)
    jobs = [(i, a.seed * 1_000_003 + i, a.out, a.assets) for i in range(a.count)]
    with Pool(a.jobs) as pool, open(a.out / "labels.jsonl", "w") as labels:
        for rec in pool.imap(make_book, jobs):
            labels.write(json.dumps(rec) + "\n")
    print(f"{a.count} PDF books in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
