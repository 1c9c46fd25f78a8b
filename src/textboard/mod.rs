//! Text boards: a position printed as characters in a terminal or a plain-text file (letters
//! such as python-chess's `str(board)`, Unicode chess symbols such as its `board.unicode()`, the
//! boxed board of Stockfish's `d` command), found in a picture and read glyph by glyph.
//!
//! [`glyphs::find`] separates the picture's characters; the glyph classifier
//! (`models/glyph_classifier.onnx`) names each ([`GLYPH_CLASSES`]); [`find_boards`] looks for
//! eight rows, equally spaced, that each hold eight equally spaced square glyphs (a piece or an
//! empty-square mark) at the same columns, or, in a boxed board, nothing between the bars of
//! an empty square. Rank digits beside the rows and file letters under or over them give the
//! orientation.

pub mod glyphs;

use crate::classify::ClassProbs;
use crate::geometry::{Point, Quad};
use crate::orient::CoordinateReading;
pub use glyphs::{Glyph, Glyphs, GLYPH_PX};

/// What the glyph classifier tells apart: an empty-square mark (`.`, `·`, `⭘`), the twelve
/// pieces in [`crate::CLASS_CHARS`] order (a letter and its Unicode symbol alike), the rank
/// digits 1-8, the file letters other than `b` (a `b` is a black bishop's letter), and any other
/// character.
pub const GLYPH_CLASSES: usize = 29;
/// The class of any character that is neither a piece, a mark nor a coordinate.
pub const OTHER: usize = 28;
const DIGITS: usize = 13;
const FILES: usize = 21;
const FILE_LETTERS: [char; 8] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/// Probabilities of the glyph classes for one character.
pub type GlyphProbs = [f32; GLYPH_CLASSES];

/// The glyph class of a printed character ([`GLYPH_CLASSES`]).
pub fn glyph_class(ch: char) -> usize {
    const SYMBOLS: [char; 12] = ['♙', '♘', '♗', '♖', '♕', '♔', '♟', '♞', '♝', '♜', '♛', '♚'];
    match ch {
        '.' | '·' | '⭘' => 0,
        '1'..='8' => DIGITS + (ch as usize - '1' as usize),
        'b' => 9,
        'a' | 'c'..='h' => FILES + FILE_LETTERS.iter().filter(|&&f| f != 'b').position(|&f| f == ch).unwrap_or(0),
        _ => {
            if let Some(i) = crate::CLASS_CHARS.iter().position(|&c| c == ch).filter(|&i| i > 0) {
                i
            } else if let Some(i) = SYMBOLS.iter().position(|&c| c == ch) {
                i + 1
            } else {
                OTHER
            }
        }
    }
}

/// The file letter a glyph class names, if it names one (`b` through the black bishop's class).
fn file_of(class: usize) -> Option<usize> {
    match class {
        9 => Some(1),
        c if (FILES..OTHER).contains(&c) => Some(if c == FILES { 0 } else { c - FILES + 1 }),
        _ => None,
    }
}

/// How likely a glyph stands for a square: a piece or an empty-square mark.
fn square_probability(p: &GlyphProbs) -> f32 {
    p[..13].iter().sum()
}

/// A glyph is taken for a square's when its square classes together pass this.
pub const SQUARE_AT: f32 = 0.5;

/// A board of text found in a picture.
#[derive(Debug, Clone)]
pub struct TextBoard {
    /// The grid's outer box: half a column and half a row beyond the outer glyphs' centres.
    pub quad: Quad,
    /// The 13 class probabilities of each square, a8 to h1 as displayed (a square left blank
    /// inside a box is empty).
    pub probs: Vec<ClassProbs>,
    /// What the rank digits and file letters printed beside the board say, when there are any.
    pub coordinates: Option<CoordinateReading>,
}

/// Rows of characters that look like part of a text board but make no 8x8 one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Partial {
    /// How many rows of equally spaced square glyphs lie together.
    pub rows: usize,
}

/// One line of text: its glyphs left to right and where it lies down the page, in lines from the
/// first line that holds tall characters ([`rows`]).
struct Row {
    glyphs: Vec<usize>,
    y: f64,
    pos: f64,
}

/// A column lattice: square `c` of a row is centred at `x0 + c * dx`.
#[derive(Debug, Clone, Copy)]
struct Lattice {
    x0: f64,
    dx: f64,
}

impl Lattice {
    /// Whether `other` is this lattice found again (on another row): the same column width
    /// within 5% and the same first column within a tenth of one.
    fn same_as(&self, other: &Lattice) -> bool {
        (self.dx - other.dx).abs() <= 0.05 * other.dx && (self.x0 - other.x0).abs() <= 0.1 * other.dx
    }
}

/// What one row holds on a lattice: each square's glyph, or `None` for a blank inside a box.
type RowCells = [Option<usize>; 8];

/// The glyphs grouped into lines: sorted by their centres' height, a glyph further than half a
/// text height below the previous one starts a new group. A group's height is the median centre
/// of its tall glyphs (at least 0.6 text heights), or of all of them less a quarter text height
/// when none is tall (dots and dashes sit below a line's middle); groups closer than 0.8 text
/// heights are one line (a row of dots beside a row of symbols). The line pitch is the longest
/// spacing of which the gaps between lines with tall glyphs are nearly all whole multiples.
fn rows(g: &Glyphs) -> Vec<Row> {
    let h = g.text_height;
    let mut order: Vec<usize> = (0..g.glyphs.len()).collect();
    let cy = |i: usize| g.glyphs[i].centre().1;
    order.sort_by(|&a, &b| cy(a).total_cmp(&cy(b)));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut last = f64::NEG_INFINITY;
    for i in order {
        if cy(i) - last > 0.5 * h || groups.is_empty() {
            groups.push(Vec::new());
        }
        last = cy(i);
        groups.last_mut().expect("a group").push(i);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let height = |glyphs: &[usize]| {
        let tall: Vec<f64> =
            glyphs.iter().filter(|&&i| g.glyphs[i].height() as f64 >= 0.6 * h).map(|&i| cy(i)).collect();
        if tall.is_empty() {
            (median(glyphs.iter().map(|&i| cy(i)).collect()) - 0.25 * h, false)
        } else {
            (median(tall), true)
        }
    };
    let mut lines: Vec<(Vec<usize>, f64, bool)> = Vec::new();
    for group in groups {
        let (y, tall) = height(&group);
        match lines.last_mut() {
            Some(l) if (y - l.1).abs() < 0.8 * h => {
                l.0.extend(group);
                let (y, tall) = height(&l.0);
                (l.1, l.2) = (y, tall);
            }
            _ => lines.push((group, y, tall)),
        }
    }
    let tall: Vec<f64> = lines.iter().filter(|l| l.2).map(|l| l.1).collect();
    let pitch = line_pitch(&tall, h);
    let origin = tall.first().copied().unwrap_or(0.0);
    lines
        .into_iter()
        .enumerate()
        .map(|(k, (mut glyphs, y, _))| {
            glyphs.sort_by(|&a, &b| g.glyphs[a].centre().0.total_cmp(&g.glyphs[b].centre().0));
            let pos = pitch.map_or(k as f64, |p| (y - origin) / p);
            Row { glyphs, y, pos }
        })
        .collect()
}

/// The spacing of lines whose heights are `ys` (sorted): the longest of the smallest gap divided
/// by 1, 2 or 3 (and at least a text height) of which at least 80% of the gaps up to twelve
/// pitches are whole multiples within a fifth of a pitch, refined by least squares on those
/// gaps. `None` with fewer than two lines.
fn line_pitch(ys: &[f64], h: f64) -> Option<f64> {
    let gaps: Vec<f64> = ys.windows(2).map(|w| w[1] - w[0]).filter(|&d| d >= 0.9 * h).collect();
    let smallest = gaps.iter().copied().fold(f64::INFINITY, f64::min);
    if !smallest.is_finite() {
        return None;
    }
    let coarse = (1..=3).map(|k| smallest / k as f64).filter(|&p| p >= h).find(|&p| {
        let near: Vec<&f64> = gaps.iter().filter(|&&d| d <= 12.0 * p).collect();
        let whole = near.iter().filter(|&&&d| (d / p - (d / p).round()).abs() <= 0.2).count();
        whole * 5 >= near.len() * 4
    })?;
    // Least squares on the gaps that are whole multiples of it.
    let (mut num, mut den) = (0.0, 0.0);
    for &d in &gaps {
        let k = (d / coarse).round();
        if (1.0..=12.0).contains(&k) && (d / coarse - k).abs() <= 0.2 {
            num += d * k;
            den += k * k;
        }
    }
    Some(num / den)
}

/// Columns of vertical bars through a row: x positions where thin ink runs from above the
/// middle of the row's characters to below it (`|` in a boxed board; letters' stems pass too).
fn bars(g: &Glyphs, y: f64) -> Vec<f64> {
    let h = g.text_height;
    let (w, ht) = (g.ink.width() as i64, g.ink.height() as i64);
    let ys: Vec<i64> = [-0.45, -0.2, 0.0, 0.2, 0.45].iter().map(|f| (y + f * h).round() as i64).collect();
    if ys.iter().any(|&v| v < 0 || v >= ht) {
        return Vec::new();
    }
    let inked = |x: i64| ys.iter().all(|&yy| g.ink.get_pixel(x as u32, yy as u32).0[0] > 0);
    let mut out = Vec::new();
    let mut x = 0;
    while x < w {
        if inked(x) {
            let start = x;
            while x < w && inked(x) {
                x += 1;
            }
            // A bar is thin.
            if ((x - start) as f64) < 0.3 * h {
                out.push((start + x - 1) as f64 / 2.0 + 0.5);
            }
        }
        x += 1;
    }
    out
}

/// Whether bars (`b`, [`bars`]) stand at the nine column boundaries of `lat`.
fn boxed(b: &[f64], lat: &Lattice) -> bool {
    (0..=8).all(|c| {
        let x = lat.x0 + (c as f64 - 0.5) * lat.dx;
        b.iter().any(|&bx| (bx - x).abs() <= 0.15 * lat.dx)
    })
}

/// The lattices nine equally spaced bars among `bars` make (not necessarily neighbours in the
/// list: letters' stems stand between them), at least 0.8 text heights apart.
fn bar_lattices(b: &[f64], h: f64) -> Vec<Lattice> {
    let mut out = Vec::new();
    for (i, &x0) in b.iter().enumerate() {
        for &x1 in &b[i + 1..] {
            let dx = x1 - x0;
            if dx < 0.8 * h {
                continue;
            }
            if (2..=8).all(|k| b.iter().any(|&x| (x - x0 - k as f64 * dx).abs() <= 0.15 * dx)) {
                out.push(Lattice { x0: x0 + dx / 2.0, dx });
                break;
            }
        }
    }
    out
}

/// The lattices a row offers: every eight square glyphs in a row, equally spaced, with no
/// square glyph a step beyond either end; and nine equally spaced bars among the row's `bars`
/// (a boxed row).
fn lattices(g: &Glyphs, probs: &[GlyphProbs], row: &Row, bars: &[f64]) -> Vec<Lattice> {
    let xs: Vec<f64> = row
        .glyphs
        .iter()
        .filter(|&&i| square_probability(&probs[i]) >= SQUARE_AT)
        .map(|&i| g.glyphs[i].centre().0)
        .collect();
    let mut out = Vec::new();
    let even = |pos: &[f64]| {
        let n = pos.len() - 1;
        let dx = (pos[n] - pos[0]) / n as f64;
        (dx >= 0.4 * g.text_height
            && pos.iter().enumerate().all(|(k, &x)| (x - pos[0] - k as f64 * dx).abs() <= 0.2 * dx))
        .then_some(dx)
    };
    for w in xs.windows(8) {
        if let Some(dx) = even(w) {
            out.push(Lattice { x0: w[0], dx });
        }
    }
    out.extend(bar_lattices(bars, g.text_height));
    out
}

/// The row's cells on `lat`: each lattice point must hold a square glyph (the largest, when
/// pieces of one symbol lie there, beside which pieces of other classes are ignored), or
/// nothing when bars box the squares (`boxed`); a point with only other glyphs, or a square
/// glyph a step beyond either end, rules the row out.
fn cells_on(g: &Glyphs, probs: &[GlyphProbs], row: &Row, lat: &Lattice, boxed: bool) -> Option<RowCells> {
    let mut cells: RowCells = [None; 8];
    let mut other = [false; 8];
    let area = |j: usize| g.glyphs[j].width() * g.glyphs[j].height();
    for &i in &row.glyphs {
        let x = g.glyphs[i].centre().0;
        let k = ((x - lat.x0) / lat.dx).round();
        if (x - lat.x0 - k * lat.dx).abs() > 0.3 * lat.dx {
            continue;
        }
        let square = square_probability(&probs[i]) >= SQUARE_AT;
        match k as i64 {
            0..=7 if square => {
                let c = &mut cells[k as usize];
                if c.is_none_or(|j| area(i) > area(j)) {
                    *c = Some(i);
                }
            }
            0..=7 => other[k as usize] = true,
            -1 | 8 if square => return None,
            _ => {}
        }
    }
    let blank_or_square = (0..8).all(|k| cells[k].is_some() || (!other[k] && boxed));
    blank_or_square.then_some(cells)
}

/// Every text board in the glyphs `g` whose classes are `probs`, top to bottom, and the largest
/// group of rows that looked like part of one but made no 8x8 board.
pub fn find_boards(g: &Glyphs, probs: &[GlyphProbs]) -> (Vec<TextBoard>, Option<Partial>) {
    let rows = rows(g);
    // Each row's bars and lattices, found once.
    let row_bars: Vec<Vec<f64>> = rows.iter().map(|r| bars(g, r.y)).collect();
    let row_lattices: Vec<Vec<Lattice>> = rows.iter().zip(&row_bars).map(|(r, b)| lattices(g, probs, r, b)).collect();
    let mut boards = Vec::new();
    let mut partial: Option<Partial> = None;
    let mut used = vec![false; rows.len()];
    for start in 0..rows.len() {
        if used[start] {
            continue;
        }
        // The lattices this row or the rows below it offer (a row whose symbol broke into
        // pieces offers none itself).
        let reach = rows[start].pos + 24.0;
        let mut candidates: Vec<Lattice> = Vec::new();
        for (_, lats) in rows[start..].iter().zip(&row_lattices[start..]).take_while(|(r, _)| r.pos <= reach) {
            for &lat in lats {
                if !candidates.iter().any(|c| c.same_as(&lat)) {
                    candidates.push(lat);
                }
            }
        }
        for lat in candidates {
            let boxed = boxed(&row_bars[start], &lat);
            // The rows below on the same lattice, a whole number of lines apart, always the same.
            let mut members: Vec<(usize, RowCells)> = Vec::new();
            let Some(first) = cells_on(g, probs, &rows[start], &lat, boxed) else { continue };
            members.push((start, first));
            let mut step: Option<f64> = None;
            for (r, row) in rows.iter().enumerate().skip(start + 1) {
                let dl = row.pos - rows[members.last().expect("a row").0].pos;
                let whole = (dl - dl.round()).abs() <= 0.3;
                match step {
                    Some(n) if dl < n - 0.3 => continue,
                    Some(n) if dl > n + 0.3 => break,
                    None if dl < 0.7 || !whole => continue,
                    None if dl > 3.3 => break,
                    _ => {}
                }
                let boxed_row = boxed && self::boxed(&row_bars[r], &lat);
                if let Some(cells) = cells_on(g, probs, row, &lat, boxed_row) {
                    step.get_or_insert(dl.round());
                    members.push((r, cells));
                } else if step.is_some() {
                    break;
                }
            }
            if members.len() != 8 {
                if members.len() >= 3 && partial.is_none_or(|p| members.len() > p.rows) {
                    partial = Some(Partial { rows: members.len() });
                }
                // No eight of a taller grid make a board either.
                if members.len() > 8 {
                    members.iter().for_each(|(r, _)| used[*r] = true);
                }
                continue;
            }
            // Blank squares only in a box, and a board shows at least its two kings.
            let glyph_count = members.iter().flat_map(|(_, c)| c.iter()).filter(|c| c.is_some()).count();
            if glyph_count < 2 {
                continue;
            }
            for (r, _) in &members {
                used[*r] = true;
            }
            boards.push(board_from(g, probs, &rows, &members, &lat));
            break;
        }
    }
    let partial = if boards.is_empty() { partial } else { None };
    (boards, partial)
}

/// Where a text board's rows miss a square's glyph: on a lattice that at least three rows fill
/// ([`cells_on`]), each row within eight lines of them that holds at least four square glyphs
/// on it, at each of its 8 points where no square glyph lies, one text height tall and most of
/// a column wide. A symbol drawn too faint or thin for the ink threshold (a white pawn's
/// outline at 8 pixels, grey on cream) leaves such a gap, or only a fragment that reads as no
/// square; the recognizer classifies these boxes, centred where the symbol should be, and
/// searches again ([`crate::Recognizer::read_text_boards`]).
pub fn gaps(g: &Glyphs, probs: &[GlyphProbs]) -> Vec<Glyph> {
    let rows = rows(g);
    let row_bars: Vec<Vec<f64>> = rows.iter().map(|r| bars(g, r.y)).collect();
    let mut lattices_seen: Vec<Lattice> = Vec::new();
    for (r, b) in rows.iter().zip(&row_bars) {
        for lat in lattices(g, probs, r, b) {
            if !lattices_seen.iter().any(|c| c.same_as(&lat)) {
                lattices_seen.push(lat);
            }
        }
    }
    let (w, h) = (g.ink.width() as f64, g.ink.height() as f64);
    let mut out: Vec<Glyph> = Vec::new();
    for lat in lattices_seen {
        let full: Vec<f64> =
            rows.iter().filter(|r| cells_on(g, probs, r, &lat, false).is_some()).map(|r| r.pos).collect();
        if full.len() < 3 {
            continue;
        }
        let (lo, hi) = (full[0] - 8.0, full[full.len() - 1] + 8.0);
        for row in rows.iter().filter(|r| (lo..=hi).contains(&r.pos)) {
            // Which of the 8 points hold a square's glyph.
            let mut square = [false; 8];
            for &i in &row.glyphs {
                let x = g.glyphs[i].centre().0;
                let k = ((x - lat.x0) / lat.dx).round();
                if (0.0..=7.0).contains(&k)
                    && (x - lat.x0 - k * lat.dx).abs() <= 0.3 * lat.dx
                    && square_probability(&probs[i]) >= SQUARE_AT
                {
                    square[k as usize] = true;
                }
            }
            let squares = square.iter().filter(|&&s| s).count();
            if !(4..8).contains(&squares) {
                continue;
            }
            for k in (0..8).filter(|&k| !square[k]) {
                let (cx, cy) = (lat.x0 + k as f64 * lat.dx, row.y);
                let (hw, hh) = (0.4 * lat.dx, 0.5 * g.text_height);
                if cx - hw < 0.0 || cy - hh < 0.0 || cx + hw >= w || cy + hh >= h {
                    continue;
                }
                let b = Glyph {
                    x0: (cx - hw) as u32,
                    y0: (cy - hh) as u32,
                    x1: (cx + hw - 1.0).max(cx - hw) as u32,
                    y1: (cy + hh - 1.0).max(cy - hh) as u32,
                };
                if !out.iter().any(|o| {
                    (o.centre().0 - b.centre().0).abs() < 0.3 * lat.dx
                        && (o.centre().1 - b.centre().1).abs() < 0.3 * g.text_height
                }) {
                    out.push(b);
                }
            }
        }
    }
    out
}

fn board_from(
    g: &Glyphs,
    probs: &[GlyphProbs],
    rows: &[Row],
    members: &[(usize, RowCells)],
    lat: &Lattice,
) -> TextBoard {
    let mut cells = Vec::with_capacity(64);
    for (_, row) in members {
        for c in row {
            cells.push(match c {
                Some(i) => {
                    let p = &probs[*i];
                    let z: f32 = p[..13].iter().sum::<f32>().max(1e-6);
                    std::array::from_fn(|k| p[k] / z)
                }
                None => std::array::from_fn(|k| if k == 0 { 1.0 } else { 0.0 }),
            });
        }
    }
    let (y_top, y_bottom) = (rows[members[0].0].y, rows[members[7].0].y);
    let dy = (y_bottom - y_top) / 7.0;
    let (x_left, x_right) = (lat.x0 - lat.dx / 2.0, lat.x0 + 7.5 * lat.dx);
    let (top, bottom) = (y_top - dy / 2.0, y_bottom + dy / 2.0);
    let quad = Quad([
        Point::new(x_left, top),
        Point::new(x_right, top),
        Point::new(x_right, bottom),
        Point::new(x_left, bottom),
    ]);
    let coordinates = coordinates(g, probs, rows, members, lat, dy);
    TextBoard { quad, probs: cells, coordinates }
}

/// Log-likelihood ratio one coordinate glyph read as predicted adds.
const LABEL_EVIDENCE: f32 = 3.0;
/// Of a board's eight rank digits or file letters, at least this many must read as one side
/// predicts for them to count: digits and letters in text beside a board (a move list, a score)
/// must not turn it.
const LABELS_NEEDED: usize = 6;

/// What the rank digits beside the rows and the file letters under or over the board say: a
/// column of digits on either side, or a row of letters above or below, of which at least
/// [`LABELS_NEEDED`] read as White at the bottom predicts (or as Black at the bottom predicts)
/// adds [`LABEL_EVIDENCE`] for each that matches the one side, less as much for each that
/// matches the other. `None` when neither is printed.
fn coordinates(
    g: &Glyphs,
    probs: &[GlyphProbs],
    rows: &[Row],
    members: &[(usize, RowCells)],
    lat: &Lattice,
    dy: f64,
) -> Option<CoordinateReading> {
    let best = |i: usize| crate::classify::most_probable(&probs[i]);
    let judge = |white: usize, black: usize| {
        (white.max(black) >= LABELS_NEEDED).then_some(LABEL_EVIDENCE * (white as f32 - black as f32))
    };
    let (left, right) = (lat.x0 - 0.5 * lat.dx, lat.x0 + 7.5 * lat.dx);
    // The glyph nearest the board on one side of each row, within three columns.
    let rank_side = |leftward: bool| {
        let (mut white, mut black) = (0, 0);
        for (r, (row, _)) in members.iter().enumerate() {
            let beside = rows[*row]
                .glyphs
                .iter()
                .copied()
                .filter(|&i| {
                    let x = g.glyphs[i].centre().0;
                    if leftward {
                        x < left && x > left - 3.0 * lat.dx
                    } else {
                        x > right && x < right + 3.0 * lat.dx
                    }
                })
                .min_by(|&a, &b| {
                    let d = |i: usize| (g.glyphs[i].centre().0 - if leftward { left } else { right }).abs();
                    d(a).total_cmp(&d(b))
                });
            if let Some((class, p)) = beside.map(best) {
                if (DIGITS..DIGITS + 8).contains(&class) && p >= 0.5 {
                    let digit = class - DIGITS + 1;
                    white += usize::from(digit == 8 - r);
                    black += usize::from(digit == r + 1);
                }
            }
        }
        judge(white, black)
    };
    let (top, bottom) = (rows[members[0].0].y, rows[members[7].0].y);
    let file_row = |row: &Row| {
        let (mut white, mut black) = (0, 0);
        for &i in &row.glyphs {
            let x = g.glyphs[i].centre().0;
            let k = ((x - lat.x0) / lat.dx).round();
            if !(0.0..8.0).contains(&k) || (x - lat.x0 - k * lat.dx).abs() > 0.3 * lat.dx {
                continue;
            }
            let (class, p) = best(i);
            if let Some(f) = file_of(class).filter(|_| p >= 0.5) {
                white += usize::from(f == k as usize);
                black += usize::from(f == 7 - k as usize);
            }
        }
        judge(white, black)
    };
    let ranks = [rank_side(true), rank_side(false)].into_iter().flatten().reduce(|a, b| a + b);
    let files = rows
        .iter()
        .filter(|row| (row.y < top && row.y > top - 1.6 * dy) || (row.y > bottom && row.y < bottom + 1.6 * dy))
        .filter_map(file_row)
        .reduce(|a, b| a + b);
    (ranks.is_some() || files.is_some()).then(|| CoordinateReading {
        ranks: ranks.unwrap_or(0.0),
        files: files.unwrap_or(0.0),
        shift: (0, 0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::GrayImage;

    /// Glyphs on a character grid (cells 8 px wide, lines 20 px apart, text 10 px high) named
    /// with certainty: `lines` holds one string a line, a character a cell, spaces left out.
    fn printed(lines: &[&str]) -> (Glyphs, Vec<GlyphProbs>) {
        let mut glyphs = Vec::new();
        let mut probs = Vec::new();
        for (l, line) in lines.iter().enumerate() {
            for (c, ch) in line.chars().enumerate().filter(|(_, ch)| *ch != ' ') {
                let (x, y) = (10 + 8 * c as u32, 15 + 20 * l as u32);
                glyphs.push(Glyph { x0: x, y0: y, x1: x + 5, y1: y + 9 });
                probs.push(std::array::from_fn(|k| if k == glyph_class(ch) { 1.0 } else { 0.0 }));
            }
        }
        let ink = GrayImage::new(20 + 8 * 40, 40 + 20 * lines.len() as u32);
        (Glyphs { glyphs, text_height: 10.0, advance: Some(8.0), light_on_dark: false, ink }, probs)
    }

    const BOARD: [&str; 8] = [
        "r n b q k b n r",
        "p p p p p p p p",
        ". . . . . . . .",
        ". . . . . . . .",
        ". . . . P . . .",
        ". . . . . . . .",
        "P P P P . P P P",
        "R N B Q K B N R",
    ];

    fn read(board: &TextBoard) -> String {
        board.probs.iter().map(|p| crate::CLASS_CHARS[crate::classify::most_probable(p).0]).collect()
    }

    #[test]
    fn eight_rows_of_eight_square_glyphs_make_a_board() {
        let mut lines = vec![">>> print(board)"];
        lines.extend(BOARD);
        lines.push(">>> board.fen()");
        let (g, probs) = printed(&lines);
        let (boards, partial) = find_boards(&g, &probs);
        assert_eq!((boards.len(), partial), (1, None));
        assert_eq!(read(&boards[0]), BOARD.concat().replace(' ', ""));
        assert!(boards[0].coordinates.is_none());
        // Half a column (two cells) beyond the outer glyphs' centres (x 13 and 125).
        let [tl, _, br, _] = boards[0].quad.0;
        assert_eq!((tl.x, br.x), (5.0, 133.0));
    }

    #[test]
    fn a_square_glyph_the_ink_missed_leaves_a_gap_to_classify() {
        // Two symbols not found (spaces in place of the row's second and seventh squares): no
        // board, and the two gaps are where the lattice puts them.
        let mut lines = BOARD.to_vec();
        lines[6] = "P   P P . P   P";
        let (g, probs) = printed(&lines);
        let (boards, partial) = find_boards(&g, &probs);
        assert!(boards.is_empty() && partial.is_some(), "{partial:?}");
        let found = gaps(&g, &probs);
        let centres: Vec<(f64, f64)> = found.iter().map(|b| b.centre()).collect();
        // Cells 16 px apart from x 13; the row's centre 140 px down.
        assert_eq!(centres.len(), 2, "{centres:?}");
        for (want_x, got) in [29.0, 109.0].iter().zip(&centres) {
            assert!((got.0 - want_x).abs() <= 1.0 && (got.1 - 140.0).abs() <= 1.0, "{centres:?}");
        }
        // A fragment of a symbol that reads as no square (a dash) leaves a gap there too.
        lines[6] = "P - P P . P   P";
        let (g, probs) = printed(&lines);
        assert_eq!(gaps(&g, &probs).len(), 2);
        // A whole board has none.
        let (g, probs) = printed(&BOARD);
        assert!(gaps(&g, &probs).is_empty());
    }

    #[test]
    fn nine_rows_or_ten_columns_make_no_board() {
        let mut tall = BOARD.to_vec();
        tall.insert(4, ". . . . . . . .");
        let (g, probs) = printed(&tall);
        let (boards, partial) = find_boards(&g, &probs);
        assert_eq!((boards.len(), partial), (0, Some(Partial { rows: 9 })));
        let wide: Vec<String> = BOARD.iter().map(|l| format!("{l} . .")).collect();
        let (g, probs) = printed(&wide.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(find_boards(&g, &probs).0.is_empty());
    }

    #[test]
    fn printed_coordinates_say_which_side_is_at_the_bottom() {
        // From Black's side: ranks 1 to 8 down the left, files h to a below.
        let mut lines: Vec<String> = BOARD.iter().rev().enumerate().map(|(r, l)| format!("{} {l}", r + 1)).collect();
        lines.push("  h g f e d c b a".to_string());
        let (g, probs) = printed(&lines.iter().map(String::as_str).collect::<Vec<_>>());
        let (boards, _) = find_boards(&g, &probs);
        let c = boards[0].coordinates.expect("coordinates");
        assert_eq!((c.ranks, c.files), (-8.0 * LABEL_EVIDENCE, -8.0 * LABEL_EVIDENCE));
        // A move list beside the board is no coordinates.
        let mut lines: Vec<String> = BOARD.iter().map(|l| l.to_string()).collect();
        lines[0].push_str("   1. e4 e5");
        lines.push("a6 Bb5 ... h3".to_string());
        let (g, probs) = printed(&lines.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(find_boards(&g, &probs).0[0].coordinates.is_none());
    }

    #[test]
    fn letters_and_symbols_of_one_piece_share_a_class() {
        assert_eq!(glyph_class('.'), 0);
        assert_eq!(glyph_class('⭘'), 0);
        assert_eq!(glyph_class('P'), 1);
        assert_eq!(glyph_class('♙'), 1);
        assert_eq!(glyph_class('k'), 12);
        assert_eq!(glyph_class('♚'), 12);
        assert_eq!(glyph_class('b'), 9);
        assert_eq!(glyph_class('1'), DIGITS);
        assert_eq!(glyph_class('8'), DIGITS + 7);
        assert_eq!(glyph_class('a'), FILES);
        assert_eq!(glyph_class('h'), OTHER - 1);
        assert_eq!(glyph_class('9'), OTHER);
        assert_eq!(glyph_class('|'), OTHER);
        for (i, f) in FILE_LETTERS.iter().enumerate() {
            assert_eq!(file_of(glyph_class(*f)), Some(i));
        }
    }
}
