//! Step 5: assemble the FEN. Field 1 comes from the recognised board; fields 2-6 from the
//! caller. Every rule a real position obeys is checked, because a recognised position that
//! breaks one most likely holds a misread square.

use std::fmt;
use std::str::FromStr;

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Piece, PositionErrorKinds, Rank, Role, Square};

/// Castling rights requested by the user.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Castling {
    /// `-`: no rights.
    #[default]
    None,
    /// Every right whose king and rook stand on their home squares.
    Auto,
    /// Some of `KQkq`.
    #[allow(missing_docs)] // K, Q, k, q.
    Rights { white_king: bool, white_queen: bool, black_king: bool, black_queen: bool },
}

impl FromStr for Castling {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "-" | "none" => return Ok(Castling::None),
            "auto" => return Ok(Castling::Auto),
            _ => {}
        }
        let mut r = [false; 4];
        for ch in s.chars() {
            let i = "KQkq".find(ch).ok_or_else(|| format!("'{s}' is not a castling field: use KQkq, -, or auto"))?;
            if r[i] {
                return Err(format!("'{s}' repeats '{ch}'"));
            }
            r[i] = true;
        }
        Ok(Castling::Rights { white_king: r[0], white_queen: r[1], black_king: r[2], black_queen: r[3] })
    }
}

/// Fields 2-6 of the FEN.
#[derive(Debug, Clone)]
pub struct FenOptions {
    /// Field 2: the side to move.
    pub turn: Color,
    /// Field 3.
    pub castling: Castling,
    /// Field 4.
    pub en_passant: Option<Square>,
    /// Field 5: the halfmove clock.
    pub halfmove: u32,
    /// Field 6: the fullmove number.
    pub fullmove: u32,
}

impl Default for FenOptions {
    fn default() -> Self {
        FenOptions { turn: Color::White, castling: Castling::None, en_passant: None, halfmove: 0, fullmove: 1 }
    }
}

/// An assembled FEN with the reasons it may be wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Assembled {
    /// All six fields.
    pub fen: String,
    /// Field 1 alone.
    pub placement: String,
    /// Every broken rule and every dropped flag, in plain words.
    pub warnings: Vec<String>,
}

impl fmt::Display for Assembled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen)
    }
}

/// Field 1 of the FEN for `board`.
pub fn placement(board: &Board) -> String {
    board.board_fen().to_string()
}

const CASTLES: [(char, Color, Square, Square); 4] = [
    ('K', Color::White, Square::E1, Square::H1),
    ('Q', Color::White, Square::E1, Square::A1),
    ('k', Color::Black, Square::E8, Square::H8),
    ('q', Color::Black, Square::E8, Square::A8),
];

/// Builds the FEN for `board` with `opts`, dropping castling rights and an en passant square
/// that the position cannot have (each with a warning), and reporting every broken rule.
pub fn assemble(board: &Board, opts: &FenOptions) -> Assembled {
    let mut warnings = check_board(board, opts.turn);

    let wanted: [bool; 4] = match opts.castling {
        Castling::None => [false; 4],
        Castling::Auto => [true; 4],
        Castling::Rights { white_king, white_queen, black_king, black_queen } => {
            [white_king, white_queen, black_king, black_queen]
        }
    };
    let mut castling = String::new();
    for (want, (ch, color, king, rook)) in wanted.iter().zip(CASTLES) {
        if !want {
            continue;
        }
        let king_home = board.piece_at(king) == Some(Piece { color, role: Role::King });
        let rook_home = board.piece_at(rook) == Some(Piece { color, role: Role::Rook });
        if king_home && rook_home {
            castling.push(ch);
        } else if opts.castling != Castling::Auto {
            let missing = match (king_home, rook_home) {
                (false, false) => format!("the {color} king is not on {king} and no {color} rook is on {rook}"),
                (false, true) => format!("the {color} king is not on {king}"),
                _ => format!("no {color} rook is on {rook}"),
            };
            warnings.push(format!("castling right '{ch}' dropped: {missing}"));
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }

    let ep = match opts.en_passant {
        None => "-".to_string(),
        Some(sq) => match en_passant_problem(board, opts.turn, sq) {
            None => sq.to_string(),
            Some(why) => {
                warnings.push(format!("en passant square {sq} dropped: {why}"));
                "-".to_string()
            }
        },
    };

    let placement = placement(board);
    let turn = if opts.turn == Color::White { 'w' } else { 'b' };
    let fen = format!("{placement} {turn} {castling} {ep} {} {}", opts.halfmove, opts.fullmove.max(1));

    // shakmaty's own verdict catches what the checks above do not spell out.
    if let Ok(parsed) = fen.parse::<Fen>() {
        if let Err(e) = parsed.into_position::<Chess>(CastlingMode::Standard) {
            if e.kinds().contains(PositionErrorKinds::IMPOSSIBLE_CHECK) {
                warnings.push("the side to move is checked in a way no legal move can produce".into());
            }
        }
    }
    Assembled { fen, placement, warnings }
}

/// Why `sq` cannot be the en passant square with `turn` to move, if it cannot.
fn en_passant_problem(board: &Board, turn: Color, sq: Square) -> Option<String> {
    let (rank, pawn_rank, from_rank) = match turn {
        Color::White => (Rank::Sixth, Rank::Fifth, Rank::Seventh),
        Color::Black => (Rank::Third, Rank::Fourth, Rank::Second),
    };
    if sq.rank() != rank {
        return Some(format!("with {turn} to move it must be on rank {}", rank.char()));
    }
    let pawn_sq = Square::from_coords(sq.file(), pawn_rank);
    let mover = !turn;
    if board.piece_at(pawn_sq) != Some(Piece { color: mover, role: Role::Pawn }) {
        return Some(format!("no {mover} pawn on {pawn_sq} that could have just advanced two squares"));
    }
    if board.piece_at(sq).is_some() || board.piece_at(Square::from_coords(sq.file(), from_rank)).is_some() {
        return Some(format!("the pawn could not have passed through {sq}: a square on its path is occupied"));
    }
    None
}

/// Every rule of a real chess position that `board` breaks, in plain words.
pub fn check_board(board: &Board, turn: Color) -> Vec<String> {
    let mut out = Vec::new();
    if board.occupied().is_empty() {
        out.push("the board is empty".to_string());
        return out;
    }
    for color in Color::ALL {
        let count = |role: Role| (board.by_color(color) & board.by_role(role)).count();
        match count(Role::King) {
            1 => {}
            0 => out.push(format!("{color} has no king")),
            n => out.push(format!("{color} has {n} kings")),
        }
        let pawns = count(Role::Pawn);
        if pawns > 8 {
            out.push(format!("{color} has {pawns} pawns (at most 8)"));
        }
        let back = board.by_color(color)
            & board.by_role(Role::Pawn)
            & (Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth));
        for sq in back {
            out.push(format!("{color} pawn on {sq} (pawns never stand on rank 1 or 8)"));
        }
        // Each piece beyond the starting set must be a promoted pawn.
        let promoted = count(Role::Queen).saturating_sub(1)
            + count(Role::Rook).saturating_sub(2)
            + count(Role::Bishop).saturating_sub(2)
            + count(Role::Knight).saturating_sub(2);
        if pawns <= 8 && pawns + promoted > 8 {
            out.push(format!(
                "{color} has more pieces than promotions allow ({pawns} pawns and {promoted} extra pieces)"
            ));
        }
        let total = board.by_color(color).count();
        if total > 16 {
            out.push(format!("{color} has {total} pieces (at most 16)"));
        }
    }
    // The side not to move must not be in check.
    let waiting = !turn;
    if let Some(king) = board.king_of(waiting) {
        let checkers = board.attacks_to(king, turn, board.occupied());
        if checkers.any() {
            let by: Vec<String> = checkers.into_iter().map(|s| s.to_string()).collect();
            out.push(format!("{waiting} is in check (from {}) but it is {turn} to move", by.join(", ")));
        }
    }
    out
}

/// The side that must be to move when the side not to move (`!turn`) is in check and the side
/// to move is not: the picture most likely shows the other side to move. `None` otherwise.
pub fn side_to_move_from_check(board: &Board, turn: Color) -> Option<Color> {
    let in_check =
        |side: Color| board.king_of(side).is_some_and(|king| board.attacks_to(king, !side, board.occupied()).any());
    (in_check(!turn) && !in_check(turn)).then_some(!turn)
}

/// The squares most likely misread on a board that breaks a counting rule, each with the rule.
/// A side with two kings, nine pawns or more pieces than promotions allow holds at least one
/// misread square even when every square looks sure:
///
/// - two kings or more, or more of a piece than promotions allow: every piece of that role (a
///   misread that adds a piece most often adds it to a role already full; which of them is wrong
///   the probabilities often cannot tell);
/// - more than eight pawns, a pawn on rank 1 or 8, more than 16 pieces: the least probable (by
///   `p`) of the squares involved.
///
/// A rule broken by more than four pieces (a board editor's 32 kings) is a deliberate layout, not
/// a misread, and flags nothing. Check is left out: a side in check more often means the picture's
/// side to move differs from the flag than a misread.
pub fn suspects(board: &Board, p: impl Fn(Square) -> f32) -> Vec<(Square, String)> {
    let mut out: Vec<(Square, String)> = Vec::new();
    let mut add = |squares: Bitboard, why: &str| {
        // More than a few: a deliberate layout (a board editor), not a misread.
        if squares.count() > MAX_SUSPECTS {
            return;
        }
        for sq in squares {
            if !out.iter().any(|(s, _)| *s == sq) {
                out.push((sq, why.to_string()));
            }
        }
    };
    let least = |squares: Bitboard| {
        squares.into_iter().min_by(|&a, &b| p(a).total_cmp(&p(b))).map_or(Bitboard::EMPTY, Bitboard::from_square)
    };
    for color in Color::ALL {
        let mine = board.by_color(color);
        let of = |role: Role| mine & board.by_role(role);
        let kings = of(Role::King);
        if kings.count() > 1 {
            add(kings, &format!("{color} has {} kings", kings.count()));
        }
        let pawns = of(Role::Pawn);
        for sq in pawns & (Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth)) {
            add(Bitboard::from_square(sq), &format!("{color} pawn on rank {}", sq.rank().char()));
        }
        if pawns.count() > 8 {
            add(least(pawns), &format!("{color} has {} pawns", pawns.count()));
        }
        let promoted: usize = STARTING_SET.iter().map(|&(r, n)| of(r).count().saturating_sub(n)).sum();
        if pawns.count() <= 8 && pawns.count() + promoted > 8 {
            let why = format!("{color} has {} pawns and {promoted} pieces beyond the starting set", pawns.count());
            for (r, n) in STARTING_SET {
                if of(r).count() > n {
                    add(of(r), &why);
                }
            }
        }
        if mine.count() > 16 {
            add(least(mine), &format!("{color} has {} pieces", mine.count()));
        }
    }
    out
}

/// A counting rule broken by more pieces than this is not a misread: [`suspects`] flags none of
/// them. More kings of a side than this make a board editor's layout ([`deliberate_layout`]).
const MAX_SUSPECTS: usize = 4;

/// Whether a board shows more than four kings of one side: a board editor's layout, drawn on
/// purpose, where the counting rules say nothing about misreads. Other counts do not tell such a
/// layout from a misread design as surely: a whole back rank read as the other colour gives a
/// side five knights or rooks.
pub fn deliberate_layout(board: &Board) -> bool {
    Color::ALL.into_iter().any(|color| (board.by_color(color) & board.kings()).count() > MAX_SUSPECTS)
}

/// The side without a king when the other has one: no game reaches that, so a reading that shows
/// it has misread a king (most often as a piece of the other colour). A board with no king at all
/// is another matter: a diagram of how a piece moves.
pub fn kingless_side(board: &Board) -> Option<Color> {
    let has_king = |c: Color| (board.by_color(c) & board.kings()).any();
    match (has_king(Color::White), has_king(Color::Black)) {
        (true, false) => Some(Color::Black),
        (false, true) => Some(Color::White),
        _ => None,
    }
}

/// Whether the only counting rule a board breaks is a second king of one side, both read at
/// `sure` or more, with the other side's king on the board: `suspects` ([`suspects`]) are
/// exactly those two kings.
pub fn sure_second_king_only(
    board: &Board,
    suspects: &[(Square, String)],
    p: impl Fn(Square) -> f32,
    sure: f32,
) -> bool {
    Color::ALL.into_iter().any(|color| {
        let kings = board.by_color(color) & board.kings();
        let theirs = board.by_color(!color) & board.kings();
        kings.count() == 2
            && theirs.count() == 1
            && suspects.len() == 2
            && suspects.iter().all(|(sq, _)| kings.contains(*sq))
            && kings.into_iter().all(|sq| p(sq) >= sure)
    })
}

/// How many of each piece a side starts with, for the pieces a pawn can promote to: any more are
/// promoted pieces, each of which needs a missing pawn.
const STARTING_SET: [(Role, usize); 4] = [(Role::Queen, 1), (Role::Rook, 2), (Role::Bishop, 2), (Role::Knight, 2)];

/// Squares whose best class is at least this probable are never changed by [`repair`].
pub const CONFIDENT: f32 = 0.9;

/// [`repair`] gives a square only a class the classifier gives at least this probability.
pub const PLAUSIBLE: f32 = 0.05;

/// The material prior's cost, in log-probability, of one piece beyond the starting set (a second
/// queen; a third rook, bishop or knight): ln 20. In real games such a piece is far
/// rarer (5 of the 8,735 positions `scripts/fetch_assets.py` extracts from played games and
/// studies have one); 1 in 20 leaves room for endgame studies and problems.
pub const PROMOTED_PIECE: f32 = 3.0;

/// The cost of each unit of material no game can reach (a ninth pawn, a seventeenth piece, more
/// pieces beyond the starting set than missing pawns): large enough that any unsure square
/// changes first.
const IMPOSSIBLE_MATERIAL: f32 = 1000.0;

/// More impossible or promoted material than this is a deliberate layout (a board editor), and
/// [`repair`] changes at most this many squares for material.
const MAX_MATERIAL_REPAIRS: usize = 4;

/// How many of the cheapest candidate changes [`repair`] combines for material.
const MATERIAL_CANDIDATES: usize = 24;

/// Depth-first over every set of at most [`MAX_MATERIAL_REPAIRS`] candidates from `from` on (one
/// change a square), keeping in `best` the set (indices into `cands`) with the highest board
/// score: `prior(classes)` less the log-probability the changes lose. `classes` is restored.
fn search_changes(
    cands: &[(usize, usize, f32)],
    from: usize,
    chosen: &mut Vec<usize>,
    classes: &mut [usize],
    lost: f32,
    prior: &dyn Fn(&[usize]) -> f32,
    best: &mut (f32, Vec<usize>),
) {
    if chosen.len() == MAX_MATERIAL_REPAIRS {
        return;
    }
    for k in from..cands.len() {
        let (i, c, cost) = cands[k];
        // The prior is at most 0, so no set through this change can beat the best so far.
        if chosen.iter().any(|&j| cands[j].0 == i) || -(lost + cost) <= best.0 {
            continue;
        }
        let was = classes[i];
        classes[i] = c;
        chosen.push(k);
        let score = prior(classes) - lost - cost;
        if score > best.0 {
            *best = (score, chosen.clone());
        }
        search_changes(cands, k + 1, chosen, classes, lost + cost, prior, best);
        chosen.pop();
        classes[i] = was;
    }
}

/// For a board of classes ([`crate::CLASSES`] order): the material no game reaches, summed over
/// both sides (pawns and pieces beyond the starting set over 8, pieces over 16), and the number
/// of pieces beyond the starting set.
fn material(classes: &[usize]) -> (usize, usize) {
    use crate::classify::CLASSES;
    // Pieces per side, by role (Role as index).
    let mut count = [[0usize; 7]; 2];
    for p in classes.iter().filter_map(|&c| CLASSES[c]) {
        count[p.color as usize][p.role as usize] += 1;
    }
    let (mut excess, mut promoted) = (0, 0);
    for side in count {
        let extra: usize = STARTING_SET.iter().map(|&(r, n)| side[r as usize].saturating_sub(n)).sum();
        excess += (side[Role::Pawn as usize] + extra).saturating_sub(8) + side.iter().sum::<usize>().saturating_sub(16);
        promoted += extra;
    }
    (excess, promoted)
}

/// Makes a recognised position obey the rules a misread most often breaks, changing only
/// squares the classifier is unsure of (best class under [`CONFIDENT`]):
///
/// - each side gets exactly one king: the pair of squares (one for each king) that makes the
///   whole board most probable is chosen, every other square taking its best non-king class; a
///   king needs at least [`PLAUSIBLE`] (5%) on its square, else the side stays without one (and
///   is reported);
/// - no pawn stands on rank 1 or 8: an unsure pawn there takes its best other class;
/// - material: a ninth pawn, a seventeenth piece or more promoted pieces than missing pawns is
///   impossible, and a piece beyond the starting set costs [`PROMOTED_PIECE`]; of every set of
///   up to four changes to unsure squares (each to a class with at least [`PLAUSIBLE`]), the
///   one that makes the whole board most probable is made (a second black queen read at 46%
///   where a white one has 41%, while White has none, becomes White's).
///
/// `probs[i]` are the class probabilities ([`crate::CLASSES`] order) of the square `squares[i]`;
/// `classes[i]` is the class chosen for it (the most probable), updated in place. Returns one
/// line per change. A deliberately illegal picture whose squares are all clear comes out as drawn.
pub fn repair(probs: &[crate::ClassProbs], squares: &[Square], classes: &mut [usize]) -> Vec<String> {
    use crate::classify::{class_index, CLASS_CHARS};
    let n = classes.len();
    let original = classes.to_vec();
    let sure = |i: usize| probs[i][original[i]] >= CONFIDENT;
    let best_without = |i: usize, banned: &[usize]| {
        (0..13)
            .filter(|c| !banned.contains(c))
            .max_by(|&a, &b| probs[i][a].total_cmp(&probs[i][b]))
            .expect("13 classes")
    };
    let kings = [Color::White, Color::Black].map(|color| class_index(Some(Piece { color, role: Role::King })));
    let pawns = [Color::White, Color::Black].map(|color| class_index(Some(Piece { color, role: Role::Pawn })));

    // Kings. Squares sure of a king keep it; two sure kings of one side leave the board as drawn.
    let sure_kings = kings.map(|k| (0..n).filter(|&i| original[i] == k && sure(i)).collect::<Vec<_>>());
    if sure_kings.iter().all(|v| v.len() <= 1) {
        // Candidates per side: the sure king, or every unsure square with at least 5% for it.
        let cands = [0, 1].map(|s| match sure_kings[s].first() {
            Some(&i) => vec![i],
            None => (0..n).filter(|&i| !sure(i) && probs[i][kings[s]] >= PLAUSIBLE).collect::<Vec<_>>(),
        });
        // Gain in log-probability of putting side s's king on square i instead of its best
        // non-king class.
        let gain = |s: usize, i: usize| {
            let other = best_without(i, &kings);
            (probs[i][kings[s]].max(1e-9) / probs[i][other].max(1e-9)).ln()
        };
        let mut best: Option<(f32, Option<usize>, Option<usize>)> = None;
        let ws: Vec<Option<usize>> =
            if cands[0].is_empty() { vec![None] } else { cands[0].iter().map(|&i| Some(i)).collect() };
        let bs: Vec<Option<usize>> =
            if cands[1].is_empty() { vec![None] } else { cands[1].iter().map(|&i| Some(i)).collect() };
        for &w in &ws {
            for &b in &bs {
                if w.is_some() && w == b {
                    continue;
                }
                let g = w.map_or(0.0, |i| gain(0, i)) + b.map_or(0.0, |i| gain(1, i));
                if best.is_none_or(|(bg, _, _)| g > bg) {
                    best = Some((g, w, b));
                }
            }
        }
        if let Some((_, w, b)) = best {
            for (i, class) in classes.iter_mut().enumerate().take(n) {
                if kings.contains(class) && !sure(i) {
                    *class = best_without(i, &kings);
                }
            }
            for (s, at) in [w, b].into_iter().enumerate() {
                if let Some(i) = at {
                    classes[i] = kings[s];
                }
            }
        }
    }
    // Pawns on the back ranks.
    for i in 0..n {
        if matches!(squares[i].rank(), Rank::First | Rank::Eighth) && pawns.contains(&classes[i]) && !sure(i) {
            classes[i] = best_without(i, &[pawns[0], pawns[1], kings[0], kings[1]]);
        }
    }
    // Material: the set of at most MAX_MATERIAL_REPAIRS changes to unsure squares that makes
    // the whole board most probable under the material prior (every set of the cheapest
    // candidate changes is tried: a wrong black queen may need to become White's on one square
    // and a bishop on another).
    let (start_excess, start_promoted) = material(classes);
    if (start_excess > 0 || start_promoted > 0)
        && start_excess <= MAX_MATERIAL_REPAIRS
        && start_promoted <= MAX_MATERIAL_REPAIRS
    {
        let prior = |classes: &[usize]| {
            let (excess, promoted) = material(classes);
            -(excess as f32) * IMPOSSIBLE_MATERIAL - promoted as f32 * PROMOTED_PIECE
        };
        // Candidate changes (square, class, log-probability lost), cheapest first.
        let mut cands: Vec<(usize, usize, f32)> = Vec::new();
        for i in (0..n).filter(|&i| !sure(i) && !kings.contains(&classes[i])) {
            let back_rank = matches!(squares[i].rank(), Rank::First | Rank::Eighth);
            for c in (0..13).filter(|&c| {
                c != classes[i] && probs[i][c] >= PLAUSIBLE && !kings.contains(&c) && !(back_rank && pawns.contains(&c))
            }) {
                cands.push((i, c, (probs[i][classes[i]].max(1e-9) / probs[i][c]).ln()));
            }
        }
        cands.sort_by(|a, b| a.2.total_cmp(&b.2));
        cands.truncate(MATERIAL_CANDIDATES);
        let mut best = (prior(classes), Vec::new());
        let mut chosen: Vec<usize> = Vec::new();
        search_changes(&cands, 0, &mut chosen, classes, 0.0, &prior, &mut best);
        for &k in &best.1 {
            classes[cands[k].0] = cands[k].1;
        }
    }
    let name = |c: usize| if c == 0 { "empty".to_string() } else { CLASS_CHARS[c].to_string() };
    (0..n)
        .filter(|&i| classes[i] != original[i])
        .map(|i| {
            format!(
                "{} read as {} ({:.0}%), taken as {} ({:.0}%): the rules and the usual material make that likelier",
                squares[i],
                name(original[i]),
                probs[i][original[i]] * 100.0,
                name(classes[i]),
                probs[i][classes[i]] * 100.0
            )
        })
        .collect()
}

/// Parses an en passant argument: a square like `e3`, or `-`.
pub fn parse_en_passant(s: &str) -> Result<Option<Square>, String> {
    if s == "-" {
        return Ok(None);
    }
    s.parse::<Square>().map(Some).map_err(|_| format!("'{s}' is not a square (like e3) or '-'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().into_setup().board
    }

    #[test]
    fn start_position_with_defaults_and_auto_castling() {
        let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
        let a = assemble(&b, &FenOptions::default());
        assert_eq!(a.fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        let a = assemble(&b, &FenOptions { castling: Castling::Auto, ..Default::default() });
        assert_eq!(a.fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    }

    #[test]
    fn impossible_castling_rights_are_dropped_with_a_reason() {
        let b = board("r3k2r/8/8/8/8/8/8/4K1R1");
        let opts = FenOptions { castling: "KQkq".parse().unwrap(), ..Default::default() };
        let a = assemble(&b, &opts);
        assert_eq!(a.fen, "r3k2r/8/8/8/8/8/8/4K1R1 w kq - 0 1");
        assert_eq!(a.warnings.len(), 2, "{:?}", a.warnings);
        assert!(a.warnings[0].contains("'K' dropped: no white rook is on h1"), "{:?}", a.warnings);
        let auto = assemble(&b, &FenOptions { castling: Castling::Auto, ..Default::default() });
        assert_eq!(auto.fen, "r3k2r/8/8/8/8/8/8/4K1R1 w kq - 0 1");
        assert!(auto.warnings.is_empty());
    }

    #[test]
    fn en_passant_square_is_checked() {
        // 1.e4: Black to move, e3 is the en passant square.
        let b = board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR");
        let ok = FenOptions { turn: Color::Black, en_passant: Some(Square::E3), ..Default::default() };
        assert_eq!(assemble(&b, &ok).fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - e3 0 1");
        let wrong_side = FenOptions { turn: Color::White, en_passant: Some(Square::E3), ..Default::default() };
        let a = assemble(&b, &wrong_side);
        assert!(a.fen.contains(" w - - 0 1"));
        assert!(a.warnings.iter().any(|w| w.contains("rank 6")), "{:?}", a.warnings);
        let no_pawn = FenOptions { turn: Color::Black, en_passant: Some(Square::D3), ..Default::default() };
        assert!(assemble(&b, &no_pawn).warnings.iter().any(|w| w.contains("no white pawn on d4")));
    }

    #[test]
    fn broken_rules_are_reported() {
        let w = check_board(&board("k7/8/8/8/8/8/8/KK5P"), Color::White);
        assert!(w.contains(&"white has 2 kings".to_string()), "{w:?}");
        assert!(w.iter().any(|m| m.contains("white pawn on h1")), "{w:?}");
        let w = check_board(&board("8/8/8/8/8/8/8/K7"), Color::White);
        assert!(w.contains(&"black has no king".to_string()), "{w:?}");
        // White to move while the black king is attacked by the rook.
        let w = check_board(&board("k7/8/8/8/8/8/8/R3K3"), Color::White);
        assert!(w.iter().any(|m| m.starts_with("black is in check (from a1)")), "{w:?}");
        assert!(check_board(&board("k7/8/8/8/8/8/8/R3K3"), Color::Black).is_empty());
        let w = check_board(&board("k7/PPPPPPPP/QQ6/8/8/8/8/4K3"), Color::White);
        assert!(w.iter().any(|m| m.contains("more pieces than promotions allow")), "{w:?}");
    }

    #[test]
    fn suspects_are_the_least_sure_squares_of_each_broken_count() {
        // Three white bishops with eight pawns: one of the bishops is misread.
        let b = board("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2QBRK1");
        let p = |sq: Square| {
            if sq == Square::E1 {
                0.93
            } else if sq == Square::A2 {
                0.95
            } else {
                0.99
            }
        };
        let s = suspects(&b, p);
        assert_eq!(s.iter().map(|x| x.0).collect::<Vec<_>>(), [Square::E1, Square::B5, Square::G5], "{s:?}");
        assert!(s[0].1.contains("white has 8 pawns and 1 pieces beyond"), "{}", s[0].1);
        // A legal position has none.
        assert!(suspects(&board("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1"), p).is_empty());
        // Two black kings and a pawn on rank 8; nine black pawns: the least sure pawn.
        let s = suspects(&board("k1k4P/pppppppp/p7/8/8/8/8/4K3"), |sq| if sq == Square::C7 { 0.5 } else { 0.99 });
        assert_eq!(
            s.iter().map(|x| x.0).collect::<Vec<_>>(),
            [Square::H8, Square::A8, Square::C8, Square::C7],
            "{s:?}"
        );
        // A board editor's layout: sixteen kings a side flag nothing.
        assert!(suspects(&board("kkkkkkkk/kkkkkkkk/8/8/8/8/KKKKKKKK/KKKKKKKK"), |_| 0.99).is_empty());
    }

    #[test]
    fn a_sure_second_king_alone_is_told_from_other_broken_rules() {
        let two = board("r1b2rk1/ppp2ppp/8/8/8/8/PPP2PPP/R1K2RK1");
        let sure = |_: Square| 0.99;
        assert!(sure_second_king_only(&two, &suspects(&two, sure), sure, 0.95));
        // One of them read at 90%: a misread, likely.
        let unsure = |sq: Square| if sq == Square::C1 { 0.9 } else { 0.99 };
        assert!(!sure_second_king_only(&two, &suspects(&two, unsure), unsure, 0.95));
        // A pawn on rank 8 besides.
        let more = board("r1b2rkP/ppp2ppp/8/8/8/8/PPP2PP1/R1K2RK1");
        assert!(!sure_second_king_only(&more, &suspects(&more, sure), sure, 0.95));
        // The other side without its king: a king read as the wrong colour.
        let colour = board("r1b2r2/ppp2ppp/8/8/8/8/PPP2PPP/R1K2RK1");
        assert!(!sure_second_king_only(&colour, &suspects(&colour, sure), sure, 0.95));
    }

    #[test]
    fn a_side_without_a_king_is_named_when_the_other_has_one() {
        assert_eq!(kingless_side(&board("8/8/6r1/8/2n5/4q3/8/3k4")), Some(Color::White));
        assert_eq!(kingless_side(&board("8/8/8/8/8/8/8/KK6")), Some(Color::Black));
        assert_eq!(kingless_side(&board("8/8/8/3N4/8/8/8/8")), None);
        assert_eq!(kingless_side(&board("k7/8/8/8/8/8/8/K7")), None);
    }

    #[test]
    fn five_kings_of_a_side_make_a_deliberate_layout() {
        assert!(deliberate_layout(&board("kkkkkkkk/kkkkkkkk/8/8/8/8/KKKKKKKK/KKKKKKKK")));
        assert!(deliberate_layout(&board("k7/8/8/8/8/8/8/KKKKK3")));
        // Four kings, or a misread or two: two kings, a pawn on rank 1, three bishops with eight
        // pawns.
        assert!(!deliberate_layout(&board("k7/8/8/8/8/8/8/KKKK4")));
        assert!(!deliberate_layout(&board("k7/8/8/8/8/8/8/KK5P")));
        assert!(!deliberate_layout(&board("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2QBRK1")));
        // A rendered photo whose white back rank and pawns were read as Black's: five black
        // knights, but a misread, not a layout.
        assert!(!deliberate_layout(&board("1nbqqrnr/p3pppp/8/4p2B/8/5p2/B1R1R1BR/nnbq1rnk")));
    }

    #[test]
    fn repair_fixes_unsure_kings_and_pawns_but_keeps_confident_squares() {
        use crate::classify::class_index;
        let sq = [Square::A1, Square::B1, Square::C8, Square::D4];
        let one_hot = |c: usize, p: f32, alt: usize, q: f32| {
            let mut v = [0.0f32; 13];
            v[c] = p;
            v[alt] += q;
            v[0] += 1.0 - p - q;
            v
        };
        let (k, bk) = (
            class_index(Some(Piece { color: Color::White, role: Role::King })),
            class_index(Some(Piece { color: Color::Black, role: Role::King })),
        );
        let (wp, wq) = (
            class_index(Some(Piece { color: Color::White, role: Role::Pawn })),
            class_index(Some(Piece { color: Color::White, role: Role::Queen })),
        );
        // a1: a sure black king; b1: an unsure black king that may be White's; c8: an unsure
        // white pawn on rank 8 that may be a queen; d4: empty.
        let probs = [
            one_hot(bk, 0.99, 0, 0.0),
            one_hot(bk, 0.55, k, 0.40),
            one_hot(wp, 0.6, wq, 0.35),
            one_hot(0, 1.0, 0, 0.0),
        ];
        let mut classes = vec![bk, bk, wp, 0];
        let changes = repair(&probs, &sq, &mut classes);
        assert_eq!(classes, vec![bk, k, wq, 0]);
        assert_eq!(changes.len(), 2, "{changes:?}");
        assert!(changes[0].starts_with("b1 read as k (55%), taken as K (40%)"), "{changes:?}");
        // A white king read as a second black king, while White has none: the unsure one turns.
        let probs =
            [one_hot(bk, 0.7, k, 0.25), one_hot(bk, 0.6, k, 0.3), one_hot(0, 0.6, k, 0.3), one_hot(0, 1.0, 0, 0.0)];
        let mut classes = vec![bk, bk, 0, 0];
        repair(&probs, &sq, &mut classes);
        assert_eq!(classes, vec![bk, k, 0, 0]);
        // The same squares, all sure: nothing changes (a board editor may show anything).
        let sure = [
            one_hot(bk, 0.99, 0, 0.0),
            one_hot(bk, 0.95, k, 0.04),
            one_hot(wp, 0.97, wq, 0.02),
            one_hot(0, 1.0, 0, 0.0),
        ];
        let mut classes = vec![bk, bk, wp, 0];
        assert!(repair(&sure, &sq, &mut classes).is_empty());
        assert_eq!(classes, vec![bk, bk, wp, 0]);
    }

    #[test]
    fn repair_picks_the_most_probable_material_and_needs_plausible_classes() {
        use crate::classify::{class_index, CLASSES, CLASS_CHARS};
        let idx = |ch: char| CLASS_CHARS.iter().position(|&c| c == ch).expect("class char");
        // A board from FEN placement with every square sure, then some squares made unsure.
        let setup = |fen: &str, unsure: &[(Square, &[(char, f32)])]| {
            let board = board(fen);
            let squares: Vec<Square> = Square::ALL.into_iter().collect();
            let mut probs: Vec<crate::ClassProbs> = squares
                .iter()
                .map(|&sq| {
                    let mut v = [0.0f32; 13];
                    v[class_index(board.piece_at(sq))] = 1.0;
                    v
                })
                .collect();
            for &(sq, ps) in unsure {
                let v = &mut probs[sq as usize];
                *v = [0.0; 13];
                for &(ch, p) in ps {
                    v[idx(ch)] = p;
                }
            }
            let classes: Vec<usize> =
                probs.iter().map(|p| (0..13).max_by(|&a, &b| p[a].total_cmp(&p[b])).expect("13 classes")).collect();
            (probs, squares, classes)
        };
        let fen_of = |squares: &[Square], classes: &[usize]| {
            let mut b = Board::empty();
            for (&sq, &c) in squares.iter().zip(classes) {
                if let Some(p) = CLASSES[c] {
                    b.set_piece_at(sq, p);
                }
            }
            placement(&b)
        };
        // Black shows three queens with eight pawns: f8 is Black's bishop, d1 White's queen; a
        // change at a time would have made f8 White's queen first.
        let read = "r1b1kq1r/pp1n1ppp/2p1pn2/q2p2B1/2PP4/2N1PN2/PP3PPP/R2qKB1R";
        let (probs, sq, mut classes) = setup(
            read,
            &[
                (Square::F8, &[('q', 0.40), ('b', 0.30), ('Q', 0.28), ('.', 0.02)]),
                (Square::D1, &[('q', 0.66), ('Q', 0.28), ('.', 0.06)]),
            ],
        );
        let changes = repair(&probs, &sq, &mut classes);
        assert_eq!(fen_of(&sq, &classes), "r1b1kb1r/pp1n1ppp/2p1pn2/q2p2B1/2PP4/2N1PN2/PP3PPP/R2QKB1R", "{changes:?}");
        assert_eq!(changes.len(), 2);
        // A second black queen read at 46% against 41% for White's, and White has none.
        let (probs, sq, mut classes) =
            setup("4r2r/p1pb1ppk/8/1q6/8/4q3/8/6K1", &[(Square::E3, &[('q', 0.46), ('Q', 0.41), ('.', 0.13)])]);
        repair(&probs, &sq, &mut classes);
        assert_eq!(fen_of(&sq, &classes), "4r2r/p1pb1ppk/8/1q6/8/4Q3/8/6K1");
        // Nine black pawns and a sure extra queen: the unsure pawn turns White's; a sure square
        // never changes, nor does one whose other classes are implausible.
        let (probs, sq, mut classes) = setup(
            "rnbqkbnr/pppp1ppp/8/4p3/2P5/8/PP1pPPPP/RNBqKBNR",
            &[
                (Square::D2, &[('p', 0.53), ('P', 0.40), ('.', 0.07)]),
                (Square::B7, &[('p', 0.84), ('Q', 0.04), ('.', 0.04), ('n', 0.04), ('b', 0.04)]),
            ],
        );
        repair(&probs, &sq, &mut classes);
        assert_eq!(fen_of(&sq, &classes), "rnbqkbnr/pppp1ppp/8/4p3/2P5/8/PP1PPPPP/RNBqKBNR");
        // A board editor's nine sure queens a side stay as drawn; so does a single unsure extra.
        let (probs, sq, mut classes) =
            setup("qqqqqqqq/q3k3/8/8/8/8/Q3K3/QQQQQQQQ", &[(Square::A7, &[('q', 0.6), ('Q', 0.4)])]);
        assert!(repair(&probs, &sq, &mut classes).is_empty());
    }

    #[test]
    fn castling_argument_parses() {
        assert_eq!("-".parse::<Castling>().unwrap(), Castling::None);
        assert_eq!("auto".parse::<Castling>().unwrap(), Castling::Auto);
        assert!("KX".parse::<Castling>().is_err());
        assert!(parse_en_passant("e9").is_err());
        assert_eq!(parse_en_passant("e3").unwrap(), Some(Square::E3));
    }
}
