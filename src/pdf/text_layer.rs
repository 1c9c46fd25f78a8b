//! Boards a PDF draws as text: a typeset book sets each diagram as 8 rows of 8 glyphs of a chess
//! diagram font, one glyph (or a stack of layered glyphs) per square, each as wide as a square.
//! Their character codes are the position itself, with no model: this module finds such grids
//! among a page's glyphs ([`find_boards`]) and decodes them with the font encodings of LaTeX's
//! chessfss package ([`ENCODINGS`]), and reads the rank and file labels set beside them.
//!
//! PDF fonts embedded by TeX carry no usable name (pdfTeX embeds METAFONT fonts as Type 3
//! bitmaps), so a chess font is known by what it draws, not by its name: a grid of exactly 8x8
//! glyph stacks, each a whole square wide, every stack a square or piece of one encoding, and,
//! where the encoding tells light from dark squares, light and dark alternating with a light
//! square at the top left. Text never does all of that by chance.

use shakmaty::{Color, Piece, Role};

use crate::geometry::Quad;
use crate::orient::CoordinateReading;

/// One glyph a page shows, in page points with y growing downwards (the page as rendered at 72
/// dpi, rotation applied).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacedGlyph {
    /// The character code in the font's encoding; for a composite font, whose codes are glyph
    /// numbers, the code its Unicode value has in Windows-1252 (how TeX's engines name chess
    /// glyphs for Unicode).
    pub code: u32,
    /// The character the font says the glyph stands for, when it says.
    pub text: Option<char>,
    /// The glyph's origin (the left end of its baseline), across ...
    pub x: f32,
    /// ... and down the page.
    pub y: f32,
    /// How far the glyph advances the pen, in points: a chess diagram glyph is a square wide.
    pub advance: f32,
    /// The font size (the height of its em square), in points.
    pub size: f32,
}

/// The glyphs that stack up to draw one square in chessfss's encodings, bottom layer first: each
/// names a glyph per piece type, in the order of [`ROLES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    /// The piece on a light square (`K Q R B N P`, lower case for Black).
    Letter,
    /// The piece on a hatched dark square (`J L S A M O`, lower case for Black).
    Dark,
    /// A mask that whitens the piece's inside (`T X V W U Y`, both colours).
    Mask,
    /// A mask that blanks the square under the piece (`1 5 3 4 2 6`, both colours).
    Digit,
    /// The dark square's field with the piece's shape cut out (codes 149-154).
    Field,
    /// Word-processor diagram fonts after Armando Marroquin's layout (Chess Merida, Leipzig,
    /// Maya, ...): the piece on a light square, White `k q r b n p`, Black `l w t v m o`.
    Marroquin,
    /// The same on a dark square: the same letters upper case.
    MarroquinDark,
    /// The Alpha fonts' layout (Chess Alpha, Cheq, Berlin): White `k q r b h p`, Black
    /// `l w t n j o`, on a light square.
    Alpha,
    /// The same on a dark square, upper case.
    AlphaDark,
}

/// Piece types in the order the layers' glyph tables list them.
const ROLES: [Role; 6] = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

impl Layer {
    fn code(self, piece: Piece) -> u32 {
        let t = ROLES.iter().position(|&r| r == piece.role).expect("six roles");
        let cased = |upper: &[u8; 6]| {
            let c = upper[t];
            u32::from(if piece.color == Color::White { c } else { c.to_ascii_lowercase() })
        };
        match self {
            Layer::Letter => cased(b"KQRBNP"),
            Layer::Dark => cased(b"JLSAMO"),
            Layer::Mask => u32::from(b"TXVWUY"[t]),
            Layer::Digit => u32::from(b"153426"[t]),
            Layer::Field => [149, 153, 151, 152, 150, 154][t],
            Layer::Marroquin | Layer::MarroquinDark | Layer::Alpha | Layer::AlphaDark => {
                let letters: [&[u8; 6]; 2] = match self {
                    Layer::Marroquin | Layer::MarroquinDark => [b"kqrbnp", b"lwtvmo"],
                    _ => [b"kqrbhp", b"lwtnjo"],
                };
                let c = letters[(piece.color == Color::Black) as usize][t];
                let dark = matches!(self, Layer::MarroquinDark | Layer::AlphaDark);
                u32::from(if dark { c.to_ascii_uppercase() } else { c })
            }
        }
    }
}

/// A chess diagram font encoding: which glyph codes draw each square.
#[derive(Debug)]
pub struct Encoding {
    /// Its chessfss name.
    pub name: &'static str,
    /// The layers of a piece on a light and on a dark square.
    piece: [&'static [Layer]; 2],
    /// The codes of an empty light and an empty dark square.
    empty: [&'static [u32]; 2],
    /// Another glyph some fonts of the layout draw an empty light square with (`*`, in fonts
    /// whose space is narrower than a square).
    blank: Option<u32>,
}

/// The encodings of chessfss (texlive-games) that draw every square, empty ones included, and so
/// can be found as a grid: LSB (the skak fonts' own layout, chessboard's default), LSB1 (a field
/// glyph under each piece on a dark square), and LSBC1-4 (masks and fields for coloured boards).
/// LSB2, LSB3 and LSBC5 draw the pieces alone, and LSF and LSI are figurines and signs: those
/// are read from the picture. Then the two layouts of the TrueType diagram fonts that word
/// processors set a diagram in, a line of glyphs a rank (empty squares: a space on a light square,
/// `+` on a dark one). Listed so that no stack decodes under two of them differently.
pub const ENCODINGS: [Encoding; 8] = {
    use Layer::*;
    [
        Encoding { name: "LSB", piece: [&[Letter], &[Dark]], empty: [&[48], &[90]], blank: None },
        Encoding { name: "LSB1", piece: [&[Letter], &[Letter, Dark]], empty: [&[48], &[90]], blank: None },
        Encoding {
            name: "LSBC1",
            piece: [&[Letter, Mask], &[Letter, Mask, Field]],
            empty: [&[48], &[90]],
            blank: None,
        },
        Encoding {
            name: "LSBC2",
            piece: [&[Digit, Letter], &[Digit, Letter, Field]],
            empty: [&[122], &[90, 122]],
            blank: None,
        },
        Encoding {
            name: "LSBC3",
            piece: [&[Digit, Letter, Mask], &[Digit, Letter, Mask, Field]],
            empty: [&[122], &[90, 122]],
            blank: None,
        },
        // LSBC4 draws light and dark squares alike: the colours come from elsewhere.
        Encoding { name: "LSBC4", piece: [&[Digit, Letter], &[Digit, Letter]], empty: [&[122], &[122]], blank: None },
        Encoding { name: "Marroquin", piece: [&[Marroquin], &[MarroquinDark]], empty: [&[32], &[43]], blank: Some(42) },
        Encoding { name: "Alpha", piece: [&[Alpha], &[AlphaDark]], empty: [&[32], &[43]], blank: Some(42) },
    ]
};

/// What a square's stack of glyphs shows under an encoding: the piece, and whether the square is
/// drawn dark (`None` where the encoding draws both alike).
type Decoded = (Option<Piece>, Option<bool>);

impl Encoding {
    /// The square that the codes stacked at one place draw (in any order), if they draw one.
    fn decode(&self, codes: &[u32]) -> Option<Decoded> {
        let same = |want: &mut Vec<u32>| {
            want.sort_unstable();
            want.as_slice() == codes
        };
        let alike = self.piece[0] == self.piece[1];
        for (dark, layers) in self.piece.iter().enumerate() {
            let shade = (!alike).then_some(dark == 1);
            let blank = dark == 0 && self.blank.is_some_and(|b| codes == [b]);
            if blank || same(&mut self.empty[dark].to_vec()) {
                return Some((None, if self.empty[0] == self.empty[1] { None } else { shade }));
            }
            for color in Color::ALL {
                for role in ROLES {
                    let piece = Piece { color, role };
                    if same(&mut layers.iter().map(|l| l.code(piece)).collect()) {
                        return Some((Some(piece), shade));
                    }
                }
            }
        }
        None
    }
}

/// A board the text layer draws.
#[derive(Debug, Clone, PartialEq)]
pub struct TextBoard {
    /// Its outer corners in page points (top-left, top-right, bottom-right, bottom-left).
    pub quad: Quad,
    /// The 64 squares as displayed, top-left first, row by row.
    pub cells: [Option<Piece>; 64],
    /// The encoding its glyphs decode with ([`ENCODINGS`]).
    pub encoding: &'static str,
    /// What the rank and file labels set beside it say, when it has any: exact text, each label
    /// read counting [`LABEL_EVIDENCE`].
    pub coordinates: Option<CoordinateReading>,
    /// Other encodings under which the same glyphs draw another position, with it: fonts of
    /// different layouts can share codes, and a PDF does not always name its fonts. The picture
    /// tells them apart (`Recognizer::read_text_board`).
    pub alternatives: Vec<(&'static str, [Option<Piece>; 64])>,
}

/// The evidence one label of the text layer gives for a side, in natural-log units: as much as
/// the most one clearly seen label gives in a picture (`orient::PATCH_CAP`), so that two labels
/// decide (`orient::COORDINATE_EVIDENCE`).
pub const LABEL_EVIDENCE: f32 = 4.0;

/// How far from where the grid puts it a glyph may stand and still be its square's, as a share of
/// a square.
const CELL_SLACK: f32 = 0.12;

/// Glyphs drawn at one place with one advance: the layers of one square.
#[derive(Debug, Clone)]
struct Stack {
    x: f32,
    y: f32,
    pitch: f32,
    size: f32,
    /// The glyphs' character codes, sorted.
    codes: Vec<u32>,
    /// The codes their Unicode values have in Windows-1252, sorted, when every glyph has one: a
    /// font embedded as a composite font (LuaTeX and XeTeX embed TrueType fonts so) draws by
    /// glyph number, and names its characters only through its Unicode map.
    named: Option<Vec<u32>>,
}

impl Stack {
    /// A stack of one glyph, `g`, standing where it stands, a square as wide as its advance.
    fn of(g: &PlacedGlyph) -> Stack {
        let mut s = Stack { x: g.x, y: g.y, pitch: g.advance, size: g.size, codes: vec![], named: Some(vec![]) };
        s.add(g);
        s
    }

    /// Lays glyph `g` on the stack.
    fn add(&mut self, g: &PlacedGlyph) {
        self.codes.push(g.code);
        self.named = self.named.take().zip(g.text.and_then(super::windows_1252)).map(|(mut v, c)| {
            v.push(c);
            v
        });
    }

    /// What the stack draws under `enc`, by its codes or, `named`, by its glyphs' Unicode names.
    fn decode(&self, enc: &Encoding, named: bool) -> Option<Decoded> {
        if named {
            enc.decode(self.named.as_deref()?)
        } else {
            enc.decode(&self.codes)
        }
    }

    /// Whether it draws a square under some encoding, read one way: a border glyph or a word
    /// beside a grid is no square, and does not make the grid larger than 8x8.
    fn is_square(&self, named: bool) -> bool {
        ENCODINGS.iter().any(|enc| self.decode(enc, named).is_some())
    }
}

/// Stacks filed by where they stand, in buckets [`Buckets::SIDE`] points square, so that a page
/// of prose (thousands of stacks) is not searched whole for each glyph or neighbour.
#[derive(Default)]
struct Buckets(std::collections::HashMap<(i64, i64), Vec<usize>>);

impl Buckets {
    const SIDE: f32 = 8.0;
    /// The most buckets looked at either way of a place; farther reaches look at every stack.
    const MAX_REACH: f32 = 16.0;

    fn key(x: f32, y: f32) -> (i64, i64) {
        ((x / Self::SIDE).floor() as i64, (y / Self::SIDE).floor() as i64)
    }

    fn insert(&mut self, i: usize, x: f32, y: f32) {
        self.0.entry(Self::key(x, y)).or_default().push(i);
    }

    /// The stacks filed within `reach` points of `(x, y)` along both axes (and some a little
    /// farther), or `None` where `reach` is too large, or no number, to look up by bucket.
    fn around(&self, x: f32, y: f32, reach: f32) -> Option<Vec<usize>> {
        let r = (reach / Self::SIDE).ceil();
        if r.is_nan() || r > Self::MAX_REACH {
            return None;
        }
        let (r, (kx, ky)) = (r as i64, Self::key(x, y));
        let mut found = Vec::new();
        for bx in kx.saturating_sub(r)..=kx.saturating_add(r) {
            for by in ky.saturating_sub(r)..=ky.saturating_add(r) {
                found.extend(self.0.get(&(bx, by)).into_iter().flatten());
            }
        }
        Some(found)
    }
}

/// Every chess board a page's text layer draws, in the order their top-left squares come in the
/// page's content (those read by codes first). `glyphs` is everything the page shows as text.
pub fn find_boards(glyphs: &[PlacedGlyph]) -> Vec<TextBoard> {
    let stacks = stacks(glyphs);
    let mut buckets = Buckets::default();
    for (i, t) in stacks.iter().enumerate() {
        buckets.insert(i, t.x, t.y);
    }
    // The first stack (in the page's order) one step of (dx, dy) pitches from stack i.
    let near = |i: usize, dx: f32, dy: f32| -> Option<usize> {
        let s = &stacks[i];
        let (x, y, slack) = (s.x + dx * s.pitch, s.y + dy * s.pitch, CELL_SLACK * s.pitch);
        let fits = |t: &Stack| {
            (t.x - x).abs() < slack && (t.y - y).abs() < slack && (t.pitch - s.pitch).abs() < 0.02 * s.pitch
        };
        match buckets.around(x, y, slack) {
            Some(candidates) => candidates.into_iter().filter(|&j| fits(&stacks[j])).min(),
            None => stacks.iter().position(fits),
        }
    };
    let mut boards: Vec<TextBoard> = Vec::new();
    // The glyphs read by their codes, then by their Unicode names: each way finds its own grids,
    // since a composite font's glyph numbers mean nothing as codes.
    for named in [false, true] {
        let square_near = |i: usize, dx: f32, dy: f32| near(i, dx, dy).filter(|&j| stacks[j].is_square(named));
        for corner in 0..stacks.len() {
            if square_near(corner, -1.0, 0.0).is_some() || square_near(corner, 0.0, -1.0).is_some() {
                continue;
            }
            let Some(grid) = grid_from(corner, &near, &square_near) else { continue };
            // A word processor's diagram is framed by border glyphs a square wide: its labels
            // stand beyond them.
            let framed = near(corner, -1.0, 0.0).is_some() && near(grid[56], 0.0, 1.0).is_some();
            if let Some(board) = decode(&stacks, &grid, named, framed, glyphs) {
                if boards.iter().all(|b| b.quad != board.quad) {
                    boards.push(board);
                }
            }
        }
    }
    boards
}

/// The page's glyphs of square shape (advance at least half the font size, so that a grid's
/// pitch can be told from the glyphs' own width) gathered into stacks: the glyphs drawn at one
/// place with one advance, and the overlays drawn there without advancing (chessfss's masks and
/// fields are glyphs of no width) in a font of the same size.
fn stacks(glyphs: &[PlacedGlyph]) -> Vec<Stack> {
    let mut stacks: Vec<Stack> = Vec::new();
    let mut buckets = Buckets::default();
    // The last stack (the one drawn latest) that glyph `g` lands on: same place, same size and,
    // when `pitch` is given, the same advance. `reach` bounds how far the stacks it may land on
    // let a glyph stand off.
    let at = |stacks: &[Stack], buckets: &Buckets, g: &PlacedGlyph, pitch: Option<f32>, reach: f32| {
        let fits = |s: &Stack| {
            let slack = CELL_SLACK * s.pitch;
            (s.x - g.x).abs() < slack
                && (s.y - g.y).abs() < slack
                && (s.size - g.size).abs() < 0.02 * s.size
                && pitch.is_none_or(|p| (s.pitch - p).abs() < 0.02 * p)
        };
        match buckets.around(g.x, g.y, reach) {
            Some(candidates) => candidates.into_iter().filter(|&i| fits(&stacks[i])).max(),
            None => stacks.iter().rposition(fits),
        }
    };
    for g in glyphs.iter().filter(|g| g.advance > 0.5 * g.size && g.advance > 1.0) {
        // A stack of the same advance (within 2%) lets a glyph stand off by its slack.
        match at(&stacks, &buckets, g, Some(g.advance), CELL_SLACK * 1.03 * g.advance) {
            Some(i) => stacks[i].add(g),
            None => {
                buckets.insert(stacks.len(), g.x, g.y);
                stacks.push(Stack::of(g));
            }
        }
    }
    let widest = stacks.iter().map(|s| s.pitch).fold(0.0, f32::max);
    for g in glyphs.iter().filter(|g| g.advance.abs() < 0.01 * g.size) {
        if let Some(i) = at(&stacks, &buckets, g, None, CELL_SLACK * widest) {
            stacks[i].add(g);
        }
    }
    for s in &mut stacks {
        s.codes.sort_unstable();
        if let Some(n) = &mut s.named {
            n.sort_unstable();
        }
    }
    stacks
}

/// The 64 stacks of an 8x8 grid whose top-left square is stack `corner`, row by row, when the
/// grid is exactly 8x8: nothing continues it beyond its last row or column.
fn grid_from(
    corner: usize,
    near: &impl Fn(usize, f32, f32) -> Option<usize>,
    square_near: &impl Fn(usize, f32, f32) -> Option<usize>,
) -> Option<Vec<usize>> {
    let mut grid = Vec::with_capacity(64);
    let mut row_start = corner;
    for r in 0..8 {
        if r > 0 {
            row_start = near(row_start, 0.0, 1.0)?;
            square_near(row_start, -1.0, 0.0).is_none().then_some(())?;
        }
        let mut cell = row_start;
        grid.push(cell);
        for _ in 1..8 {
            cell = near(cell, 1.0, 0.0)?;
            grid.push(cell);
        }
        square_near(cell, 1.0, 0.0).is_none().then_some(())?;
    }
    let edges =
        (0..8).all(|c| square_near(grid[c], 0.0, -1.0).is_none() && square_near(grid[56 + c], 0.0, 1.0).is_none());
    edges.then_some(grid)
}

/// The board the stacks of `grid` draw under the first encoding that decodes all 64 and, where
/// it tells light from dark, shows them alternating with a light square at the top left.
fn decode(stacks: &[Stack], grid: &[usize], named: bool, framed: bool, glyphs: &[PlacedGlyph]) -> Option<TextBoard> {
    let mut readings = ENCODINGS.iter().filter_map(|enc| {
        let decoded: Vec<Decoded> = grid.iter().map(|&i| stacks[i].decode(enc, named)).collect::<Option<_>>()?;
        let checkered =
            decoded.iter().enumerate().all(|(i, d)| d.1.is_none_or(|dark| dark == ((i / 8 + i % 8) % 2 == 1)));
        let cells: [Option<Piece>; 64] = std::array::from_fn(|i| decoded[i].0);
        checkered.then_some((enc.name, cells))
    });
    let (name, cells) = readings.next()?;
    // Other layouts that read the same glyphs otherwise (Marroquin's white knight `n` is the
    // Alpha fonts' black bishop): the picture will choose.
    let mut alternatives: Vec<(&'static str, [Option<Piece>; 64])> = Vec::new();
    for (n, c) in readings {
        if c != cells && alternatives.iter().all(|a| a.1 != c) {
            alternatives.push((n, c));
        }
    }
    let (tl, tr, bl) = (&stacks[grid[0]], &stacks[grid[7]], &stacks[grid[56]]);
    let pitch = tl.pitch;
    // A glyph's square stands on its baseline, from its origin one advance right and up.
    let quad = Quad::rect(tl.x as f64, (tl.y - pitch) as f64, (tr.x + pitch) as f64, bl.y as f64);
    let coordinates = labels(&quad, glyphs, if framed { 2.0 } else { 1.0 });
    Some(TextBoard { quad, cells, encoding: name, coordinates, alternatives })
}

/// What the rank digits and file letters set beside the board at `quad` say: each label whose
/// middle lies within a row's (or a file's) band, outside the board and less than `reach`
/// squares away, gives [`LABEL_EVIDENCE`] to the side it fits (8 at the top for White, 1 for
/// Black; `a` at the left for White, `h` for Black), and none where it fits neither. `None`
/// without labels.
fn labels(quad: &Quad, glyphs: &[PlacedGlyph], reach: f32) -> Option<CoordinateReading> {
    let [tl, _, br, _] = quad.0;
    let (x0, y0, x1, y1) = (tl.x as f32, tl.y as f32, br.x as f32, br.y as f32);
    let s = (x1 - x0) / 8.0;
    let (mut ranks, mut files, mut seen) = (0.0f32, 0.0f32, false);
    // A label stands alone: no glyph on its line closer than a third of a square (a letter of a
    // word, a move number's digit, have neighbours).
    let alone = |g: &PlacedGlyph| {
        !glyphs.iter().any(|o| {
            !std::ptr::eq(o, g)
                && (o.y - g.y).abs() < 0.3 * g.size
                && o.x < g.x + g.advance + s / 3.0
                && o.x + o.advance.max(0.3 * o.size) > g.x - s / 3.0
        })
    };
    for g in glyphs.iter().filter(|g| g.size < 1.2 * s && g.advance < s) {
        let Some(c) = g.text.filter(char::is_ascii_alphanumeric) else { continue };
        // The middle of a digit or lower-case letter: half its x-height above the baseline.
        let (cx, cy) = (g.x + g.advance / 2.0, g.y - 0.3 * g.size);
        let beside = (cx < x0 && cx > x0 - reach * s) || (cx > x1 && cx < x1 + reach * s);
        let above_below = (cy < y0 && cy > y0 - reach * s) || (cy > y1 && cy < y1 + reach * s);
        if !(beside || above_below) || !alone(g) {
            continue;
        }
        let inside = |v: f32, lo: f32| {
            let t = (v - lo) / s;
            (t.fract() > 0.1 && t.fract() < 0.9).then_some(t.floor()).filter(|t| (0.0..8.0).contains(t))
        };
        if let (true, Some(row), Some(d)) = (beside, inside(cy, y0), c.to_digit(10)) {
            let row = row as u32;
            seen = true;
            ranks += if d == 8 - row {
                LABEL_EVIDENCE
            } else if d == row + 1 {
                -LABEL_EVIDENCE
            } else {
                0.0
            };
        } else if let (true, Some(col)) = (above_below, inside(cx, x0)) {
            let Some(f) =
                c.to_ascii_lowercase().is_ascii_lowercase().then(|| c.to_ascii_lowercase() as u32 - 'a' as u32)
            else {
                continue;
            };
            let col = col as u32;
            seen = true;
            files += if f == col {
                LABEL_EVIDENCE
            } else if f == 7 - col {
                -LABEL_EVIDENCE
            } else {
                0.0
            };
        }
    }
    seen.then_some(CoordinateReading { ranks, files, shift: (0, 0) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    /// The glyphs a diagram typeset in `enc` shows for `placement` (FEN field 1) at `(x, y)` with
    /// squares `s` points wide, as displayed from White's side or, `flipped`, from Black's, with
    /// the labels of the sides `labels` names (`l`eft, `b`ottom).
    fn typeset(
        enc: &Encoding,
        placement: &str,
        (x, y, s): (f32, f32, f32),
        flipped: bool,
        labels: &str,
    ) -> Vec<PlacedGlyph> {
        let board = placement.parse::<Fen>().unwrap().into_setup().board;
        let mut glyphs = Vec::new();
        let glyph = |code: u32, text, x, y, advance, size| PlacedGlyph { code, text, x, y, advance, size };
        for i in 0..64 {
            let sq = crate::orient::square_at(
                i,
                if flipped { crate::Orientation::Black } else { crate::Orientation::White },
            );
            let dark = (i / 8 + i % 8) % 2 == 1;
            let (gx, gy) = (x + (i % 8) as f32 * s, y + (i / 8 + 1) as f32 * s);
            let codes: Vec<u32> = match board.piece_at(sq) {
                None => enc.empty[dark as usize].to_vec(),
                Some(p) => enc.piece[dark as usize].iter().map(|l| l.code(p)).collect(),
            };
            // chessfss draws one layer a square wide, the others as overlays of no width.
            let letter = |c: &u32| b"KQRBNPkqrbnpJLSAMOjlsamo".contains(&(*c as u8));
            let wide = codes.iter().position(letter);
            for (k, code) in codes.into_iter().enumerate() {
                let advance = if wide.is_none_or(|w| w == k) { s } else { 0.0 };
                glyphs.push(glyph(code, None, gx, gy, advance, s));
            }
        }
        for k in 0..8u32 {
            let (rank, file) = if flipped { (k + 1, 7 - k) } else { (8 - k, k) };
            let size = 0.5 * s;
            if labels.contains('l') {
                let c = char::from_digit(rank, 10);
                glyphs.push(glyph(c.unwrap() as u32, c, x - 0.5 * s, y + (k as f32 + 0.7) * s, 0.25 * s, size));
            }
            if labels.contains('b') {
                let c = char::from_u32('a' as u32 + file);
                glyphs.push(glyph(c.unwrap() as u32, c, x + (k as f32 + 0.4) * s, y + 8.6 * s, 0.25 * s, size));
            }
        }
        glyphs
    }

    fn placement_of(board: &TextBoard, flipped: bool) -> String {
        let o = if flipped { crate::Orientation::Black } else { crate::Orientation::White };
        crate::orient::to_board(&board.cells, o, false).to_string()
    }

    const POSITION: &str = "r1bqk2r/pp3ppp/2n5/8/1PBP4/5N2/P4PPP/RNBQK2R";

    #[test]
    fn every_encoding_reads_back_what_it_typesets() {
        for enc in &ENCODINGS {
            for flipped in [false, true] {
                let glyphs = typeset(enc, POSITION, (100.0, 200.0, 12.0), flipped, "lb");
                let boards = find_boards(&glyphs);
                assert_eq!(boards.len(), 1, "{}", enc.name);
                let b = &boards[0];
                assert_eq!(placement_of(b, flipped), POSITION, "{} flipped {flipped}", enc.name);
                // LSB and LSB1 draw the same light squares; the first that fits is named.
                assert!(b.encoding == enc.name || (enc.name == "LSB1" && b.encoding == "LSB"), "{}", b.encoding);
                assert_eq!(b.quad, Quad::rect(100.0, 200.0, 196.0, 296.0));
                let c = b.coordinates.expect("labels");
                let side = if flipped { -1.0 } else { 1.0 };
                assert_eq!((c.ranks, c.files), (side * 8.0 * LABEL_EVIDENCE, side * 8.0 * LABEL_EVIDENCE));
            }
        }
    }

    #[test]
    fn a_board_without_labels_has_no_coordinates_and_two_boards_are_two() {
        let mut glyphs = typeset(&ENCODINGS[0], POSITION, (50.0, 60.0, 10.0), false, "");
        glyphs.extend(typeset(&ENCODINGS[0], "8/8/8/4k3/8/8/8/4K3", (200.0, 60.0, 10.0), false, ""));
        let boards = find_boards(&glyphs);
        assert_eq!(boards.len(), 2);
        assert!(boards.iter().all(|b| b.coordinates.is_none()));
        assert_eq!(placement_of(&boards[1], false), "8/8/8/4k3/8/8/8/4K3");
    }

    #[test]
    fn grids_not_8x8_or_not_checkered_are_no_boards() {
        let enc = &ENCODINGS[0];
        let board = typeset(enc, "8/8/8/8/8/8/8/8", (0.0, 0.0, 10.0), false, "");
        // A ninth column of squares: a larger grid, not a chess board.
        let mut wider = board.clone();
        wider.extend((0..8).map(|r| PlacedGlyph { x: 80.0, y: (r + 1) as f32 * 10.0, ..board[r * 8 + 7] }));
        assert!(find_boards(&wider).is_empty());
        // A row missing.
        assert!(find_boards(&board[8..]).is_empty());
        // Dark squares where light ones belong: shifted a column, the pattern starts dark.
        let mut swapped = board.clone();
        for g in &mut swapped {
            g.code = if g.code == 48 { 90 } else { 48 };
        }
        assert!(find_boards(&swapped).is_empty());
        // Text in a regular font set 8 by 8 with the pitch of its own advance: no encoding.
        let text: Vec<PlacedGlyph> =
            board.iter().enumerate().map(|(i, g)| PlacedGlyph { code: 'M' as u32 + (i % 3) as u32, ..*g }).collect();
        assert!(find_boards(&text).is_empty());
    }

    #[test]
    fn labels_that_fit_neither_side_give_no_evidence() {
        let mut glyphs = typeset(&ENCODINGS[0], POSITION, (100.0, 200.0, 12.0), false, "l");
        for g in glyphs.iter_mut().filter(|g| g.text.is_some()) {
            g.text = Some('5');
            g.code = '5' as u32;
        }
        let c = find_boards(&glyphs)[0].coordinates.expect("labels seen");
        // '5' fits White at row 3 and Black at row 4 only.
        assert_eq!((c.ranks, c.files), (0.0, 0.0));
    }

    /// A word processor's diagram: a line a rank, each a left border glyph, eight squares and a
    /// right border glyph, with a border line above and below; `composite` embeds the font as
    /// LuaTeX does, drawing by glyph number and naming each glyph in its Unicode map.
    fn word_processor(enc: &Encoding, placement: &str, s: f32, composite: bool) -> Vec<PlacedGlyph> {
        let glyph = |c: u8, x: f32, y: f32| PlacedGlyph {
            code: if composite { 3 + c as u32 % 97 } else { c as u32 },
            text: Some(c as char),
            x,
            y,
            advance: s,
            size: s,
        };
        let mut glyphs: Vec<PlacedGlyph> = Vec::new();
        let (x0, y0) = (72.0, 100.0);
        glyphs.extend(b"!\"\"\"\"\"\"\"\"#".iter().enumerate().map(|(i, &c)| glyph(c, x0 + i as f32 * s, y0)));
        for g in typeset(enc, placement, (x0 + s, y0, s), false, "") {
            glyphs.push(glyph(g.code as u8, g.x, g.y));
        }
        for r in 1..=8 {
            glyphs.push(glyph(b'$', x0, y0 + r as f32 * s));
            glyphs.push(glyph(b'%', x0 + 9.0 * s, y0 + r as f32 * s));
        }
        glyphs.extend(b"/((((((((()".iter().enumerate().map(|(i, &c)| glyph(c, x0 + i as f32 * s, y0 + 9.0 * s)));
        glyphs
    }

    #[test]
    fn a_word_processors_diagram_in_its_borders_reads_by_code_or_by_unicode_name() {
        for enc in &ENCODINGS[6..] {
            for composite in [false, true] {
                let boards = find_boards(&word_processor(enc, POSITION, 18.0, composite));
                assert_eq!(boards.len(), 1, "{} composite {composite}", enc.name);
                assert_eq!(placement_of(&boards[0], false), POSITION, "{}", enc.name);
                assert_eq!(boards[0].encoding, enc.name);
                assert_eq!(boards[0].quad, Quad::rect(90.0, 100.0, 234.0, 244.0));
            }
        }
    }

    #[test]
    fn glyphs_two_layouts_read_differently_are_offered_both_ways() {
        // No knights: the Alpha fonts' black bishop `n` is Marroquin's white knight.
        let position = "4k3/2b5/8/8/8/8/2B5/4K3";
        let boards = find_boards(&word_processor(&ENCODINGS[7], position, 18.0, false));
        assert_eq!(boards.len(), 1);
        let b = &boards[0];
        let alpha = b.alternatives.iter().find(|a| a.0 == "Alpha").expect("the Alpha reading offered");
        let as_alpha = TextBoard { cells: alpha.1, ..b.clone() };
        assert_eq!(placement_of(&as_alpha, false), position);
        assert_ne!(placement_of(b, false), position);
    }

    #[test]
    fn a_board_among_a_page_of_prose_is_found_and_odd_glyphs_do_no_harm() {
        // 60 lines of 90 letters of 10 pt text, a board of 16 pt squares set among them, and
        // glyphs at impossible places and sizes.
        let mut glyphs: Vec<PlacedGlyph> = (0..60 * 90)
            .map(|i| PlacedGlyph {
                code: b"pnbrqkPNBRQK +"[i % 14] as u32,
                text: Some(b"pnbrqkPNBRQK +"[i % 14] as char),
                x: 40.0 + (i % 90) as f32 * 6.0,
                y: 40.0 + (i / 90) as f32 * 12.0,
                advance: 6.0,
                size: 10.0,
            })
            .collect();
        glyphs.extend(typeset(&ENCODINGS[0], POSITION, (100.0, 900.0, 16.0), false, "lb"));
        for v in [f32::NAN, f32::INFINITY, -1e30, 1e30] {
            glyphs.push(PlacedGlyph { code: 48, text: None, x: v, y: v, advance: v, size: v });
            glyphs.push(PlacedGlyph { code: 48, text: None, x: 1.0, y: 1.0, advance: 1e30, size: 1e30 });
        }
        let boards = find_boards(&glyphs);
        assert_eq!(boards.len(), 1);
        assert_eq!(placement_of(&boards[0], false), POSITION);
        assert!(boards[0].coordinates.is_some_and(|c| c.ranks == 8.0 * LABEL_EVIDENCE));
    }
}
