//! The side to move (FEN field 2) and the en passant square (field 4) from the picture, when
//! the caller asks (`--to-move auto`, `--en-passant auto`): the flags decide otherwise.
//!
//! Two witnesses:
//! - **The last move**, highlighted by most board UIs ([`find_highlights`]): of its two squares,
//!   the piece standing on one moved from the other, which must be empty, along a path that
//!   piece can take (a pawn's push, double push or capture, a promotion, a king's step or
//!   castling, a knight's jump, a clear line); its side moved last, so the other is to move.
//!   A highlight that no move explains is no witness.
//! - **A king in check**: the side not to move cannot be in check, so a king in check names the
//!   side to move. This needs no pixels: it is the recognised position's own law.
//!
//! Each witness carries a confidence from the probabilities of the squares it rests on; when
//! they disagree the surer wins and the reading says so. Without a witness, the default stays
//! (White, or the caller's colour) and is reported as `default`.

use shakmaty::fen::Fen;
use shakmaty::{attacks, Board, CastlingMode, Chess, Color, EnPassantMode, Position, Rank, Role, Square};

use crate::classify::ClassProbs;
use crate::fen::{FenOptions, TurnSource};

mod highlight;
#[cfg(test)]
mod tests;

pub use highlight::*;

/// The confidence reported when nothing in the picture says who is to move: a guess.
pub const DEFAULT_CONFIDENCE: f32 = 0.5;

/// What decided field 2, and field 4 when it comes from the picture.
#[derive(Debug, Clone, PartialEq)]
pub struct SideToMove {
    /// The side to move.
    pub color: Color,
    /// What said so.
    pub source: TurnSource,
    /// How sure, in [0.5, 1]: 1 for a flag, [`DEFAULT_CONFIDENCE`] for the default.
    pub confidence: f32,
    /// The last move the picture shows (from, to), when it found one that a piece made.
    pub last_move: Option<(Square, Square)>,
    /// The en passant square the last move gives (a pawn's two-square advance, with a capture
    /// en passant possible), when asked for (`--en-passant auto`).
    pub en_passant: Option<Square>,
    /// Disagreements between the witnesses, in plain words.
    pub warnings: Vec<String>,
}

/// The probability that `sq` holds a piece of `color` (`Some`) or is empty (`None`).
fn p_colour(probs: &ClassProbs, color: Option<Color>) -> f32 {
    match color {
        None => probs[0],
        Some(Color::White) => probs[1..7].iter().sum(),
        Some(Color::Black) => probs[7..13].iter().sum(),
    }
}

/// The move from `from` to `to` that the piece now on `to` could have made to stand there,
/// with `from` empty: its side (the side that moved last), or `None` when no such move exists.
pub fn mover(board: &Board, from: Square, to: Square) -> Option<Color> {
    let piece = board.piece_at(to)?;
    if board.piece_at(from).is_some() || from == to {
        return None;
    }
    let c = piece.color;
    let (home, last) = (c.backrank(), (!c).backrank());
    let (second, seventh) = (c.relative_rank(Rank::Second), c.relative_rank(Rank::Seventh));
    let forward = |r: Rank, n: i32| {
        let step = if c == Color::White { n } else { -n };
        u32::from(r) as i32 + step
    };
    let df = (i32::from(to.file() as u8) - i32::from(from.file() as u8)).abs();
    let to_rank = u32::from(to.rank()) as i32;
    let fits = match piece.role {
        Role::Pawn => {
            let push = df == 0 && to_rank == forward(from.rank(), 1);
            let double = df == 0
                && from.rank() == second
                && to_rank == forward(from.rank(), 2)
                && board
                    .piece_at(Square::from_coords(from.file(), Rank::new(forward(from.rank(), 1) as u32)))
                    .is_none();
            let capture = df == 1 && to_rank == forward(from.rank(), 1);
            push || double || capture
        }
        Role::King => {
            let castled = from == Square::from_coords(shakmaty::File::E, home)
                && to.rank() == home
                && matches!(to.file(), shakmaty::File::A | shakmaty::File::C | shakmaty::File::G | shakmaty::File::H);
            attacks::king_attacks(to).contains(from) || castled
        }
        _ => {
            let promoted = to.rank() == last && from.rank() == seventh && df <= 1;
            attacks::attacks(to, piece, board.occupied()).contains(from) || promoted
        }
    };
    fits.then_some(c)
}

/// The side a king in check says is to move, with how sure the squares it rests on are read
/// (`probs_of` gives a square's class probabilities): the king's and its likeliest checker's.
/// `None` when neither king or both are in check.
pub fn check_witness(board: &Board, probs_of: impl Fn(Square) -> ClassProbs) -> Option<(Color, f32)> {
    let in_check = |c: Color| {
        let checkers = crate::fen::checkers(board, c);
        let surest = checkers.into_iter().map(|s| p_colour(&probs_of(s), Some(!c))).fold(0.0f32, f32::max);
        let king = board.king_of(c)?;
        (!checkers.is_empty()).then(|| p_colour(&probs_of(king), Some(c)) * surest)
    };
    match (in_check(Color::White), in_check(Color::Black)) {
        (Some(p), None) => Some((Color::White, p)),
        (None, Some(p)) => Some((Color::Black, p)),
        _ => None,
    }
}

/// How much a highlight of [`Highlight::strength`] `strength` is worth: 0.95 at the threshold,
/// 0.9875 at twice it, 0.995 from three times; halved when another pair of tinted squares that
/// a move explains stands out at least half as far (`rivals`). A pair of tinted squares that
/// a move explains is rarely chance: on 150 rendered UI screenshots
/// (docs/experiments/2026-12-03-side-to-move.md) no such pair named the wrong side.
pub fn tint_confidence(strength: f32, rivals: bool) -> f32 {
    let c = 1.0 - 0.05 / (strength * strength).max(1.0);
    if rivals {
        c * 0.5
    } else {
        c
    }
}

/// The move from one of `squares` to the other that a piece on `board` made: (from, to, its
/// side, the square the piece now stands on), if exactly one way round is one. Castling drawn
/// as the king taking its own rook (lichess and chessground highlight e1 and h1), with both
/// squares now empty and the king and rook where castling put them, counts as the king's move to
/// the rook's square.
fn move_between(board: &Board, [a, b]: [Square; 2]) -> Option<(Square, Square, Color, Square)> {
    match (mover(board, a, b), mover(board, b, a)) {
        (Some(c), None) => Some((a, b, c, b)),
        (None, Some(c)) => Some((b, a, c, a)),
        (None, None) => castled_onto_rook(board, a, b).or_else(|| castled_onto_rook(board, b, a)),
        _ => None,
    }
}

/// Castling written king to rook (`from` the king's home, `to` a corner of its rank), if the
/// board shows it done: both empty, the king on the g- or c-file and the rook beside it. The
/// last element is the king's square.
fn castled_onto_rook(board: &Board, from: Square, to: Square) -> Option<(Square, Square, Color, Square)> {
    use shakmaty::{File, Piece};
    let color =
        [Color::White, Color::Black].into_iter().find(|&c| from == Square::from_coords(File::E, c.backrank()))?;
    let rank = color.backrank();
    let (king, rook) = match to.file() {
        File::H if to.rank() == rank => (File::G, File::F),
        File::A if to.rank() == rank => (File::C, File::D),
        _ => return None,
    };
    let at = |f: File, role: Role| board.piece_at(Square::from_coords(f, rank)) == Some(Piece { color, role });
    (board.piece_at(from).is_none() && board.piece_at(to).is_none() && at(king, Role::King) && at(rook, Role::Rook))
        .then_some((from, to, color, Square::from_coords(king, rank)))
}

/// The last move that the tinted pairs `pairs` (squares as named on the board, with their
/// [`Highlight::strength`], strongest first) show: the strongest pair a piece's move explains,
/// as (from, to, the side that made it, confidence). A rival pair at least half as strong whose
/// move the other side made leaves the side unknown (`None`): a UI's selected square next to the
/// last move's origin can pair with it into a move of either side (a pawn on a7 from a6 against
/// a rook on a1 from a6, on one held-out screenshot; docs/experiments/2026-12-07-ui-boards-orientation.md).
pub fn last_move_witness(
    board: &Board,
    pairs: &[([Square; 2], f32)],
    probs_of: impl Fn(Square) -> ClassProbs,
) -> Option<(Square, Square, Color, f32)> {
    let mut moves = pairs.iter().filter_map(|&(sq, s)| move_between(board, sq).map(|m| (m, s)));
    let ((from, to, c, landed), strength) = moves.next()?;
    let rival_movers: Vec<Color> = moves.filter(|&(_, s)| s >= 0.5 * strength).map(|(m, _)| m.2).collect();
    if rival_movers.iter().any(|&m| m != c) {
        return None;
    }
    let rivals = !rival_movers.is_empty();
    let p = p_colour(&probs_of(landed), Some(c)) * p_colour(&probs_of(from), None) * tint_confidence(strength, rivals);
    Some((from, to, c, p))
}

/// The en passant square the last move `from`-`to` gives with `turn` to move: the square a
/// pawn's two-square advance passed, when a capture en passant is legal.
pub fn en_passant_after(board: &Board, from: Square, to: Square, turn: Color) -> Option<Square> {
    let pawn = board.piece_at(to).filter(|p| p.role == Role::Pawn && p.color == !turn)?;
    let (start, stop) = (pawn.color.relative_rank(Rank::Second), pawn.color.relative_rank(Rank::Fourth));
    if from.file() != to.file() || from.rank() != start || to.rank() != stop {
        return None;
    }
    let passed = Square::from_coords(to.file(), Rank::new((u32::from(start) + u32::from(stop)) / 2));
    let fen: Fen = format!("{} {} - {passed} 0 1", board.board_fen(), turn.char()).parse().ok()?;
    let pos: Chess = fen.into_position(CastlingMode::Standard).ok()?;
    pos.ep_square(EnPassantMode::Legal)
}

/// Fields 2 and 4 for `board` under `opts`: the flag when given; else, when asked, what the
/// last move among the tinted pairs `tinted` ([`last_move_witness`]) and a king in check say;
/// else the default. `probs_of` gives a square's class probabilities.
pub fn decide(
    board: &Board,
    tinted: &[([Square; 2], f32)],
    probs_of: impl Fn(Square) -> ClassProbs,
    opts: &FenOptions,
) -> SideToMove {
    let mut side = SideToMove {
        color: opts.turn,
        source: if opts.turn_given { TurnSource::Flag } else { TurnSource::Default },
        confidence: if opts.turn_given { 1.0 } else { DEFAULT_CONFIDENCE },
        last_move: None,
        en_passant: None,
        warnings: Vec::new(),
    };
    let wanted = opts.turn_from_picture || opts.en_passant_from_picture;
    let last = if wanted { last_move_witness(board, tinted, &probs_of) } else { None };
    side.last_move = last.map(|(from, to, _, _)| (from, to));
    if opts.turn_from_picture && !opts.turn_given {
        let by_move = last.map(|(_, _, c, p)| (!c, p));
        let by_check = check_witness(board, &probs_of);
        let chosen = match (by_move, by_check) {
            (Some((a, p)), Some((b, q))) if a == b => Some((a, TurnSource::LastMove, 1.0 - (1.0 - p) * (1.0 - q))),
            (Some((a, p)), Some((b, q))) => {
                side.warnings.push(format!(
                    "the last move shown says {a} is to move, but the {b} king is in check: {} decides",
                    if p >= q { "the last move" } else { "the check" }
                ));
                Some(if p >= q {
                    (a, TurnSource::LastMove, p * (1.0 - q))
                } else {
                    (b, TurnSource::Check, q * (1.0 - p))
                })
            }
            (Some((a, p)), None) => Some((a, TurnSource::LastMove, p)),
            (None, Some((b, q))) => Some((b, TurnSource::Check, q)),
            (None, None) => None,
        };
        if let Some((color, source, p)) = chosen {
            side.color = color;
            side.source = source;
            side.confidence = p.clamp(DEFAULT_CONFIDENCE, 1.0);
        }
    }
    if opts.en_passant_from_picture {
        side.en_passant = last
            .filter(|&(_, _, mover, _)| mover != side.color)
            .and_then(|(from, to, _, _)| en_passant_after(board, from, to, side.color));
    }
    side
}
